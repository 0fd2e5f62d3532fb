"""Reasoning levels → each model's own wire values, in one place.

``reasoning`` takes ``"off"``, ``"minimal"``, ``"low"``, ``"medium"``, ``"high"``, ``"xhigh"``
and ``"max"``. A catalogued model lists what it takes (``Model.reasoning_efforts`` from
models.dev's ``reasoning_options``: effort values; ``Model.reasoning_budget`` for budget-only
models: a token range); a model the catalogue does not describe takes the levels its wire
names. A level the model lacks goes to the nearest lower level it has (its lowest if none is
lower), reported as ``option_unsupported`` — never sent as a value the server refuses.

Each wire's request builder calls :func:`effort` or :func:`budget` where it maps
``reasoning``; what it does with ``"off"`` stays the wire's own (:func:`off_effort` tells
whether the model has an effort value for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ._errors import InvalidRequestError

if TYPE_CHECKING:
    from ._models import Model

__all__ = ["BUDGETS", "CLASSIC", "LEVELS", "budget", "effort", "off_effort", "refuse"]

LEVELS: tuple[str, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")
"""The levels that turn reasoning on, lowest first."""

CLASSIC: tuple[str, ...] = ("minimal", "low", "medium", "high")
"""The levels a model the catalogue does not describe takes on a wire that names no others:
``"xhigh"`` and ``"max"`` go to ``"high"`` there (reported)."""

BUDGETS: dict[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32768,
}
"""Thinking-token budgets per level on budget-only models; ``"max"`` is the model's own
maximum (``Model.reasoning_budget["max"]``), a level such a model has only when it is known."""

Report = Callable[[str, str], None]
"""``(option, why)``: the wire's ``option_unsupported`` reporter."""


def _nearest(level: str, have: Sequence[str]) -> str:
    rank = LEVELS.index(level)
    lower = [v for v in have if LEVELS.index(v) < rank]
    return max(lower, key=LEVELS.index) if lower else min(have, key=LEVELS.index)


def effort(model: Model, level: str, wire_levels: Sequence[str], report: Report) -> str:
    """The effort value to send for ``level`` (one of :data:`LEVELS`).

    Args:
        model: The model; its ``reasoning_efforts`` (when the catalogue has them) win.
        level: The caller's level.
        wire_levels: The levels the wire takes for a model the catalogue does not describe.
        report: Called once when the level sent is not the one asked for.
    """
    known = model.reasoning_efforts
    have = [v for v in (known if known else wire_levels) if v in LEVELS]
    if not have or level in have:
        return level
    sent = _nearest(level, have)
    report(
        f"reasoning={level!r}", f"{model.id} takes reasoning levels {tuple(have)}; sent {sent!r}"
    )
    return sent


def off_effort(model: Model) -> str | None:
    """The effort value that turns reasoning off (``"none"``) where the model lists one."""
    efforts = model.reasoning_efforts or ()
    return "none" if "none" in efforts else None


def budget(model: Model, level: str, report: Report, budgets: dict[str, int] = BUDGETS) -> int:
    """The thinking-token budget to send for ``level`` (one of :data:`LEVELS`), within the
    model's ``reasoning_budget`` range where the catalogue knows it. The caller still bounds it
    by ``max_tokens`` (and reports that itself).

    Args:
        model: The model.
        level: The caller's level.
        report: Called once when the level sent is not the one asked for.
        budgets: The wire's budget per level below ``"max"`` (default :data:`BUDGETS`).
    """
    bounds = model.reasoning_budget or {}
    top = bounds.get("max")
    if top is None:
        have = [lv for lv in LEVELS if lv in budgets]
    else:
        have = [lv for lv in LEVELS if lv == "max" or budgets.get(lv, top + 1) <= top]
    sent = level if level in have else _nearest(level, have)
    if sent != level:
        report(
            f"reasoning={level!r}",
            f"{model.id} takes thinking budgets up to {top}; sent {sent!r}"
            if top is not None
            else f"{model.id}'s largest thinking budget is not known; sent {sent!r}",
        )
    value = top if sent == "max" and top is not None else budgets[sent]
    return max(value, bounds.get("min", 0))


def refuse(level: object) -> InvalidRequestError:
    """The error for a ``reasoning`` value that is no level."""
    levels = ", ".join(repr(lv) for lv in ("off", *LEVELS))
    return InvalidRequestError(f"reasoning must be one of {levels}, not {level!r}")
