"""Stream events: what ``stream()``/``astream()``/``parse_stream()`` yield.

Events are immutable slotted dataclasses (cheap to build on the hot path) with a ``Literal``
``type``. Block events carry ``index``: the position of their part in ``message.content``;
the others have ``index = None``. Every stream is::

    Start, (DiagnosticEvent)*, then per block: XStart, XDelta*, XEnd (blocks may interleave),
    UsageEvent*, DiagnosticEvent*, and exactly one terminal Done or ErrorEvent.

``ErrorEvent`` ends the stream exactly when ``message.stop_reason`` is ``"error"`` or ``"aborted"``;
its ``message`` is the partial message, valid to append to the transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, Union, cast

from ._diagnostics import Diagnostic
from ._errors import LLMError
from ._messages import AssistantMessage, Citation, ToolCall, Usage

__all__ = [
    "DiagnosticEvent",
    "Done",
    "ErrorEvent",
    "Event",
    "Start",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageEvent",
]


@dataclass(frozen=True, slots=True)
class Start:
    """The response began (the first byte of a successful response arrived)."""

    provider: str | None = None
    model: str | None = None
    type: Literal["start"] = "start"
    index: None = None


@dataclass(frozen=True, slots=True)
class TextStart:
    """A text part opened at ``index``."""

    index: int
    type: Literal["text_start"] = "text_start"


@dataclass(frozen=True, slots=True)
class TextDelta:
    """More text for the part at ``index``.

    ``partial_output``: when the request gave ``response_format`` (or ``parse_stream`` was
    given one), the best-effort JSON value of the message text received up to and including
    this delta (all text parts, in order: what ``decode_output`` will validate), else ``None``.
    It is computed only when read, by the same incremental parser as
    ``ToolCallDelta.partial_arguments``: reading it on every delta costs work proportional to
    the text, not to its square. A value a caller holds is never changed later; treat it as
    read-only (completed sub-values are shared with later ones).
    """

    index: int
    delta: str
    type: Literal["text_delta"] = "text_delta"

    @property
    def partial_output(self) -> Any:
        """The partial structured output so far (``None`` without ``response_format``)."""
        return None


class OutputTextDelta(TextDelta):
    """A :class:`TextDelta` of a structured-output stream: ``partial_output`` is computed on
    demand. Equal to, and shown as, the plain TextDelta with the same fields. (A subclass, so
    that a stream without ``response_format`` builds exactly what it always did.)"""

    __slots__ = ("_at", "_source")
    _source: SnapshotSource
    _at: int

    def __init__(self, index: int, delta: str, source: SnapshotSource, at: int) -> None:
        TextDelta.__init__(self, index, delta)
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_at", at)

    @property
    def partial_output(self) -> Any:
        """The partial JSON value of the message text up to and including this delta."""
        return self._source.snapshot_at(self._at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TextDelta):
            return NotImplemented
        return (self.index, self.delta, self.type) == (other.index, other.delta, other.type)

    def __hash__(self) -> int:
        return hash((self.index, self.delta, self.type))

    def __repr__(self) -> str:
        return f"TextDelta(index={self.index!r}, delta={self.delta!r}, type={self.type!r})"


@dataclass(frozen=True, slots=True)
class TextEnd:
    """The text part at ``index`` is complete; ``text`` is all of it, ``citations`` the sources
    the model cited for it (empty when none)."""

    index: int
    text: str
    type: Literal["text_end"] = "text_end"
    citations: list[Citation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ThinkingStart:
    """A thinking part opened at ``index``."""

    index: int
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """More reasoning text for the part at ``index``."""

    index: int
    delta: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True, slots=True)
class ThinkingEnd:
    """The thinking part at ``index`` is complete; ``thinking`` is all of its text."""

    index: int
    thinking: str
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A tool call opened at ``index``; ``id`` is final and stable, ``name`` may be ``""``
    when the provider has not sent it yet."""

    index: int
    id: str
    name: str
    type: Literal["tool_call_start"] = "tool_call_start"


class SnapshotSource(Protocol):
    """What a delta event's partial value is read from: the values of a growing text after
    each of its deltas (the assembler's call slots and structured-output text)."""

    def snapshot_at(self, k: int) -> Any:
        """The partial value after the first ``k`` deltas (``k`` counts from 1)."""
        ...


