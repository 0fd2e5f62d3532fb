"""The encoder: llmkit events (a whole tool loop) as the UI message stream; see ``llmkit.ui``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Union

from .._errors import (
    APIConnectionError,
    APITimeoutError,
    ContextLengthError,
    LLMError,
    OverloadedError,
    RateLimitError,
    ServerError,
    StreamError,
)
from .._events import (
    DiagnosticEvent,
    Done,
    ErrorEvent,
    Event,
    Start,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from .._messages import AssistantMessage, StopReason, ToolCall, ToolResultMessage
from ._approval import Approval, ApprovalRequest
from ._record import citation_sources, result_metadata, step_record

__all__ = [
    "FINISH_REASONS",
    "UI_STREAM_HEADERS",
    "UIStreamItem",
    "ato_ui_stream",
    "safe_error_text",
    "to_ui_stream",
]

UI_STREAM_HEADERS: dict[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The response headers of a UI message stream, as the AI SDK's own server sends them
(``UI_MESSAGE_STREAM_HEADERS``); ``x-accel-buffering: no`` keeps nginx from buffering it."""

FINISH_REASONS: dict[StopReason, str] = {
    "stop": "stop",
    "length": "length",
    "tool_use": "tool-calls",
    "content_filter": "content-filter",
    "refusal": "content-filter",
    "pause": "stop",
    "error": "error",
    "aborted": "other",
}
"""llmkit's stop reason → the ``finish`` part's ``finishReason``."""

UIStreamItem = Union[Event, ToolResultMessage, ApprovalRequest, Approval]
"""What the input of :func:`to_ui_stream` holds: llmkit events; between steps, tool results,
approval requests and the page's refusals (an :class:`Approval` with ``approved=False``)."""

_DONE = "data: [DONE]\n\n"


def safe_error_text(error: Exception) -> str:
    """A message for the end user about ``error``: what kind of failure, never its details.

    Provider error messages can carry account details, request ids or (echoed) parts of a
    key, and llmkit's own messages name internals; none of that reaches the page. This is the
    default ``on_error`` of :func:`to_ui_stream`; pass your own to log the error or word it
    differently.
    """
    if isinstance(error, RateLimitError):
        return "Too many requests right now. Please try again in a moment."
    if isinstance(error, OverloadedError):
        return "The model is overloaded right now. Please try again in a moment."
    if isinstance(error, ContextLengthError):
        return "The conversation is too long for the model."
    if isinstance(error, ServerError):
        return "The model's provider had an error. Please try again."
    if isinstance(error, APITimeoutError):
        return "The model took too long to answer. Please try again."
    if isinstance(error, APIConnectionError):
        return "The model could not be reached. Please try again."
    if isinstance(error, StreamError):
        return "The answer was cut off before it was complete."
    return "Something went wrong while answering."


def _input_error_text(call: ToolCall, message: AssistantMessage) -> str:
    kinds = {d.kind: d for d in message.diagnostics_for(call.id)}
    if "tool_call_not_executable" in kinds:
        return "The call is not safe to run: the model's turn must not be acted on."
    recovered = kinds.get("tool_arguments_recovered")
    if recovered is not None and recovered.details.get("mode") == "partial":
        return "The arguments were cut off before they were complete."
    return "The arguments are not valid JSON."


def _frame(part: dict[str, Any]) -> str:
    return f"data: {json.dumps(part, ensure_ascii=False, separators=(',', ':'))}\n\n"


@dataclass
class _Call:
    """A tool call of the current step, as far as the stream got."""

    id: str
    name: str
    started: bool = False
    text: list[str] = field(default_factory=list)  # the argument text so far
    sent: int = 0  # how many pieces of ``text`` went out (none before the name is known)


