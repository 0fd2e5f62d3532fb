"""Building the HTTP request from checked options (:mod:`._options`): the API key looked up,
the wire's body, headers and URL put together. Pure: nothing is sent here."""

from __future__ import annotations

import json
import os

import httpx

from . import _wire
from ._errors import InvalidRequestError, MissingAPIKeyError
from ._messages import Context
from ._models import Model
from ._options import TransportSettings
from ._version import __version__
from ._wire.contract import Options

__all__ = ["api_key", "build"]


def api_key(model: Model, explicit: str | None) -> str | None:
    """The key: the ``api_key`` option, else the provider's variable (``MissingAPIKeyError``
    names it when the provider needs one)."""
    if explicit:
        return explicit
    if model.api_key_env:
        value = os.environ.get(model.api_key_env)
        if value:
            return value
    if model.api_key_required:
        raise MissingAPIKeyError(model.provider, model.api_key_env)
    return None


def build(
    model: Model, context: Context, body_opts: Options, tr: TransportSettings, *, stream: bool
) -> tuple[httpx.Request, str | None]:
    """The request (its request-side diagnostics on ``extensions["llmkit.diagnostics"]``) and
    the key it carries (for redaction)."""
    adapter = _wire.adapter(model.api)
    body, diagnostics = adapter.build(model, context, body_opts, stream=stream)
    on_request = tr.get("on_request")
    if on_request is not None:
        replaced = on_request(body)
        if replaced is not None:
            body = replaced
    key = api_key(model, tr.get("api_key"))
    base_url = tr.get("base_url") or model.base_url
    if not base_url:
        raise InvalidRequestError(f"Model {model.provider}/{model.id} has no base_url")
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream" if stream else "application/json",
        "user-agent": f"llmkit/{__version__}",
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
