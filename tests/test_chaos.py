"""Chaos over real sockets: a provider that stalls, drops the connection, answers
429/500/529, sends garbage or a 64 MB line. Every scenario runs for every wire API the fake
provider speaks, through the sync and the async client.

The chaos server is ``llmkit.testing.FakeProvider`` (a real HTTP/1.1 server on 127.0.0.1): each
test scripts its behaviour per request. Slow connects use a listening socket whose accept
backlog is full, so the kernel leaves new connections pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import struct
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import llmkit
from llmkit._fake.bedrock_converse import message
from llmkit._fake.encoding import ServeContext
from llmkit._fake.http_server import ENCODERS
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall

WIRES = sorted(ENCODERS)
TOOL = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)
CONTEXT = llmkit.Context(messages=[llmkit.user("Weather in Oslo?")], tools=[TOOL])
QUICK = llmkit.Timeouts(connect=2, first_byte=5, idle=5, total=20)

# The messages providers really send when the prompt is too long (see the corpus).
CONTEXT_LENGTH: dict[str, Any] = {
    "openai-chat": {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, "
            "your messages resulted in 130512 tokens.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    },
    "openai-responses": {
        "error": {
            "message": "Your input exceeds the context window of this model.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    },
    "anthropic-messages": {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 215000 tokens > 200000 maximum",
        },
    },
    "gemini": {
        "error": {
            "code": 400,
            "message": "The input token count (1200000) exceeds the maximum number of "
            "tokens allowed (1048576).",
            "status": "INVALID_ARGUMENT",
        }
    },
    # bedrock-runtime's ValidationException body (the type rides in x-amzn-ErrorType)
    "bedrock-converse": {"message": "Input is too long for requested model."},
}
EVENT_STREAM = "bedrock-converse"  # the one binary framing: no SSE comments or data lines


def keepalive(wire: str) -> bytes:
    """Bytes a client must skip between events: an SSE comment; on the event stream (which
    has no keepalives) an event type Converse does not define (reported once)."""
    if wire == EVENT_STREAM:
        return ENCODERS[wire].frame({"keepalive": {}})
    return b": keepalive\n\n"


def garbage(wire: str) -> bytes:
    """An event whose data is not JSON."""
    if wire == EVENT_STREAM:
        return bedrock_message("contentBlockDelta", b"{not json")
    return b"data: {not json\n\n"


def bedrock_message(event_type: str, payload: bytes) -> bytes:
    headers = {":event-type": event_type, ":message-type": "event"}
    return message(headers, payload)


def huge_prelude(size: int) -> bytes:
    """The valid prelude of an event-stream message announcing ``size`` bytes."""
    head = struct.pack(">II", size, 0)
    return head + struct.pack(">I", zlib.crc32(head))


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run_stream(
    mode: str, model: llmkit.Model, **options: Any
) -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
    if mode == "sync":
        with llmkit.stream(model, CONTEXT, **options) as events:
            collected = list(events)
        return collected, events.message

    async def go() -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
        async with llmkit.astream(model, CONTEXT, **options) as events:
            collected = [e async for e in events]
        return collected, events.message

    return asyncio.run(go())


def run_complete(mode: str, model: llmkit.Model, **options: Any) -> llmkit.AssistantMessage:
    if mode == "sync":
        return llmkit.complete(model, CONTEXT, **options)
    return asyncio.run(llmkit.acomplete(model, CONTEXT, **options))


@contextlib.contextmanager
def fake(
    wire: str, script: Any, **kw: Any
) -> Iterator[tuple[FakeProvider, llmkit.Model, dict[str, Any]]]:
    with FakeProvider(script, api=wire, **kw) as provider:  # type: ignore[arg-type]
        yield provider, provider.model(), {"api_key": provider.api_key, "timeout": QUICK}


def wire_events(wire: str, reply: FakeReply) -> list[bytes]:
    """The framed SSE events the fake would send for ``reply`` on ``wire``."""
    request = FakeRequest(
        "POST", "/", {}, {"stream": True, "stream_options": {"include_usage": True}}, b""
    )
    ctx = ServeContext(number=1, created=1_700_000_000, next_call_id=lambda: "call_1")
    return ENCODERS[wire].stream_events(reply, request, ctx)


# -- before the first byte: retries and typed errors --


def test_429_retry_after_ms_then_success(wire: str, mode: str) -> None:
    with fake(wire, [FakeError(429, headers={"retry-after-ms": "250"}), FakeReply("ok")]) as (
        f,
        model,
        opts,
    ):
        started = time.monotonic()
        message = run_complete(mode, model, **opts)
        assert time.monotonic() - started >= 0.25
        assert len(f.requests) == 2
    assert message.text == "ok"


def test_429_beyond_the_cap_raises_at_once_with_retry_after(wire: str, mode: str) -> None:
    with fake(wire, [FakeError(429, headers={"retry-after": "3600"})]) as (f, model, opts):
        started = time.monotonic()
        with pytest.raises(llmkit.RateLimitError) as info:
            run_complete(mode, model, **opts)
        assert time.monotonic() - started < 2 and len(f.requests) == 1
    assert info.value.retry_after == 3600


def test_500_then_success(wire: str, mode: str) -> None:
    with fake(wire, [FakeError(500, headers={"retry-after": "0"}), FakeReply("recovered")]) as (
        f,
        model,
        opts,
    ):
        assert run_complete(mode, model, **opts).text == "recovered"
        assert len(f.requests) == 2


def test_529_overloaded_after_max_retries(wire: str, mode: str) -> None:
    script = [FakeError(529, headers={"retry-after": "0"})] * 3
    with fake(wire, script) as (f, model, opts):
        with pytest.raises(llmkit.OverloadedError):
            run_complete(mode, model, max_retries=2, **opts)
        assert len(f.requests) == 3


def test_401_is_authentication_error(wire: str, mode: str) -> None:
    with fake(wire, [FakeReply("never")]) as (_f, model, opts):
        with pytest.raises(llmkit.AuthenticationError):
            run_complete(mode, model, **{**opts, "api_key": "wrong-key-1234567890"})


def test_404_and_context_length(wire: str, mode: str) -> None:
    with fake(wire, [FakeError(404), FakeError(400, body=CONTEXT_LENGTH[wire])]) as (
        f,
        model,
        opts,
    ):
        with pytest.raises(llmkit.NotFoundError):
            run_complete(mode, model, **opts)
        with pytest.raises(llmkit.ContextLengthError):
            run_complete(mode, model, **opts)
        assert len(f.requests) == 2  # neither is retried


# -- after the first byte: no retry, one terminal event, the partial message kept --


def test_dropped_connection_mid_stream(wire: str, mode: str) -> None:
    reply = FakeReply(
        "Partial answer text. " * 5,
        tool_calls=[FakeToolCall("get_weather", {"city": "Oslo"})],
        usage={"input": 5, "output": 3},
        delta_size=3,
        drop_after=10,
    )
    with fake(wire, [reply, FakeReply("must not be used")]) as (f, model, opts):
        events, message = run_stream(mode, model, **opts)
        assert len(f.requests) == 1  # no retry after the first response byte
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in events) == 1
    assert isinstance(events[-1], llmkit.ErrorEvent) and message.stop_reason == "error"
    assert isinstance(events[-1].error, llmkit.StreamError) and message.text
    with fake(wire, [reply]) as (f, model, opts), pytest.raises(llmkit.StreamError) as info:
        run_complete(mode, model, **opts)
    assert info.value.partial is not None and info.value.partial.text


def test_stall_after_first_event_is_an_idle_timeout(wire: str, mode: str) -> None:
    reply = FakeReply("stalls here", delta_size=2, stall_after=2, stall_seconds=30)
    with fake(wire, [reply]) as (_f, model, opts):
        started = time.monotonic()
        events, message = run_stream(mode, model, **{**opts, "timeout": llmkit.Timeouts(idle=0.5)})
        assert time.monotonic() - started < 4
    error = events[-1].error  # type: ignore[union-attr]
    assert isinstance(error, llmkit.APITimeoutError) and error.phase == "idle"
    assert message.stop_reason == "error"


def test_keepalives_do_not_extend_the_stream_past_the_total_timeout(wire: str, mode: str) -> None:
    start = wire_events(wire, FakeReply("alive"))[:1]
    reply = FakeReply(raw_events=[*start, *[keepalive(wire)] * 200], delay=0.05)
    with fake(wire, [reply]) as (_f, model, opts):
        started = time.monotonic()
        events, _ = run_stream(
            mode, model, **{**opts, "timeout": llmkit.Timeouts(idle=0.5, total=1.0)}
        )
        assert time.monotonic() - started < 4
    error = events[-1].error  # type: ignore[union-attr]
    assert isinstance(error, llmkit.APITimeoutError) and error.phase == "total"


def test_slow_first_byte(wire: str, mode: str) -> None:
    with fake(wire, [FakeReply("late", first_byte_delay=3)]) as (_f, model, opts):
        with pytest.raises(llmkit.APITimeoutError) as info:
            run_complete(
                mode, model, max_retries=0, **{**opts, "timeout": llmkit.Timeouts(first_byte=0.3)}
            )
    assert info.value.phase == "first_byte"


@contextlib.contextmanager
def full_backlog() -> Iterator[int]:
    """A port whose accept queue is full: new connections stay unanswered."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    try:
        for _ in range(8):
            s = socket.socket()
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                s.connect(("127.0.0.1", port))
            fillers.append(s)
        time.sleep(0.05)
        yield port
    finally:
        for s in fillers:
            s.close()
        server.close()


