"""Calls without ``client=`` share one httpx client (llmkit/_clients.py): one for the process,
one per asyncio event loop. Each call must still behave as it did on a client of its own: its
own connection, closed when the call ends; no cookie carried to another call; no queueing
behind a connection limit. Over real loopback HTTP, sync and async (``run`` fixture)."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
import weakref
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

import llmkit
from llmkit import _clients
from tests.support.clients import Run

CONTEXT = llmkit.Context(messages=[llmkit.user("Hi")])
# A whole (not streamed) answer: read to its end, so a keep-alive client would pool the
# connection (a stream left at its terminal event is closed, not pooled).
_BODY = json.dumps(
    {
        "id": "c",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


class _Server(ThreadingHTTPServer):
    """An HTTP/1.1 server that would keep connections alive and sets a cookie; records each
    request's client port and Cookie header, and each connection's end."""

    request_queue_size = 512  # a burst of concurrent connects must not overflow the backlog
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[int, str | None]] = []
        self.closed: list[int] = []
        self.changed = threading.Condition()
        self.barrier: threading.Barrier | None = None

    def model(self) -> llmkit.Model:
        url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        return llmkit.Model(provider="openai", id="m", api="openai-chat", base_url=url)

    def wait_closed(self, count: int) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.closed) >= count, timeout=5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless the client closes
    server: _Server

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        with self.server.changed:
            self.server.requests.append((self.client_address[1], self.headers.get("cookie")))
        if self.server.barrier is not None:
            self.server.barrier.wait()  # holds every answer until all are connected
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(_BODY)))
        self.send_header("set-cookie", "session=abc; Path=/")
        self.end_headers()
        self.wfile.write(_BODY)

    def finish(self) -> None:
        super().finish()
        with self.server.changed:
            self.server.closed.append(self.client_address[1])
            self.server.changed.notify_all()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_each_call_has_its_own_connection_closed_when_it_ends(run: Run, server: _Server) -> None:
    for count in (1, 2):
        _, message = run(server.model(), CONTEXT, api_key="k")
        assert message.text == "ok"
        assert server.wait_closed(count), "the call's connection was kept open"
    first, second = (port for port, _ in server.requests)
    assert first != second
    assert sorted(server.closed) == sorted([first, second])


def test_a_cookie_a_response_sets_is_neither_kept_nor_sent(server: _Server) -> None:
    # A shared client that kept cookies would carry one call's into another's, and grow.
    for _ in range(2):
        assert llmkit.complete(server.model(), CONTEXT, api_key="k").text == "ok"
    assert [cookie for _, cookie in server.requests] == [None, None]
    assert list(_clients.default_client().cookies.jar) == []


def test_concurrent_calls_are_not_queued_behind_a_connection_limit(server: _Server) -> None:
    # httpx's default limit is 100 connections per client: the 101st call would wait for one
    # of the others, which the server holds until all 120 are connected.
    calls = 120
    server.barrier = threading.Barrier(calls, timeout=20)

    async def one() -> str:
        async with llmkit.astream(server.model(), CONTEXT, api_key="k", max_retries=0) as s:
            async for _ in s:
                pass
        return s.message.text

    async def main() -> list[str]:
        return await asyncio.gather(*(one() for _ in range(calls)))

    assert asyncio.run(main()) == ["ok"] * calls
    assert len({port for port, _ in server.requests}) == calls


def test_the_async_client_is_one_per_event_loop_and_goes_with_it(server: _Server) -> None:
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def call() -> httpx.AsyncClient:
        reply = await llmkit.acomplete(server.model(), CONTEXT, api_key="k")
        assert reply.text == "ok"
        client, owned = _clients.default_async_client()
        again, _ = _clients.default_async_client()
        assert client is again and not owned
        loops.append(weakref.ref(asyncio.get_running_loop()))
        return client

    first = asyncio.run(call())
    second = asyncio.run(call())
    assert first is not second
    clients = [weakref.ref(first), weakref.ref(second)]
    del first, second
    # Neither loop is kept alive by its client, and each client went with its loop. This
    # test's own loops, and within a few seconds: a thread that served a loop (asyncio's or
    # anyio's workers) may hold it a moment after asyncio.run returns, and a loop of another
    # test's may still be in the registry.
    deadline = time.monotonic() + 5
    gc.collect()
    while any(ref() is not None for ref in loops) and time.monotonic() < deadline:
        time.sleep(0.01)
        gc.collect()
    assert [ref() for ref in loops] == [None, None]
    assert [ref() for ref in clients] == [None, None]


def test_the_sync_client_is_one_for_the_process() -> None:
    assert _clients.default_client() is _clients.default_client()


def test_outside_an_event_loop_the_caller_owns_a_fresh_client() -> None:
    client, owned = _clients.default_async_client()
    assert owned and client is not _clients.default_async_client()[0]
    asyncio.run(client.aclose())
