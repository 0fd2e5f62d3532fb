"""The streams ``stream()`` and ``astream()`` return: the only I/O pumps of a response.

Everything but moving bytes is shared: the request and its transport options (:class:`Exchange`),
the decoding (:class:`~llmkit._pipeline.Pipeline`), and what ends a stream. The sync and async
pumps differ only in ``await``.

How a started stream can end: its terminal event (``Done``); an in-stream provider error, a
broken connection or a timeout (``ErrorEvent``, the exception the transport mapped); the caller
leaving early (``aborted``); or a bug in llmkit itself — an exception out of the decoder or the
assembler is never mistaken for provider noise: it is logged at ERROR with its traceback and
ends the stream with an ``ErrorEvent`` whose error has it as ``__cause__``
(``complete()`` raises it).
"""

from __future__ import annotations

import itertools
import logging
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from types import TracebackType
from typing import Any, cast

import httpx

from . import _inflate
from ._clients import default_async_client, default_client
from ._diagnostics import Diagnostic
from ._errors import APIError, APITimeoutError, InvalidRequestError, LLMError, StreamError
from ._events import Event
from ._inflate import Bounded
from ._messages import AssistantMessage, Context, Message, as_context
from ._models import Model
from ._options import Options, RequestOptions
from ._pipeline import Pipeline
from ._redact import redact
from ._request import build
from ._telemetry import call as telemetry_call
from ._transport import (
    map_stream_exception,
    run_async,
    run_sync,
    send_plan,
    start_body,
)
from ._wire.request_features import function_tools

__all__ = ["AsyncEventStream", "EventStream"]

_TEXT_KEPT = 64 * 1024  # of a 200 that is a page or plain text, not a stream: for the error

logger = logging.getLogger("llmkit")


def _internal_error(exc: Exception) -> StreamError:
    """llmkit's own bug, as the error that ends the stream (logged, never a diagnostic)."""
    logger.error("llmkit failed while decoding a response (a bug in llmkit)", exc_info=exc)
    error = StreamError(
        f"llmkit failed while decoding the response ({type(exc).__name__}: {exc}); this is a "
        "bug in llmkit, please report it",
        retryable=False,
    )
    error.__cause__ = exc
    return error


def _httpx2_hint(client: object) -> str:
    # Without httpx2.alias_httpx(), httpx2's clients, requests and exceptions are classes of
    # their own: llmkit's httpx requests and exception mapping do not apply (docs/httpx2.md).
    if type(client).__module__.partition(".")[0] != "httpx2":
        return ""
    return (
        f"; this is httpx2's {type(client).__name__}, which llmkit accepts once "
        "httpx2.alias_httpx() has run before anything imported httpx"
    )


