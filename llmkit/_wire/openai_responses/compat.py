"""The ``openai-responses`` wire's quirk flags (``Model.compat`` of an
``api="openai-responses"`` model, docs/design.md §3): the few ways a Responses server differs from
api.openai.com. A provider profile's flags for its Chat Completions models
(:class:`~llmkit.OpenAIChatCompat`) are taken here only where this wire reads them."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict

from ..._models import Model, WireCompat

__all__ = ["OpenAIResponsesCompat", "responses_flags"]


class OpenAIResponsesCompat(WireCompat):
    """Quirk flags for ``api="openai-responses"`` servers. Every field defaults to what
    api.openai.com does."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    supports_strict: bool = True
    """Whether the server holds output to a strict schema: strict tools and ``text.format``
    schemas get the strict transform and ``strict: true``; off, a strict tool is refused and
    ``strict`` is never sent (QUIRKS H2)."""

    supports_prompt_cache: bool = False
    """Whether ``prompt_cache_key`` and ``prompt_cache_retention`` may be sent (``cache_key``,
    ``cache="long"``); elsewhere they are reported. api.openai.com's profile sets it."""

    auth: Literal["bearer", "azure"] = "bearer"
    """``Authorization: Bearer``, or Azure OpenAI's ``api-key`` header (docs/cloud.md)."""

    azure_api_version: str = "2024-10-21"
    """The ``api-version`` query parameter of an Azure OpenAI deployment URL."""


_DEFAULT = OpenAIResponsesCompat()


def responses_flags(model: Model) -> OpenAIResponsesCompat:
    """The model's Responses flags (api.openai.com's defaults for a model of another wire)."""
    compat = model.compat
    return compat if isinstance(compat, OpenAIResponsesCompat) else _DEFAULT
