"""Building the HTTP request: the options split into body and transport options, the endpoint
and credential resolved (:mod:`llmkit._auth`), the wire's body, headers and URL put together,
then authenticated. Nothing is sent here (a Google token refresh, when one is due, is the
only network call, made by ``_auth``)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from . import _auth, _wire
from ._errors import InvalidRequestError
from ._messages import Context
from ._models import Model
from ._version import __version__
from ._wire.contract import Options

__all__ = ["TRANSPORT_OPTIONS", "api_key", "build", "split_options"]

_BODY_OPTIONS = frozenset(Options.__dataclass_fields__)
TRANSPORT_OPTIONS = frozenset(
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
        "region",
    }
)


def split_options(options: dict[str, Any]) -> tuple[Options, dict[str, Any]]:
    """The body options and the transport options; an unknown option is refused."""
    unknown = set(options) - _BODY_OPTIONS - TRANSPORT_OPTIONS
    if unknown:
        raise InvalidRequestError(
            f"Unknown option(s): {', '.join(sorted(unknown))}. Use provider_options={{...}} "
            "for provider-specific body fields."
        )
    body = Options(**{k: v for k, v in options.items() if k in _BODY_OPTIONS})
    if isinstance(body.stop, str):
        body.stop = [body.stop]
    return body, {k: v for k, v in options.items() if k in TRANSPORT_OPTIONS}


api_key = _auth.api_key  # kept importable from here


def build(
    model: Model, context: Context, body_opts: Options, tr: dict[str, Any], *, stream: bool
) -> tuple[httpx.Request, str | None]:
    """The request (its request-side diagnostics on ``extensions["llmkit.diagnostics"]``) and
    the credential it carries (for redaction)."""
    adapter = _wire.adapter(model.api)
    body, diagnostics = adapter.build(model, context, body_opts, stream=stream)
    on_request = tr.get("on_request")
    if on_request is not None:
        replaced = on_request(body)
        if replaced is not None:
            body = replaced
    access = _auth.resolve(model, tr)
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream" if stream else "application/json",
        "user-agent": f"llmkit/{__version__}",
        **adapter.headers(model, access.key),
        **(tr.get("headers") or {}),
    }
    request = httpx.Request(
        "POST",
        adapter.url(model, access.base_url, stream=stream),
        headers=headers,
        content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        extensions={"llmkit.diagnostics": diagnostics},
    )
    access.apply(request)  # last: a signature covers the final URL, headers and body
    return request, access.secret
