"""The ``openai-chat`` wire's quirk flags: how each OpenAI-compatible server bends the Chat
Completions wire (``Model.compat`` of an ``api="openai-chat"`` model, docs/design.md §3).

The attribute docstrings are documentation (``docs/servers.md`` is generated from them); they
are not loaded at import. Every field defaults to what api.openai.com does. Provider profiles
(``data/providers.json``) set what their server needs, and ``Model(compat={...})`` overrides
field by field. Each field names the servers that need it and the docs/quirks.md row it answers.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict

from ..._models import Model, WireCompat

__all__ = ["OpenAIChatCompat", "chat_flags"]

ThinkingFormat = Literal["openai", "deepseek", "zai", "qwen", "chat_template", "openrouter", "none"]


class OpenAIChatCompat(WireCompat):
    """Quirk flags for ``api="openai-chat"`` servers (docs/quirks.md)."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    """Field for the output limit. OpenAI, Cerebras and vLLM (which deprecates ``max_tokens``):
    ``max_completion_tokens``; DeepSeek, Groq, Mistral, OpenRouter, Together, Fireworks, Ollama,
    LM Studio and llama.cpp (which reads both): ``max_tokens``."""

    supports_usage_in_streaming: bool = True
    """Send ``stream_options.include_usage`` (QUIRKS J1); some servers reject the option."""

    supports_strict: bool = True
    """Whether the server does OpenAI strict mode: reads ``strict: true`` and holds the output
    to the schema (OpenAI, vLLM). There, strict tools and ``response_format`` schemas get the
    strict transform (each lossy step a ``schema_rewritten`` diagnostic) and ``strict: true``.
    Elsewhere a strict tool is refused, a ``response_format`` schema goes as written (llama.cpp
    builds its grammar from it, so every constraint is kept) and ``strict`` is never sent:
    Cohere (via OpenRouter), RouteLLM and older models reject the key, even ``strict: false``
    (QUIRKS H2)."""

    supports_parallel_tool_calls: bool = True
    """Whether ``parallel_tool_calls`` may be sent; some reasoning models reject it (H4).
    vLLM, SGLang and llama.cpp read it (``docs/servers.md`` cites the lines)."""

    supports_developer_role: bool = False
    """Send the system prompt as ``developer`` to reasoning models (OpenAI). Off, ``system`` is
    sent: vLLM 0.33, SGLang 0.5.23 (``srt/entrypoints/openai/serving_chat.py:716-717``) and
    llama.cpp turn ``developer`` into ``system`` for chat templates without it anyway."""

    supports_store: bool = False
    """Send ``store: false`` (OpenAI). Cerebras, xAI, DeepSeek, z.ai and LiteLLM reject it."""

    supports_prompt_cache: bool = False
    """The prompt-cache fields may be sent: ``prompt_cache_key`` (the ``cache_key`` option) and
    ``prompt_cache_retention`` (``cache="long"``). api.openai.com (its profile sets it); other
    servers reject or ignore unknown fields, so ``cache_key`` and ``cache="long"`` are reported
    there."""

    thinking_format: ThinkingFormat = "openai"
    """How the ``reasoning`` option is sent: ``openai`` → ``reasoning_effort``; ``deepseek`` →
    ``thinking: {type}`` + ``reasoning_effort``; ``zai`` → ``thinking: {type}``; ``qwen`` →
    top-level ``enable_thinking``; ``chat_template`` → ``chat_template_kwargs.enable_thinking``
    (vLLM, llama.cpp, and SGLang: ``srt/entrypoints/openai/protocol.py:1020``); ``openrouter`` →
    ``reasoning: {effort}``; ``none`` → not sendable (reported)."""

    reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning", "reasoning_text")
    """Delta fields read as reasoning, first non-empty wins: DeepSeek, older vLLM, llama.cpp
    and SGLang (``srt/entrypoints/openai/protocol.py:1357``) send ``reasoning_content``, Ollama,
    Groq and vLLM 0.33 ``reasoning`` (QUIRKS F8)."""

    reasoning_replay: Literal["never", "tool_turns", "always"] = "never"
    """When to send an assistant turn's reasoning back: DeepSeek thinking mode and Kimi
    require it on turns with tool calls (400 otherwise); the older ``deepseek-reasoner``
    rejects it (QUIRKS F6)."""

    reasoning_replay_field: str = "reasoning_content"
    """The assistant-message field reasoning is replayed in."""

    requires_tool_result_name: bool = False
    """Tool messages carry the tool's ``name`` (Mistral; Gemini's compat endpoint, G4)."""

    requires_assistant_after_tool_result: bool = False
    """Insert a minimal assistant turn between a tool result and a user message: Mistral
    answers ``Unexpected role 'user' after role 'tool'`` otherwise (QUIRKS G2)."""

    empty_content_with_tool_calls: bool = False
    """Send ``content: ""`` instead of ``null`` on assistant turns with tool calls (Groq,
    QUIRKS G3)."""

    tool_call_id_format: Literal["openai", "mistral"] = "openai"
    """Tool-call id grammar for replayed ids: OpenAI at most 40 characters; Mistral exactly 9
    alphanumerics (QUIRKS B5). Calls and results are mapped alike."""

    replay_extra_content: bool = False
    """Keep and replay ``tool_calls[].extra_content`` (Gemini's compat endpoint puts the thought
    signature there and requires it back, QUIRKS F3)."""

    replay_reasoning_details: bool = False
    """Replay OpenRouter's ``reasoning_details`` verbatim on the assistant turn (QUIRKS F7)."""

    auth: Literal["bearer", "azure"] = "bearer"
    """``Authorization: Bearer`` or Azure OpenAI's ``api-key`` header with deployment URLs
    (``{base_url}/openai/deployments/{model id}/chat/completions?api-version=...``)."""

    azure_api_version: str = "2024-10-21"
    """The ``api-version`` query parameter for Azure OpenAI."""


_DEFAULT = OpenAIChatCompat()


def chat_flags(model: Model) -> OpenAIChatCompat:
    """The model's Chat Completions flags (api.openai.com's defaults for a model of another
    wire, as when a test sends one model's flags down this wire)."""
    compat = model.compat
    return compat if isinstance(compat, OpenAIChatCompat) else _DEFAULT
