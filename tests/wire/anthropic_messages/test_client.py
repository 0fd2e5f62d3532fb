"""The client on anthropic-messages over real loopback HTTP (the fake provider), sync and async;
and the fake's Anthropic wire checked against the official anthropic SDK.

Every client scenario runs through both pumps (``run`` / ``complete`` fixtures).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx
import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall
from tests.support.clients import Run

API = "anthropic-messages"
WEATHER = llmkit.Tool(
    name="get_weather",
    description="Get the weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
CONTEXT = llmkit.Context(
    system="Be brief.", messages=[llmkit.user("Weather in Paris?")], tools=[WEATHER]
)
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
END_TURN = {
    "type": "message_delta",
    "delta": {"stop_reason": "end_turn"},
    "usage": {"output_tokens": 2},
}


def model(fake: FakeProvider, **fields: Any) -> llmkit.Model:
    return fake.model("claude-sonnet-4-5", max_output_tokens=4096, reasoning=True, **fields)


# --------------------------------------------------------------------------- the client


def weather_model(request: FakeRequest) -> FakeReply:
    """Call the tool once, then answer from the result it was sent."""
    last = request.body["messages"][-1]
    results = [b for b in last["content"] if b.get("type") == "tool_result"]
    if not results:
        return FakeReply(
            "Let me check.",
            thinking="The user wants the weather.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})],
            usage={"input": 30, "output": 12, "cache_read": 10},
        )
    return FakeReply(f"It is {results[0]['content']}.", usage={"input": 60, "output": 5})


def test_tool_loop(complete: Callable[..., llmkit.AssistantMessage]) -> None:
    context = CONTEXT.model_copy(deep=True)
    with FakeProvider(weather_model, api=API) as fake:
        for _ in range(4):
            reply = complete(model(fake), context, api_key=fake.api_key, reasoning="low")
            context.messages.append(reply)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                args = llmkit.decode_tool_call(WEATHER, call)
                context.messages.append(llmkit.tool_result(call, f"sunny in {args['city']}"))
        requests = fake.requests
    assert reply.text == "It is sunny in Paris." and reply.stop_reason == "stop"
    assert len(requests) == 2
    first, second = (r.body for r in requests)
    assert requests[0].headers["x-api-key"] == fake.api_key
    assert requests[0].headers["anthropic-version"] == "2023-06-01"
    assert requests[0].path == "/v1/messages"
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    turn = second["messages"][1]
    # The thinking block goes back verbatim, with its signature, before the tool_use (F1).
    assert [b["type"] for b in turn["content"]] == ["thinking", "text", "tool_use"]
    assert turn["content"][0]["signature"] == context.messages[1].content[0].signature  # type: ignore[union-attr]
    assert second["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny in Paris"}
    ]
    tool_turn = context.messages[1]
    assert isinstance(tool_turn, llmkit.AssistantMessage)
    assert (tool_turn.usage.input, tool_turn.usage.cache_read) == (30, 10)


def test_stream_events_sync_and_async_identical(run: Run) -> None:
    reply = FakeReply(
        "Checking 🌍.",
        thinking="Hmm.",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}, id="toolu_1")],
        usage={"input": 20, "output": 7, "cache_read": 5, "cache_write": 3},
        chunk_size=7,
        delta_size=3,
    )
    with FakeProvider([reply], api=API) as fake:
        events, message = run(model(fake), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[0], llmkit.Start) and isinstance(events[-1], llmkit.Done)
    assert (message.thinking, message.text) == ("Hmm.", "Checking 🌍.")
    assert [(c.id, c.arguments, c.status) for c in message.tool_calls] == [
        ("toolu_1", {"city": "Paris"}, "complete")
    ]
    assert message.stop_reason == "tool_use" and message.raw_stop_reason == "tool_use"
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (20, 7, 5, 3)
    assert message.response_id == "msg_fake1" and message.diagnostics == []


def test_529_is_retried_then_raises_OverloadedError_I2(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    overloaded = FakeError(529, headers={"retry-after": "0"})  # the fake's own 529 body
    with FakeProvider([overloaded, FakeReply("after retry")], api=API) as fake:
        assert complete(model(fake), CONTEXT, api_key=fake.api_key).text == "after retry"
        assert len(fake.requests) == 2
    with FakeProvider([overloaded] * 3, api=API) as fake:
        with pytest.raises(llmkit.OverloadedError) as info:
            complete(model(fake), CONTEXT, api_key=fake.api_key, max_retries=2)
        assert len(fake.requests) == 3
    assert info.value.status == 529 and info.value.code == "overloaded_error"


def test_in_stream_overloaded_error_ends_with_error_and_the_partial_A6(run: Run) -> None:
    partial = FakeReply(
        "Partial answer", tool_calls=[FakeToolCall("get_weather", {"city": "Oslo"})]
    )
    error = FakeError(in_stream=True, body=OVERLOADED, after_events=9, partial=partial)
    with FakeProvider([error], api=API) as fake:
        events, message = run(model(fake), CONTEXT, api_key=fake.api_key)
        assert len(fake.requests) == 1  # never retried once the stream started
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert isinstance(events[-1].error, llmkit.OverloadedError)
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in events) == 1
    assert message.stop_reason == "error" and message.text == "Partial answer"
    assert events[-1].error.partial is message
    # The call was cut mid-arguments: kept, with its status, not executable as complete.
    (call,) = message.tool_calls
    assert call.status in ("recovered", "invalid") and call.name == "get_weather"


def test_complete_raises_OverloadedError_with_partial_A6(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    error = FakeError(in_stream=True, body=OVERLOADED, after_events=4)
    with FakeProvider([error], api=API) as fake:
        with pytest.raises(llmkit.OverloadedError) as info:
            complete(model(fake), CONTEXT, api_key=fake.api_key)
    assert info.value.partial is not None
    assert info.value.partial.stop_reason == "error" and info.value.partial.text == "partial "


def test_missing_message_stop_is_a_truncated_stream_A4(run: Run) -> None:
    with FakeProvider([FakeReply("cut", omit_done=True)], api=API) as fake:
        events, message = run(model(fake), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[-1], llmkit.ErrorEvent) and message.stop_reason == "error"
    assert "stream_truncated" in [d.kind for d in message.diagnostics]


def test_trailing_done_after_message_stop_is_tolerated_A4(run: Run) -> None:
    start = {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                    "model": "m", "usage": {"input_tokens": 3, "output_tokens": 1}},
    }  # fmt: skip
    raw = [
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
        b"event: data\ndata: [DONE]\n\n",  # OpenRouter's Anthropic endpoint appends this
    ]
    with FakeProvider([FakeReply(raw_events=raw)], api=API) as fake:
        events, message = run(model(fake), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[-1], llmkit.Done) and message.text == "hi"
    assert (message.usage.input, message.usage.output) == (3, 2) and message.diagnostics == []


def test_unknown_events_and_blocks_are_reported_once_not_fatal_A3(run: Run) -> None:
    start = {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                    "model": "m", "usage": {"input_tokens": 3, "output_tokens": 1}},
    }  # fmt: skip
    raw = [
        start,
        {"type": "ping"},
        {"type": "future_event", "x": 1},
        {"type": "future_event", "x": 2},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "hologram", "v": 1}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    with FakeProvider([FakeReply(raw_events=raw)], api=API) as fake:
        events, message = run(model(fake), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[-1], llmkit.Done)
    unknown = [d for d in message.diagnostics if d.kind == "event_unknown"]
    assert [d.details["type"] for d in unknown] == ["event future_event", "block hologram"]
    (part,) = message.content  # the unknown block is kept, opaque, for replay
    assert isinstance(part, llmkit.ThinkingPart) and part.replay == {
        "block": {"type": "hologram", "v": 1}
    }


def test_non_streamed_body_through_parse_response() -> None:
    reply = FakeReply(
        "Sunny.",
        thinking="Easy.",
        tool_calls=[FakeToolCall("get_weather", {"city": "Rome"}, id="toolu_9")],
        usage={"input": 9, "output": 4},
    )
    with FakeProvider([reply], api=API) as fake:
        body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": []}
        response = httpx.post(
            fake.base_url + "/messages", json=body, headers={"x-api-key": fake.api_key}
        )
        m = model(fake)
    assert response.headers["content-type"] == "application/json"
    message = llmkit.parse_response(m, response.content)
    assert (message.thinking, message.text, message.stop_reason) == ("Easy.", "Sunny.", "tool_use")
    assert message.tool_calls[0].arguments == {"city": "Rome"}
    assert message.content[0].signature  # type: ignore[union-attr]
    assert (message.usage.input, message.usage.output) == (9, 4)


# --------------------------------------------------------------------------- the fake vs the SDK


def sdk(fake: FakeProvider, api_key: str | None = None) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=fake.base_url.removesuffix("/v1"),
        api_key=api_key or fake.api_key,
        max_retries=0,
    )


SDK_REQUEST: dict[str, Any] = {
    "model": "claude-fake",  # a real id may draw the SDK's deprecation warning
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hi"}],
}


def test_the_sdk_accumulates_the_fakes_stream() -> None:
    reply = FakeReply(
        "Hello wörld 🌍",
        thinking="hmm",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris", "days": [1, 2]})],
        usage={"input": 20, "output": 7, "cache_read": 5, "cache_write": 3, "reasoning": 2},
        delta_size=2,
        chunk_size=5,
    )
    with FakeProvider([reply], api=API) as fake:
        with sdk(fake) as client, client.messages.stream(**SDK_REQUEST) as stream:
            final = stream.get_final_message()
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use"]
    thinking, text, tool = final.content
    assert thinking.thinking == "hmm" and thinking.signature  # type: ignore[union-attr]
    assert text.text == "Hello wörld 🌍"  # type: ignore[union-attr]
    assert (tool.id, tool.name, tool.input) == (  # type: ignore[union-attr]
        "call_1",
        "get_weather",
        {"city": "Paris", "days": [1, 2]},
    )
    assert final.stop_reason == "tool_use" and final.id == "msg_fake1"
    usage = final.usage
    assert (usage.input_tokens, usage.output_tokens) == (12, 7)  # input excludes cache counts
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (5, 3)
    assert usage.output_tokens_details is not None
    assert usage.output_tokens_details.thinking_tokens == 2


def test_the_sdk_reads_the_fakes_json_body_and_errors() -> None:
    script = [
        FakeReply("Plain.", usage={"input": 4, "output": 2}),
        FakeError(529, headers={"x-should-retry": "false"}),
        FakeError(in_stream=True, body=OVERLOADED, after_events=3),
    ]
    with FakeProvider(script, api=API) as fake:
        client = sdk(fake)
        wrong_key = sdk(fake, api_key="wrong")
        message = client.messages.create(**SDK_REQUEST)
        assert message.content[0].text == "Plain." and message.stop_reason == "end_turn"  # type: ignore[union-attr]
        with pytest.raises(anthropic.OverloadedError):
            client.messages.create(**SDK_REQUEST)
        with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
            with client.messages.stream(**SDK_REQUEST) as stream:
                stream.get_final_message()
        with pytest.raises(anthropic.AuthenticationError):
            wrong_key.messages.create(**SDK_REQUEST)
        client.close()  # an unclosed client leaks sockets (a ResourceWarning, an error here)
        wrong_key.close()


def test_the_fake_checks_x_api_key_like_anthropic() -> None:
    with FakeProvider([FakeReply("x")], api=API) as fake:
        url = fake.base_url + "/messages"
        missing = httpx.post(url, json=SDK_REQUEST)
        wrong = httpx.post(url, json=SDK_REQUEST, headers={"x-api-key": "nope"})
        right = httpx.post(url, json=SDK_REQUEST, headers={"x-api-key": fake.api_key})
    assert missing.status_code == wrong.status_code == 401
    assert json.loads(missing.content)["error"] == {
        "type": "authentication_error",
        "message": "x-api-key header is required",
    }
    assert json.loads(wrong.content)["error"]["message"] == "invalid x-api-key"
    assert right.status_code == 200
