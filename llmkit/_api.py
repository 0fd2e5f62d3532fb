"""The calls: ``complete``/``acomplete``/``stream``/``astream`` and the public seams
``build_request``, ``parse_stream``/``aparse_stream`` and ``parse_response``.

All the logic sits in :class:`_Session` (bytes in, events out, no I/O) and in the transport's
retry plan; the sync and async pumps below only move bytes and differ only in ``await``.
``complete()`` streams on the wire and collects the events: the same decoder, assembler,
idle timeouts and partial message on failure as ``stream()``.
"""

from __future__ import annotations

import functools
import json
import os
import ssl
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from types import TracebackType
from typing import Any, cast

import httpx

from . import wire
from ._assembler import Assembler
from ._diagnostics import Diagnostic
from ._errors import APITimeoutError, InvalidRequestError, MissingAPIKeyError, StreamError
from ._events import Event
from ._messages import AssistantMessage, Context
from ._models import Model
from ._sse import DEFAULT_MAX_EVENT_SIZE, EventTooLarge, SSEDecoder, SSEEvent
from ._transport import (
    Timeouts,
    TransportOptions,
    map_stream_exception,
    run_async,
    run_sync,
    send_plan,
    start_body,
)
from .wire._common import Options

__all__ = [
    "AsyncEventStream",
    "EventStream",
    "acomplete",
    "aparse_stream",
    "astream",
    "build_request",
    "complete",
    "parse_response",
    "parse_stream",
    "stream",
]

_BODY_OPTIONS = frozenset(Options.__dataclass_fields__)
_TRANSPORT_OPTIONS = frozenset(
    {
        "api_key",
        "base_url",
        "headers",
        "timeout",
        "max_retries",
        "client",
        "on_request",
        "max_event_size",
        "max_retry_delay",
    }
)
_VERSION = "0.1.0"


def _split(options: dict[str, Any]) -> tuple[Options, dict[str, Any]]:
    unknown = set(options) - _BODY_OPTIONS - _TRANSPORT_OPTIONS
    if unknown:
        raise InvalidRequestError(
            f"Unknown option(s): {', '.join(sorted(unknown))}. Use provider_options={{...}} "
            "for provider-specific body fields."
        )
    body = Options(**{k: v for k, v in options.items() if k in _BODY_OPTIONS})
    if isinstance(body.stop, str):
        body.stop = [body.stop]
    return body, {k: v for k, v in options.items() if k in _TRANSPORT_OPTIONS}


def _api_key(model: Model, explicit: str | None) -> str | None:
    if explicit:
        return explicit
    if model.api_key_env:
        value = os.environ.get(model.api_key_env)
        if value:
            return value
    if model.api_key_required:
        raise MissingAPIKeyError(model.provider, model.api_key_env)
    return None


def _request(
    model: Model, context: Context, body_opts: Options, tr: dict[str, Any], *, stream: bool
) -> tuple[httpx.Request, str | None]:
    adapter = wire.adapter(model.api)
    body, diagnostics = adapter.build(model, context, body_opts, stream=stream)
    on_request = tr.get("on_request")
    if on_request is not None:
        replaced = on_request(body)
        if replaced is not None:
            body = replaced
    key = _api_key(model, tr.get("api_key"))
    base_url = tr.get("base_url") or model.base_url
    if not base_url:
        raise InvalidRequestError(f"Model {model.provider}/{model.id} has no base_url")
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream" if stream else "application/json",
        "user-agent": f"llmkit/{_VERSION}",
        **adapter.headers(model, key),
        **(tr.get("headers") or {}),
    }
    request = httpx.Request(
        "POST",
        adapter.url(model, base_url, stream=stream),
        headers=headers,
        content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        extensions={"llmkit.diagnostics": diagnostics},
    )
    return request, key


def build_request(model: Model, context: Context, **options: Any) -> httpx.Request:
    """The streaming HTTP request ``stream()`` would send, without sending it.

    Request-side diagnostics are on ``request.extensions["llmkit.diagnostics"]``.

    Raises:
        InvalidRequestError: an option the model cannot honour, duplicate tool names, a
            ``tool_choice`` naming an undeclared tool, or an unknown option.
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable.
    """
    body_opts, tr = _split(options)
    return _request(model, context, body_opts, tr, stream=True)[0]


