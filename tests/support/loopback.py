"""A scripted HTTP/1.1 server on 127.0.0.1 for transport tests: real sockets, real bytes.

``Loopback(answer)`` serves every request with ``answer(request)``, a :class:`Canned` reply
(status, headers, body as bytes or an iterable of pieces written one by one), and records each
request it got (:class:`Seen`: method, path, headers, body). With ``watch_close`` it keeps each
connection open after the reply and sets ``closed`` when the client closes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Canned:
    """One reply: ``body`` is bytes, or pieces written (and flushed) one by one."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""


class Loopback:
    """A threaded server on 127.0.0.1, used as a context manager."""

    def __init__(self, answer: Callable[[Seen], Canned], *, watch_close: bool = False) -> None:
        self.requests: list[Seen] = []
        self.closed = threading.Event()  # a connection was closed by the client
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                seen = Seen("POST", self.path, dict(self.headers.items()), self.rfile.read(length))
                seen.headers = {k.lower(): v for k, v in seen.headers.items()}
                outer.requests.append(seen)
                reply = answer(seen)
                self.send_response(reply.status)
                pieces = [reply.body] if isinstance(reply.body, bytes) else reply.body
                chunked = not isinstance(reply.body, bytes)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if not watch_close:
                    self.send_header("connection", "close")
                if chunked:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(len(reply.body)))  # type: ignore[arg-type]
                self.end_headers()
                try:
                    for piece in pieces:
                        if chunked:
                            if not piece:
                                continue
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        else:
                            self.wfile.write(piece)
                        self.wfile.flush()
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                        self.wfile.flush()
                    if watch_close:  # wait for the client to close (reading b"": its FIN)
                        self.connection.settimeout(10)
                        if self.rfile.read(1) == b"":
                            outer.closed.set()
                except OSError:
                    outer.closed.set()
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
