"""What the command line prints: the JSON form of events, and the renderings for a person.

The JSON form (:func:`event_json`) is a contract, documented in :mod:`llmkit._cli` and in the
README; the human renderings are not (they may change to read better).
"""

from __future__ import annotations

import dataclasses
import json
from typing import IO, Any

from pydantic import BaseModel

import llmkit

__all__ = ["Console", "diagnostic_line", "event_json", "event_line", "json_line", "one_line"]

_ERROR_FIELDS = ("status", "provider", "code", "request_id", "retry_after", "phase")


# --------------------------------------------------------------------------- the JSON form


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, BaseException):
        return _error_json(value)
    if isinstance(value, list):  # TextEnd.citations
        return [_jsonable(v) for v in value]
    return value


def _error_json(error: BaseException) -> dict[str, Any]:
    out: dict[str, Any] = {"class": type(error).__name__, "message": str(error)}
    for name in _ERROR_FIELDS:
        if hasattr(error, name):
            out[name] = getattr(error, name)
    return out


def event_json(event: llmkit.Event) -> dict[str, Any]:
    """The stable JSON form of an event: ``type`` first, then the event's fields.

    Args:
        event: Any event ``stream()``/``parse_stream()`` yields.

    Returns:
        A dict ready for ``json.dumps``; see the module docstring for the form.
    """
    if isinstance(event, llmkit.ToolCallDelta):  # slotted properties, not a dataclass
        return {
            "type": event.type,
            "index": event.index,
            "id": event.id,
            "name": event.name,
            "arguments_delta": event.arguments_delta,
            "partial_arguments": event.partial_arguments,
        }
    out: dict[str, Any] = {"type": event.type}
    for field in dataclasses.fields(event):
        if field.name != "type":
            value = getattr(event, field.name)
            if field.name == "citations" and not value:
                continue  # a text part without sources reads as it always has
            out[field.name] = _jsonable(value)
    return out


def json_line(data: Any) -> str:
    """``data`` as one compact line of JSON (non-ASCII kept: the output is UTF-8)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- human output


def one_line(text: str) -> str:
    """``text`` with every run of whitespace, newlines included, made one space."""
    return " ".join(str(text).split())


def summary(message: llmkit.AssistantMessage) -> str:
    """``[stop tool_use (raw "tool_calls"), input 20, output 7, 2 diagnostic(s)]``."""
    parts = [f"stop {message.stop_reason}"]
    if message.raw_stop_reason is not None:
        parts[0] += f" (raw {json.dumps(message.raw_stop_reason)})"
    usage = message.usage
    for name in ("input", "output", "cache_read", "cache_write", "reasoning"):
        count = getattr(usage, name)
        if count is not None:
            parts.append(f"{name} {count}")
    if usage.cost is not None:
        parts.append(f"${usage.cost:.6f}")
    if message.diagnostics:
        parts.append(f"{len(message.diagnostics)} diagnostic(s)")
    return "[" + ", ".join(parts) + "]"


def diagnostic_line(diagnostic: llmkit.Diagnostic) -> str:
    """``[diagnostic tool_arguments_recovered (call call_1)] The arguments were cut ...``."""
    call = f" (call {diagnostic.tool_call_id})" if diagnostic.tool_call_id else ""
    return f"[diagnostic {diagnostic.kind}{call}] {one_line(diagnostic.message)}"


class Console:
    """Renders for a person: text and tool calls on stdout, thinking, diagnostics and a summary
    line on stderr.

    The two streams usually share one terminal, so a line left open on one is ended before the
    other is written to. Streamed blocks may interleave (parallel calls, a text part closed only
    at the end of the stream): a delta for another block than the one on the current line
    starts a new line. Diagnostics are printed at the end, with the summary, so that they do
    not cut a line of streamed arguments in two.
    """

    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self.out = out
        self.err = err
        self.last = out  # the stream written to last
        self.fresh = True  # whether ``last`` is at the start of a line
        self.block: int | None = None  # the block whose output is on stdout's current line

    def write(self, stream: IO[str], text: str) -> None:
        """Write ``text`` to ``stream`` now, ending the other stream's open line first."""
        if not text:
            return
        if stream is not self.last:
            self.end_line()
            self.last = stream
            self.block = None
        stream.write(text)
        stream.flush()
        self.fresh = text.endswith("\n")

    def end_line(self) -> None:
        """End the open line, if any, of the stream written to last."""
        if not self.fresh:
            self.last.write("\n")
            self.last.flush()
            self.fresh = True
            self.block = None

    def own(self, index: int, header: str) -> None:
        """Give stdout's current line to the block at ``index``; another block's line is
        ended first and the new one starts with ``header``."""
        if self.last is not self.out or self.block != index:
            self.end_line()
            self.last = self.out
            self.write(self.out, header)
            self.block = index

    def event(self, event: llmkit.Event) -> None:
        """Render one event as it arrives (``complete --stream``)."""
        match event:
            case llmkit.TextDelta(index=index, delta=delta):
                self.own(index, "")
                self.write(self.out, delta)
            case llmkit.ThinkingDelta(delta=delta):
                if self.last is not self.err:
                    self.end_line()
                    self.write(self.err, "[thinking] ")
                self.write(self.err, delta)
            case llmkit.ToolCallStart(index=index, id=call_id, name=name):
                self.own(index, f"[tool call {name or '?'} {call_id}] ")
            case llmkit.ToolCallDelta(index=index, id=call_id, name=name):
                self.own(index, f"[tool call {name or '?'} {call_id} ...] ")
                self.write(self.out, event.arguments_delta)
            case llmkit.ToolCallEnd(index=index, tool_call=call):
                self.own(index, f"[tool call {call.name} {call.id}] {call.raw_arguments}")
                self.write(self.out, f"  ({call.status})\n")
            case llmkit.Done(message=message) | llmkit.ErrorEvent(message=message):
                self.end(message)

    def message(self, message: llmkit.AssistantMessage) -> None:
        """Render a whole message (``complete`` without ``--stream``)."""
        if message.thinking:
            self.write(self.err, f"[thinking] {message.thinking}\n")
        if message.text:
            self.write(self.out, message.text + "\n")
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            line = f"[tool call {call.name} {call.id}] {arguments}  ({call.status})\n"
            self.write(self.out, line)
        self.end(message)

    def end(self, message: llmkit.AssistantMessage) -> None:
        """The diagnostics and the summary line."""
        self.end_line()
        for diagnostic in message.diagnostics:
            self.write(self.err, diagnostic_line(diagnostic) + "\n")
        self.write(self.err, summary(message) + "\n")


def event_line(event: llmkit.Event) -> str:
    """One line per event for ``replay``: ``text_delta [0] delta="Hel"``."""
    if isinstance(event, llmkit.DiagnosticEvent):
        d = event.diagnostic
        call = f" call={d.tool_call_id}" if d.tool_call_id else ""
        details = f" details={json_line(d.details)}" if d.details else ""
        return f"diagnostic {d.kind}{call} {one_line(d.message)}{details}"
    data = event_json(event)
    head = data.pop("type")
    index = data.pop("index")
    if index is not None:
        head += f" [{index}]"
    if isinstance(event, (llmkit.Done, llmkit.ErrorEvent)):
        data.pop("message")
        head += " " + summary(event.message)
    fields = " ".join(f"{k}={json_line(v)}" for k, v in data.items())
    return f"{head} {fields}".rstrip()
