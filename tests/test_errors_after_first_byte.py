"""Errors after the first response byte: one contract on every wire (docs/design.md §3).

Over real loopback sockets, sync and async: an in-stream provider error, an idle timeout and a
dropped connection each raise their most specific class from ``complete()``, with ``.partial``
holding the text and tool calls received so far; ``stream()`` ends with an ``ErrorEvent`` event
whose ``error`` is that same exception; ``except llmkit.LLMError as e: e.partial`` works for all
three. Before the first byte, ``.partial`` is ``None``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import llmkit
from llmkit._fake.encoding import ServeContext
from llmkit._fake.http_server import ENCODERS
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall

WIRES = sorted(ENCODERS)
CONTEXT = llmkit.Context(messages=[llmkit.user("Weather in Oslo?")])
TEXT = "Checking the forecast for you now. "
PARTIAL = FakeReply(
    TEXT,
    tool_calls=[FakeToolCall("get_weather", {"city": "Oslo", "days": 3})],
    usage={"input": 12, "output": 7},
    delta_size=4,
)
OVERLOADED: dict[str, dict[str, Any]] = {
    "bedrock-converse": {"serviceUnavailableException": {"message": "Bedrock is unavailable"}},
    "anthropic-messages": {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    },
    "openai-chat": {"error": {"type": "overloaded_error", "message": "Overloaded"}},
    "openai-responses": {"type": "error", "code": "overloaded_error", "message": "Overloaded"},
    "gemini": {
        "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    },
}
EXPECTED_IN_STREAM = {
    "bedrock-converse": llmkit.OverloadedError,
    "anthropic-messages": llmkit.OverloadedError,
    "openai-chat": llmkit.OverloadedError,
    "openai-responses": llmkit.OverloadedError,
    "gemini": llmkit.ServerError,
}


_FINISH = (b'"finish_reason":"', b"message_delta", b"response.completed", b"messageStop")


def _events(wire: str) -> int:
    """How many of PARTIAL's events on ``wire`` come before its finish: all of its text and
    its tool call (Gemini, which has no terminal event, finishes on the call's own chunk)."""
    request = FakeRequest(
        "POST", "/", {}, {"stream": True, "stream_options": {"include_usage": True}}, b""
    )
    ctx = ServeContext(number=1, created=1_700_000_000, next_call_id=lambda: "call_1")
    events = ENCODERS[wire].stream_events(PARTIAL, request, ctx)
    return next((i for i, e in enumerate(events) if any(m in e for m in _FINISH)), len(events))


def _complete(mode: str, fake: FakeProvider, **options: Any) -> llmkit.AssistantMessage:
    options = {"api_key": fake.api_key, "max_retries": 0, **options}
    if mode == "sync":
        return llmkit.complete(fake.model(), CONTEXT, **options)
    return asyncio.run(llmkit.acomplete(fake.model(), CONTEXT, **options))


def _stream(mode: str, fake: FakeProvider, **options: Any) -> list[llmkit.Event]:
    options = {"api_key": fake.api_key, "max_retries": 0, **options}
    if mode == "sync":
        with llmkit.stream(fake.model(), CONTEXT, **options) as events:
            return list(events)

    async def go() -> list[llmkit.Event]:
        async with llmkit.astream(fake.model(), CONTEXT, **options) as events:
            return [e async for e in events]

    return asyncio.run(go())


def _failure(wire: str, kind: str) -> tuple[Any, dict[str, Any], type[llmkit.LLMError]]:
    """A scripted failure after the partial's text and call, the options it needs, the class."""
    events = _events(wire)
    if kind == "provider error":
        item = FakeError(
            in_stream=True, after_events=events, partial=PARTIAL, body=OVERLOADED[wire]
        )
        return item, {}, EXPECTED_IN_STREAM[wire]
    if kind == "idle timeout":
        reply = FakeReply(**{**PARTIAL.__dict__, "stall_after": events, "stall_seconds": 30})
        return reply, {"timeout": llmkit.Timeouts(idle=0.4)}, llmkit.APITimeoutError
    reply = FakeReply(**{**PARTIAL.__dict__, "drop_after": events})
    return reply, {}, llmkit.StreamError


def _check_partial(partial: llmkit.AssistantMessage | None) -> None:
    assert partial is not None and partial.stop_reason == "error"
    assert partial.text == TEXT
    [call] = partial.tool_calls
    assert call.name == "get_weather" and call.arguments == {"city": "Oslo", "days": 3}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("kind", ["provider error", "idle timeout", "dropped connection"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_most_specific_error_carries_the_partial(wire: str, kind: str, mode: str) -> None:
    item, options, expected = _failure(wire, kind)
    with FakeProvider([item, item], api=wire) as fake:  # type: ignore[arg-type]
        try:
            _complete(mode, fake, **options)
        except llmkit.LLMError as e:  # the one except a caller needs
            raised: llmkit.LLMError = e
        else:
            raise AssertionError("complete() did not raise")
        events = _stream(mode, fake, **options)
        assert len(fake.requests) == 2  # never retried after the first byte
    assert type(raised) is expected, (type(raised), raised)
    assert isinstance(raised.message, str) and raised.message
    _check_partial(raised.partial)
    if kind == "idle timeout":
        assert isinstance(raised, llmkit.APITimeoutError) and raised.phase == "idle"
    last = events[-1]
    assert isinstance(last, llmkit.ErrorEvent)
    assert type(last.error) is expected and last.error.partial is last.message
    _check_partial(last.message)


@pytest.mark.parametrize("wire", WIRES)
def test_before_the_first_byte_partial_is_none(wire: str) -> None:
    with FakeProvider([FakeError(529, body=None)], api=wire) as fake:  # type: ignore[arg-type]
        with pytest.raises(llmkit.APIError) as info:
            _complete("sync", fake)
    assert info.value.partial is None and isinstance(info.value.message, str)
