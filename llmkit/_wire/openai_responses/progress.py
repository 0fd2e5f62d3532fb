"""Progress events: parts of an output item streamed before its ``response.output_item.done``,
folded into the item as known so far (as the official SDKs' stream accumulators fold them,
openai-node's ``ResponseStream``).

=============================================  ======================  ==========================
event                                          item type               folded into
=============================================  ======================  ==========================
``response.shell_call_command.added/.done``    ``shell_call``          ``action.commands[i]``
``response.shell_call_command.delta``          ``shell_call``          ``action.commands[i]`` +=
``response.shell_call_output_content.delta``   ``shell_call_output``   ``output[i]`` ``stdout``,
                                                                       ``stderr`` +=
``response.shell_call_output_content.done``    ``shell_call_output``   ``output[i]`` (the chunks)
``response.code_interpreter_call_code.*``      ``code_interpreter_``   ``code``
                                               ``call``
``response.mcp_call_arguments.*``              ``mcp_call``            ``arguments``
``response.image_generation_call.``            ``image_generation_``   ``result`` (the latest
``partial_image``                              ``call``                preview), ``background``,
                                                                       ``output_format``,
                                                                       ``quality``, ``size``,
                                                                       ``partial_image_index``
=============================================  ======================  ==========================

``i`` is the event's ``command_index``; a ``.delta`` appends, an ``.added`` / ``.done`` sets.
The item so folded is what a stream cut before the item's ``.done`` keeps: a hosted item's
``ThinkingPart.replay["item"]``, or the caller's shell call's arguments (:mod:`.calls`). The
complete ``.done`` item replaces it. ``partial_image_index`` is no field of the item: it says
the ``result`` is a preview, and is never sent back (:func:`.items.input_form`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROGRESS", "fold"]

PROGRESS: dict[str, str] = {
    "response.shell_call_command.added": "shell_call",
    "response.shell_call_command.delta": "shell_call",
    "response.shell_call_command.done": "shell_call",
    "response.shell_call_output_content.delta": "shell_call_output",
    "response.shell_call_output_content.done": "shell_call_output",
    "response.code_interpreter_call_code.delta": "code_interpreter_call",
    "response.code_interpreter_call_code.done": "code_interpreter_call",
    "response.mcp_call_arguments.delta": "mcp_call",
    "response.mcp_call_arguments.done": "mcp_call",
    "response.image_generation_call.partial_image": "image_generation_call",
}
"""Progress event type → the output item type it belongs to."""

# Text fields streamed as .delta (appended) and .done (the whole value): event → (field, key).
_TEXT = {
    "response.code_interpreter_call_code.delta": ("code", "delta"),
    "response.code_interpreter_call_code.done": ("code", "code"),
    "response.mcp_call_arguments.delta": ("arguments", "delta"),
    "response.mcp_call_arguments.done": ("arguments", "arguments"),
}
_IMAGE = ("background", "output_format", "quality", "size", "partial_image_index")


def fold(item: dict[str, Any], event: dict[str, Any]) -> dict[str, Any] | None:
    """``item`` with ``event`` folded in (a new dict; ``item`` is not changed), or ``None`` when
    the event does not belong to it: another item type, or a value that is not what the
    event's type says (a delta that is not a string, an index past the end)."""
    kind = event.get("type")
    if not isinstance(kind, str) or PROGRESS.get(kind) != item.get("type"):
        return None
    if kind in _TEXT:
        field, key = _TEXT[kind]
        value = event.get(key)
        if not isinstance(value, str):
            return None
        if key == "delta":
            before = item.get(field)
            value = (before if isinstance(before, str) else "") + value
        return {**item, field: value}
    if kind == "response.image_generation_call.partial_image":
        image = event.get("partial_image_b64")
        if not isinstance(image, str):
            return None
        extra = {k: event[k] for k in _IMAGE if event.get(k) is not None}
        return {**item, "result": image, **extra}
    if kind.startswith("response.shell_call_command."):
        return _command(item, event, kind.rsplit(".", 1)[1])
    return _output(item, event, kind.rsplit(".", 1)[1])


def _slot(values: list[Any], index: Any) -> int | None:
    """``index`` when it names an entry of ``values`` or the next one (then added as
    ``None``); else ``None``."""
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        return None
    if index == len(values):
        values.append(None)
    return index if index < len(values) else None


def _command(item: dict[str, Any], event: dict[str, Any], step: str) -> dict[str, Any] | None:
    action = item.get("action")
    action = action if isinstance(action, dict) else {}
    commands = action.get("commands")
    commands = list(commands) if isinstance(commands, list) else []
    index = _slot(commands, event.get("command_index"))
    value = event.get("delta" if step == "delta" else "command")
    if not isinstance(value, str) or index is None:
        return None
    if step == "delta":
        before = commands[index]
        value = (before if isinstance(before, str) else "") + value
    commands[index] = value
    return {**item, "action": {**action, "commands": commands}}


def _output(item: dict[str, Any], event: dict[str, Any], step: str) -> dict[str, Any] | None:
    chunks = item.get("output")
    chunks = list(chunks) if isinstance(chunks, list) else []
    index = _slot(chunks, event.get("command_index"))
    if index is None:
        return None
    if step == "done":
        done = event.get("output")
        if not isinstance(done, list):
            return None
        chunks[index : index + 1] = done  # this command's chunks, whole
        return {**item, "output": chunks}
    delta = event.get("delta")
    if not isinstance(delta, dict):
        return None
    chunk = chunks[index] if isinstance(chunks[index], dict) else {"stdout": "", "stderr": ""}
    chunk = dict(chunk)
    for stream in ("stdout", "stderr"):
        more = delta.get(stream)
        if isinstance(more, str):
            before = chunk.get(stream)
            chunk[stream] = (before if isinstance(before, str) else "") + more
    chunks[index] = chunk
    return {**item, "output": chunks}
