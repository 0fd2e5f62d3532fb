"""The client over real loopback HTTP (llmkit.testing.FakeProvider), sync and async alike.

Every scenario runs through both pumps (``mode`` fixture): the results must be identical.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeToolCall
from tests.support.clients import Run, run_async, run_sync

CONTEXT = llmkit.Context(
    system="Be brief.",
    messages=[llmkit.user("Weather in Paris?")],
    tools=[
        llmkit.Tool(
            name="get_weather",
            description="Get the weather.",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)


def strip(message: llmkit.AssistantMessage) -> dict[str, Any]:
    data = message.model_dump()
    data.pop("response_id")  # the fake numbers its responses
    return data


def test_text_and_tool_calls_sync_and_async_identical() -> None:
    reply = FakeReply(
        "Checking.",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}, id="call_1")],
        usage={"input": 20, "output": 7, "cache_read": 5},
        chunk_size=7,
        delta_size=3,
    )
    results = []
    for runner in (run_sync, run_async):
        with FakeProvider([reply]) as fake:
            events, message = runner(fake.model(), CONTEXT, api_key=fake.api_key)
        results.append((events, message))
        assert message.text == "Checking."
        assert [(c.id, c.name, c.arguments, c.status) for c in message.tool_calls] == [
            ("call_1", "get_weather", {"city": "Paris"}, "complete")
        ]
        assert message.stop_reason == "tool_use"
        assert (message.usage.input, message.usage.output, message.usage.cache_read) == (20, 7, 5)
        assert isinstance(events[0], llmkit.Start) and isinstance(events[-1], llmkit.Done)
    (e1, m1), (e2, m2) = results
    assert [type(e) for e in e1] == [type(e) for e in e2]
    assert strip(m1) == strip(m2)


def test_request_body_and_headers_on_the_wire() -> None:
    with FakeProvider([FakeReply("ok")]) as fake:
        llmkit.complete(
            fake.model(),
            CONTEXT,
            api_key=fake.api_key,
            max_tokens=50,
            temperature=0.2,
            tool_choice={"name": "get_weather"},
            headers={"x-trace": "1"},
        )
        req = fake.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer fake-key"
    assert req.headers["x-trace"] == "1"
    body = req.body
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 50 and body["temperature"] == 0.2
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assert "strict" not in body["tools"][0]["function"]  # never sent unless set (QUIRKS H2)


def test_complete_returns_the_terminal_message(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    with FakeProvider([FakeReply("Hello there", usage={"input": 3, "output": 2})]) as fake:
        message = complete(fake.model(), CONTEXT, api_key=fake.api_key)
    assert (message.text, message.stop_reason, message.usage.output) == ("Hello there", "stop", 2)


def test_retry_after_ms_is_honoured_then_success_I1(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    script = [FakeError(429, headers={"retry-after-ms": "300"}), FakeReply("after retry")]
    with FakeProvider(script) as fake:
        started = time.monotonic()
        message = complete(fake.model(), CONTEXT, api_key=fake.api_key)
        elapsed = time.monotonic() - started
        assert len(fake.requests) == 2
    assert message.text == "after retry"
    assert elapsed >= 0.3


def test_retry_after_beyond_the_cap_raises_at_once_I1(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    script = [FakeError(429, headers={"retry-after": "3600"}), FakeReply("never")]
    with FakeProvider(script) as fake:
        started = time.monotonic()
        with pytest.raises(llmkit.RateLimitError) as info:
            complete(fake.model(), CONTEXT, api_key=fake.api_key)
        assert time.monotonic() - started < 2
        assert len(fake.requests) == 1
    assert info.value.retry_after == 3600 and info.value.status == 429


def test_server_errors_are_retried_then_raised(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    with FakeProvider(
        [FakeError(500), FakeError(503, headers={"retry-after": "0"}), FakeReply("ok")]
    ) as fake:
        assert complete(fake.model(), CONTEXT, api_key=fake.api_key).text == "ok"
    overloaded = FakeError(
        529,
        body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        headers={"retry-after": "0"},
    )
    with FakeProvider([overloaded] * 3) as fake:
        with pytest.raises(llmkit.OverloadedError):
            complete(fake.model(), CONTEXT, api_key=fake.api_key, max_retries=2)
        assert len(fake.requests) == 3


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (
            401,
            {
                "error": {
                    "message": "Incorrect API key provided: sk-proj-abcdefgh1234",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            llmkit.AuthenticationError,
        ),
        (
            404,
            {
                "error": {
                    "message": "The model `gpt-9` does not exist",
                    "type": "invalid_request_error",
                    "code": "model_not_found",
                }
            },
            llmkit.NotFoundError,
        ),
        (
            400,
            {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            },
            llmkit.ContextLengthError,
        ),
        (403, {"error": {"message": "Forbidden"}}, llmkit.PermissionDeniedError),
    ],
)
def test_error_statuses_are_typed_and_not_retried(
    status: int,
    body: dict[str, Any],
    error: type[Exception],
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    with FakeProvider([FakeError(status, body=body)]) as fake:
        with pytest.raises(error) as info:
            complete(fake.model(), CONTEXT, api_key=fake.api_key)
        assert len(fake.requests) == 1
    assert "sk-proj-abcdefgh1234" not in str(info.value)


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(llmkit.MissingAPIKeyError, match="OPENAI_API_KEY"):
        llmkit.build_request(llmkit.get_model("openai", "gpt-4.1-mini"), CONTEXT)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456789")
    request = llmkit.build_request(llmkit.get_model("openai", "gpt-4.1-mini"), CONTEXT)
    assert request.headers["authorization"] == "Bearer sk-from-env-123456789"


def test_dropped_connection_ends_with_error_and_partial_message(run: Run) -> None:
    reply = FakeReply(
        "Partial answer here",
        tool_calls=[FakeToolCall("get_weather", {"city": "Oslo"}, id="c9")],
        delta_size=4,
        drop_after=12,
    )
    with FakeProvider([reply]) as fake:
        events, message = run(fake.model(), CONTEXT, api_key=fake.api_key)
        assert len(fake.requests) == 1  # no retry after the first byte
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in events) == 1
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert message.stop_reason == "error" and message.text
    assert isinstance(events[-1].error, llmkit.StreamError)
    assert events[-1].error.partial is message


def test_complete_raises_stream_error_with_partial(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    with FakeProvider([FakeReply("Some words before the cut", delta_size=3, drop_after=5)]) as fake:
        with pytest.raises(llmkit.StreamError) as info:
            complete(fake.model(), CONTEXT, api_key=fake.api_key)
    assert info.value.partial is not None and info.value.partial.stop_reason == "error"
    assert info.value.partial.text


def test_in_stream_error_payload_A5(run: Run) -> None:
    error = FakeError(
        in_stream=True,
        after_events=3,
        body={"error": {"message": "The server had an error", "type": "server_error"}},
    )
    with FakeProvider([error]) as fake:
        events, message = run(fake.model(), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.ServerError
    )
    assert message.stop_reason == "error"


def test_idle_stall_times_out_with_phase_idle(run: Run) -> None:
    reply = FakeReply("slow", delta_size=1, stall_after=2, stall_seconds=30)
    with FakeProvider([reply]) as fake:
        started = time.monotonic()
        events, message = run(
            fake.model(),
            CONTEXT,
            api_key=fake.api_key,
            timeout=llmkit.Timeouts(connect=5, first_byte=5, idle=0.5),
        )
        assert time.monotonic() - started < 5
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert isinstance(events[-1].error, llmkit.APITimeoutError) and events[-1].error.phase == "idle"
    assert message.stop_reason == "error"


def test_slow_first_byte_times_out_with_phase_first_byte(
    complete: Callable[..., llmkit.AssistantMessage],
) -> None:
    with FakeProvider([FakeReply("late", first_byte_delay=3)]) as fake:
        with pytest.raises(llmkit.APITimeoutError) as info:
            complete(
                fake.model(),
                CONTEXT,
                api_key=fake.api_key,
                max_retries=0,
                timeout=llmkit.Timeouts(first_byte=0.3),
            )
    assert info.value.phase == "first_byte"


def test_leaving_the_block_early_closes_the_socket_and_aborts() -> None:
    reply = FakeReply("x" * 400, delta_size=1, delay=0.005)
    with FakeProvider([reply]) as fake:
        with llmkit.stream(fake.model(), CONTEXT, api_key=fake.api_key) as events:
            for event in events:
                if isinstance(event, llmkit.TextDelta):
                    break
        assert events.message.stop_reason == "aborted"
        deadline = time.monotonic() + 3
        while fake.disconnects == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert fake.disconnects == 1


@pytest.mark.parametrize(
    ("reply", "timeout"),
    [
        (FakeReply("y" * 400, delta_size=1, delay=0.005), None),
        # Cancelled while a read waits in a stall, the async watchdog armed: still the caller's
        # cancellation, not a timeout.
        (FakeReply("slow text", delta_size=1, stall_after=2, stall_seconds=30), 10.0),
    ],
    ids=["streaming", "read-waiting-under-the-watchdog"],
)
def test_cancelling_astream_closes_the_socket_and_aborts(
    reply: FakeReply, timeout: float | None
) -> None:
    options: dict[str, Any] = {} if timeout is None else {"timeout": llmkit.Timeouts(idle=timeout)}

    async def consume(stream: llmkit.AsyncEventStream, seen: asyncio.Event) -> None:
        async for event in stream:
            if isinstance(event, llmkit.TextDelta):
                seen.set()

    async def go(fake: FakeProvider) -> llmkit.AssistantMessage:
        async with llmkit.astream(fake.model(), CONTEXT, api_key=fake.api_key, **options) as events:
            seen = asyncio.Event()
            task = asyncio.create_task(consume(events, seen))
            await seen.wait()
            if timeout is not None:
                await asyncio.sleep(0.1)  # the read is waiting in the stall
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        return events.message

    with FakeProvider([reply]) as fake:
        message = asyncio.run(go(fake))
        assert message.stop_reason == "aborted"
        assert fake.wait_for_disconnects(1) and fake.disconnects == 1


def test_caller_owned_client_is_used_and_not_closed() -> None:
    with FakeProvider([FakeReply("a"), FakeReply("b")]) as fake, httpx.Client() as client:
        assert (
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, client=client).text == "a"
        )
        assert not client.is_closed
        assert (
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, client=client).text == "b"
        )


def test_non_streamed_json_reply_is_decoded() -> None:
    # A server that ignores "stream": true and answers with a JSON body.
    body = {
        "id": "chatcmpl-j",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }

    def responder(request: Any) -> FakeReply:
        return FakeReply(raw_body=body)

    with FakeProvider(responder) as fake:
        model = fake.model()
        request = llmkit.build_request(model, CONTEXT, api_key=fake.api_key)
        payload = {**json.loads(request.content), "stream": False}
        raw = httpx.post(
            str(request.url), json=payload, headers={"authorization": "Bearer fake-key"}
        )
    message = llmkit.parse_response(model, raw.content)
    assert (message.text, message.stop_reason, message.response_id) == (
        "whole",
        "stop",
        "chatcmpl-j",
    )


def test_request_diagnostics_come_first_on_the_message() -> None:
    model_no_reasoning = None
    with FakeProvider([FakeReply("ok")]) as fake:
        model_no_reasoning = fake.model()
        events, message = run_sync(
            model_no_reasoning, CONTEXT, api_key=fake.api_key, reasoning="high"
        )
    assert message.diagnostics[0].kind == "option_unsupported"
    assert isinstance(events[1], llmkit.DiagnosticEvent)


def test_unknown_option_is_refused() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="max_tokenz"):
        llmkit.build_request(
            llmkit.Model(provider="vllm", id="m", api="openai-chat"), CONTEXT, max_tokenz=5
        )


def test_key_never_in_errors_reprs_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-very-secret-key-000000000000"
    body = {
        "error": {
            "message": f"Incorrect API key provided: {secret}",
            "type": "invalid_request_error",
        }
    }
    caplog.set_level(logging.DEBUG, logger="llmkit")
    with FakeProvider([FakeError(500), FakeError(401, body=body)], require_key=False) as fake:
        model = fake.model()
        with pytest.raises(llmkit.AuthenticationError) as info:
            llmkit.complete(model, CONTEXT, api_key=secret, max_retries=1)
    assert secret not in str(info.value) and secret not in repr(info.value)
    assert secret not in repr(info.value.body) and secret not in str(info.value.args)
    assert all(secret not in r.getMessage() for r in caplog.records)
    assert caplog.records  # the retry was logged
    assert secret not in repr(model)


_SSE_BODY = (
    b"".join(
        b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"
        for chunk in [
            {
                "id": "c1",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "h\u00e9"}}],
            },
            {
                "id": "c1",
                "choices": [{"index": 0, "delta": {"content": "llo"}, "finish_reason": "stop"}],
            },
        ]
    )
    + b"data: [DONE]\n\n"
)


@pytest.mark.parametrize("coding", ["gzip", "identity", ""])
def test_a_content_coded_stream_is_decoded_and_a_plain_one_read_raw(run: Run, coding: str) -> None:
    # llmkit reads a body without content coding as it came (iter_raw); a gzip body must still
    # go through httpx's decoder. Written in two pieces, the first cut inside the "é".
    import gzip
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = gzip.compress(_SSE_BODY) if coding == "gzip" else _SSE_BODY

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            if coding:
                self.send_header("content-encoding", coding)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            cut = _SSE_BODY.index("\u00e9".encode()) + 1 if coding != "gzip" else len(body) // 2
            for piece in (body[:cut], body[cut:]):
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(0.01)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        model = llmkit.Model(
            provider="openai",
            id="m",
            api="openai-chat",
            base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
        )
        _, message = run(model, CONTEXT, api_key="k")
    finally:
        server.shutdown()
        server.server_close()
    assert message.text == "h\u00e9llo"
    assert message.stop_reason == "stop"
    assert [d.kind for d in message.diagnostics] == ["usage_missing"]  # the body sends none
