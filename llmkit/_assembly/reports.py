"""The assembler's output: its events, its diagnostics, and the reporting rules of every wire.

:class:`Reports` is what the assembler and its tool-call slots write to. It holds the rules that
hold for every wire API, once (decoders reach them through the delta sink): a wrong-typed
provider value is reported and kept as text when it is a scalar; malformed events are reported
one by one up to :data:`MAX_MALFORMED` per stream, then once more to say the rest go
unreported (a server spewing garbage must not grow the message without end); an unknown event
type is reported once.
"""

from __future__ import annotations

from typing import Any

from .._diagnostics import Diagnostic, DiagnosticKind
from .._events import DiagnosticEvent, Event

__all__ = ["MAX_MALFORMED", "Reports"]

MAX_MALFORMED = 100
"""Malformed events reported one by one per stream; one more diagnostic says the rest are not."""


class Reports:
    """Events out (``emit``, collected in ``out``) and diagnostics (kept and emitted)."""

    __slots__ = ("_malformed", "_once", "diagnostics", "emit", "out")

    def __init__(self) -> None:
        self.out: list[Event] = []
        self.emit = self.out.append  # bound once: ``out`` is drained in place
        self.diagnostics: list[Diagnostic] = []
        self._malformed = 0
        self._once: set[str] = set()

    def drain(self) -> list[Event]:
        """The events emitted since the last drain."""
        events = self.out[:]
        self.out.clear()
        return events

    def add(self, diagnostic: Diagnostic) -> None:
        """Keep ``diagnostic`` for the message and emit it as a ``DiagnosticEvent``."""
        self.diagnostics.append(diagnostic)
        self.emit(DiagnosticEvent(diagnostic))

    def report(
        self,
        kind: DiagnosticKind,
        message: str,
        tool_call_id: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Report a repair, inference, rewrite or drop."""
        self.add(
            Diagnostic(kind=kind, message=message, tool_call_id=tool_call_id, details=details or {})
        )

    def malformed(self, message: str, *, once: str | None = None, **details: Any) -> None:
        """``event_malformed``: capped per stream; ``once`` reports a key's first only."""
        if once is not None:
            once = f"malformed:{once}"
            if once in self._once:
                return
            self._once.add(once)
        self._malformed += 1
        if self._malformed <= MAX_MALFORMED:
            self.report("event_malformed", message, None, details)
        elif self._malformed == MAX_MALFORMED + 1:
            self.report(
                "event_malformed",
                f"More than {MAX_MALFORMED} malformed events: further ones are skipped unreported",
                None,
                {"suppressed": True},
            )

    def unknown(self, key: str, message: str, **details: Any) -> None:
        """``event_unknown``, once per ``key``."""
        key = f"unknown:{key}"
        if key not in self._once:
            self._once.add(key)
            self.report("event_unknown", message, None, details)

    def wrong_type(self, what: str, value: Any) -> str | None:
        """A provider value of the wrong type: reported (capped like a malformed event), and
        kept as text when it is a number (a numeric id still identifies its call)."""
        kept = (
            str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        )
        self.malformed(
            f"The provider sent a {type(value).__name__} as {what}", field=what, kept=kept
        )
        return kept