class Exchange:
    """What ``stream()``/``astream()`` share: the request, its transport options, the
    decoding pipeline, and the response once its head arrived."""

    def __init__(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        options: RequestOptions,
        *,
        client_type: type[Any],
    ) -> None:
        opts = Options.check(options)
        client = opts.client
        if client is not None and not isinstance(client, client_type):
            need = (
                "stream()/complete() need an httpx.Client"
                if client_type is httpx.Client
                else "astream()/acomplete() need an httpx.AsyncClient"
            )
            raise InvalidRequestError(f"{need} as client=" + _httpx2_hint(client))
        self.model = model
        ctx = as_context(context)
        self.request, key = build(model, ctx, opts, stream=True)
        self.transport = opts.transport_options(model.provider, key)
        self.client: Any = client
        # What the pipeline needs, kept until the response head arrives: a stream still waiting
        # for it (a thousand of them, at launch) holds no decoder or assembler yet.
        # With a provider tool declared, calls may bear names no function tool has (computer,
        # shell, a custom tool, ...): call names are then not checked.
        functions = function_tools(ctx)
        self._tool_names = (
            frozenset(t.name for t in functions) if len(functions) == len(ctx.tools) else None
        )
        self._max_event_size = opts.event_size_limit
        self._structured_output = opts.response_format is not None
        self.pipeline: Pipeline | None = None
        self.response: httpx.Response | None = None
        # The OpenTelemetry span and metrics of this call (None: off, or no opentelemetry-api).
        self.telemetry = telemetry_call(model, ctx, opts, self.request)

    def open_pipeline(self) -> Pipeline:
        """The response head arrived: build the decoding pipeline."""
        self.pipeline = Pipeline(
            self.model,
            tool_names=self._tool_names,
            diagnostics=cast(list[Diagnostic], self.request.extensions["llmkit.diagnostics"]),
            max_event_size=self._max_event_size,
            secret=self.transport.secret,
            structured_output=self._structured_output,
        )
        return self.pipeline

    def abort(self) -> None:
        """The caller left: an unfinished stream ends ``aborted``."""
        if self.pipeline is not None and not self.pipeline.done:
            self.pipeline.abort()

    def start_clock(self) -> None:
        """The request is being sent: the total timeout runs from now (and the span). The
        client's redirect settings pass to the transport's plan, which follows them itself."""
        self.transport.follow_redirects = bool(getattr(self.client, "follow_redirects", False))
        self.transport.max_redirects = int(getattr(self.client, "max_redirects", 20))
        total = self.transport.timeouts.total
        self.transport.deadline = None if total is None else time.monotonic() + total
        if self.telemetry is not None:
            self.telemetry.start()

    def unsent(self, exc: BaseException) -> None:
        """Sending failed (or was cancelled): the call ends with ``exc``."""
        if self.telemetry is not None:
            self.telemetry.end(error=exc)

    def ended(self) -> None:
        """The stream has ended (or the caller left): its span and metrics end."""
        if self.telemetry is not None:
            pipeline = self.pipeline
            if pipeline is not None and pipeline.done:
                self.telemetry.end(pipeline.asm.message, pipeline.asm.error)

    def is_json(self) -> bool:
        """The server answered with a whole JSON body instead of a stream."""
        assert self.response is not None
        content_type: str = self.response.headers.get("content-type", "")
        return content_type.startswith("application/json")

    def raw_body(self) -> bool:
        """The body comes as sent (no content coding) and is still to be read: read it with
        ``iter_raw``, which skips httpx's identity decoder and re-chunker (one generator and
        two calls per read). A body already read (a mock transport's) goes by ``iter_bytes``, a
        gzip or deflate one by :meth:`decoded`."""
        response = self.response
        assert response is not None
        coding: str = response.headers.get("content-encoding", "")
        return coding.strip().lower() in ("", "identity") and not response.is_stream_consumed

    def bounded_coding(self) -> bool:
        """A gzip or deflate body still to be read: :meth:`decoded` reads it."""
        assert self.response is not None
        return not self.response.is_stream_consumed and _inflate.coding(self.response) == "bounded"

    def decoded(self, raw: Iterator[bytes]) -> Iterator[bytes]:
        """A gzip or deflate body's raw reads, decoded in bounded pieces: a gzip bomb never
        becomes one huge read, the framer's ``max_event_size`` sees every piece."""
        assert self.response is not None
        inflater = _inflate.inflater(self.response)
        assert inflater is not None
        for chunk in raw:
            yield from inflater.feed(chunk)
        yield from inflater.flush()

    async def adecoded(self, raw: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """:meth:`decoded`, async."""
        assert self.response is not None
        inflater = _inflate.inflater(self.response)
        assert inflater is not None
        async for chunk in raw:
            for piece in inflater.feed(chunk):
                yield piece
        for piece in inflater.flush():
            yield piece

    def text_body(self) -> str | None:
        """The content type when it is text that is not a stream (``text/html``,
        ``text/plain``, ...): the body may be a page or a whole completion, not events."""
        assert self.response is not None
        content_type: str = self.response.headers.get("content-type", "")
        content_type = content_type.split(";")[0].strip()
        lowered = content_type.lower()
        if lowered.startswith("text/") and lowered != "text/event-stream":
            return lowered
        return None

    def sniff(self, content_type: str, first: bytes) -> bool:
        """Whether a ``text/*`` body that is not ``text/event-stream`` still holds SSE (some
        servers label their streams ``text/plain``): an HTML page never does."""
        head = first.lstrip(b"\xef\xbb\xbf \t\r\n")[:6]
        return content_type != "text/html" and head.startswith(
            (b"data", b"event", b":", b"id:", b"retry")
        )

    def not_a_stream(self, content_type: str, body: bytes) -> APIError:
        """A 200 whose body is a page or plain text, not the stream asked for."""
        text = redact(body.decode("utf-8", "replace"), self.transport.secret)
        excerpt = " ".join(text.split())[:300]
        return APIError(
            f"The provider answered HTTP 200 with {content_type} instead of a stream: {excerpt!r}",
            status=200,
            provider=self.model.provider,
            code="not_a_stream",
            body=text,
        )

    def too_large(self) -> StreamError:
        """A whole body over ``max_event_size`` decoded bytes (read no further)."""
        return StreamError(
            f"The response body is larger than max_event_size ({self._max_event_size} bytes, "
            "decoded): raise max_event_size to accept it"
        )

    def check_deadline(self) -> None:
        """Raise the total timeout once it has run out."""
        remaining = self.transport.remaining()
        if remaining is not None and remaining <= 0:
            raise APITimeoutError("The total timeout ran out", phase="total")

    def failed(self, exc: Exception) -> list[Event]:
        """The events that end the stream after ``exc`` interrupted the reading."""
        assert self.pipeline is not None
        if self.pipeline.done:
            return []
        if isinstance(exc, (httpx.HTTPError, LLMError)):
            error: Exception = map_stream_exception(exc, self.transport)
        else:
            error = _internal_error(exc)
        return self.pipeline.fail(error)

    @property
    def message(self) -> AssistantMessage:
        message = None if self.pipeline is None else self.pipeline.asm.message
        if message is None:
            raise RuntimeError(
                "The stream has not ended yet: iterate it to the end, or leave the `with` "
                "block (or call close()) to stop it; then .message is the final message"
            )
        return message

    def describe(self) -> str:
        """What a repr shows: the model, where the request goes, and how far the stream got
        (never a key: the URL without its query, no header)."""
        url = self.request.url.copy_with(query=None, userinfo=b"")
        message = None if self.pipeline is None else self.pipeline.asm.message
        if message is not None:
            state = f"ended, stop_reason={message.stop_reason!r}"
        elif self.pipeline is not None:
            state = "streaming"
        elif self.response is not None:
            state = f"HTTP {self.response.status_code}"
        else:
            state = "not started"
        model = self.model
        return f"{model.provider}/{model.id} ({model.api}) POST {url}: {state}"

    def raise_for_result(self) -> AssistantMessage:
        message = self.message
        assert self.pipeline is not None  # there is a message
        error = self.pipeline.asm.error
        if error is not None:
            raise error
        return message


class EventStream:
    """The context manager ``stream()`` returns: an iterator of events.

    ``message`` is the final AssistantMessage once the stream has ended. Leaving the block
    early closes the connection; the message then has ``stop_reason="aborted"``.
    """

    def __init__(
        self, model: Model, context: Context | str | Sequence[Message], options: RequestOptions
    ) -> None:
        self._x = Exchange(model, context, options, client_type=httpx.Client)
        self._iter: Generator[Event, None, None] | None = None

    def __repr__(self) -> str:
        return f"<llmkit.EventStream {self._x.describe()}>"

    def __enter__(self) -> EventStream:
        x = self._x
        if x.client is None:
            x.client = default_client()
        x.start_clock()
        try:
            x.response = run_sync(send_plan(x.request, x.transport), x.client)
        except BaseException as exc:  # ok -- noqa: catch-all: ends the call's span, re-raised
            x.unsent(exc)
            raise
        if x.telemetry is not None:
            x.telemetry.sent()
        start_body(x.request, x.transport)
        x.open_pipeline()
        self._iter = _events(x)  # holds the exchange, not this stream: no cycle keeps it alive
        # A stream entered but never iterated, then dropped: its response is closed (the
        # generator's own ``finally`` never runs if it never started).
        weakref.finalize(self, x.response.close)
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
        return self._x.message

    def close(self) -> None:
        """Close the connection; an unfinished stream ends ``aborted``."""
        x = self._x
        x.abort()
        if self._iter is not None:
            self._iter.close()
        if x.response is not None:
            x.response.close()
        x.ended()


class AsyncEventStream:
    """The async context manager ``astream()`` returns (see :class:`EventStream`).

    Cancelling the task that consumes it closes the connection; the message ends
    ``aborted``.
    """

    def __init__(
        self, model: Model, context: Context | str | Sequence[Message], options: RequestOptions
    ) -> None:
        self._x = Exchange(model, context, options, client_type=httpx.AsyncClient)
        self._owned = False  # a client made for this call alone (outside asyncio), closed after
        self._iter: AsyncGenerator[Event, None] | None = None

    def __repr__(self) -> str:
        return f"<llmkit.AsyncEventStream {self._x.describe()}>"

    async def __aenter__(self) -> AsyncEventStream:
        x = self._x
        if x.client is None:
            x.client, self._owned = default_async_client()
        x.start_clock()
        try:
            x.response = await run_async(send_plan(x.request, x.transport), x.client)
        except (
            BaseException
        ) as exc:  # ok -- noqa: catch-all: closes the client, ends the span, re-raises
            x.unsent(exc)
            await self._close_client()
            raise
        if x.telemetry is not None:
            x.telemetry.sent()
        start_body(x.request, x.transport, watched=True)
        x.open_pipeline()
        self._iter = _aevents(x)  # holds the exchange, not this stream: no cycle
        weakref.finalize(self, _close_later, x.response)  # entered, never iterated, dropped
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
        return self._x.message

    async def aclose(self) -> None:
        """Close the connection; an unfinished stream ends ``aborted``."""
        x = self._x
        x.abort()
        if self._iter is not None:
            await self._iter.aclose()
        if x.response is not None:
            await x.response.aclose()
        await self._close_client()
        x.ended()

    async def _close_client(self) -> None:
        if self._owned and self._x.client is not None:
            await self._x.client.aclose()
            self._x.client = None


def _events(x: Exchange) -> Generator[Event, None, None]:
    """The events of a sync stream: the pump of :class:`EventStream`."""
    pipeline = x.pipeline
    response = x.response
    assert pipeline is not None and response is not None
    yield from pipeline.drain()
    try:
        if x.raw_body():
            chunks: Iterator[bytes] = response.iter_raw()
        elif x.bounded_coding():
            chunks = x.decoded(response.iter_raw())
        else:  # already read (a mock transport's), or a coding httpx decodes
            chunks = response.iter_bytes()
        json_body = x.is_json()  # not a stream: no time to a first chunk (GenAI conventions)
        if x.telemetry is not None and not json_body:  # a stream's first chunk timed, once
            chunks = x.telemetry.timed(chunks)
        if json_body:
            whole = Bounded(x._max_event_size)
            for chunk in chunks:
                if not whole.add(chunk):
                    raise x.too_large()
            yield from pipeline.whole(whole.body())
            return
        text_type = x.text_body()
        if text_type is not None:
            first = next(chunks, b"")
            if not x.sniff(text_type, first):
                page = Bounded(_TEXT_KEPT)
                page.add(first)
                for chunk in chunks:
                    if not page.add(chunk):
                        break
                raise x.not_a_stream(text_type, page.body())
            chunks = itertools.chain((first,), chunks)
        for chunk in chunks:
            yield from pipeline.feed(chunk)
            if pipeline.asm.ended:  # pipeline.done, without a property call per read
                return
            x.check_deadline()
        yield from pipeline.eof()
    except Exception as exc:  # noqa: BLE001 -- noqa: catch-all: mapped, or reported as llmkit's own bug
        yield from x.failed(exc)
    finally:
        response.close()
        x.ended()


async def _aevents(x: Exchange) -> AsyncGenerator[Event, None]:
    """The events of an async stream: the pump of :class:`AsyncEventStream`."""
    import asyncio  # here, not at module level: building a request needs no event loop

    from ._watchdog import Watchdog

    pipeline = x.pipeline
    response = x.response
    assert pipeline is not None and response is not None
    for event in pipeline.drain():
        yield event
    # The idle and total timeouts of the body reads (start_body gave httpcore none).
    dog = Watchdog(x.transport.timeouts.idle, x.transport.deadline)
    decoded: AsyncIterator[bytes] | None = None
    try:
        if x.raw_body():
            chunks: AsyncIterator[bytes] = response.aiter_raw()
        elif x.bounded_coding():
            chunks = decoded = x.adecoded(response.aiter_raw())
        else:  # already read (a mock transport's), or a coding httpx decodes
            chunks = response.aiter_bytes()
        next_chunk = dog.next_chunk  # each read under the idle timeout
        # The first read comes before the loops: the call's time to the first chunk is taken
        # here, once (no wrapper around the body: no work per chunk, telemetry on or off).
        chunk = await next_chunk(chunks)
        json_body = x.is_json()  # not a stream: no time to a first chunk (GenAI conventions)
        if x.telemetry is not None and chunk is not None and not json_body:
            x.telemetry.first_chunk()
        if json_body:
            whole = Bounded(x._max_event_size)
            while chunk is not None:
                if not whole.add(chunk):
                    raise x.too_large()
                chunk = await next_chunk(chunks)
            for event in pipeline.whole(whole.body()):
                yield event
            return
        text_type = x.text_body()
        if text_type is not None and not x.sniff(text_type, chunk or b""):
            page = Bounded(_TEXT_KEPT)
            page.add(chunk or b"")
            while (chunk := await next_chunk(chunks)) is not None and page.add(chunk):
                pass
            raise x.not_a_stream(text_type, page.body())
        while chunk is not None:
            for event in pipeline.feed(chunk):
                yield event
            if pipeline.asm.ended:  # pipeline.done, without a property call per read
                return
            x.check_deadline()
            chunk = await next_chunk(chunks)
        for event in pipeline.eof():
            yield event
    except Exception as exc:  # noqa: BLE001 -- noqa: catch-all: mapped, or reported as llmkit's own bug
        for event in x.failed(exc):
            yield event
    except asyncio.CancelledError:
        if not dog.expired():  # the caller cancelled: the stream ends aborted, re-raised
            x.abort()
            raise
        # The watchdog's: the read timed out, as httpx's own read timeout would say it.
        for event in x.failed(httpx.ReadTimeout("The read timed out")):
            yield event
    except BaseException:  # ok -- noqa: catch-all: the stream ends aborted, re-raised
        x.abort()
        raise
    finally:
        dog.close()
        if decoded is not None:
            await decoded.aclose()  # type: ignore[attr-defined]
        await response.aclose()
        x.ended()


_closing: set[Any] = set()  # close tasks of dropped async streams, kept until they finish


def _close_later(response: httpx.Response) -> None:
    """An async stream dropped unread: close its response on the running loop (no loop left:
    nothing can await it; the event loop's teardown closes the transport)."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(response.aclose())
    _closing.add(task)
    task.add_done_callback(_closing.discard)