class _Session:
    """One response being decoded: bytes in, events out. No I/O."""

    __slots__ = ("asm", "decoder", "model", "sse")

    def __init__(
        self,
        model: Model,
        *,
        tool_names: frozenset[str] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
        secret: str | None = None,
    ) -> None:
        self.model = model
        self.asm = Assembler(
            model, tool_names=tool_names, request_diagnostics=diagnostics, secret=secret
        )
        self.sse = SSEDecoder(max_event_size)
        self.decoder = wire.adapter(model.api).Decoder(self.asm, model)

    @property
    def done(self) -> bool:
        return self.asm.message is not None

    def drain(self) -> list[Event]:
        out = self.asm.out
        self.asm.out = []
        return out

    def feed(self, chunk: bytes) -> list[Event]:
        if self.asm.message is not None:
            return []  # the stream already ended (terminal event, error or abort)
        try:
            events = self.sse.feed(chunk)
        except EventTooLarge as exc:
            self.asm.fail(StreamError(str(exc)))
            return self.drain()
        feed = self.decoder.feed
        for sse in events:
            try:
                feed(sse)
            except Exception as exc:
                self._undecodable(sse, exc)
        return self.drain()

    def _undecodable(self, sse: SSEEvent, exc: Exception) -> None:
        """An event of a shape the decoder did not expect (a field of the wrong type, say):
        skipped and reported, and the rest of the stream still decoded."""
        self.asm.diagnostic(
            "event_malformed",
            f"An event of an unexpected shape was skipped ({type(exc).__name__})",
            event=sse.event,
            excerpt=sse.data[:80],
        )

    def eof(self) -> list[Event]:
        for sse in self.sse.flush():
            try:
                self.decoder.feed(sse)
            except Exception as exc:
                self._undecodable(sse, exc)
        self.decoder.eof()
        return self.drain()

    def whole(self, body: bytes) -> list[Event]:
        """A non-streamed JSON body (a server that ignored ``stream: true``)."""
        try:
            parsed = json.loads(body)
        except ValueError:
            self.asm.fail(StreamError("The response body is not valid JSON"))
            return self.drain()
        try:
            wire.adapter(self.model.api).decode_response(
                self.asm, self.model, parsed, body.decode("utf-8", "replace")
            )
        except Exception as exc:
            self.asm.fail(StreamError(f"The response body has an unexpected shape ({exc!r})"))
        return self.drain()

    def fail(self, error: Exception) -> list[Event]:
        self.asm.fail(error)
        return self.drain()

    def abort(self) -> list[Event]:
        self.asm.abort()
        return self.drain()


def parse_stream(model: Model, chunks: Iterable[bytes]) -> Iterator[Event]:
    """Decode a raw streamed response body (network chunks of any size) into the events
    ``stream()`` would yield, with no network."""
    session = _Session(model)
    yield from session.drain()
    for chunk in chunks:
        yield from session.feed(chunk)
        if session.done:
            return
    yield from session.eof()


async def aparse_stream(model: Model, chunks: AsyncIterable[bytes]) -> AsyncIterator[Event]:
    """:func:`parse_stream` over an async iterable of chunks."""
    session = _Session(model)
    for event in session.drain():
        yield event
    async for chunk in chunks:
        for event in session.feed(chunk):
            yield event
        if session.done:
            return
    for event in session.eof():
        yield event


def parse_response(model: Model, body: bytes | str | dict[str, Any]) -> AssistantMessage:
    """Decode a non-streamed response body into the AssistantMessage.

    Raises:
        APIError: the body is a provider error.
    """
    if isinstance(body, dict):
        parsed: Any = body
        seed = json.dumps(body, sort_keys=True)
    else:
        seed = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        parsed = json.loads(seed)
    asm = Assembler(model)
    wire.adapter(model.api).decode_response(asm, model, parsed, seed)
    if asm.error is not None:
        raise asm.error
    assert asm.message is not None
    return asm.message


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    # Building an SSL context costs milliseconds; share one (verification stays on).
    return httpx.create_ssl_context()