def test_slow_connect(wire: str, mode: str) -> None:
    with full_backlog() as port, FakeProvider([], api=wire) as f:  # type: ignore[arg-type]
        model = f.model().model_copy(
            update={
                "base_url": f.base_url.replace(
                    str(f.base_url.split(":")[2].split("/")[0]), str(port)
                )
            }
        )
        started = time.monotonic()
        with pytest.raises(llmkit.APITimeoutError) as info:
            run_complete(
                mode, model, api_key=f.api_key, max_retries=0, timeout=llmkit.Timeouts(connect=0.3)
            )
        assert time.monotonic() - started < 3
    assert info.value.phase == "connect"


def test_in_stream_error_payload(wire: str, mode: str) -> None:
    with fake(wire, [FakeError(in_stream=True, after_events=2)]) as (_f, model, opts):
        events, message = run_stream(mode, model, **opts)
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.APIError
    )
    assert message.stop_reason == "error"


# -- bytes that break naive parsers --


def test_unicode_line_separators_and_4_byte_characters_split_across_writes(
    wire: str, mode: str
) -> None:
    text = "a\u2028b\u2029c 😀 日本"
    with fake(wire, [FakeReply(text, delta_size=2, chunk_size=1)]) as (_f, model, opts):
        assert run_complete(mode, model, **opts).text == text


