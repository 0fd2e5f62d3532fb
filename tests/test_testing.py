"""llmkit.testing: the fake provider speaks the real OpenAI Chat wire.

The official ``openai`` SDK is the independent oracle for parsing (it must accumulate what was
scripted), and real api.openai.com recordings under ``tests/fixtures/openai-chat`` are the oracle
for bytes. Pacing, damage (stalls, drops) and cancellation are checked over a real socket.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml
from openai.lib.streaming.chat import ChatCompletionStreamState

from llmkit._fake.http_server import plan_writes
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall

FIXTURES = Path(__file__).parent / "fixtures" / "openai-chat"
MESSAGES = [{"role": "user", "content": "hi"}]


def recording(prefix: str) -> bytes:
    """The raw body of one api.openai.com recording, by file-name prefix."""
    (path,) = FIXTURES.glob(f"{prefix}*.bin")
    return path.read_bytes()


def http() -> httpx.Client:
    """A plain-HTTP client. The fake serves no TLS, so skip loading the CA bundle, which costs
    ~60 ms per client and would dominate this file's runtime."""
    return httpx.Client(verify=False, timeout=5)


def sdk(fake: FakeProvider, api_key: str | None = None) -> openai.OpenAI:
    """An SDK client for ``fake``; no retries, so scripted errors surface as they are."""
    return openai.OpenAI(
        base_url=fake.base_url,
        api_key=api_key or fake.api_key,
        max_retries=0,
        http_client=http(),
    )