class _Call:
    """What stream()/astream() share: the request, the session, the transport options."""

    def __init__(self, model: Model, context: Context, options: dict[str, Any]) -> None:
        body_opts, tr = _split(options)
        self.model = model
        self.request, key = _request(model, context, body_opts, tr, stream=True)
        timeouts = Timeouts.of(tr.get("timeout"))
        self.transport = TransportOptions(
            timeouts=timeouts,
            max_retries=tr.get("max_retries", 2),
            max_retry_delay=tr.get("max_retry_delay", 60.0),
            provider=model.provider,
            secret=key,
            deadline=None if timeouts.total is None else time.monotonic() + timeouts.total,
        )
        self.client: Any = tr.get("client")
        self.session = _Session(
            model,
            tool_names=frozenset(t.name for t in context.tools),
            diagnostics=cast(list[Diagnostic], self.request.extensions["llmkit.diagnostics"]),
            max_event_size=tr.get("max_event_size", DEFAULT_MAX_EVENT_SIZE),
            secret=key,
        )
        self.response: httpx.Response | None = None

    def is_json(self) -> bool:
        assert self.response is not None
        content_type: str = self.response.headers.get("content-type", "")
        return content_type.startswith("application/json")

    def past_deadline(self) -> bool:
        remaining = self.transport.remaining()
        return remaining is not None and remaining <= 0

    @property
    def message(self) -> AssistantMessage:
        message = self.session.asm.message
        if message is None:
            raise RuntimeError("The stream has not ended yet: iterate it to the end first")
        return message

    def raise_for_result(self) -> AssistantMessage:
        message = self.message
        error = self.session.asm.error
        if error is not None:
            raise error
        return message


def _httpx2_hint(client: object) -> str:
    # Without httpx2.alias_httpx(), httpx2's clients, requests and exceptions are classes of
    # their own: llmkit's httpx requests and exception mapping do not apply (docs/httpx2.md).
    if type(client).__module__.partition(".")[0] != "httpx2":
        return ""
    return (
        f"; this is httpx2's {type(client).__name__}, which llmkit accepts once "
        "httpx2.alias_httpx() has run before anything imported httpx"
    )


class EventStream:
    """The context manager ``stream()`` returns: an iterator of events.

    ``message`` is the final AssistantMessage once the stream has ended. Leaving the block
    early closes the connection; the message then has ``stop_reason="aborted"``.
    """

    def __init__(self, model: Model, context: Context, options: dict[str, Any]) -> None:
        self._call = _Call(model, context, options)
        self._owned = self._call.client is None
        if self._call.client is not None and not isinstance(self._call.client, httpx.Client):
            raise InvalidRequestError(
                "stream()/complete() need an httpx.Client as client="
                + _httpx2_hint(self._call.client)
            )
        self._iter: Iterator[Event] | None = None

    def __enter__(self) -> EventStream:
        call = self._call
        if call.client is None:
            call.client = httpx.Client(verify=_ssl_context(), timeout=None)
        try:
            call.response = run_sync(send_plan(call.request, call.transport), call.client)
        except BaseException:
            self._close_client()
            raise
        start_body(call.request, call.transport)
        self._iter = self._events()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Event]:
        if self._iter is None:
            raise RuntimeError("Use stream() as a context manager: with llmkit.stream(...) as s")
        return self._iter

    @property
    def message(self) -> AssistantMessage:
        """The final (or partial) AssistantMessage, once the stream has ended."""
        return self._call.message

    def close(self) -> None:
        """Close the connection; an unfinished stream ends ``aborted``."""
        call = self._call
        if not call.session.done:
            call.session.abort()
        if self._iter is not None and hasattr(self._iter, "close"):
            self._iter.close()
        if call.response is not None:
            call.response.close()
        self._close_client()

    def _close_client(self) -> None:
        if self._owned and self._call.client is not None:
            self._call.client.close()
            self._call.client = None

    def _events(self) -> Iterator[Event]:
        call = self._call
        session = call.session
        response = call.response
        assert response is not None
        yield from session.drain()
        try:
            if call.is_json():
                yield from session.whole(response.read())
                return
            for chunk in response.iter_bytes():
                yield from session.feed(chunk)
                if session.done:
                    return
                if call.past_deadline():
                    raise APITimeoutError("The total timeout ran out", phase="total")
            yield from session.eof()
        except Exception as exc:
            if not session.done:
                yield from session.fail(map_stream_exception(exc, call.transport))
        finally:
            response.close()


