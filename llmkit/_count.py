"""``count_tokens`` / ``acount_tokens``: how many input tokens a request would use, from the
provider's own counting endpoint (docs/design.md §5, "Token counting").

The body is the call's own conversation mapping (:class:`~llmkit._wire.contract.TokenCounter`
of the wire: Anthropic ``/messages/count_tokens``, OpenAI Responses ``/responses/input_tokens``,
Gemini ``:countTokens``), built and sent like a call — the same key lookup, headers,
``on_request``, timeouts and retries before the first byte — but not streamed. A wire without
a counting endpoint is refused with ``InvalidRequestError`` before anything is built or sent.
Request-side diagnostics are on the request's ``extensions["llmkit.diagnostics"]`` like on any
other; a count has no message to carry them, so they are also logged at DEBUG.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import httpx

from . import _wire
from ._clients import default_async_client, default_client
from ._errors import InvalidRequestError, StreamError
from ._json.scanner import loads
from ._messages import Context, Message, as_context
from ._models import Model
from ._options import Options, RequestOptions
from ._request import finish
from ._transport import (
    TransportOptions,
    run_async,
    run_sync,
    send_plan,
    start_body,
)
from ._wire.contract import TokenCounter

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

__all__ = ["acount_tokens", "count_request", "count_tokens"]

logger = logging.getLogger("llmkit")


def count_request(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> tuple[httpx.Request, TransportOptions, Any, TokenCounter]:
    """The counting request (its diagnostics on ``extensions["llmkit.diagnostics"]``), the
    transport options, the caller's client (or ``None``) and the wire's counter.

    Raises:
        InvalidRequestError: the wire has no counting endpoint, or an option is refused.
        MissingAPIKeyError: no key.
    """
    counter = _wire.counter(model.api)
    if counter is None:
        raise InvalidRequestError(
            f"{model.api} has no token-counting endpoint; count_tokens works on "
            "anthropic-messages, openai-responses and gemini"
        )
    opts = Options.check(options)
    body, diagnostics = counter.count_body(model, as_context(context), opts)
    request, secret = finish(
        model, body, diagnostics, opts, lambda base: counter.count_url(model, base), stream=False
    )
    for d in diagnostics:
        logger.debug("count_tokens: %s: %s", d.kind, d.message)
    transport = opts.transport_options(model.provider, secret)
    return request, transport, opts.client, counter


def _count(counter: TokenCounter, body: bytes) -> int:
    try:
        parsed = loads(body.decode("utf-8", "replace"))
    except ValueError:
        parsed = None
    count = counter.count_result(parsed)
    if count is None:
        raise StreamError("The counting endpoint answered without a token count")
    return count


def _start(transport: TransportOptions) -> None:
    total = transport.timeouts.total
    transport.deadline = None if total is None else time.monotonic() + total


def count_tokens(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> int:
    """The number of input tokens ``context`` would use on ``model``, counted by the
    provider (Anthropic, OpenAI Responses and Gemini have an endpoint for it).

    Takes the same options as :func:`complete` (``response_format``, ``tool_choice``,
    ``reasoning``, ``api_key``, ``timeout``, ``client``, …); generation-only ones that the
    counting endpoint refuses are not sent.

    Raises:
        InvalidRequestError: the wire has no counting endpoint (e.g. ``openai-chat``).
        APIError: the provider answered with an error.
    """
    request, transport, client, counter = count_request(model, context, **options)
    if client is not None and not isinstance(client, httpx.Client):
        raise InvalidRequestError("count_tokens() needs an httpx.Client as client=")
    http = client if client is not None else default_client()
    _start(transport)
    response = run_sync(send_plan(request, transport), http)
    start_body(request, transport)
    try:
        return _count(counter, response.read())
    finally:
        response.close()


async def acount_tokens(
    model: Model, context: Context | str | Sequence[Message], **options: Unpack[RequestOptions]
) -> int:
    """Async :func:`count_tokens` (``client`` is an ``httpx.AsyncClient``)."""
    request, transport, client, counter = count_request(model, context, **options)
    if client is not None and not isinstance(client, httpx.AsyncClient):
        raise InvalidRequestError("acount_tokens() needs an httpx.AsyncClient as client=")
    owned = False
    if client is not None:
        http = client
    else:
        http, owned = default_async_client()
    try:
        _start(transport)
        response = await run_async(send_plan(request, transport), http)
        start_body(request, transport)
        try:
            return _count(counter, await response.aread())
        finally:
            await response.aclose()
    finally:
        if owned:
            await http.aclose()
