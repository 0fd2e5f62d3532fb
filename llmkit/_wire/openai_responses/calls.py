"""Client-side tool calls of the Responses API: the output items the caller must act on, as
:class:`~llmkit.ToolCall` s, and the input items that carry them and their results back.

Besides ``function_call``, a model may ask the caller to run a call of another item type. Each
becomes a ToolCall (the turn ends ``tool_use``) whose ``replay["type"]`` is the item type:

==========================  =======================  =========================================
item type                   ``ToolCall.name``        ``ToolCall.arguments``
==========================  =======================  =========================================
``custom_tool_call``        the custom tool's name   none: the freeform ``input`` is
                                                     ``raw_arguments`` (not JSON, so the
                                                     status is not ``complete``)
``computer_call``           ``"computer"``           ``action`` / ``actions``,
                                                     ``pending_safety_checks``
``shell_call``              ``"shell"``              ``action`` (``commands``, ...),
                                                     ``environment``
``local_shell_call``        ``"local_shell"``        ``action`` (``command``, ``env``, ...)
``apply_patch_call``        ``"apply_patch"``        ``operation`` (``type``, ``path``, ``diff``)
``mcp_approval_request``    the MCP tool's name      the MCP tool's arguments
==========================  =======================  =========================================

A structured call's arguments are its item's fields other than the envelope (``type``, ``id``,
``call_id``, ``status``, ``caller``, ``created_by``; an approval request's ``server_label``), so
``raw_arguments`` is their JSON text; the envelope is kept in ``replay["item"]``. The call's
``id`` is ``call_id`` (an approval request has none: its item ``id``).

On replay each call goes back as its own item type, rebuilt from the envelope and the call's
arguments with only the fields the SDK's ``ResponseInputItemParam`` takes, and a tool result for
it as the matching output item:

- ``custom_tool_call_output``: ``output`` is the result (text, or inline images and files);
- ``computer_call_output``: the result's first image as the ``computer_screenshot``; a result
  for the call acknowledges its ``pending_safety_checks`` (the caller ran the action having
  seen them); anything else in the result (text, more images) is reported, not sent;
- ``shell_call_output``: the result's text as ``stdout`` with exit code 0 (``stderr`` and exit
  code 1 when ``is_error``); a result whose text is the output list itself (JSON) goes verbatim;
- ``local_shell_call_output``: the result's text;
- ``apply_patch_call_output``: ``status`` ``completed`` (``failed`` when ``is_error``) and the
  text as ``output``;
- ``mcp_approval_response``: ``approve`` unless ``is_error``; the text, if any, is the
  ``reason``.
"""

from __future__ import annotations

import json
from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import ImagePart, ToolCall, ToolResultMessage
from ..prepare import arguments_json
from ..request_features import result_text

__all__ = [
    "CALL_TYPES",
    "CUSTOM",
    "MCP_APPROVAL",
    "call_arguments",
    "call_envelope",
    "call_id",
    "call_input_item",
    "call_name",
    "call_output_item",
]

CUSTOM = "custom_tool_call"  # ToolCall.replay["type"] of a freeform (custom tool) call
MCP_APPROVAL = "mcp_approval_request"
# Structured client-side calls: item type → ToolCall.name.
STRUCTURED: dict[str, str] = {
    "computer_call": "computer",
    "shell_call": "shell",
    "local_shell_call": "local_shell",
    "apply_patch_call": "apply_patch",
}
CALL_TYPES = frozenset({"function_call", CUSTOM, MCP_APPROVAL, *STRUCTURED})
"""Every output item type that is a call the caller runs (a ToolCall)."""

ENVELOPE = ("id", "status", "caller", "created_by", "server_label")
_NOT_ARGUMENTS = frozenset({"type", "call_id", *ENVELOPE})
# The fields each call item takes in a request (openai's ResponseInputItemParam members).
INPUT_FIELDS: dict[str, tuple[str, ...]] = {
    "computer_call": (
        *("type", "id", "call_id", "action", "actions", "pending_safety_checks", "status"),
    ),
    "shell_call": ("type", "id", "call_id", "action", "caller", "environment", "status"),
    "local_shell_call": ("type", "id", "call_id", "action", "status"),
    "apply_patch_call": ("type", "id", "call_id", "operation", "caller", "status"),
    MCP_APPROVAL: ("type", "id", "name", "arguments", "server_label"),
}
ID_OPTIONAL = frozenset({"shell_call", "apply_patch_call"})
OUTPUT_TYPES: dict[str, str] = {
    CUSTOM: "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "shell_call": "shell_call_output",
    "local_shell_call": "local_shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    MCP_APPROVAL: "mcp_approval_response",
}


# -- decoding ---------------------------------------------------------------------------------


def call_id(obj: dict[str, Any]) -> str | None:
    """The ToolCall id of a call item: its ``call_id`` (an approval request's item ``id``)."""
    value = obj.get("id") if obj.get("type") == MCP_APPROVAL else obj.get("call_id")
    return value if isinstance(value, str) and value else None


