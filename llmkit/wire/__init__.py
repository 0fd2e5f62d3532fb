"""Wire adapters, one per wire API: a pure request builder and a pure decoder each.

Every adapter module provides the same five names (the whole plug-in point)::

    headers(model, api_key) -> dict            auth headers
    url(model, base_url, *, stream) -> str     the endpoint
    build(model, context, opts, *, stream) -> (body, diagnostics)
    Decoder(assembler, model)                  .feed(sse), .eof(), .done
    decode_response(assembler, model, body, seed)   a non-streamed body
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["adapter"]


def adapter(api: str) -> ModuleType:
    """The adapter module for a wire API name."""
    if api == "openai-chat":
        from . import openai_chat

        return openai_chat
    from .._errors import InvalidRequestError

    raise InvalidRequestError(f"The {api!r} wire API is not implemented yet")
