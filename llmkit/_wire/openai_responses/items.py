"""The output items of a Responses turn as the decoder tracks them: their kinds, and the
replay data each kind keeps. Each output item becomes one part.

Per item (see :mod:`.decode`):

- ``message`` → one TextPart: its ``output_text`` parts, or its refusal text (``refusal``
  parts; the turn then ends with ``stop_reason="refusal"``). The parts' ``annotations``
  (whole, or streamed as ``response.output_text.annotation.added``; each taken once) are its
  citations. The message item's envelope is kept per TextPart, in TextPart order:
  ``message.provider_data["message_ids"]`` (always), ``["message_phases"]`` (``commentary`` /
  ``final_answer``, gpt-5.x; when any message has one) and ``["message_statuses"]`` (from the
  complete item; when any is not ``completed``). The phase is sent back with the text (OpenAI
  asks for it); the id and status go back with a cited text, sent as its output message. A
  message item that ends without any text is reported (``event_malformed``): nothing of it is
  kept. An audio answer's transcript (``response.audio.transcript.delta``) is a TextPart of its
  own (entries ``None``), its audio (``response.audio.delta``, joined) kept in
  ``message.provider_data["audio"]["data"]``, as on the Chat wire;
- ``reasoning`` → one ThinkingPart: summary and reasoning-text parts joined by a blank line,
  ``replay={"id", "summary", "encrypted_content", "status"}`` as ``response.output_item.added``
  has them, replaced by ``.done``'s (the encrypted content on ``.added`` is that of the
  reasoning so far: a stream cut before ``.done`` keeps it);
- ``function_call`` → a ToolCall with ``id`` = ``call_id`` and ``replay={"item_id": "fc_…"}``
  (plus the call's ``status``, ``namespace`` and ``caller`` when sent, to go back with it);
- every other call the caller runs (``custom_tool_call``, ``computer_call``, ``shell_call``,
  ``local_shell_call``, ``apply_patch_call``, ``mcp_approval_request``) → a ToolCall too, as
  :mod:`.calls` describes (names, arguments, replay); the turn then ends ``tool_use``. A
  ``shell_call`` in OpenAI's container (``environment.type == "container_reference"``) is not
  the caller's to run: it is a hosted item (below);
- any other item — a hosted tool's call or output (web search, file search, code interpreter,
  image generation, MCP, …) — is kept whole, in place, as an opaque ThinkingPart whose
  ``replay["item"]`` is the item as sent (the ``.done`` version once it arrives), to be sent
  back verbatim to the same model; its progress events (code, MCP arguments, shell commands
  and output, image previews) are folded into it until ``.done`` replaces it (:mod:`.progress`).
  An item type llmkit does not know is kept the same way and reported once (``event_unknown``).

An item (or a reasoning summary part) whose status is ``incomplete`` in a response that
completed is reported (``stop_reason_conflict``): the stop reason does not say it. In a response
that ended ``incomplete``, the stop reason does.
"""

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
    "input_form",
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
        "shell_call",  # in OpenAI's container (item_kind)
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
# The fields of a function or custom call that go back with it as they came (and a function
# call's status: a custom call's input item takes none).
_CALL_FIELDS = ("namespace", "caller", "async")
PASSED_BACK = ("status", *_CALL_FIELDS)
# Item kinds whose content streams through events of their own (the others: in the item).
STREAMED = frozenset({"message", "reasoning", "function_call", CUSTOM})


class Item:
    """One output item, by output index."""

    __slots__ = (
        *("cited", "ended", "id", "index", "kind", "phase", "snapshot", "status", "texts"),
        "thought",
    )

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
        self.status: str | None = None  # a message's status, from its complete form
        self.ended = False
        # A structured call or hosted item as known so far: .added with its progress events
        # folded in (.progress); a call's arguments if no .done ever comes.
        self.snapshot: dict[str, Any] | None = None

    def text_before(self, ci: int) -> int:
        """How much text the output_text / refusal parts before content part ``ci`` hold (one
        TextPart holds them all, so this shifts part ``ci``'s citation offsets)."""
        return sum(
            sum(map(len, pieces))
            for (kind, j), pieces in self.texts.items()
            if j < ci and kind in ("text", "refusal")
        )


def input_form(item: dict[str, Any]) -> dict[str, Any]:
    """A kept output item as the request's input union takes it back: without the fields only
    a response has (``created_by``; a ``custom_tool_call_output``'s ``status``; the
    ``partial_image_index`` of an image preview folded in, :mod:`.progress`)."""
    drop = _RESPONSE_ONLY.get(item.get("type"), _CREATED_BY)
    if not any(k in item for k in drop):
        return item
    return {k: v for k, v in item.items() if k not in drop}


_CREATED_BY = ("created_by",)
_RESPONSE_ONLY: dict[Any, tuple[str, ...]] = {
    "custom_tool_call_output": ("created_by", "status"),
    "image_generation_call": ("created_by", "partial_image_index"),
}


def item_kind(obj: dict[str, Any]) -> str:
    kind = obj.get("type")
    if kind == "shell_call" and _hosted_shell(obj.get("environment")):
        return "hosted"  # run by OpenAI in its container: its output follows in the response
    return kind if isinstance(kind, str) and kind in KINDS else "hosted"


def _hosted_shell(environment: Any) -> bool:
    """A shell call's ``environment`` that is not the caller's (``container_reference``)."""
    return isinstance(environment, dict) and environment.get("type") not in (None, "local")


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
        elif isinstance(obj.get("status"), str):
            replay["status"] = obj["status"]  # a function_call input item takes it back
        for key in _CALL_FIELDS:
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
    if isinstance(obj.get("status"), str):
        replay["status"] = obj["status"]
    return replay
