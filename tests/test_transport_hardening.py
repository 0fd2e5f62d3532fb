"""Transport hardening over real loopback sockets: retry hints that are not numbers, bounded
bodies, streams dropped unread. Each runs through the sync and the async pump."""

from __future__ import annotations

import asyncio

import pytest

import llmkit
from tests.support.loopback import Canned, Loopback, Seen

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])
CHAT_SSE = (
    b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def chat(url: str) -> llmkit.Model:
    return llmkit.Model(provider="vllm", id="m", api="openai-chat", base_url=url)


def _complete(mode: str, model: llmkit.Model, **options: object) -> llmkit.AssistantMessage:
    if mode == "sync":
        return llmkit.complete(model, CONTEXT, **options)  # type: ignore[arg-type]

    async def go() -> llmkit.AssistantMessage:  # a NaN timer never ends: bounded here
        return await asyncio.wait_for(llmkit.acomplete(model, CONTEXT, **options), 20)  # type: ignore[arg-type]

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "hint",
    [
        {"retry-after": "nan"},
        {"retry-after-ms": "NaN"},
        {"retry-after": "inf"},
        {"retry-after-ms": "-inf"},
        {"retry-after": "1e400"},
    ],
)
def test_a_retry_hint_that_is_not_a_finite_number_is_ignored(
    mode: str, hint: dict[str, str]
) -> None:
    answers = iter(
        [Canned(429, hint, b"{}"), Canned(200, {"content-type": "text/event-stream"}, CHAT_SSE)]
    )

    def answer(_: Seen) -> Canned:
        return next(answers)

    with Loopback(answer) as server:
        message = _complete(mode, chat(server.url), api_key="k", max_retries=1)
    assert message.text == "ok" and len(server.requests) == 2


@pytest.mark.parametrize("hint", [{"retry-after": "nan"}, {"retry-after-ms": "inf"}])
def test_a_non_finite_retry_hint_leaves_retry_after_unset(hint: dict[str, str]) -> None:
    with Loopback(lambda _: Canned(429, hint, b"{}")) as server:
        with pytest.raises(llmkit.RateLimitError) as info:
            llmkit.complete(chat(server.url), CONTEXT, api_key="k", max_retries=0)
    assert info.value.retry_after is None


# ---------------------------------------------------------------------------- bounded bodies

MiB = 1024 * 1024
LIMIT = 1 * MiB  # the caller's max_event_size in these tests


def _bomb(content: bytes, size: int) -> bytes:
    """``size`` bytes, ``content`` then zeros-like filler, gzip-compressed (tiny on the wire)."""
    import gzip

    return gzip.compress(content + b" " * (size - len(content)), compresslevel=9)


def _peak(mode: str, model: llmkit.Model, **options: object) -> tuple[int, BaseException | None]:
    """Peak traced memory of one call, and the exception it raised (None: it returned)."""
    import tracemalloc

    tracemalloc.start()
    try:
        _complete(mode, model, **options)
        raised: BaseException | None = None
    except llmkit.LLMError as exc:
        raised = exc
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak, raised


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("status", [400, 500])
def test_a_gzip_bomb_error_body_is_read_only_up_to_the_limit(mode: str, status: int) -> None:
    body = _bomb(b'{"error": {"message": "no", "type": "invalid_request_error"}}', 64 * MiB)
    headers = {"content-type": "application/json", "content-encoding": "gzip", "retry-after": "0"}
    with Loopback(lambda _: Canned(status, headers, body)) as server:
        peak, raised = _peak(mode, chat(server.url), api_key="k", max_event_size=LIMIT)
    assert isinstance(raised, llmkit.APIError) and raised.status == status
    assert peak < 8 * MiB, peak  # was 64 MiB and more, on every retry


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("coding", ["gzip", "identity"])
def test_a_whole_json_body_over_the_limit_is_a_stream_error(mode: str, coding: str) -> None:
    reply = (
        b'{"id":"r","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop",'
        b'"message":{"role":"assistant","content":"' + b"a" * (32 * MiB) + b'"}}]}'
    )
    if coding == "gzip":
        import gzip

        body: bytes | list[bytes] = gzip.compress(reply, compresslevel=1)
    else:
        piece = reply[: 1 * MiB]
        body = [piece] * 32 + [reply[32 * MiB :]]  # the same object: no server-side copies
    headers = {"content-type": "application/json", "content-encoding": coding}
    with Loopback(lambda _: Canned(200, headers, body)) as server:
        peak, raised = _peak(mode, chat(server.url), api_key="k", max_event_size=LIMIT)
    assert isinstance(raised, llmkit.StreamError) and "max_event_size" in str(raised)
    assert peak < 8 * MiB, peak


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_gzipped_stream_is_bounded_by_max_event_size(mode: str) -> None:
    body = _bomb(b"data: " + b"x" * 100, 64 * MiB)  # one event that never ends
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    with Loopback(lambda _: Canned(200, headers, body)) as server:
        peak, raised = _peak(mode, chat(server.url), api_key="k", max_event_size=LIMIT)
    assert isinstance(raised, llmkit.StreamError) and "exceeds the limit" in str(raised)
    assert peak < 8 * MiB, peak


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_gzipped_stream_within_bounds_still_decodes(mode: str) -> None:
    import gzip

    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    body = [gzip.compress(CHAT_SSE)[:7], gzip.compress(CHAT_SSE)[7:]]
    with Loopback(lambda _: Canned(200, headers, body)) as server:
        message = _complete(mode, chat(server.url), api_key="k")
    assert message.text == "ok"


# ------------------------------------------------------------------- streams dropped unread


def test_a_stream_entered_never_iterated_then_dropped_closes_its_socket() -> None:
    with Loopback(
        lambda _: Canned(200, {"content-type": "text/event-stream"}, [CHAT_SSE]), watch_close=True
    ) as server:
        events = llmkit.stream(chat(server.url), CONTEXT, api_key="k")
        events.__enter__()
        del events
        assert server.closed.wait(5)


def test_an_async_stream_entered_never_iterated_then_dropped_closes_its_socket() -> None:
    with Loopback(
        lambda _: Canned(200, {"content-type": "text/event-stream"}, [CHAT_SSE]), watch_close=True
    ) as server:

        async def go() -> None:
            events = llmkit.astream(chat(server.url), CONTEXT, api_key="k")
            await events.__aenter__()
            del events
            for _ in range(100):
                await asyncio.sleep(0.02)
                if server.closed.is_set():
                    return

        asyncio.run(go())
        assert server.closed.wait(5)


# --------------------------------------------------------------- a 200 that is not a stream


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/html; charset=utf-8", b"<html><body><h1>Sign in to the proxy</h1></body></html>"),
        ("text/plain", b"Hello! The whole completion, sent as plain text."),
    ],
)
def test_a_200_that_is_a_page_or_plain_text_is_an_error_with_the_body(
    mode: str, content_type: str, body: bytes
) -> None:
    with Loopback(lambda _: Canned(200, {"content-type": content_type}, body)) as server:
        with pytest.raises(llmkit.APIError) as info:
            _complete(mode, chat(server.url), api_key="k")
    assert info.value.status == 200 and info.value.code == "not_a_stream"
    assert info.value.body == body.decode() and body.decode()[:20] in info.value.message


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_stream_labelled_text_plain_is_still_decoded(mode: str) -> None:
    with Loopback(lambda _: Canned(200, {"content-type": "text/plain"}, [CHAT_SSE])) as server:
        message = _complete(mode, chat(server.url), api_key="k")
    assert message.text == "ok"
