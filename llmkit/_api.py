"""The calls: ``complete``/``acomplete``/``stream``/``astream`` and the public seams
``build_request``, ``parse_stream``/``aparse_stream``, ``parse_response`` and ``parse_error``.

The work is elsewhere: the request is built in :mod:`._request`, sent by the transport's retry
plan (:mod:`._transport`), decoded by a :class:`~._pipeline.Pipeline` (bytes in, events out, no
I/O) and pumped by the streams of :mod:`._streams`. ``complete()`` streams on the wire and
collects the events: the same decoder, assembler, idle timeouts and partial message on failure
as ``stream()``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from ._messages import as_context
from ._options import SEND_ONLY, Options
from ._request import build

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from ._errors import APIError
    from ._events import Event
    from ._messages import AssistantMessage, Context, Message
    from ._models import Model
    from ._options import RequestOptions
    from ._streams import AsyncEventStream, EventStream

# The decoding pipeline and the streams load on their first use, not for build_request: a
# process that only builds requests (or only parses) skips them. The two stream classes are
# still reachable here, as they were (llmkit re-exports them from _streams).


def __getattr__(name: str) -> Any:
    if name in ("AsyncEventStream", "EventStream"):
        from . import _streams

        return getattr(_streams, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AsyncEventStream",
    "EventStream",
    "acomplete",
    "aparse_stream",
    "astream",
    "build_request",
    "complete",
    "parse_error",
    "parse_response",
    "parse_stream",
    "stream",
]


def build_request(
    model: Model,
    context: Context | str | Sequence[Message],
    *,
    stream: bool = True,
    **options: Unpack[RequestOptions],
) -> httpx.Request:
    """The HTTP request ``stream()`` would send, without sending it: for callers who send
    requests themselves (their own client, retries and timeouts).

    ``stream=False`` builds the non-streamed request, whose response body
    :func:`parse_response` decodes (:func:`parse_stream` decodes a streamed one, and
    :func:`parse_error` an error response). Request-side diagnostics are on
    ``request.extensions["llmkit.diagnostics"]``.

    The options that act only when llmkit sends (``timeout``, ``max_retries``,
    ``max_retry_delay``, ``client``, ``on_response``, ``max_event_size``, ``telemetry``) are
    refused: nothing is sent here, so they would be ignored silently.

    Raises:
        InvalidRequestError: a send-only or unknown option, an option the model cannot
            honour, duplicate tool names, a ``tool_choice`` naming an undeclared tool, or a
            ``context`` that is not a Context, a str or a sequence of messages.
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable.
    """
    refuse_send_only(options)
    return build(model, as_context(context), Options.check(options), stream=stream)[0]


def refuse_send_only(options: Mapping[str, Any]) -> None:
    """``InvalidRequestError`` naming every send-only option given (not ``None``), whatever
    its value (:data:`~llmkit._options.SEND_ONLY`)."""
    given = [name for name in SEND_ONLY if options.get(name) is not None]
    if given:
        from ._errors import InvalidRequestError

        raise InvalidRequestError(
            f"build_request does not send the request, so {', '.join(given)} would have no "
            "effect: pass them to the client that sends it (or to complete()/stream())"
        )


def parse_stream(
    model: Model, chunks: Iterable[bytes], *, response_format: Any = None
) -> Iterator[Event]:
    """Decode a raw streamed response body (network chunks of any size) into the events
    ``stream()`` would yield, with no network.

    ``response_format``: the structured-output format the request gave (a pydantic model
    class or a JSON schema); with it, every ``TextDelta`` has ``partial_output``.
    """
    from ._pipeline import Pipeline

    pipeline = Pipeline(model, structured_output=response_format is not None)
    yield from pipeline.drain()
    for chunk in chunks:
        yield from pipeline.feed(chunk)
        if pipeline.asm.ended:  # pipeline.done, without a property call per read
            return
    yield from pipeline.eof()


async def aparse_stream(
    model: Model, chunks: AsyncIterable[bytes], *, response_format: Any = None
) -> AsyncIterator[Event]:
    """:func:`parse_stream` over an async iterable of chunks (``response_format`` likewise)."""
    from ._pipeline import Pipeline

    pipeline = Pipeline(model, structured_output=response_format is not None)
    for event in pipeline.drain():
        yield event
    async for chunk in chunks:
        for event in pipeline.feed(chunk):
            yield event
        if pipeline.asm.ended:  # pipeline.done, without a property call per read
            return
    for event in pipeline.eof():
        yield event


def parse_response(
    model: Model, body: httpx.Response | bytes | str | dict[str, Any]
) -> AssistantMessage:
    """Decode a non-streamed response body into the AssistantMessage.

    ``body`` may be the ``httpx.Response`` itself (its body read, or readable): then its status
    counts, and an error status raises what :func:`parse_error` returns for it.

    Raises:
        APIError: the response or body is a provider error.
    """
    if isinstance(body, httpx.Response):
        if body.status_code >= 400:
            raise parse_error(model, body)
        body = _read(body)
    if isinstance(body, dict):
        parsed: Any = body
        seed = json.dumps(body, sort_keys=True)
    else:
        seed = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        parsed = json.loads(seed)
    from ._pipeline import Pipeline

    pipeline = Pipeline(model)
    pipeline.decode_whole(parsed, seed)
    return pipeline.message()


def parse_error(model: Model, response: httpx.Response) -> APIError:
    """The typed error llmkit raises for this HTTP error response, for callers who send the
    requests themselves (``build_request``, their own client and retry policy).

    The class comes from the status and the body (``RateLimitError``, ``ContextLengthError``,
    ``BadRequestError``, ...); ``status``, ``code``, ``request_id`` and ``retry_after`` from
    the headers and the body (``retry-after-ms``, ``retry-after``, Gemini ``RetryInfo``);
    :attr:`~llmkit.LLMError.retryable` says whether sending it again may help. The credentials
    on ``response.request`` and the key in the model's variable are never in the result, even
    when the provider echoes them.

    The body is read if it was not (an async response must be read first: ``await
    response.aread()``).
    """
    from ._classify import http_error
    from ._errors import InvalidRequestError

    try:
        body = _read(response)
    except RuntimeError:  # an async response's body, not read yet
        raise InvalidRequestError(
            "parse_error needs the response body: call `await response.aread()` first"
        ) from None
    return http_error(
        response.status_code,
        body,
        response.headers,
        provider=model.provider,
        secrets=_credentials(model, response),
    )


def _read(response: httpx.Response) -> bytes:
    try:
        return response.content
    except httpx.ResponseNotRead:
        return response.read()


# Headers a wire or platform puts a credential in (Bearer tokens, key headers, AWS session).
_CREDENTIAL_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")
_CREDENTIAL_HEADERS_RAW = ("x-amz-security-token",)


def _credentials(model: Model, response: httpx.Response) -> tuple[str, ...]:
    """Every credential the error must not show: those on the request that was sent, and the
    key in the model's environment variable."""
    import os

    found: list[str] = []
    try:
        request: httpx.Request | None = response.request
    except RuntimeError:  # a response built without a request
        request = None
    if request is not None:
        for name in _CREDENTIAL_HEADERS + _CREDENTIAL_HEADERS_RAW:
            value = request.headers.get(name)
            if value:
                scheme, _, token = value.partition(" ")
                found.append(token if token and scheme.lower() in ("bearer", "basic") else value)
        for name, value in request.url.params.multi_items():
            if name.lower() in ("key", "api_key", "api-key") and value:
                found.append(value)
    if model.api_key_env:
        value = os.environ.get(model.api_key_env)
        if value:
            found.append(value)
    return tuple(dict.fromkeys(s for s in found if len(s) >= 4))


