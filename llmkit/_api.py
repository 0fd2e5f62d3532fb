"""The calls: ``complete``/``acomplete``/``stream``/``astream`` and the public seams
``build_request``, ``parse_stream``/``aparse_stream`` and ``parse_response``.

The work is elsewhere: the request is built in :mod:`._request`, sent by the transport's retry
plan (:mod:`._transport`), decoded by a :class:`~._pipeline.Pipeline` (bytes in, events out, no
I/O) and pumped by the streams of :mod:`._streams`. ``complete()`` streams on the wire and
collects the events: the same decoder, assembler, idle timeouts and partial message on failure
as ``stream()``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import httpx

from ._options import check_options
from ._request import build

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._events import Event
    from ._messages import AssistantMessage, Context
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
    "parse_response",
    "parse_stream",
    "stream",
]


def build_request(
    model: Model, context: Context, **options: Unpack[RequestOptions]
) -> httpx.Request:
    """The streaming HTTP request ``stream()`` would send, without sending it.

    Request-side diagnostics are on ``request.extensions["llmkit.diagnostics"]``.

    Raises:
        InvalidRequestError: an option the model cannot honour, duplicate tool names, a
            ``tool_choice`` naming an undeclared tool, or an unknown option.
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable.
    """
    if "telemetry" in options:  # it only acts when llmkit sends: never silently ignored
        from ._errors import InvalidRequestError

        raise InvalidRequestError(
            "build_request() sends nothing: the telemetry option only acts on calls that send"
        )
    body_opts, tr = check_options(options)
    return build(model, context, body_opts, tr, stream=True)[0]


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
        if pipeline.done:
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
        if pipeline.done:
            return
    for event in pipeline.eof():
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
    from ._pipeline import Pipeline

    pipeline = Pipeline(model)
    pipeline.decode_whole(parsed, seed)
    return pipeline.message()


def stream(model: Model, context: Context, **options: Unpack[RequestOptions]) -> EventStream:
    """Stream a response: ``with llmkit.stream(model, context) as events: for e in events``.

    The request is sent (with retries before the first byte) when the block is entered;
    errors before the stream starts raise there. A failure after it started does not raise:
    the stream ends with an ``Error`` event whose ``error`` is exactly what :func:`complete`
    would raise (its ``.partial`` holds the partial message). Leaving the block early closes
    the connection; ``.message`` is then the message with ``stop_reason="aborted"``.

    Options (:class:`~llmkit.RequestOptions`, each checked before anything is sent):
        ``max_tokens``, ``temperature``, ``top_p``, ``stop``, ``tool_choice``,
        ``parallel_tool_calls``, ``reasoning``, ``response_format``, ``provider_options``,
        ``cache``, ``cache_key``, ``stream_tool_arguments`` shape the body; ``api_key``,
        ``base_url``, ``region``, ``headers``, ``timeout`` (a number is not a deadline: see
        :class:`~llmkit.Timeouts`), ``max_retries``, ``max_retry_delay``, ``client``,
        ``max_event_size`` shape the transport; ``on_request`` sees (and may replace) the body
        dict, ``on_response`` each attempt's response head; ``telemetry`` (``False``: no
        OpenTelemetry span or metric for the call; docs/observability.md).

    Raises:
        InvalidRequestError: a bad option value, or one the model cannot honour (on the call).
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable (on the call).
        APIError: the provider answered with an error before the stream (on entering).
        APIConnectionError: the connection failed or timed out before the stream (entering).
    """
    from ._streams import EventStream

    return EventStream(model, context, options)


def astream(model: Model, context: Context, **options: Unpack[RequestOptions]) -> AsyncEventStream:
    """Async :func:`stream`: ``async with llmkit.astream(...) as events: async for e in events``.

    The same options and errors as :func:`stream`; ``on_response`` may be an async function.
    Cancelling the task that reads it closes the connection (the message ends ``aborted``).
    """
    from ._streams import AsyncEventStream

    return AsyncEventStream(model, context, options)


def complete(model: Model, context: Context, **options: Unpack[RequestOptions]) -> AssistantMessage:
    """The whole AssistantMessage: exactly what the terminal event of ``stream()`` carries.

    It streams on the wire (the same decoding, idle timeouts and partial message as
    :func:`stream`). Every exception raised after the first response byte carries the partial
    message as ``.partial`` (``None`` before it) and keeps its most specific class:
    ``except llmkit.LLMError as e: e.partial`` works for all of them.

    Options (:class:`~llmkit.RequestOptions`, each checked before anything is sent):
        ``max_tokens``, ``temperature``, ``top_p``, ``stop``, ``tool_choice``,
        ``parallel_tool_calls``, ``reasoning``, ``response_format``, ``provider_options``,
        ``cache``, ``cache_key``, ``stream_tool_arguments`` shape the body; ``api_key``,
        ``base_url``, ``region``, ``headers``, ``timeout`` (a number is not a deadline: see
        :class:`~llmkit.Timeouts`), ``max_retries``, ``max_retry_delay``, ``client``,
        ``max_event_size`` shape the transport; ``on_request`` sees (and may replace) the body
        dict, ``on_response`` each attempt's response head; ``telemetry`` (``False``: no
        OpenTelemetry span or metric for the call; docs/observability.md).

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
    model: Model, context: Context, **options: Unpack[RequestOptions]
) -> AssistantMessage:
    """Async :func:`complete`: the same options and errors; ``on_response`` may be async."""
    async with astream(model, context, **options) as events:
        async for _ in events:
            pass
        return events._x.raise_for_result()
