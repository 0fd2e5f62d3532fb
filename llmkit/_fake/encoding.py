"""The contract between the fake HTTP server and one wire API's encoder, and the wire-neutral
rendering built on it.

An encoder is pure: it turns a scripted :class:`FakeReply` (plus the request it answers) into
response bytes (a list of framed SSE events, or one JSON body) and knows its wire's URL, auth
header, error shape and terminal event. It never touches sockets or time. The server routes each
request by path to the encoder that ``handles`` it and paces whatever :func:`render` returns.

Adding a wire API (Anthropic Messages, OpenAI Responses, Gemini) is one new module with a class
satisfying :class:`WireEncoder`, listed in ``server.ENCODERS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .script import FakeError, FakeReply, FakeRequest, RawEvent, ScriptItem

__all__ = ["CLOCK", "Rendered", "ServeContext", "WireEncoder", "render", "split_text"]

CLOCK = 1_767_225_600  # 2026-01-01T00:00:00Z: the fake provider's clock (ServeContext.created)


@dataclass(frozen=True)
class ServeContext:
    """Per-response facts an encoder needs and must not invent itself (so output is
    deterministic per ``FakeProvider``).

    Attributes:
        number: The request's 1-based arrival ordinal; response ids derive from it.
        created: The Unix time ``created`` fields say: a fixed clock, :data:`CLOCK` plus
            ``number``, so that a transcript is the same on every run.
        next_call_id: Returns the next ``call_<n>`` id for a tool call scripted without one.
    """

    number: int
    created: int
    next_call_id: Callable[[], str]


@dataclass(frozen=True)
class Rendered:
    """A response ready to be paced onto the socket.

    Attributes:
        status: The HTTP status.
        headers: Response headers (framing headers are added by the server).
        events: The body, cut at event boundaries; a JSON body is a single event.
        stream: Send with chunked transfer encoding (``True``) or a ``Content-Length``.
    """

    status: int
    headers: list[tuple[str, str]]
    events: list[bytes]
    stream: bool


class WireEncoder(Protocol):
    """What the server needs from one wire API."""

    api: str
    """The ``Model.api`` value this encoder speaks, e.g. ``"openai-chat"``."""

    base_path: str
    """Appended to ``http://127.0.0.1:PORT`` to form ``FakeProvider.base_url``."""

    def handles(self, method: str, path: str) -> bool:
        """Whether this encoder answers ``method`` on ``path`` (query string included)."""
        ...

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        """The 401 body if ``request`` does not carry ``api_key`` as this wire expects."""
        ...

    def wants_stream(self, request: FakeRequest) -> bool:
        """Whether the client asked for a streamed response."""
        ...

    def headers(self, ctx: ServeContext, *, stream: bool, error: bool) -> list[tuple[str, str]]:
        """Realistic response headers (content type, request id) for this wire."""
        ...

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """The framed SSE events for ``reply``, terminal event included unless ``omit_done``."""
        ...

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The non-streamed response body for ``reply``."""
        ...

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """Frame one raw SSE payload (``FakeReply.raw_events``) as this wire does."""
        ...

    def error_body(self, status: int, message: str) -> bytes:
        """This wire's error body for a failure the fake itself reports."""
        ...

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """This wire's in-stream error event; ``None`` means a generic server error."""
        ...


def split_text(text: str, size: int) -> list[str]:
    """Cut ``text`` into pieces of ``size`` characters (code points, so never mid-character)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def _frame_raw(encoder: WireEncoder, events: Sequence[RawEvent]) -> list[bytes]:
    return [e if isinstance(e, bytes) else encoder.frame(e) for e in events]


_DEFAULT_PARTIAL = FakeReply("partial answer")


def render(
    encoder: WireEncoder, item: ScriptItem, request: FakeRequest, ctx: ServeContext
) -> tuple[Rendered, FakeReply]:
    """Turn one scripted item into a response and the reply whose pacing fields apply to it.

    Args:
        encoder: The wire encoder that handles ``request``.
        item: The scripted reply or error.
        request: The request being answered.
        ctx: Ids and time for this response.

    Returns:
        The rendered response, and the ``FakeReply`` whose ``chunk_size``, ``delay``, stalls and
        drops govern how it is written (a plain one for HTTP errors).
    """
    stream = encoder.wants_stream(request)
    if isinstance(item, FakeError):
        if item.in_stream and stream:
            partial = item.partial or _DEFAULT_PARTIAL
            events = _events_for(encoder, partial, request, ctx)[: item.after_events]
            events.append(encoder.error_event(item.body))
            headers = encoder.headers(ctx, stream=True, error=False) + list(item.headers.items())
            return Rendered(200, headers, events, stream=True), partial
        body = _error_bytes(encoder, item)
        headers = encoder.headers(ctx, stream=False, error=True) + list(item.headers.items())
        return Rendered(item.status, headers, [body], stream=False), FakeReply()
    headers = encoder.headers(ctx, stream=stream, error=False) + list(item.headers.items())
    if stream:
        return Rendered(200, headers, _events_for(encoder, item, request, ctx), True), item
    if item.raw_body is not None:
        return Rendered(200, headers, [_to_bytes(item.raw_body)], False), item
    body = encoder.json_body(with_usage(item, request), request, ctx)
    return Rendered(200, headers, [body], False), item


def _events_for(
    encoder: WireEncoder, reply: FakeReply, request: FakeRequest, ctx: ServeContext
) -> list[bytes]:
    if reply.raw_events is not None:
        return _frame_raw(encoder, reply.raw_events)
    return encoder.stream_events(with_usage(reply, request), request, ctx)


def with_usage(reply: FakeReply, request: FakeRequest) -> FakeReply:
    """``reply`` with ``usage="auto"`` replaced by the estimate a provider would report: the
    request's input (:func:`.counting.estimate`) and the reply's output, about four characters
    a token."""
    if reply.usage != "auto":
        return reply
    from dataclasses import replace

    from .counting import estimate

    chars = len(reply.text or "") + len(reply.thinking or "")
    for call in reply.tool_calls:
        args = call.arguments
        chars += len(call.name) + len(args if isinstance(args, str) else json.dumps(args))
    output = max(1, -(-chars // 4))
    return replace(reply, usage={"input": estimate(request), "output": output})


def _error_bytes(encoder: WireEncoder, error: FakeError) -> bytes:
    if error.body is None:
        return encoder.error_body(error.status, f"Scripted error (HTTP {error.status}).")
    return _to_bytes(error.body)


def _to_bytes(body: Mapping[str, Any] | str | bytes) -> bytes:
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode()
    return json.dumps(body, ensure_ascii=False).encode()
