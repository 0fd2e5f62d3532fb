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
from typing import Any

import httpx

from ._events import Event
from ._messages import AssistantMessage, Context
from ._models import Model
from ._pipeline import Pipeline
from ._request import build, split_options
from ._streams import AsyncEventStream, EventStream

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


def build_request(model: Model, context: Context, **options: Any) -> httpx.Request:
    """The streaming HTTP request ``stream()`` would send, without sending it.

    Request-side diagnostics are on ``request.extensions["llmkit.diagnostics"]``.

    Raises:
        InvalidRequestError: an option the model cannot honour, duplicate tool names, a
            ``tool_choice`` naming an undeclared tool, or an unknown option.
        MissingAPIKeyError: no key in ``api_key`` nor in the provider's variable.
    """
    body_opts, tr = split_options(options)
    return build(model, context, body_opts, tr, stream=True)[0]


def parse_stream(
    model: Model, chunks: Iterable[bytes], *, response_format: Any = None
) -> Iterator[Event]:
    """Decode a raw streamed response body (network chunks of any size) into the events
    ``stream()`` would yield, with no network.

    ``response_format``: the structured-output format the request gave (a pydantic model
    class or a JSON schema); with it, every ``TextDelta`` has ``partial_output``.
    """
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
    pipeline = Pipeline(model)
    pipeline.decode_whole(parsed, seed)
    return pipeline.message()


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
        return events._x.raise_for_result()


async def acomplete(model: Model, context: Context, **options: Any) -> AssistantMessage:
    """Async :func:`complete`."""
    async with astream(model, context, **options) as events:
        async for _ in events:
            pass
        return events._x.raise_for_result()