class _Encoder:
    """The state machine: one input item in, the framed parts it causes out. No I/O, so the
    sync and async pumps share it and differ only in ``await``."""

    def __init__(
        self, *, message_id: str | None, data_parts: bool, on_error: Callable[[Exception], str]
    ) -> None:
        self._message_id = message_id
        self._data_parts = data_parts
        self._on_error = on_error
        self._step = -1
        self._in_step = False
        self._open: dict[int, str] = {}  # content index -> id of an open text/reasoning part
        self._lazy: dict[int, tuple[str, str]] = {}  # index -> (kind, id) not yet started
        self._calls: dict[int, _Call] = {}  # content index -> tool call of this step
        self._call_names: dict[str, str] = {}  # every toolCallId sent -> its tool name
        self._visible: dict[int, list[Any]] = {}  # index -> [kind, ordinal, text] shown
        self._results = 0  # results sent since the last step ended (their order, for replay)
        self._finish: str | None = None

    # -- the three entry points ----------------------------------------------------------

    def begin(self) -> list[str]:
        """The ``start`` part."""
        start: dict[str, Any] = {"type": "start"}
        if self._message_id is not None:
            start["messageId"] = self._message_id
        return [_frame(start)]

    def feed(self, item: UIStreamItem) -> list[str]:
        """The parts one input item causes."""
        out: list[dict[str, Any]] = []
        if isinstance(item, (ToolResultMessage, ApprovalRequest, Approval)):
            self._between_steps(item, out)
        elif isinstance(item, Start):
            if self._in_step:
                raise ValueError("Start arrived inside a step: the previous stream never ended")
            self._step += 1
            self._in_step = True
            self._visible = {}
            self._results = 0
            out.append({"type": "start-step"})
        elif not self._in_step:
            raise ValueError(f"{type(item).__name__} arrived outside a step (before its Start)")
        else:
            self._event(item, out)
        return [_frame(p) for p in out]

    def end(self, error: LLMError | None = None) -> list[str]:
        """The input ended (or raised ``error``): close what is open, ``finish``, ``[DONE]``."""
        out: list[dict[str, Any]] = []
        if error is not None:
            self._close_step(None, out)
            out.append({"type": "error", "errorText": self._on_error(error)})
            self._finish = "error"
        elif self._in_step:  # the events stopped without Done or ErrorEvent
            self._close_step(None, out)
            out.append({"type": "abort", "reason": "The answer stopped before it was complete."})
            self._finish = "other"
        if self._in_step:
            out.append({"type": "finish-step"})
            self._in_step = False
        finish: dict[str, Any] = {"type": "finish"}
        if self._finish is not None:
            finish["finishReason"] = self._finish
        out.append(finish)
        return [*(_frame(p) for p in out), _DONE]

    # -- events --------------------------------------------------------------------------

    def _event(self, event: Event, out: list[dict[str, Any]]) -> None:
        if isinstance(event, (TextDelta, ThinkingDelta)):
            if event.delta:
                self._open_lazy(event.index, out)
                kind = "text" if isinstance(event, TextDelta) else "reasoning"
                self._visible[event.index][2] += event.delta
                out.append(
                    {"type": f"{kind}-delta", "id": self._open[event.index], "delta": event.delta}
                )
        elif isinstance(event, ToolCallDelta):
            call = self._calls.get(event.index)
            if call is None:
                raise ValueError(f"ToolCallDelta for index {event.index} before its ToolCallStart")
            call.text.append(event.arguments_delta)
            if not call.started and event.name:
                call.name = event.name
            if call.name:
                self._send_call(call, out)
        elif isinstance(event, (TextStart, ThinkingStart)):
            kind = "text" if isinstance(event, TextStart) else "reasoning"
            self._lazy[event.index] = (kind, f"{kind}-{self._step}-{event.index}")
        elif isinstance(event, (TextEnd, ThinkingEnd)):
            self._close_part(event.index, out)
            if isinstance(event, TextEnd) and event.citations:
                out += citation_sources(event.citations, f"source-{self._step}-{event.index}")
        elif isinstance(event, ToolCallStart):
            call = _Call(event.id, event.name)
            self._calls[event.index] = call
            if call.name:
                self._send_call(call, out)
        elif isinstance(event, DiagnosticEvent):
            if self._data_parts:
                data = event.diagnostic.model_dump(mode="json")
                out.append({"type": "data-llmkit-diagnostic", "data": data})
        elif isinstance(event, (Done, ErrorEvent)):
            self._close_step(event.message, out)
            if isinstance(event, ErrorEvent) and event.message.stop_reason == "aborted":
                out.append({"type": "abort", "reason": "The answer was stopped."})
            elif isinstance(event, ErrorEvent):
                out.append({"type": "error", "errorText": self._on_error(event.error)})
            out.append(
                step_record(event.message, {i: (k, n, t) for i, (k, n, t) in self._visible.items()})
            )
            if self._data_parts:
                out.append({"type": "data-llmkit-step", "data": _step_data(event.message)})
            out.append({"type": "finish-step"})
            self._in_step = False
            self._finish = FINISH_REASONS[event.message.stop_reason]
        elif isinstance(event, (ToolCallEnd, UsageEvent)):
            pass  # the final calls come from the terminal message; usage rides in data parts

    def _open_lazy(self, index: int, out: list[dict[str, Any]]) -> None:
        lazy = self._lazy.pop(index, None)
        if lazy is not None:
            kind, part_id = lazy
            self._open[index] = part_id
            ordinal = sum(1 for v in self._visible.values() if v[0] == kind)
            self._visible[index] = [kind, ordinal, ""]
            out.append({"type": f"{kind}-start", "id": part_id})

    def _close_part(self, index: int, out: list[dict[str, Any]]) -> None:
        self._lazy.pop(index, None)  # never started: nothing was sent for it
        part_id = self._open.pop(index, None)
        if part_id is not None:
            kind = part_id.split("-", 1)[0]
            out.append({"type": f"{kind}-end", "id": part_id})

    def _send_call(self, call: _Call, out: list[dict[str, Any]]) -> None:
        """Send ``tool-input-start`` if it has not gone out yet, then the text not yet sent."""
        if not call.started:
            call.started = True
            self._call_names[call.id] = call.name
            out.append({"type": "tool-input-start", "toolCallId": call.id, "toolName": call.name})
        text = "".join(call.text[call.sent :])
        call.sent = len(call.text)
        if text:
            out.append({"type": "tool-input-delta", "toolCallId": call.id, "inputTextDelta": text})

    def _close_step(self, message: AssistantMessage | None, out: list[dict[str, Any]]) -> None:
        """End every open part; settle every call from ``message`` (the step's final word)."""
        for index in sorted(self._open):
            self._close_part(index, out)
        self._lazy.clear()
        calls = self._calls
        self._calls = {}
        by_id = {c.id: c for c in calls.values()}
        if message is not None:
            for tool_call in message.tool_calls:
                call = by_id.pop(tool_call.id, None) or _Call(tool_call.id, tool_call.name)
                if not call.started:
                    call.name = tool_call.name
                self._send_call(call, out)
                out.append(_settled(tool_call, message))
        for call in by_id.values():  # no final message says what became of these
            self._send_call(call, out)
            out.append(
                {
                    "type": "tool-input-error",
                    "toolCallId": call.id,
                    "toolName": call.name,
                    "input": "".join(call.text),
                    "errorText": "The call did not complete.",
                }
            )

    def _between_steps(
        self, item: ToolResultMessage | ApprovalRequest | Approval, out: list[dict[str, Any]]
    ) -> None:
        kind = type(item).__name__
        if self._in_step:
            raise ValueError(f"{kind} arrived inside a step: send it after Done")
        call_id = item.tool_call_id
        # Before the first step, the stream continues a message the page already has (the
        # answer to an approval): its calls were sent by an earlier response.
        if self._step >= 0 and call_id not in self._call_names:
            raise ValueError(f"{kind} for an unknown call: {call_id!r}")
        if isinstance(item, ApprovalRequest):
            out.append(
                {"type": "tool-approval-request", "approvalId": item.id, "toolCallId": call_id}
            )
            return
        if isinstance(item, Approval):
            if not item.approved:
                self._results += 1
                out.append({"type": "tool-output-denied", "toolCallId": call_id})
            return
        index = self._results if self._step >= 0 else None
        meta = result_metadata(item, index, self._call_names.get(call_id))
        self._results += 1
        if item.is_error:
            part = {"type": "tool-output-error", "toolCallId": call_id, "errorText": item.text}
        else:
            part = {"type": "tool-output-available", "toolCallId": call_id, "output": item.text}
        out.append({**part, "providerMetadata": meta})