def post(fake: FakeProvider, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    """A raw POST to the chat endpoint, body read in full."""
    auth = {"authorization": f"Bearer {fake.api_key}"} if headers is None else headers
    kwargs: dict[str, Any] = {"content": body} if isinstance(body, bytes) else {"json": body}
    with http() as client:
        return client.post(f"{fake.base_url}/chat/completions", headers=auth, **kwargs)


def open_stream(client: httpx.Client, fake: FakeProvider) -> AbstractContextManager[httpx.Response]:
    """A raw streamed request, for reading the body as it arrives."""
    return client.stream(
        "POST",
        f"{fake.base_url}/chat/completions",
        json={"model": "m", "stream": True},
        headers={"authorization": f"Bearer {fake.api_key}"},
    )


def stream_final(client: openai.OpenAI, **kwargs: Any) -> Any:
    """Stream a completion and accumulate it with the SDK's own state machine."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    with client.chat.completions.create(
        model="gpt-4o", messages=MESSAGES, stream=True, **kwargs
    ) as stream:
        for chunk in stream:
            state.handle_chunk(chunk)
    return state.get_final_completion()


def without_volatile(body: bytes) -> bytes:
    """Blank the values that differ per response: completion id, timestamp, fingerprint."""
    body = re.sub(rb'"id":"chatcmpl-[^"]*"', b'"id":"X"', body)
    body = re.sub(rb'"created":\d+', b'"created":0', body)
    return re.sub(rb'"system_fingerprint":"[^"]*"', b'"system_fingerprint":"X"', body)


def merge_argument_pieces(body: bytes) -> list[Any]:
    """Parse an SSE body, merging runs of argument-only deltas of one tool call.

    Real streams cut arguments at token boundaries and the fake at fixed sizes; with the pieces
    merged, both must be the same chunk for chunk.
    """
    out: list[Any] = []
    for event in body.split(b"\n\n"):
        if not event:
            continue
        data = event.removeprefix(b"data: ")
        if data == b"[DONE]":
            out.append("[DONE]")
            continue
        chunk = json.loads(data)
        calls = chunk["choices"][0]["delta"].get("tool_calls") if chunk["choices"] else None
        prev = out[-1]["choices"][0]["delta"].get("tool_calls") if out and calls else None
        continuation = calls and prev and set(calls[0]) == {"index", "function"}
        if continuation and prev[0]["index"] == calls[0]["index"]:
            prev[0]["function"]["arguments"] += calls[0]["function"]["arguments"]
            continue
        out.append(chunk)
    return out


# -- the bytes match real api.openai.com recordings --------------------------------------------


def test_text_stream_is_byte_identical_to_a_real_openai_recording() -> None:
    # test_parse_max_tokens_reached in openai-python: finish_reason "length" mid-JSON.
    real = recording("openai-python__4cc50a61")
    reply = FakeReply(
        '{"', finish_reason="length", usage={"input": 79, "output": 1, "reasoning": 0}
    )
    with FakeProvider([reply]) as fake:
        body = {
            "model": "gpt-4o-2024-08-06",
            "messages": MESSAGES,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        response = post(fake, body)
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.headers["x-request-id"] == "req_fake1"
    assert without_volatile(response.content) == without_volatile(real)


def test_parallel_tool_call_stream_matches_a_real_openai_recording() -> None:
    # test_parse_pydantic_tool_multiple in openai-python: two tool calls, tool-only first chunk.
    real = recording("openai-python__f82268f2")
    calls = [
        FakeToolCall(
            "GetWeatherArgs",
            {"city": "Edinburgh", "country": "GB", "units": "c"},
            id="call_JMW1whyEaYG438VE1OIflxA2",
        ),
        FakeToolCall(
            "get_stock_price",
            {"ticker": "AAPL", "exchange": "NASDAQ"},
            id="call_DNYTawLBoN8fj3KN6qU9N1Ou",
        ),
    ]
    reply = FakeReply(tool_calls=calls, usage={"input": 149, "output": 60, "reasoning": 0})
    with FakeProvider([reply]) as fake:
        body = {
            "model": "gpt-4o-2024-08-06",
            "messages": MESSAGES,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        response = post(fake, body)
    ours = merge_argument_pieces(without_volatile(response.content))
    assert ours == merge_argument_pieces(without_volatile(real))


def test_non_streamed_body_matches_a_real_openai_response() -> None:
    cassette = FIXTURES / "charmbracelet-fantasy__TestOpenAICommon--openai-gpt-4o--multi_tool.yaml"
    real = yaml.safe_load(cassette.read_text())["interactions"][0]["response"]["body"]
    calls = [
        FakeToolCall("add", {"a": 2, "b": 3}, id="call_fifE5poZ3dg3JDUKGFi48NGq"),
        FakeToolCall("multiply", {"a": 2, "b": 3}, id="call_cvvIly4eGLZUYOMhAviT8jAF"),
    ]
    usage = {"input": 110, "output": 50, "cache_read": 0, "reasoning": 0}
    with FakeProvider([FakeReply(tool_calls=calls, usage=usage)]) as fake:
        response = post(fake, {"model": "gpt-4o-2024-08-06", "messages": MESSAGES})
    assert response.headers["content-type"] == "application/json"
    ours, theirs = json.loads(response.content), json.loads(real)
    for body in (ours, theirs):
        body.update(id="X", created=0, system_fingerprint="X")
        # The real API also reports audio and prediction counts; the fake sends what was scripted.
        usage_out = body["usage"]
        usage_out["prompt_tokens_details"] = {"cached_tokens": 0}
        usage_out["completion_tokens_details"] = {"reasoning_tokens": 0}
    assert ours == theirs
    assert list(ours["choices"][0]["message"]) == list(theirs["choices"][0]["message"])


# -- the official SDK parses what was scripted ------------------------------------------------


def test_sdk_stream_accumulates_scripted_text_tool_calls_thinking_and_usage() -> None:
    reply = FakeReply(
        "Hello, Paris! ☀️",
        thinking="The user greets me.",
        tool_calls=[
            FakeToolCall("get_weather", {"city": "Paris", "days": 3}),
            FakeToolCall("get_time", {}, id="my-id"),
        ],
        usage={"input": 12, "output": 5, "cache_read": 4, "reasoning": 2},
        delta_size=3,
    )
    with FakeProvider([reply]) as fake, sdk(fake) as client:
        final = stream_final(client, stream_options={"include_usage": True})
    message = final.choices[0].message
    assert message.content == "Hello, Paris! ☀️"
    assert message.model_extra["reasoning_content"] == "The user greets me."
    assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls] == [
        ("call_1", "get_weather", '{"city": "Paris", "days": 3}'),
        ("my-id", "get_time", "{}"),
    ]
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.id == "chatcmpl-fake1"
    assert final.model == "gpt-4o"
    usage = final.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (12, 5, 17)
    assert usage.prompt_tokens_details.cached_tokens == 4
    assert usage.completion_tokens_details.reasoning_tokens == 2


def test_sdk_stream_helper_runs_a_two_turn_tool_loop() -> None:
    replies = [
        FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})]),
        FakeReply("Sunny in Paris."),
    ]
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    with FakeProvider(replies) as fake, sdk(fake) as client:
        for _ in range(2):
            with client.chat.completions.stream(model="gpt-4o", messages=messages) as stream:
                message = stream.get_final_completion().choices[0].message
            messages.append(message.model_dump(include={"role", "content", "tool_calls"}))
            for call in message.tool_calls or []:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": "sunny"})
        sent = fake.requests[1].body["messages"]
    assert message.content == "Sunny in Paris."
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}


def test_sdk_parses_a_non_streamed_completion() -> None:
    reply = FakeReply(
        "Done.",
        tool_calls=[FakeToolCall("f", {"x": [1, 2]})],
        finish_reason="stop",
        usage={"input": 3, "output": 2},
    )
    with FakeProvider([reply]) as fake, sdk(fake) as client:
        completion = client.chat.completions.create(model="gpt-4o", messages=MESSAGES)
    choice = completion.choices[0]
    assert completion.object == "chat.completion"
    assert choice.message.content == "Done."
    assert choice.message.tool_calls[0].function.arguments == '{"x": [1, 2]}'
    assert choice.finish_reason == "stop"
    assert completion.usage.total_tokens == 5
    assert completion.usage.prompt_tokens_details is None


def test_usage_chunk_only_when_the_request_asks_for_it() -> None:
    reply = FakeReply("hi", usage={"input": 1, "output": 1})
    with FakeProvider([reply, reply]) as fake, sdk(fake) as client:
        assert stream_final(client).usage is None
        assert stream_final(client, stream_options={"include_usage": True}).usage.total_tokens == 2


def test_chunk_size_one_still_parses_multibyte_text() -> None:
    text = "naïve café 😀 — 北京"
    reply = FakeReply(text, tool_calls=[FakeToolCall("f", {"q": "😀"})], chunk_size=1)
    with FakeProvider([reply]) as fake, sdk(fake) as client:
        message = stream_final(client).choices[0].message
    assert message.content == text
    assert json.loads(message.tool_calls[0].function.arguments) == {"q": "😀"}


def test_raw_string_arguments_are_sent_verbatim() -> None:
    broken = '{"city": "Par'
    reply = FakeReply(tool_calls=[FakeToolCall("f", broken)])
    with FakeProvider([reply, reply]) as fake, sdk(fake) as client:
        streamed = stream_final(client).choices[0].message.tool_calls[0]
        whole = client.chat.completions.create(model="m", messages=MESSAGES)
    assert streamed.function.arguments == broken
    assert whole.choices[0].message.tool_calls[0].function.arguments == broken


def test_tool_call_ids_are_numbered_per_provider_in_serve_order() -> None:
    two = FakeReply(tool_calls=[FakeToolCall("a"), FakeToolCall("b", id="kept"), FakeToolCall("c")])
    with FakeProvider([two, two]) as fake, sdk(fake) as client:
        first = stream_final(client).choices[0].message.tool_calls
        second = client.chat.completions.create(model="m", messages=MESSAGES)
    assert [c.id for c in first] == ["call_1", "kept", "call_2"]
    assert [c.id for c in second.choices[0].message.tool_calls] == ["call_3", "kept", "call_4"]


def test_async_sdk_client_streams_from_the_fake() -> None:
    async def main(fake: FakeProvider) -> str:
        async with openai.AsyncOpenAI(
            base_url=fake.base_url,
            api_key=fake.api_key,
            max_retries=0,
            http_client=httpx.AsyncClient(verify=False),
        ) as client:
            stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            async with stream:
                return "".join([c.choices[0].delta.content or "" async for c in stream])

    with FakeProvider([FakeReply("async hello", delta_size=2)]) as fake:
        assert asyncio.run(main(fake)) == "async hello"


# -- auth and scripted errors ------------------------------------------------------------------


def test_wrong_key_gets_openai_401_and_uses_no_reply() -> None:
    with FakeProvider([FakeReply("first")]) as fake:
        with sdk(fake, api_key="wrong") as client, pytest.raises(openai.AuthenticationError) as exc:
            client.chat.completions.create(model="m", messages=MESSAGES)
        missing = post(fake, {"model": "m"}, headers={})
        with sdk(fake) as client:
            ok = client.chat.completions.create(model="m", messages=MESSAGES)
    assert exc.value.status_code == 401
    assert exc.value.code == "invalid_api_key"
    assert "wrong" not in str(exc.value)
    assert missing.status_code == 401
    assert missing.json()["error"]["message"].startswith("You didn't provide an API key")
    assert ok.choices[0].message.content == "first"
    assert len(fake.requests) == 3


def test_require_key_false_accepts_any_key() -> None:
    with FakeProvider([FakeReply("ok")], require_key=False) as fake:
        assert post(fake, {"model": "m"}, headers={}).status_code == 200


@pytest.mark.parametrize(
    ("status", "exception"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
        (422, openai.UnprocessableEntityError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (529, openai.InternalServerError),
    ],
)
def test_scripted_http_errors_raise_the_matching_sdk_exception(
    status: int, exception: type[openai.APIStatusError]
) -> None:
    body = {"error": {"message": f"Scripted {status}", "type": "x", "code": "c"}}
    error = FakeError(status=status, body=body, headers={"retry-after-ms": "200"})
    with FakeProvider([error]) as fake, sdk(fake) as client, pytest.raises(exception) as exc:
        client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert exc.value.status_code == status
    assert exc.value.body == body["error"]
    assert exc.value.code == "c"
    assert exc.value.response.headers["retry-after-ms"] == "200"
    assert exc.value.response.headers["x-request-id"] == "req_fake1"


def test_default_error_body_has_openai_shape() -> None:
    with FakeProvider([FakeError(status=429)]) as fake:
        response = post(fake, {"model": "m"})
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == "rate_limit_exceeded"


def test_in_stream_error_after_events_raises_sdk_api_error() -> None:
    error = FakeError(
        in_stream=True,
        after_events=2,
        body={"error": {"message": "boom", "type": "server_error"}},
        partial=FakeReply("Hello world"),
    )
    received: list[str] = []
    with FakeProvider([error, error]) as fake, sdk(fake) as client:
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        with stream, pytest.raises(openai.APIError, match="boom"):
            received.extend(c.choices[0].delta.content or "" for c in stream)
        # The same script item for a non-streamed request is a plain HTTP error.
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=MESSAGES)
    assert received == ["", "Hello wo"]


def test_running_out_of_replies_answers_500_naming_the_request() -> None:
    with FakeProvider([FakeReply("only")]) as fake, sdk(fake) as client:
        client.chat.completions.create(model="m", messages=MESSAGES)
        with pytest.raises(openai.InternalServerError) as exc:
            client.chat.completions.create(model="m", messages=MESSAGES)
    assert "FakeProvider has no reply left for request #2" in str(exc.value)


def test_unknown_path_and_bad_json_get_openai_errors() -> None:
    with FakeProvider([FakeReply("unused")]) as fake, http() as client:
        auth = {"authorization": f"Bearer {fake.api_key}"}
        missing = client.get(f"{fake.base_url}/models", headers=auth)
        bad = post(fake, b"{not json")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "Invalid URL (GET /v1/models)"
    assert bad.status_code == 400
    assert fake.requests[1].body == {}
    assert fake.requests[1].raw == b"{not json"


# -- the script: responder, recording, raw events ------------------------------------------------


def test_responder_chooses_the_reply_per_request() -> None:
    def responder(request: FakeRequest) -> FakeReply:
        return FakeReply(f"echo: {request.body['messages'][-1]['content']}")

    with FakeProvider(responder) as fake, sdk(fake) as client:
        for word in ("a", "b"):
            messages = [{"role": "user", "content": word}]
            reply = client.chat.completions.create(model="m", messages=messages)
            assert reply.choices[0].message.content == f"echo: {word}"


def test_responder_exception_becomes_a_500_naming_it() -> None:
    def responder(request: FakeRequest) -> FakeReply:
        raise KeyError("nothing scripted for this")

    with FakeProvider(responder) as fake:
        response = post(fake, {"model": "m"})
    assert response.status_code == 500
    assert "responder raised KeyError" in response.json()["error"]["message"]


def test_requests_are_recorded_in_order_with_parsed_bodies() -> None:
    with FakeProvider([FakeReply("1"), FakeReply("2")]) as fake, sdk(fake) as client:
        client.chat.completions.create(model="first", messages=MESSAGES)
        client.chat.completions.create(model="second", messages=MESSAGES, stream=True).close()
        first, second = fake.requests
    assert (first.method, first.path) == ("POST", "/v1/chat/completions")
    assert first.headers["authorization"] == "Bearer fake-key"
    assert first.headers["content-type"] == "application/json"
    assert first.body == {"model": "first", "messages": MESSAGES}
    assert json.loads(first.raw) == first.body
    assert second.body["model"] == "second"
    assert second.body["stream"] is True


def test_raw_events_and_raw_body_are_sent_verbatim() -> None:
    raw_events = ['{"choices": []}', {"id": "x", "choices": []}, b": keepalive\r\n\r\n", "[DONE]"]
    replies = [FakeReply(raw_events=raw_events), FakeReply(raw_body=b'{"choices": null}')]
    with FakeProvider(replies) as fake:
        streamed = post(fake, {"model": "m", "stream": True})
        whole = post(fake, {"model": "m"})
    assert streamed.content == (
        b'data: {"choices": []}\n\ndata: {"id":"x","choices":[]}\n\n'
        b": keepalive\r\n\r\ndata: [DONE]\n\n"
    )
    assert whole.content == b'{"choices": null}'


def test_omit_done_ends_the_body_cleanly_without_done() -> None:
    with FakeProvider([FakeReply("hi", omit_done=True)] * 2) as fake:
        raw = post(fake, {"model": "m", "stream": True}).content
        with sdk(fake) as client:
            final = stream_final(client)
    assert raw.endswith(b'"finish_reason":"stop"}]}\n\n')
    assert b"[DONE]" not in raw
    # The SDK accepts EOF without [DONE] as the end (why llmkit checks for it itself, A4).
    assert final.choices[0].message.content == "hi"


def test_finish_reason_is_sent_as_scripted() -> None:
    with FakeProvider([FakeReply("x", finish_reason="something_new")]) as fake:
        raw = post(fake, {"model": "m", "stream": True}).content
    assert b'"finish_reason":"something_new"' in raw


# -- pacing and damage over a real socket --------------------------------------------------------


def test_drop_after_closes_the_connection_mid_stream() -> None:
    reply = FakeReply("Hello world, this is long", delta_size=4, drop_after=3)
    received: list[Any] = []
    with FakeProvider([reply]) as fake, sdk(fake) as client:
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        # httpx sees an incomplete chunked body; the SDK wraps it.
        with stream, pytest.raises(openai.APIConnectionError):
            received.extend(stream)
    assert [c.choices[0].delta.content for c in received] == ["", "Hell", "o wo"]


def test_drop_after_zero_truncates_a_non_streamed_body() -> None:
    reply = FakeReply("x", drop_after=0)
    with (
        FakeProvider([reply]) as fake,
        sdk(fake) as client,
        pytest.raises(openai.APIConnectionError),
    ):
        client.chat.completions.create(model="m", messages=MESSAGES)


def test_delays_pace_the_stream() -> None:
    reply = FakeReply("abc", delta_size=1, delay=0.05, first_byte_delay=0.2)
    with FakeProvider([reply]) as fake:
        start = time.monotonic()
        with http() as client, open_stream(client, fake) as response:
            first_byte = time.monotonic() - start
            response.read()
        total = time.monotonic() - start
    assert first_byte >= 0.2
    # role, a, b, c, finish, [DONE]: six writes, five delays between them.
    assert total >= 0.2 + 5 * 0.05


def test_close_returns_promptly_while_a_stream_is_stalled() -> None:
    fake = FakeProvider([FakeReply("Hello", stall_after=1, stall_seconds=30)]).start()
    try:
        with http() as client, open_stream(client, fake) as response:
            chunks = response.iter_bytes()
            assert next(chunks).startswith(b"data: ")
            start = time.monotonic()
            fake.close()
            assert time.monotonic() - start < 1.0
            with pytest.raises(httpx.RemoteProtocolError):
                list(chunks)
    finally:
        fake.close()
    assert fake.disconnects == 0  # the server ended it, not the client


@pytest.mark.parametrize(
    "reply",
    [
        FakeReply("Hello world", delta_size=2, stall_after=2, stall_seconds=30),
        FakeReply("x" * 400, delta_size=1, delay=0.02),
    ],
    ids=["stalled", "slow"],
)
def test_client_closing_a_stream_early_is_counted_as_a_disconnect(reply: FakeReply) -> None:
    with FakeProvider([reply]) as fake, sdk(fake) as client:
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        with stream:
            next(iter(stream))
        assert fake.wait_for_disconnects(1, timeout=2)
        assert fake.disconnects == 1


def test_plan_writes_cuts_across_events_and_places_stall_and_drop() -> None:
    events = [b"aaa", b"bb", b"c"]
    assert plan_writes(events, None, None, None) == events
    assert plan_writes(events, 2, None, None) == [b"aa", b"ab", b"bc"]
    assert plan_writes(events, 2, 1, None) == [b"aa", b"a", "stall", b"bb", b"c"]
    assert plan_writes(events, None, 1, 1) == [b"aaa", "stall", "drop"]
    assert plan_writes(events, None, None, 9) == [*events, "drop"]
    assert plan_writes([b"", b"x"], None, None, None) == [b"x"]  # never an empty HTTP chunk


# -- the public surface --------------------------------------------------------------------------


def test_model_points_llmkit_at_the_fake() -> None:
    with FakeProvider() as fake:
        model = fake.model(reasoning=True)
    assert (model.provider, model.id, model.api) == ("fake", "fake-model", "openai-chat")
    assert model.base_url == fake.base_url
    assert model.reasoning is True


def test_lifecycle_and_script_validation() -> None:
    fake = FakeProvider()
    with pytest.raises(RuntimeError, match="not started"):
        _ = fake.base_url
    fake.start()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", fake.base_url)
    with pytest.raises(RuntimeError):
        fake.start()
    fake.close()
    fake.close()
    with pytest.raises(ValueError, match="openai-chat"):
        FakeProvider(api="no-such-wire")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown usage keys"):
        FakeReply(usage={"prompt_tokens": 1})
    with pytest.raises(ValueError, match="delta_size"):
        FakeReply(delta_size=0)
    with pytest.raises(ValueError, match="HTTP error status"):
        FakeError(status=200)
