"""Building the HTTP request from checked options (:mod:`._options`): the endpoint and
credential resolved (:mod:`llmkit._auth`), the wire's body, headers and URL put together, then
authenticated. Nothing is sent here (a Google token refresh, when one is due, is the
only network call, made by ``_auth``)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import httpx

from . import _auth, _wire
from ._checks import check_image_sizes
from ._diagnostics import Diagnostic
from ._errors import InvalidRequestError
from ._messages import Context
from ._models import Model
from ._options import Options
from ._version import __version__

__all__ = ["api_key", "build", "finish"]


api_key = _auth.api_key  # kept importable from here


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[httpx.Request, str | None]:
    """The request (its request-side diagnostics on ``extensions["llmkit.diagnostics"]``) and
    the credential it carries (for redaction)."""
    adapter = _wire.adapter(model.api)
    check_image_sizes(model.api, context.messages)
    clamped = _clamp_max_tokens(model, opts)
    if clamped is not None:
        opts = dataclasses.replace(opts, max_tokens=model.max_output_tokens)
    body, diagnostics = adapter.build(model, context, opts, stream=stream)
    if clamped is not None:
        diagnostics.insert(0, clamped)
    return finish(
        model, body, diagnostics, opts, lambda base: adapter.url(model, base, stream=stream), stream
    )


def _clamp_max_tokens(model: Model, opts: Options) -> Diagnostic | None:
    """``max_tokens`` above the catalogue's output limit is sent as the limit (the provider
    would refuse the request), reported as ``option_unsupported``."""
    limit = model.max_output_tokens
    if opts.max_tokens is None or limit is None or opts.max_tokens <= limit:
        return None
    return Diagnostic(
        kind="option_unsupported",
        message=(
            f"max_tokens={opts.max_tokens} is above {model.id}'s output limit of {limit}; "
            f"sent {limit}"
        ),
        details={"option": "max_tokens", "given": opts.max_tokens, "sent": limit},
    )


def finish(
    model: Model,
    body: dict[str, Any],
    diagnostics: list[Diagnostic],
    opts: Options,
    url: Callable[[str], str],
    stream: bool,
) -> tuple[httpx.Request, str | None]:
    """A wire's body as the HTTP request: ``on_request``, the endpoint (``url`` of the resolved
    base URL) and credential from :mod:`llmkit._auth`, the headers, then authentication."""
    on_request = opts.on_request
    if on_request is not None:
        replaced = on_request(body)
        if replaced is not None:
            body = replaced
    access = _auth.resolve(model, opts.given())
    headers = httpx.Headers(
        {
            "content-type": "application/json",
            "accept": "text/event-stream" if stream else "application/json",
            "user-agent": f"llmkit/{__version__}",
            **_wire.adapter(model.api).headers(model, access.key),
        }
    )
    headers.update(opts.headers or {})  # a caller's header replaces the wire's, in any case
    target = url(access.base_url)
    if access.endpoint is not None:
        target = access.endpoint(target)
    try:
        request = httpx.Request(
            "POST",
            target,
            headers=headers,
            content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
            extensions={"llmkit.diagnostics": diagnostics},
        )
    except httpx.InvalidURL as exc:  # "http://[::1", "http://127.0.0.1:abc/v1"
        raise InvalidRequestError(f"The base_url is not a valid URL ({exc})") from None
    access.apply(request)  # last: a signature covers the final URL, headers and body
    return request, access.secret