class AsyncEventStream:
    """The async context manager ``astream()`` returns (see :class:`EventStream`).

    Cancelling the task that consumes it closes the connection; the message ends
    ``aborted``.
    """

    def __init__(self, model: Model, context: Context, options: dict[str, Any]) -> None:
        self._call = _Call(model, context, options)
        self._owned = self._call.client is None
        if self._call.client is not None and not isinstance(self._call.client, httpx.AsyncClient):
            raise InvalidRequestError(
                "astream()/acomplete() need an httpx.AsyncClient as client="
                + _httpx2_hint(self._call.client)
            )
        self._iter: AsyncIterator[Event] | None = None

    async def __aenter__(self) -> AsyncEventStream:
        call = self._call
        if call.client is None:
            call.client = httpx.AsyncClient(verify=_ssl_context(), timeout=None)
        try:
            call.response = await run_async(send_plan(call.request, call.transport), call.client)
        except BaseException:
            await self._close_client()
            raise
        start_body(call.request, call.transport)
        self._iter = self._events()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncIterator[Event]:
        if self._iter is None:
            raise RuntimeError("Use astream() as an async context manager")
        return self._iter

    @property
    def message(self) -> AssistantMessage:
        """The final (or partial) AssistantMessage, once the stream has ended."""
        return self._call.message

    async def aclose(self) -> None:
        """Close the connection; an unfinished stream ends ``aborted``."""
        call = self._call
        if not call.session.done:
            call.session.abort()
        if self._iter is not None and hasattr(self._iter, "aclose"):
            await self._iter.aclose()
        if call.response is not None:
            await call.response.aclose()
        await self._close_client()

    async def _close_client(self) -> None:
        if self._owned and self._call.client is not None:
            await self._call.client.aclose()
            self._call.client = None

    async def _events(self) -> AsyncIterator[Event]:
        call = self._call
        session = call.session
        response = call.response
        assert response is not None
        for event in session.drain():
            yield event
        try:
            if call.is_json():
                for event in session.whole(await response.aread()):
                    yield event
                return
            async for chunk in response.aiter_bytes():
                for event in session.feed(chunk):
                    yield event
                if session.done:
                    return
                if call.past_deadline():
                    raise APITimeoutError("The total timeout ran out", phase="total")
            for event in session.eof():
                yield event
        except Exception as exc:
            if not session.done:
                for event in session.fail(map_stream_exception(exc, call.transport)):
                    yield event
        except BaseException:  # cancelled: the caller stopped us
            if not session.done:
                session.abort()
            raise
        finally:
            await response.aclose()


def stream(model: Model, context: Context, **options: Any) -> EventStream:
    """Stream a response: ``with llmkit.stream(model, context) as events: for e in events``.

    The request is sent (with retries before the first byte) when the block is entered;
    errors before the stream starts raise there. Failures after it started end the stream
    with an ``Error`` event carrying the partial message.
    """
    return EventStream(model, context, options)


def astream(model: Model, context: Context, **options: Any) -> AsyncEventStream:
    """Async :func:`stream`: ``async with llmkit.astream(...) as events: async for e in events``."""
    return AsyncEventStream(model, context, options)


def complete(model: Model, context: Context, **options: Any) -> AssistantMessage:
    """The whole AssistantMessage: exactly what the terminal event of ``stream()`` carries.

    Raises:
        StreamError: the stream failed after it started (``.partial`` has the message).
        APIError: the provider answered with an error, before or during the stream.
    """
    with stream(model, context, **options) as events:
        for _ in events:
            pass
        return events._call.raise_for_result()


async def acomplete(model: Model, context: Context, **options: Any) -> AssistantMessage:
    """Async :func:`complete`."""
    async with astream(model, context, **options) as events:
        async for _ in events:
            pass
        return events._call.raise_for_result()