def stream(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> EventStream:
    """Stream a response: ``with llmkit.stream(model, context) as events: for e in events``.

    The request is sent (with retries before the first byte) when the block is entered;
    errors before the stream starts raise there. A failure after it started does not raise:
    the stream ends with an ``ErrorEvent`` event whose ``error`` is exactly what :func:`complete`
    would raise (its ``.partial`` holds the partial message). Leaving the block early closes
    the connection; ``.message`` is then the message with ``stop_reason="aborted"``.

    Options: every one of :class:`~llmkit.RequestOptions` (documented there), each checked
    before anything is sent.

    Raises:
        InvalidRequestError: a bad option value, or one the model cannot honour (on the call).
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable (on the call).
        APIError: the provider answered with an error before the stream (on entering).
        APIConnectionError: the connection failed or timed out before the stream (entering).
    """
    from ._streams import EventStream

    return EventStream(model, context, options)


def astream(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> AsyncEventStream:
    """Async :func:`stream`: ``async with llmkit.astream(...) as events: async for e in events``.

    The same options (:class:`~llmkit.RequestOptions`: body options, transport options,
    ``on_request``, ``on_response``; ``client`` is an ``httpx.AsyncClient``) and errors as
    :func:`stream`; ``on_response`` may be an async function.
    Cancelling the task that reads it closes the connection (the message ends ``aborted``).
    """
    from ._streams import AsyncEventStream

    return AsyncEventStream(model, context, options)


def complete(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> AssistantMessage:
    """The whole AssistantMessage: exactly what the terminal event of ``stream()`` carries.

    It streams on the wire (the same decoding, idle timeouts and partial message as
    :func:`stream`). Every exception raised after the first response byte carries the partial
    message as ``.partial`` (``None`` before it) and keeps its most specific class:
    ``except llmkit.LLMError as e: e.partial`` works for all of them.

    Options: every one of :class:`~llmkit.RequestOptions` (documented there), each checked
    before anything is sent.

    Raises:
        InvalidRequestError: a bad option value, or one the model cannot honour.
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable.
        APIError: the provider answered with an error, before or during the stream (an
            in-stream ``overloaded_error`` is an ``OverloadedError``, and so on).
        APITimeoutError: a timeout fired (``phase``: connect, first_byte, idle or total).
        APIConnectionError: the connection failed before the response started.
        StreamError: the stream broke after it started and nothing more specific applies
            (the connection dropped, the body was truncated or undecodable).
    """
    with stream(model, context, **options) as events:
        for _ in events:
            pass
        return events._x.raise_for_result()


async def acomplete(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> AssistantMessage:
    """Async :func:`complete`: the same options (:class:`~llmkit.RequestOptions`; ``client``
    is an ``httpx.AsyncClient``) and errors as :func:`complete`; ``on_response`` may be an
    async function."""
    async with astream(model, context, **options) as events:
        async for _ in events:
            pass
        return events._x.raise_for_result()
