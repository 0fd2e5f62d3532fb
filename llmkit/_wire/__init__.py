"""Wire adapters, one per wire API: a pure request builder and a pure decoder each.

Every adapter module provides the same five names (the whole plug-in point)::

    headers(model, api_key) -> dict            auth headers
    url(model, base_url, *, stream) -> str     the endpoint
    build(model, context, opts, *, stream) -> (body, diagnostics)
    Decoder(assembler, model)                  .feed(sse), .eof(), .done
    decode_response(assembler, model, body, seed)   a non-streamed body
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["adapter"]

_MODULES = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic-messages": "anthropic_messages",
    "gemini": "gemini",
}


def adapter(api: str) -> ModuleType:
    """The adapter module for a wire API name (imported on first use)."""
    from .._errors import InvalidRequestError

    name = _MODULES.get(api)
    if name is None:
        raise InvalidRequestError(f"Unknown wire API {api!r}; known: {', '.join(_MODULES)}")
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise InvalidRequestError(f"The {api!r} wire API is not implemented yet") from None