class _Thunk:
    """A function of no arguments as a :class:`SnapshotSource` (events built by hand)."""

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._fn = fn

    def snapshot_at(self, k: int) -> Any:
        return self._fn()


class ToolCallDelta:
    """More argument text for the call at ``index``.

    ``partial_arguments`` is the best-effort value of the arguments received up to and
    including this delta (never an invented value). It is computed only when read, and
    incrementally: reading it on every delta costs work proportional to what changed, not
    to the whole argument text. Read late (after later deltas), it is still this delta's value.

    Immutable like the other events: its fields are read-only properties over slots. (Not a
    frozen dataclass: building one costs ``object.__setattr__`` per field, and a stream of tool
    calls builds one of these per delta.)
    """

    __slots__ = ("_arguments_delta", "_at", "_id", "_index", "_name", "_source")
    __match_args__ = ("index", "id", "name", "arguments_delta")
    type: Literal["tool_call_delta"] = "tool_call_delta"

    def __init__(
        self,
        index: int,
        id: str,
        name: str,
        arguments_delta: str,
        snapshot: Callable[[], Any] | SnapshotSource,
        at: int = -1,
    ) -> None:
        """``snapshot``: what ``partial_arguments`` returns, computed when read: a function of
        no arguments, or (with ``at``) a :class:`SnapshotSource` asked for its value ``at``
        (the assembler's way: one source per call, no function built per delta)."""
        self._index = index
        self._id = id
        self._name = name
        self._arguments_delta = arguments_delta
        if at < 0:
            self._source: SnapshotSource = _Thunk(cast("Callable[[], Any]", snapshot))
            self._at = 0
        else:  # the assembler's way, once per delta: no cast() call here (it is a function)
            self._source = snapshot  # type: ignore[assignment]  # a SnapshotSource, with ``at``
            self._at = at

    @property
    def index(self) -> int:
        """The call's position in ``message.content``."""
        return self._index

    @property
    def id(self) -> str:
        """The call's id: final and stable from its ``ToolCallStart`` on."""
        return self._id

    @property
    def name(self) -> str:
        """The tool's name (``""`` while the provider has not sent it)."""
        return self._name

    @property
    def arguments_delta(self) -> str:
        """The argument text this delta added, exactly as received."""
        return self._arguments_delta

    @property
    def partial_arguments(self) -> Any:
        """The parsed arguments so far (dict in practice; ``None`` before any value began)."""
        return self._source.snapshot_at(self._at)

    def __repr__(self) -> str:
        return (
            f"ToolCallDelta(index={self.index}, id={self.id!r}, name={self.name!r}, "
            f"arguments_delta={self.arguments_delta!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCallDelta):
            return NotImplemented
        return (self.index, self.id, self.name, self.arguments_delta) == (
            other.index,
            other.id,
            other.name,
            other.arguments_delta,
        )

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # equal by value, not hashable


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call at ``index`` is final: ``tool_call`` has its arguments and status."""

    index: int
    tool_call: ToolCall
    type: Literal["tool_call_end"] = "tool_call_end"


@dataclass(frozen=True, slots=True)
class DiagnosticEvent:
    """llmkit repaired, inferred, rewrote or dropped something (also on message.diagnostics)."""

    diagnostic: Diagnostic
    type: Literal["diagnostic"] = "diagnostic"
    index: None = None


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Token usage so far (the provider may report it more than once; the last one holds)."""

    usage: Usage
    type: Literal["usage"] = "usage"
    index: None = None


@dataclass(frozen=True, slots=True)
class Done:
    """The stream ended normally; ``message`` is the final AssistantMessage."""

    message: AssistantMessage
    type: Literal["done"] = "done"
    index: None = None


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """The stream ended in failure (``stop_reason`` ``"error"`` or ``"aborted"``).

    ``message`` is the partial message (transcript-valid); ``error`` the typed exception,
    exactly what ``complete()`` would raise. (Named ``ErrorEvent``, not ``Error``, so that it
    does not read as an exception class.)
    """

    message: AssistantMessage
    error: LLMError
    type: Literal["error"] = "error"
    index: None = None


Event = Union[
    Start,
    TextStart,
    TextDelta,
    TextEnd,
    ThinkingStart,
    ThinkingDelta,
    ThinkingEnd,
    ToolCallStart,
    ToolCallDelta,
    ToolCallEnd,
    DiagnosticEvent,
    UsageEvent,
    Done,
    ErrorEvent,
]