def test_keepalive_comments_between_events(wire: str, mode: str) -> None:
    events = wire_events(wire, FakeReply("steady", delta_size=2))
    mixed: list[bytes] = []
    for e in events:
        mixed += [keepalive(wire), e]
    with fake(wire, [FakeReply(raw_events=mixed)]) as (_f, model, opts):
        assert run_complete(mode, model, **opts).text == "steady"


def test_garbage_data_lines_are_skipped_with_a_bounded_diagnostic(wire: str, mode: str) -> None:
    events = wire_events(wire, FakeReply("good content"))
    script = [FakeReply(raw_events=[events[0], *[garbage(wire)] * 150, *events[1:]])]
    with fake(wire, script) as (_f, model, opts):
        message = run_complete(mode, model, **opts)
    assert message.text == "good content"
    malformed = [d for d in message.diagnostics if d.kind in ("event_malformed", "event_unknown")]
    assert 1 <= len(malformed) <= 110


def test_64_mb_line_fails_bounded(wire: str) -> None:
    line = b"data: " + b"x" * (64 * 1024 * 1024) + b"\n\n"
    if wire == EVENT_STREAM:  # a message announcing 64 MiB, and its bytes
        line = huge_prelude(64 * 1024 * 1024) + b"x" * (64 * 1024 * 1024 - 12)
    with fake(wire, [FakeReply(raw_events=[line])]) as (_f, model, opts):
        events, _ = run_stream("sync", model, **opts)  # default limit: 16 MiB
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.StreamError
    )
    assert "exceeds the limit" in str(events[-1].error)


def test_64_mb_line_memory_stays_bounded(wire: str) -> None:
    """The same line through parse_stream (no server in this process to confuse the count):
    memory grows to about the limit, not to the line."""
    model = llmkit.Model(provider="fake", id="m", api=wire, base_url="http://127.0.0.1:9")  # type: ignore[arg-type]
    piece = b"x" * 65536

    def chunks() -> Iterator[bytes]:
        yield huge_prelude(64 * 1024 * 1024) if wire == EVENT_STREAM else b"data: "
        for _ in range(1024):  # 64 MiB, produced lazily
            yield piece

    gc.collect()
    tracemalloc.start()
    try:
        events = list(llmkit.parse_stream(model, chunks()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.StreamError
    )
    assert peak < 2.5 * 16 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_endless_event_fails_bounded(wire: str) -> None:
    endless = [b"data: " + b"y" * 1000 + b"\n"] * 3000  # 3 MB of data lines, no blank line
    if wire == EVENT_STREAM:  # one 3 MB message, arriving 1000 bytes at a time
        body = bedrock_message("contentBlockDelta", b"y" * 3_000_000)
        endless = [body[i : i + 1000] for i in range(0, len(body), 1000)]
    with fake(wire, [FakeReply(raw_events=endless)]) as (_f, model, opts):
        events, _ = run_stream("sync", model, **{**opts, "max_event_size": 1024 * 1024})
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.StreamError
    )


# -- leaving early closes the socket --


def wait_for(predicate: Callable[[], bool], seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


def test_leaving_the_block_early_closes_the_socket(wire: str) -> None:
    with fake(wire, [FakeReply("z" * 300, delta_size=1, delay=0.005)]) as (f, model, opts):
        started = time.monotonic()
        with llmkit.stream(model, CONTEXT, **opts) as events:
            for event in events:
                if isinstance(event, llmkit.TextDelta):
                    break
        assert events.message.stop_reason == "aborted"
        assert wait_for(lambda: f.disconnects == 1)
        assert time.monotonic() - started < 3


def test_cancelling_the_consuming_task_closes_the_socket(wire: str) -> None:
    async def go(
        f: FakeProvider, model: llmkit.Model, opts: dict[str, Any]
    ) -> llmkit.AssistantMessage:
        async with llmkit.astream(model, CONTEXT, **opts) as events:
            seen = asyncio.Event()

            async def consume() -> None:
                async for event in events:
                    if isinstance(event, llmkit.TextDelta):
                        seen.set()

            task = asyncio.create_task(consume())
            await seen.wait()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return events.message

    with fake(wire, [FakeReply("q" * 300, delta_size=1, delay=0.005)]) as (f, model, opts):
        message = asyncio.run(go(f, model, opts))
        assert message.stop_reason == "aborted"
        assert wait_for(lambda: f.disconnects == 1)