def call_name(obj: dict[str, Any]) -> str | None:
    """The ToolCall name of a call item (see the module docstring)."""
    kind = obj.get("type")
    if isinstance(kind, str) and kind in STRUCTURED:
        return STRUCTURED[kind]
    name = obj.get("name")
    return name if isinstance(name, str) and name else None


def call_arguments(obj: dict[str, Any]) -> str | None:
    """The argument text of a complete call item: the freeform input, the JSON arguments, or
    (structured calls) the JSON of the item's non-envelope fields."""
    kind = obj.get("type")
    if kind in STRUCTURED:
        fields = {k: v for k, v in obj.items() if k not in _NOT_ARGUMENTS}
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    value = obj.get("input" if kind == CUSTOM else "arguments")
    return value if isinstance(value, str) else None


def call_envelope(obj: dict[str, Any]) -> dict[str, Any]:
    """What a structured call or approval request keeps in ``replay["item"]``."""
    return {k: obj[k] for k in ENVELOPE if k in obj and obj[k] is not None}


# -- request ----------------------------------------------------------------------------------


def call_input_item(call: ToolCall, with_id: bool) -> dict[str, Any] | None:
    """The input item of a client-side call other than ``function_call`` / custom (``None``:
    not one of them). ``with_id``: send the item id where it is optional (as for a
    ``function_call``, only with the reasoning item it follows, QUIRKS F4)."""
    replay = call.replay or {}
    kind = replay.get("type")
    if kind not in INPUT_FIELDS:
        return None
    envelope = replay.get("item")
    envelope = envelope if isinstance(envelope, dict) else {}
    if kind == MCP_APPROVAL:
        return {
            "type": kind,
            "id": call.id,
            "name": call.name,
            "arguments": arguments_json(call),
            "server_label": str(envelope.get("server_label") or ""),
        }
    item: dict[str, Any] = {**envelope, **call.arguments, "type": kind, "call_id": call.id}
    if kind in ID_OPTIONAL and not with_id:
        item.pop("id", None)
    elif kind not in ID_OPTIONAL:  # required: the item's own, else the call's
        item.setdefault("id", call.id)
    item.setdefault("status", "completed")
    if kind == "computer_call":
        item.setdefault("pending_safety_checks", [])
    fields = INPUT_FIELDS[kind]
    return {k: item[k] for k in fields if k in item}


def call_output_item(
    m: ToolResultMessage, call: ToolCall, diags: list[Diagnostic]
) -> dict[str, Any] | None:
    """The output item answering a structured call or approval request (``None``: ``call`` is
    neither; a custom call's output is built with the function outputs)."""
    kind = (call.replay or {}).get("type")
    if kind not in INPUT_FIELDS:
        return None
    text = result_text(m.content)
    out_type = OUTPUT_TYPES[kind]
    if kind == MCP_APPROVAL:
        response: dict[str, Any] = {
            "type": out_type,
            "approval_request_id": m.tool_call_id,
            "approve": not m.is_error,
        }
        if text:
            response["reason"] = text
        return response
    if kind == "local_shell_call":
        return {"type": out_type, "id": m.tool_call_id, "output": text}
    if kind == "apply_patch_call":
        status = "failed" if m.is_error else "completed"
        return {"type": out_type, "call_id": m.tool_call_id, "status": status, "output": text}
    if kind == "shell_call":
        return {"type": out_type, "call_id": m.tool_call_id, "output": _shell_output(text, m)}
    return _computer_output(m, call, diags)


def _shell_output(text: str, m: ToolResultMessage) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, list) and value and all(_shell_chunk(v) for v in value):
        return value  # the caller wrote the output list itself
    if m.is_error:
        return [{"stdout": "", "stderr": text, "outcome": {"type": "exit", "exit_code": 1}}]
    return [{"stdout": text, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]


def _shell_chunk(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("stdout"), str)
        and isinstance(value.get("stderr"), str)
        and isinstance(value.get("outcome"), dict)
    )


def _computer_output(
    m: ToolResultMessage, call: ToolCall, diags: list[Diagnostic]
) -> dict[str, Any]:
    screenshot: dict[str, Any] = {"type": "computer_screenshot"}
    images = [p for p in m.content if isinstance(p, ImagePart)]
    if images:
        image = images[0]
        url = image.url if image.url is not None else f"data:{image.media_type};base64,{image.data}"
        screenshot["image_url"] = url
    text = result_text(m.content)
    if not images or len(images) > 1 or text:
        # A computer_call_output is one screenshot: nothing else of the result can go.
        diags.append(
            Diagnostic(
                kind="option_unsupported",
                message="A computer_call_output carries one screenshot: of the tool result for "
                f"{m.tool_call_id}, only its first image was sent",
                tool_call_id=m.tool_call_id,
                details={"option": "tool_result", "images": len(images), "text": bool(text)},
            )
        )
    out: dict[str, Any] = {"type": "computer_call_output", "call_id": m.tool_call_id}
    out["output"] = screenshot
    checks = call.arguments.get("pending_safety_checks")
    if checks and isinstance(checks, list) and not m.is_error:
        out["acknowledged_safety_checks"] = checks
    return out
