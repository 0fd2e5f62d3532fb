"""Anthropic prompt caching: the ``cache`` option and ``CachePoint`` parts as ``cache_control``.

- ``cache="short"`` sends the top-level ``cache_control: {"type": "ephemeral"}`` (Anthropic then
  marks the last cacheable block itself); ``"long"`` adds ``"ttl": "1h"``, and every explicit
  breakpoint then carries ``"ttl": "1h"`` too (Anthropic refuses a 1-hour breakpoint after a
  5-minute one); ``"off"`` sends no ``cache_control`` at all (cache points included, reported).
- A :class:`~llmkit.CachePoint` is a marker block while the messages are mapped
  (:data:`MARK`); :func:`place` then puts ``cache_control`` on the cacheable block before each
  marker, in prompt order (tools, system, messages; a tool result's own content included), and
  removes the markers. Thinking blocks and empty (or whitespace-only) text blocks cannot carry
  one, so the block before them is taken.
- At most 4 breakpoints per request, the top-level one included: the latest are kept (the
  longest prefixes), the earlier ones are reported (``option_unsupported``).
"""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._models import Model
from ..contract import Options
from ..request_features import unsupported

__all__ = ["MARK", "MAX_BREAKPOINTS", "control", "place"]

MARK = "cache_point"
"""The ``type`` of the marker block a CachePoint becomes until :func:`place` removes it."""

MAX_BREAKPOINTS = 4
"""Anthropic's limit of blocks with ``cache_control`` in one request."""

_UNCACHEABLE = frozenset({"thinking", "redacted_thinking", MARK})


def _cacheable(block: dict[str, Any]) -> bool:
    # Anthropic refuses cache_control on an empty text block; a whitespace-only one is taken
    # as empty too (the fake provider refuses it likewise).
    if block.get("type") == "text":
        return bool(str(block.get("text", "")).strip())
    return block.get("type") not in _UNCACHEABLE


def long_cache(model: Model) -> bool:
    """Whether 1-hour cache entries may be asked for (flag first; every Claude model can)."""
    return model.long_cache is not False


def control(model: Model, opts: Options, diags: list[Diagnostic]) -> dict[str, Any] | None:
    """The ``cache_control`` object every breakpoint of this request carries (``None``:
    ``cache="off"``, no breakpoints at all)."""
    if opts.cache == "off":
        return None
    if opts.cache == "long":
        if long_cache(model):
            return {"type": "ephemeral", "ttl": "1h"}
        unsupported(diags, "cache='long'", f"{model.id} has no 1-hour cache; sent 'short'")
    return {"type": "ephemeral"}


def place(
    body: dict[str, Any],
    cache: dict[str, Any] | None,
    diags: list[Diagnostic],
    *,
    top_level: bool,
) -> None:
    """Turn the CachePoint markers in ``body`` into ``cache_control`` on the block before each
    (see the module docstring), and add the top-level one when ``top_level``.

    ``cache`` is the control from :func:`control`; ``None`` drops every marker (reported).
    """
    seq: list[dict[str, Any]] = []  # cacheable blocks in prompt order
    targets: list[dict[str, Any]] = []
    orphans = 0  # markers with nothing cacheable before them
    seq.extend(t for t in body.get("tools", ()) if isinstance(t, dict))
    system = body.get("system")
    system_block = {"type": "text", "text": system} if isinstance(system, str) else None
    if system_block is not None:
        seq.append(system_block)

    def walk(blocks: list[Any]) -> None:
        nonlocal orphans
        kept: list[Any] = []
        for block in blocks:
            if not (isinstance(block, dict) and block.get("type") == MARK):
                kept.append(block)
                seq.append(block)
                inner = block.get("content") if block.get("type") == "tool_result" else None
                if isinstance(inner, list):
                    walk(inner)
                    if not inner:
                        del block["content"]
                continue
            target = next((b for b in reversed(seq) if _cacheable(b)), None)
            if target is None:
                orphans += 1
            elif not any(t is target for t in targets):  # two points in a row: one breakpoint
                targets.append(target)
        blocks[:] = kept

    for message in body.get("messages", ()):
        if isinstance(message.get("content"), list):
            walk(message["content"])
    if cache is None:
        if targets or orphans:
            unsupported(
                diags,
                "CachePoint",
                "cache='off': no cache_control is sent",
                dropped=len(targets) + orphans,
            )
        return
    if orphans:
        unsupported(diags, "CachePoint", "nothing cacheable comes before it", dropped=orphans)
    room = MAX_BREAKPOINTS - (1 if top_level else 0)
    if len(targets) > room:
        dropped = len(targets) - room
        unsupported(
            diags,
            "CachePoint",
            f"Anthropic takes at most {MAX_BREAKPOINTS} breakpoints per request"
            + (" (the top-level cache_control is one)" if top_level else "")
            + f"; the {dropped} earliest were not sent",
            dropped=dropped,
        )
        targets = targets[dropped:]
    for target in targets:
        target["cache_control"] = dict(cache)
    if system_block is not None and "cache_control" in system_block:
        body["system"] = [system_block]
    if top_level:
        body["cache_control"] = dict(cache)
