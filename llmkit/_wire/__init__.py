"""Wire adapters, one subpackage per wire API, each a module satisfying
:class:`~llmkit._wire.contract.WireAdapter`: ``request.py`` maps a Context and the options to
the body (with the ``headers`` and ``url``), ``decode.py`` turns the stream (or a whole body)
into neutral deltas; the subpackage re-exports what the protocol names. Where the wire has a
token-counting endpoint, its ``count.py`` module satisfies
:class:`~llmkit._wire.contract.TokenCounter`. :func:`adapter` and :func:`counter` are the typed
registry, keyed by :data:`~llmkit.Api`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, cast

from .._models import Api
from .contract import TokenCounter, WireAdapter

if TYPE_CHECKING:
    from . import anthropic_messages, bedrock_converse, gemini, openai_chat, openai_responses
    from .anthropic_messages import count as anthropic_count
    from .gemini import count as gemini_count
    from .openai_responses import count as responses_count

    # mypy checks every adapter module against the contract here.
    _CHECKED: tuple[WireAdapter, ...] = (
        openai_chat,
        openai_responses,
        anthropic_messages,
        gemini,
        bedrock_converse,
    )
    # ... and the wires with a token-counting endpoint against that contract.
    _COUNTING: tuple[TokenCounter, ...] = (responses_count, anthropic_count, gemini_count)

__all__ = ["TokenCounter", "WireAdapter", "adapter", "counter"]

_COUNTS = frozenset({"openai-responses", "anthropic-messages", "gemini"})  # have count.py
_MODULES: dict[Api, str] = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic-messages": "anthropic_messages",
    "gemini": "gemini",
    "bedrock-converse": "bedrock_converse",
}


def adapter(api: Api) -> WireAdapter:
    """The adapter for a wire API (its module is imported on first use).

    Raises:
        InvalidRequestError: ``api`` is not a wire API llmkit implements.
    """
    name = _MODULES.get(api)
    if name is None:
        from .._errors import InvalidRequestError

        raise InvalidRequestError(f"Unknown wire API {api!r}; known: {', '.join(_MODULES)}")
    return cast(WireAdapter, importlib.import_module(f"{__name__}.{name}"))


def counter(api: Api) -> TokenCounter | None:
    """The token-counting half of ``api``'s adapter, or ``None`` for a wire without a
    counting endpoint."""
    if api not in _COUNTS:
        adapter(api)  # an unknown api raises as there
        return None
    return cast(TokenCounter, importlib.import_module(f"{__name__}.{_MODULES[api]}.count"))
