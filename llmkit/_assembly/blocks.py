"""The assembler's blocks: one per part of the message being built.

``TextBlock`` and ``ThinkingBlock`` collect their pieces; ``CallSlot`` is a tool-call slot with
its incremental argument parser (``args``, a :class:`~llmkit._json.partial.PartialJSON`: the
deltas kept, parsed lazily and only once, the value after each delta on demand, which
``ToolCallDelta.partial_arguments`` reads). Plain slotted classes, no logic beyond their own
state: the rules live in the assembler and its tool-call slots (:mod:`.tool_calls`).
"""

from __future__ import annotations

from typing import Any

from .._json.partial import ParseResult, PartialJSON, parse_arguments
from .._messages import Citation, TextPart, ThinkingPart, ToolCall

__all__ = ["CallSlot", "TextBlock", "ThinkingBlock"]


class TextBlock:
    __slots__ = ("byte_offsets", "citations", "index", "key", "open", "parts")

    def __init__(self, key: object, index: int) -> None:
        self.key = key
        self.index = index
        self.parts: list[str] = []
        self.citations: list[Citation] | None = None  # made on the first citation
        # positions (in ``citations``) of those whose start/end count UTF-8 bytes until the end
        self.byte_offsets: list[int] | None = None
        self.open = True

    def part(self) -> TextPart:
        if self.citations:
            return TextPart(text="".join(self.parts), citations=list(self.citations))
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


class CallSlot:
    """One tool-call slot: a call being assembled from the deltas at one provider index."""

    __slots__ = (
        "aliases",
        "args",
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
        "texts",
        "wire_index",
    )

    def __init__(self, wire_index: int, ordinal: int) -> None:
        # The argument text's deltas and their values, parsed only when read (the parser's own
        # list: appending to it is feeding it).
        self.args = PartialJSON()
        self.texts = self.args.deltas
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
        return self.args.raw

    def finish(self, raw: str) -> ParseResult:
        """The final classification of ``raw`` (this call's whole text).

        While snapshots are still to be read, the parser is not fed the rest of the text (they
        would then start a second parser): the text is classified on its own, which for strict
        JSON — most calls — is one ``json.loads``.
        """
        args = self.args
        if args.parsed < len(args.deltas):
            return parse_arguments(raw)
        return args.finish()
