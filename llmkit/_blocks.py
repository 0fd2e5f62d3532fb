"""The assembler's blocks: one per part of the message being built.

``Text`` and ``Thinking`` collect their pieces; ``Call`` is a tool-call slot with its
incremental argument parser and the snapshots ``ToolCallDelta.partial_arguments`` reads.
Plain slotted classes, no logic beyond their own state: the rules live in the assembler.
"""

from __future__ import annotations

from typing import Any

from ._messages import TextPart, ThinkingPart, ToolCall
from ._partial_json import PartialJSON

__all__ = ["Call", "Text", "Thinking"]


class Text:
    __slots__ = ("index", "key", "open", "parts")

    def __init__(self, key: object, index: int) -> None:
        self.key = key
        self.index = index
        self.parts: list[str] = []
        self.open = True

    def part(self) -> TextPart:
        return TextPart(text="".join(self.parts))


class Thinking:
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


class Call:
    """One tool-call slot."""

    __slots__ = (
        "aliases",
        "call",
        "fed",
        "id",
        "index",
        "late",
        "late_at",
        "missing_index",
        "name",
        "name_conflict",
        "ordinal",
        "parser",
        "pid",
        "replay",
        "snap_at",
        "snap_value",
        "started",
        "texts",
        "wire_index",
    )

    def __init__(self, wire_index: int, ordinal: int) -> None:
        self.wire_index = wire_index
        self.ordinal = ordinal
        self.index = -1  # position in message.content, assigned when the call starts
        self.pid = ""  # the provider's id (first non-empty)
        self.aliases: set[str] = set()
        self.id = ""
        self.name = ""
        self.name_conflict = False
        self.missing_index = False
        self.parser = PartialJSON()
        self.fed = 0  # characters of argument text received
        self.texts: list[str] = []  # the argument deltas, for snapshots read late
        self.replay: dict[str, Any] | None = None
        self.started = False
        self.call: ToolCall | None = None  # set once finalised
        self.snap_at = -1
        self.snap_value: Any = None
        self.late: PartialJSON | None = None  # a second parser for snapshots read late
        self.late_at = 0  # deltas fed to ``late``

    def snapshot_at(self, k: int) -> Any:
        """The partial value after the first ``k`` argument deltas.

        Read on time (no later delta yet) it comes from the main parser. Read late — events
        of one network read are decoded before the caller sees them, or the caller reads
        after the stream — a second parser is fed forward to delta ``k``, so reading every
        delta in order stays linear either way; only reading backwards starts it again.
        """
        if k == self.snap_at:
            return self.snap_value
        if k == len(self.texts):
            value = self.parser.snapshot()
        else:
            late = self.late
            if late is None or self.late_at > k:
                late = self.late = PartialJSON()
                self.late_at = 0
            for text in self.texts[self.late_at : k]:
                late.feed(text)
            self.late_at = k
            value = late.snapshot()
        self.snap_at, self.snap_value = k, value
        return value
