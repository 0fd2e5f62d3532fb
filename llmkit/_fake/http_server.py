"""The fake provider's HTTP/1.1 server: routing, recording, pacing and shutdown.

A stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (one daemon thread per connection) that records
every request, routes it by path to a wire encoder (``ENCODERS``), takes the next scripted item
and writes the encoder's bytes with the scripted pacing: chunk sizes, delays, stalls and drops.

Every sleep goes through ``_Handler._pause``, which wakes on ``close()`` (a stop ``Event``) and
notices a client that hung up (the socket turns readable at EOF), so ``close()`` is prompt even
with a stalled handler and cancellation tests can count disconnects without waiting out a stall.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import json
import select
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Union, cast

from . import counting
from .checks import refusal
from .encoding import CLOCK, Rendered, ServeContext, WireEncoder, render
from .script import FakeError, FakeReply, FakeRequest, Responder, ScriptItem

__all__ = ["ENCODERS", "Server", "plan_writes"]

_ENCODER_MODULES = (
    "openai_chat",
    "anthropic_messages",
    "openai_responses",
    "gemini",
    "bedrock_converse",
)
"""One module per wire API under ``llmkit._fake``, each exposing ``ENCODER``."""


def _load_encoders() -> dict[str, WireEncoder]:
    found: dict[str, WireEncoder] = {}
    for name in _ENCODER_MODULES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{name}":
                raise  # a real import error inside an encoder module
            continue  # that wire's encoder is not written yet
        encoder: WireEncoder = module.ENCODER
        found[encoder.api] = encoder
    return found


ENCODERS: dict[str, WireEncoder] = _load_encoders()
"""Every wire the fake speaks, by ``Model.api``; the server routes requests across all of them."""

_POLL = 0.05
"""Seconds between checks for ``close()`` and client hang-ups while a handler sleeps."""

_CLOSE_GRACE = 2.0
"""Seconds ``close()`` waits for handler threads to finish after waking them."""

Step = Union[bytes, Literal["stall", "drop"]]


def plan_writes(
    events: Sequence[bytes], chunk_size: int | None, stall_after: int | None, drop_after: int | None
) -> list[Step]:
    """Cut a body into socket writes, with a stall and/or a drop at event boundaries.

    Args:
        events: The body, one entry per event.
        chunk_size: Bytes per write, across event boundaries; ``None`` writes each event whole.
        stall_after: Insert ``"stall"`` after this many events (clamped to the event count).
        drop_after: Insert ``"drop"`` after this many events and stop there.

    Returns:
        The writes in order, with ``"stall"``/``"drop"`` markers; never an empty write, which
        chunked transfer encoding would read as the end of the body.
    """
    marks: dict[int, list[Literal["stall", "drop"]]] = {}
    if stall_after is not None:
        marks.setdefault(min(stall_after, len(events)), []).append("stall")
    if drop_after is not None:
        marks.setdefault(min(drop_after, len(events)), []).append("drop")
    plan: list[Step] = []
    start = 0
    for cut in sorted({*marks, len(events)}):
        segment = events[start:cut]
        if chunk_size is None:
            plan += [event for event in segment if event]
        else:
            data = b"".join(segment)
            plan += [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
        for mark in marks.get(cut, []):
            plan.append(mark)
            if mark == "drop":
                return plan
        start = cut
    return plan


class _Stop(Exception):
    """The response must end now: the server is closing or the client hung up."""


# How each wire's endpoints end, whatever the base URL: to name the wire of a request that
# reached the wrong fake (its own encoder only matches its own URL shapes).
_ENDPOINT_ENDINGS = (
    ("/chat/completions", "openai-chat"),
    ("/responses", "openai-responses"),
    ("/responses/input_tokens", "openai-responses"),
    ("/messages", "anthropic-messages"),
    ("/messages/count_tokens", "anthropic-messages"),
    (":streamGenerateContent", "gemini"),
    (":generateContent", "gemini"),
    (":countTokens", "gemini"),
    (":streamRawPredict", "anthropic-messages"),
    (":rawPredict", "anthropic-messages"),
    ("/converse-stream", "bedrock-converse"),
    ("/converse", "bedrock-converse"),
)


def _wire_of_path(path: str) -> str | None:
    """The wire API whose endpoint ``path`` looks like, if any."""
    bare = path.partition("?")[0].rstrip("/")
    return next((api for end, api in _ENDPOINT_ENDINGS if bare.endswith(end)), None)


class Server:
    """The server and the state its handler threads share; ``FakeProvider`` wraps one."""

    def __init__(
        self,
        script: Iterable[ScriptItem] | Responder,
        *,
        api: str,
        api_key: str,
        require_key: bool,
        reads: frozenset[str] = frozenset({"text", "image", "pdf"}),
        count: counting.Counter = counting.estimate,
    ) -> None:
        self.encoder = ENCODERS[api]
        self.api_key = api_key
        self.require_key = require_key
        self.reads = reads  # what the fake model reads: a PDF (or image) beyond it is a 400
        self.count = count  # answers the token-counting endpoints
        self.stop = threading.Event()
        self._responder: Responder | None = None
        self._replies: Iterator[ScriptItem] = iter(())
        if callable(script):
            self._responder = script
        else:
            self._replies = iter(script)
        self._served = 0
        self._script_lock = threading.Lock()
        self._lock = threading.Lock()
        self._disconnected = threading.Condition(self._lock)
        self._requests: list[FakeRequest] = []
        self._disconnects = 0
        self._call_ids = itertools.count(1)
        self._handlers: dict[threading.Thread, socket.socket] = {}
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, host: str) -> int:
        """Bind a free port on ``host``, serve in a daemon thread, return the port."""
        if self._httpd is not None or self.stop.is_set():
            raise RuntimeError("a FakeProvider can be started only once (and not after close)")
        self._httpd = _HTTPServer((host, 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": _POLL},
            name="llmkit-fake-provider",
            daemon=True,
        )
        self._thread.start()
        return int(self._httpd.server_address[1])

    def close(self) -> None:
        """Stop serving and end every open response promptly; idempotent."""
        self.stop.set()
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        with self._lock:
            handlers = dict(self._handlers)
        # Wake handlers blocked reading the next keep-alive request; stalled ones wake on stop.
        for conn in handlers.values():
            _shutdown(conn)
        deadline = time.monotonic() + _CLOSE_GRACE
        for thread in handlers:
            if thread is not threading.current_thread():  # close() called from a responder
                thread.join(max(0.0, deadline - time.monotonic()))
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(_CLOSE_GRACE)

    # -- shared state ----------------------------------------------------------------------

    @property
    def requests(self) -> list[FakeRequest]:
        """A copy of the recorded requests, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def disconnects(self) -> int:
        """Client disconnects noticed while a response was being written."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnects(self, count: int, timeout: float) -> bool:
        """Block until ``disconnects >= count``; ``False`` on timeout."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects >= count, timeout)

    def record(self, request: FakeRequest) -> int:
        """Record ``request`` and return its 1-based arrival number."""
        with self._lock:
            self._requests.append(request)
            return len(self._requests)

    def count_disconnect(self) -> None:
        """Note that a client hung up mid-response."""
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()

    def next_call_id(self) -> str:
        """The next deterministic tool-call id of this provider."""
        with self._lock:
            return f"call_{next(self._call_ids)}"

    def track(self, conn: socket.socket) -> None:
        """Register the current handler thread and its connection, for ``close()``."""
        with self._lock:
            self._handlers[threading.current_thread()] = conn

    def untrack(self) -> None:
        """Forget the current handler thread."""
        with self._lock:
            self._handlers.pop(threading.current_thread(), None)

    def route(self, method: str, path: str) -> WireEncoder | None:
        """The encoder that answers ``method`` on ``path``, if any."""
        return next((e for e in ENCODERS.values() if e.handles(method, path)), None)

    def next_item(self, request: FakeRequest, number: int) -> ScriptItem | str:
        """The scripted answer to ``request``, or an error message for a 500."""
        # One at a time, so scripted replies keep their order and a responder need not be
        # thread-safe even when a client sends requests concurrently.
        with self._script_lock:
            if self._responder is not None:
                try:
                    answer: object = self._responder(request)
                except Exception as exc:  # noqa: BLE001 -- noqa: catch-all: the user's responder: a 500 says why
                    return f"FakeProvider responder raised {type(exc).__name__}: {exc}"
                if not isinstance(answer, (FakeReply, FakeError)):
                    kind = type(answer).__name__
                    return f"FakeProvider responder returned {kind}, not FakeReply or FakeError"
                return answer
            item = next(self._replies, None)
            if item is None:
                return (
                    f"FakeProvider has no reply left for request #{number} "
                    f"({self._served} scripted replies were already served)"
                )
            self._served += 1
            return item


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    fake: Server

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can take
        # seconds on some machines; the fake needs no server name.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up between requests, or close() shutting a socket, is normal.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "llmkit-fake"

    @property
    def fake(self) -> Server:
        """The fake this connection serves. ``self.server`` is typed ``BaseServer`` (a
        mutable attribute a subclass cannot narrow); it is an :class:`_HTTPServer`, the only
        server made with this handler (``Server.start``)."""
        return cast("_HTTPServer", self.server).fake

    def setup(self) -> None:
        super().setup()
        # Each scripted write must leave at once, as its own TCP segment; with Nagle's
        # algorithm a small write waits for the client's delayed ACK (~40 ms per response).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.fake.track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.fake.untrack()

    def version_string(self) -> str:
        """The ``Server`` header value."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request access log on stderr."""

    def do_POST(self) -> None:
        """Answer any method the same way; encoders decide which (method, path) they serve."""
        try:
            self._answer()
        except _Stop:
            self.close_connection = True
            _shutdown(self.connection)

    do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

    def _answer(self) -> None:
        fake = self.fake
        if fake.stop.is_set():  # accepted just before close()
            raise _Stop
        try:
            raw = self._read_body()
        except ValueError:
            self.close_connection = True
            raw = None
        body, valid = _parse_json(raw or b"")
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        request = FakeRequest(self.command, self.path, headers, body, raw or b"")
        number = fake.record(request)
        ctx = ServeContext(number, CLOCK + number, fake.next_call_id)
        counted = counting.route(self.command, self.path)
        encoder = ENCODERS[counted] if counted else fake.route(self.command, self.path)
        denied = None
        if encoder is not None and fake.require_key:
            denied = encoder.unauthorized(request, fake.api_key)
        other = encoder.api if encoder is not None else _wire_of_path(self.path)
        if other is not None and other != fake.encoder.api:
            # Another wire's endpoint: a model of that wire pointed at this fake by mistake.
            error = (
                f"This fake provider speaks {fake.encoder.api}, but {self.command} "
                f"{self.path.partition('?')[0]} is an endpoint of {other}: use "
                f"FakeProvider(api={other!r}) for a {other} model, or this provider's own "
                "fake.model()"
            )
            self._send_error(fake.encoder, ctx, 404, fake.encoder.error_body(404, error))
        elif encoder is None:
            error = f"Invalid URL ({self.command} {self.path})"
            self._send_error(fake.encoder, ctx, 404, fake.encoder.error_body(404, error))
        elif denied is not None:
            self._send_error(encoder, ctx, 401, denied)
        elif raw is None or not valid:
            error = "We could not parse the JSON body of your request."
            self._send_error(encoder, ctx, 400, encoder.error_body(400, error))
        elif (why := refusal(encoder.api, body, fake.reads)) is not None:
            # What the real API refuses before generating anything: no scripted item is used.
            self._send_error(encoder, ctx, 400, encoder.error_body(400, why))
        elif counted:
            answer = counting.answer(counted, fake.count(request))
            head = encoder.headers(ctx, stream=False, error=False)
            self._send(Rendered(200, head, [answer], stream=False), FakeReply())
        elif isinstance(item := fake.next_item(request, number), str):
            self._send_error(encoder, ctx, 500, encoder.error_body(500, item))
        else:
            self._send(*render(encoder, item, request, ctx))

    def _send_error(
        self, encoder: WireEncoder, ctx: ServeContext, status: int, body: bytes
    ) -> None:
        headers = encoder.headers(ctx, stream=False, error=True)
        self._send(Rendered(status, headers, [body], stream=False), FakeReply())

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            parts = []
            while size := int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, rendered: Rendered, pacing: FakeReply) -> None:
        self._pause(pacing.first_byte_delay)
        self.send_response(rendered.status)
        for name, value in rendered.headers:
            self.send_header(name, value)
        if rendered.stream:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("content-length", str(sum(map(len, rendered.events))))
        self._guarded(self.end_headers)
        plan = plan_writes(
            rendered.events, pacing.chunk_size, pacing.stall_after, pacing.drop_after
        )
        first = True
        for step in plan:
            if isinstance(step, bytes):
                if not first:
                    self._pause(pacing.delay)
                first = False
                data = b"%x\r\n%s\r\n" % (len(step), step) if rendered.stream else step
                self._guarded(partial(self.wfile.write, data))
            elif step == "stall":
                self._pause(pacing.stall_seconds)
            else:
                raise _Stop  # a scripted drop: no terminal event, no end of body
        if rendered.stream:
            self._guarded(partial(self.wfile.write, b"0\r\n\r\n"))

    def _guarded(self, write: Callable[[], object]) -> None:
        """Run a socket write; a failure means the client hung up (or ``close()`` shut it)."""
        try:
            write()
            self.wfile.flush()
        except OSError:
            if not self.fake.stop.is_set():
                self.fake.count_disconnect()
            raise _Stop from None

    def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``; raise ``_Stop`` early on ``close()`` or a client hang-up."""
        fake = self.fake
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if fake.stop.is_set():
                raise _Stop
            step = min(remaining, _POLL)
            try:
                readable = select.select([self.connection], [], [], step)[0]
                # Readable with nothing to peek is EOF: the client closed its end.
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    if not fake.stop.is_set():  # else close() shut the socket, not the client
                        fake.count_disconnect()
                    raise _Stop
                if readable:
                    fake.stop.wait(step)  # bytes from the client (not EOF): just wait
            except OSError:
                if not fake.stop.is_set():
                    fake.count_disconnect()
                raise _Stop from None


def _parse_json(raw: bytes) -> tuple[dict[str, Any], bool]:
    if not raw:
        return {}, True
    try:
        value = json.loads(raw)
    except ValueError:
        return {}, False
    return (value, True) if isinstance(value, dict) else ({}, False)


def _shutdown(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the peer or by the handler
        conn.shutdown(socket.SHUT_RDWR)
