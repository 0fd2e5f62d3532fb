"""The output items of a Responses turn as the decoder tracks them: their kinds, and the
replay data each kind keeps (see :mod:`.decode` for how each kind maps to parts)."""

from __future__ import annotations

from typing import Any

from .calls import CALL_TYPES, CUSTOM, call_envelope

__all__ = [
    "KINDS",
    "KNOWN_HOSTED",
    "PASSED_BACK",
    "STREAMED",
    "Item",
    "call_replay",
    "item_kind",
    "reasoning_replay",
]

KINDS = frozenset({"message", "reasoning", *CALL_TYPES})
# Hosted-tool items and the other output items of the SDK's ResponseOutputItem union that the
# input union also takes back: kept and replayed without a report. Any other item type is kept
# too, and reported once.
KNOWN_HOSTED = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_response",
        "tool_search_call",
        "tool_search_output",
        "additional_tools",
        "compaction",
        "program",
        "program_output",
        "function_call_output",
        "custom_tool_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
    }
)
# The fields of a function or custom call that go back with it as they came.
PASSED_BACK = ("namespace", "caller", "async")
# Item kinds whose content streams through events of their own (the others: in the item).
STREAMED = frozenset({"message", "reasoning", "function_call", CUSTOM})


class Item:
    """One output item, by output index."""

    __slots__ = ("added", "cited", "ended", "id", "index", "kind", "phase", "texts", "thought")

    def __init__(self, index: int, kind: str) -> None:
        self.index = index
        self.kind = kind
        self.id: str | None = None  # the item's id (a message with citations is sent back by it)
        self.cited: dict[int, int] | None = None  # content index → annotations taken
        # the text received per segment, as pieces joined only when a done event needs it:
        # ("text" | "refusal", content_index), ("summary", summary_index),
        # ("content", content_index), ("args", 0)
        self.texts: dict[tuple[str, int], list[str]] = {}
        self.thought = False  # some text was emitted (a reasoning part needs a separator)
        self.phase: str | None = None  # a message's "commentary" / "final_answer" label
        self.ended = False
        # a structured call as .added announced it: its arguments if no .done ever comes
        self.added: dict[str, Any] | None = None


def item_kind(obj: dict[str, Any]) -> str:
    kind = obj.get("type")
    return kind if isinstance(kind, str) and kind in KINDS else "hosted"


def call_replay(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A call item's ToolCall.replay: its item id (``function_call`` and ``custom_tool_call``:
    with its ``namespace``, ``caller`` and ``async``, sent back with it); the item type and
    envelope for the other calls."""
    kind = obj.get("type")
    item_id = obj.get("id")
    replay: dict[str, Any] = {}
    if kind in ("function_call", CUSTOM):
        if isinstance(item_id, str) and item_id:
            replay["item_id"] = item_id
        if kind == CUSTOM:
            replay["type"] = CUSTOM
        for key in PASSED_BACK:
            if obj.get(key) is not None:
                replay[key] = obj[key]
    else:
        replay = {"type": kind, "item": call_envelope(obj)}
    return replay or None


def reasoning_replay(obj: dict[str, Any]) -> dict[str, Any]:
    replay: dict[str, Any] = {}
    if isinstance(obj.get("id"), str) and obj["id"]:
        replay["id"] = obj["id"]
    summary = obj.get("summary")
    replay["summary"] = summary if isinstance(summary, list) else []
    if isinstance(obj.get("encrypted_content"), str) and obj["encrypted_content"]:
        replay["encrypted_content"] = obj["encrypted_content"]
    return replay
