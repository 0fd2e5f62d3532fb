"""The assembler's blocks: one per part of the message being built.

``TextBlock`` and ``ThinkingBlock`` collect their pieces; ``CallSlot`` is a tool-call slot with
its incremental argument parser and the snapshots ``ToolCallDelta.partial_arguments`` reads.
Both that parser and the one behind ``TextDelta.partial_output`` (structured output: the whole
message text as one JSON value) are a :class:`Snapshots`: deltas kept, parsed lazily and only
once, a snapshot per delta on demand. Plain slotted classes, no logic beyond their own state:
the rules live in the assembler and its tool-call slots (:mod:`.tool_calls`).
"""

from __future__ import annotations

from typing import Any

from .._json.partial import ParseResult, PartialJSON, parse_arguments
from .._messages import TextPart, ThinkingPart, ToolCall

__all__ = ["CallSlot", "Snapshots", "TextBlock", "ThinkingBlock"]


class TextBlock:
    __slots__ = ("index", "key", "open", "parts")

    def __init__(self, key: object, index: int) -> None:
        self.key = key
        self.index = index
        self.parts: list[str] = []
        self.open = True

    def part(self) -> TextPart:
        return TextPart(text="".join(self.parts))


class ThinkingBlock:
    __slots__ = ("index", "key", "open", "parts", "redacted", "replay", "signature")

    def __init__(self, key: object, index: int) -> None:
        self.key = key
        self.index = index
        self.parts: list[str] = []
        self.signature: str | None = None
        self.redacted = False
        self.replay: dict[str, Any] | None = None
        self.open = True

    def part(self) -> ThinkingPart:
        return ThinkingPart(
            thinking="".join(self.parts),
            signature=self.signature,
            redacted=self.redacted,
            replay=self.replay,
        )


class Snapshots:
    """Text deltas parsed as one JSON value, lazily: the parser is fed only when a value is
    asked for, each delta once, and a snapshot a caller holds never changes (the parser's
    structural sharing, :mod:`llmkit._json.partial`). Total cost is linear in the text."""

    __slots__ = ("_parser", "late", "late_at", "parsed", "texts")

    def __init__(self) -> None:
        self._parser = PartialJSON()
        self.parsed = 0  # deltas fed to the parser: it is fed only when a result is needed
        self.texts: list[str] = []  # the deltas
        self.late: PartialJSON | None = None  # a second parser for snapshots read late
        self.late_at = 0  # deltas fed to ``late``

    @property
    def parser(self) -> PartialJSON:
        """The parser, fed every delta received so far."""
        texts = self.texts
        if self.parsed < len(texts):
            feed = self._parser.feed
            for text in texts[self.parsed :]:
                feed(text)
            self.parsed = len(texts)
        return self._parser

    def snapshot_at(self, k: int) -> Any:
        """The partial value after the first ``k`` deltas.

        The parser is fed only when a value is asked for, and only up to the delta asked
        about: reading every delta's snapshot in order — on time, or late because the events
        of one network read are decoded before the caller sees them, or after the stream —
        feeds each delta once. Reading an earlier delta than the parser has reached uses a
        second parser, fed from the start (or on from where it stopped, if reads go forward
        again): correct in any order, linear when reads go forward.
        """
        parsed = self.parsed
        if k == parsed + 1:  # the usual case: the next delta
            self.parsed = k
            return self._parser.snapshot_after(self.texts[parsed])
        if k >= parsed:  # later deltas, or this one again
            parser = self._parser
            feed = parser.feed
            for text in self.texts[parsed:k]:
                feed(text)
            self.parsed = k
        else:
            late = self.late
            if late is None or self.late_at > k:
                late = self.late = PartialJSON()
                self.late_at = 0
            for text in self.texts[self.late_at : k]:
                late.feed(text)
            self.late_at = k
            parser = late
        return parser.snapshot()


class CallSlot(Snapshots):
    """One tool-call slot: a call being assembled from the deltas at one provider index."""

    __slots__ = (
        "aliases",
        "call",
        "fed",
        "id",
        "index",
        "missing_index",
        "name",
        "name_conflict",
        "ordinal",
        "pid",
        "replay",
        "started",
        "wire_index",
    )

    def __init__(self, wire_index: int, ordinal: int) -> None:
        Snapshots.__init__(self)
        self.wire_index = wire_index
        self.ordinal = ordinal
        self.index = -1  # position in message.content, assigned when the call starts
        self.pid = ""  # the provider's id (first non-empty)
        self.aliases: set[str] = set()
        self.id = ""
        self.name = ""
        self.name_conflict = False
        self.missing_index = False
        self.fed = 0  # characters of argument text received
        self.replay: dict[str, Any] | None = None
        self.started = False
        self.call: ToolCall | None = None  # set once finalised

    def raw(self) -> str:
        """All the argument text received."""
        return "".join(self.texts)

    def finish(self, raw: str) -> ParseResult:
        """The final classification of ``raw`` (this call's whole text).

        While snapshots are still to be read, the parser is not fed the rest of the text (they
        would then start a second parser): the text is classified on its own, which for strict
        JSON — most calls — is one ``json.loads``.
        """
        if self.parsed < len(self.texts):
            return parse_arguments(raw)
        return self.parser.finish()
