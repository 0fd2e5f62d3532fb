"""The loopback HTTP server the benchmark streams come from.

An asyncio HTTP/1.1 server on 127.0.0.1 running on its own thread (in the harness process,
never in a contestant's), with keep-alive. Every response is ``Transfer-Encoding: chunked``.
Two routes, whatever the rest of the path (so that every client's base URL works: the SDKs
and llmkit append ``/chat/completions``, ``/v1/messages``, ``/messages``, ``/responses``):

- ``POST /s/<spec key>/...``: the pre-rendered stream of a :class:`~benchmarks.streams.StreamSpec`,
  cut into 256-512 byte writes, each one HTTP chunk. The whole framed body is handed to the
  socket at once: the chunk framing, not TCP timing, decides what pieces the client's HTTP
  parser yields, so the client sees the same pieces on every run.
- ``POST /slow/<token>/<min ms>/<max ms>/...``: a slow, steady text stream for the concurrency
  scenario: one small event every min..max ms (jitter fixed per connection), until
  ``POST /release/<token>`` (so that every stream outlasts the launch of all the others, however
  long that takes), or :data:`SLOW_MAX_EVENTS` at most.

Run ``python -m benchmarks.server`` to serve by hand (it prints its base URL).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import threading
from collections import OrderedDict

from .streams import (
    CONTENT_TYPES,
    StreamSpec,
    chunked,
    render,
    slow_event,
    slow_first,
    slow_last,
)


def _head(content_type: str = "text/event-stream; charset=utf-8") -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\n"
        b"content-type: " + content_type.encode() + b"\r\n"
        b"cache-control: no-cache\r\n"
        b"transfer-encoding: chunked\r\n"
        b"\r\n"
    )


_HEAD = _head()
_NOT_FOUND = (
    b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\nnot found"
)
_KEEP = 6  # rendered streams kept in memory (a 50k stream is ~20 MB framed)
SLOW_MAX_EVENTS = 2000  # a slow stream nobody releases still ends (after ~2-3 minutes)


def raise_fd_limit(want: int = 8192) -> int:
    """Raise the soft limit on open files towards ``want`` (1,000 streams need 1,000 sockets
    on each side); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


class BenchServer:
    """The server; ``start()`` it, ``prepare()`` a spec, point a client at ``base_url(spec)``."""

    def __init__(self) -> None:
        self.port = 0
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._events: dict[str, int] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._connections = 0
        self.open_connections = 0
        self.peak_connections = 0  # the most connections open at once (reported)
        self._released: set[str] = set()  # slow-stream tokens told to finish
        self._tasks: set[asyncio.Task[None]] = set()  # connection handlers, for shutdown

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> BenchServer:
        raise_fd_limit()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        ready.wait()
        return self

    def stop(self) -> None:
        """Close every connection and the listening socket, then end the thread."""
        if self._loop is not None and self._loop.is_running():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    def __enter__(self) -> BenchServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self, ready: threading.Event) -> None:
        loop = self._loop = asyncio.new_event_loop()
        # backlog: the concurrency scenario opens 1,000 connections at once.
        self._server = loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=4096)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        ready.set()
        loop.run_forever()
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    # -- what to serve --------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, spec: StreamSpec) -> str:
        """The URL prefix that serves ``spec``; clients append their own endpoint path."""
        return f"{self.url}/s/{spec.key}"

    def slow_url(self, token: str, min_ms: int, max_ms: int) -> str:
        """Slow streams that run until ``POST {url}/release/<token>``."""
        return f"{self.url}/slow/{token}/{min_ms}/{max_ms}"

    def prepare(self, spec: StreamSpec) -> int:
        """Render ``spec`` now (not while a contestant is timed); returns its event count."""
        with self._lock:
            if spec.key in self._bodies:
                self._bodies.move_to_end(spec.key)
                return self._events[spec.key]
        rendered = render(spec)
        with self._lock:
            head = _head(CONTENT_TYPES[spec.api]) if spec.api in CONTENT_TYPES else _HEAD
            self._bodies[spec.key] = head + chunked(rendered.writes)
            self._events[spec.key] = rendered.events
            while len(self._bodies) > _KEEP:
                self._bodies.popitem(last=False)
        return rendered.events

    # -- HTTP -----------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._connections += 1
        self.open_connections += 1
        self.peak_connections = max(self.peak_connections, self.open_connections)
        connection = self._connections
        try:
            while True:  # keep-alive: one request after another on this connection
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    return  # the client closed the connection
                lines = head.decode("latin-1").split("\r\n")
                target = lines[0].split(" ")[1]
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                length = int(headers.get("content-length") or 0)
                if length:
                    await reader.readexactly(length)  # the request body is not needed
                parts = target.split("/")
                if len(parts) > 2 and parts[1] == "s":
                    body = await self._body(parts[2])
                    writer.write(body if body is not None else _NOT_FOUND)
                    await writer.drain()
                elif len(parts) > 4 and parts[1] == "slow":
                    token, low, high = parts[2], int(parts[3]), int(parts[4])
                    await self._slow(writer, token, low, high, connection)
                elif len(parts) > 2 and parts[1] == "release":
                    self._released.add(parts[2])
                    writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                    await writer.drain()
                else:
                    writer.write(_NOT_FOUND)
                    await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # a client that stops reading (a capped contestant) resets the connection
        finally:
            self.open_connections -= 1
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _body(self, key: str) -> bytes | None:
        with self._lock:
            body = self._bodies.get(key)
        if body is None:  # not prepared: render off the loop (only for ad-hoc use)
            try:
                spec = StreamSpec.from_key(key)
            except ValueError:
                return None
            await asyncio.get_running_loop().run_in_executor(None, self.prepare, spec)
            with self._lock:
                body = self._bodies.get(key)
        return body

    async def _slow(
        self, writer: asyncio.StreamWriter, token: str, low: int, high: int, connection: int
    ) -> None:
        rng = random.Random(f"slow:{connection}")
        writer.write(_HEAD + _chunk(slow_first()))
        sent = 0
        while sent < SLOW_MAX_EVENTS and token not in self._released:
            await asyncio.sleep(rng.uniform(low, high) / 1000)
            writer.write(_chunk(slow_event(sent)))
            sent += 1
            await writer.drain()
        writer.write(_chunk(slow_last()) + b"0\r\n\r\n")
        await writer.drain()


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(data), data)


def main() -> None:
    """Serve until interrupted (for trying a client by hand)."""
    import time

    with BenchServer() as server:
        example = StreamSpec("openai-chat", "edits", 1000)
        print(f"serving on {server.url}; e.g. base_url={server.base_url(example)}/v1")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