def _settled(call: ToolCall, message: AssistantMessage) -> dict[str, Any]:
    if call.status == "complete":
        return {
            "type": "tool-input-available",
            "toolCallId": call.id,
            "toolName": call.name,
            "input": call.arguments,
        }
    return {
        "type": "tool-input-error",
        "toolCallId": call.id,
        "toolName": call.name,
        "input": call.raw_arguments,
        "errorText": _input_error_text(call, message),
    }


def _step_data(message: AssistantMessage) -> dict[str, Any]:
    return {
        "stop_reason": message.stop_reason,
        "raw_stop_reason": message.raw_stop_reason,
        "usage": message.usage.model_dump(mode="json"),
    }


def to_ui_stream(
    events: Iterable[UIStreamItem],
    *,
    message_id: str | None = None,
    data_parts: bool = False,
    on_error: Callable[[Exception], str] = safe_error_text,
) -> Iterator[str]:
    """The UI message stream (protocol v1) of ``events``, as SSE-framed ``str`` chunks.

    Args:
        events: llmkit events: one stream's, or several streams' back to back (a tool loop,
            each stream one step), with :class:`~llmkit.ToolResultMessage` items between
            steps for the calls the server ran.
        message_id: Sent as the ``start`` part's ``messageId``; ``None`` sends none (the
            client makes one).
        data_parts: Also send ``data-llmkit-diagnostic`` and ``data-llmkit-step`` parts.
        on_error: Turns a failure into the ``error`` part's text (and is the place to log
            it): for the ``error`` of each ``ErrorEvent`` event that failed (an ``aborted`` one
            sends ``abort`` instead), and for an :class:`~llmkit.LLMError` that ``events``
            raises. The default, :func:`safe_error_text`, names the kind of failure only.

    Yields:
        ``data: {json}\\n\\n`` chunks, ``start`` first, ``finish`` and ``data: [DONE]\\n\\n``
        last, whatever happened in between.

    Raises:
        ValueError: ``events`` is out of order (an event outside a ``Start``...``Done``
            step, a tool result inside a step or for a call never sent).
    """
    encoder = _Encoder(message_id=message_id, data_parts=data_parts, on_error=on_error)
    iterator = iter(events)
    try:
        yield from encoder.begin()
        try:
            for item in iterator:
                yield from encoder.feed(item)
        except LLMError as error:
            yield from encoder.end(error)
            return
        yield from encoder.end()
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()  # a generator holding an llmkit stream closes its connection now


async def ato_ui_stream(
    events: AsyncIterable[UIStreamItem],
    *,
    message_id: str | None = None,
    data_parts: bool = False,
    on_error: Callable[[Exception], str] = safe_error_text,
) -> AsyncIterator[str]:
    """:func:`to_ui_stream` over an async iterable (``astream()``, an async generator)."""
    encoder = _Encoder(message_id=message_id, data_parts=data_parts, on_error=on_error)
    iterator = aiter(events)
    try:
        for chunk in encoder.begin():
            yield chunk
        try:
            async for item in iterator:
                for chunk in encoder.feed(item):
                    yield chunk
        except LLMError as error:
            for chunk in encoder.end(error):
                yield chunk
            return
        for chunk in encoder.end():
            yield chunk
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()
