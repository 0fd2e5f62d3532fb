"""Test helpers: a scripted fake provider that speaks the real wire.

:class:`FakeProvider` runs a real HTTP/1.1 server on ``127.0.0.1`` (a free port, daemon threads)
and answers each request with the next scripted :class:`FakeReply` or :class:`FakeError`, encoded
byte for byte as the provider's API would send it: the same SSE framing, chunk shapes, headers
and error bodies. Anything that speaks the wire can be pointed at it: llmkit itself, a vendor SDK,
or a plain ``httpx`` client. Because the bytes really cross a socket, it also tests what a mock
transport cannot: chunking at arbitrary byte offsets, slow and stalled streams, dropped
connections, and client cancellation (``disconnects``).

Wire APIs served: ``openai-chat`` (``POST {base_url}/chat/completions``, streamed when the body
says ``"stream": true``). A tool loop under test, in a few lines::

    from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

    replies = [
        FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})]),
        FakeReply("It is sunny in Paris."),
    ]
    with FakeProvider(replies) as fake:
        run_my_agent(fake.model(), api_key=fake.api_key)
        assert fake.requests[1].body["messages"][-1]["role"] == "tool"
"""

from __future__ import annotations

from collections.abc import Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._fake.script import FakeError, FakeReply, FakeRequest, FakeToolCall, Responder, ScriptItem
from ._fake.server import ENCODERS, Server

if TYPE_CHECKING:
    from ._models import Api, Model

__all__ = ["FakeError", "FakeProvider", "FakeReply", "FakeRequest", "FakeToolCall", "Responder"]


class FakeProvider:
    """A local HTTP server that answers like a provider's API, from a script.

    Use it as a context manager, or call :meth:`start` and :meth:`close`. Requests are answered
    in arrival order: the n-th request gets the n-th scripted item. Requests the fake answers
    itself do not use a scripted item: a wrong or missing key (401, in the wire's error shape,
    when ``require_key``), an unknown path (404), a body that is not a JSON object (400). A
    request after the script runs out gets a 500 whose message says so (``"FakeProvider has no
    reply left for request #3 ..."``); note that clients retry 500s by default.

    Args:
        replies: The script: an iterable of :class:`FakeReply` / :class:`FakeError`, consumed
            lazily (so ``itertools.repeat(reply)`` serves forever), or a responder function
            ``(FakeRequest) -> FakeReply | FakeError`` called once per request, one call at a
            time, on a server thread. If it raises, the request gets a 500 naming the exception.
        api: The wire API to serve, a ``Model.api`` value. Only ``"openai-chat"`` for now.
        api_key: The key clients must send.
        require_key: Check the key on every request.
        host: The interface to bind.

    Raises:
        ValueError: ``api`` is not a wire API the fake speaks.
    """

    def __init__(
        self,
        replies: Iterable[ScriptItem] | Responder = (),
        *,
        api: Api = "openai-chat",
        api_key: str = "fake-key",
        require_key: bool = True,
        host: str = "127.0.0.1",
    ) -> None:
        if api not in ENCODERS:
            raise ValueError(f"FakeProvider speaks {sorted(ENCODERS)}, not {api!r}")
        self._api = api
        self._host = host
        self._port: int | None = None
        self._server = Server(replies, api=api, api_key=api_key, require_key=require_key)

    def start(self) -> FakeProvider:
        """Bind a free port and start serving.

        Returns:
            ``self``, to allow ``fake = FakeProvider(...).start()``.

        Raises:
            RuntimeError: It was already started (a provider serves one session only).
        """
        self._port = self._server.start(self._host)
        return self

    def close(self) -> None:
        """Stop the server and end every open response, promptly (well under a second).

        Stalled and slow responses are cut off (the connection closes without the end of the
        body), and so are idle keep-alive connections. ``requests`` and ``disconnects`` stay
        readable. Calling it again does nothing.
        """
        self._server.close()

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def api(self) -> Api:
        """The wire API served, e.g. ``"openai-chat"``."""
        return self._api

    @property
    def api_key(self) -> str:
        """The key clients must send (``Authorization: Bearer <key>`` on openai-chat)."""
        return self._server.api_key

    @property
    def base_url(self) -> str:
        """The API root to give a client, e.g. ``"http://127.0.0.1:PORT/v1"``.

        Raises:
            RuntimeError: The provider has not been started.
        """
        if self._port is None:
            raise RuntimeError("FakeProvider is not started; use `with` or call start()")
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}{ENCODERS[self._api].base_path}"

    @property
    def requests(self) -> list[FakeRequest]:
        """Every request received so far, in arrival order (a copy)."""
        return self._server.requests

    @property
    def disconnects(self) -> int:
        """How many times a client hung up while a response was still being written.

        Noticed during delays and stalls within about 50 ms, and on any failed write.
        """
        return self._server.disconnects

    def wait_for_disconnects(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` disconnects have been noticed.

        Args:
            count: The number of disconnects to wait for.
            timeout: Seconds to wait at most.

        Returns:
            Whether ``disconnects >= count`` before the timeout.
        """
        return self._server.wait_for_disconnects(count, timeout)

    def model(self, id: str = "fake-model", **fields: Any) -> Model:
        """An ``llmkit.Model`` pointing at this server.

        Calls still need the key: pass ``api_key=fake.api_key`` (or build the fake with
        ``require_key=False``, which also makes the model not require one).

        Args:
            id: The model id sent in requests (and echoed in responses).
            **fields: Other ``Model`` fields, e.g. ``reasoning=True`` or ``compat={...}``.

        Returns:
            ``Model(provider="fake", id=id, api=self.api, base_url=self.base_url, ...)``.
        """
        # Imported here so that importing llmkit.testing does not need the whole client.
        from ._models import Model

        if not self._server.require_key:
            fields.setdefault("api_key_required", False)
        return Model(provider="fake", id=id, api=self._api, base_url=self.base_url, **fields)
