"""The ``anthropic-messages`` wire's quirk flags: how a Claude model takes thinking and sampling
parameters (``Model.compat`` of an ``api="anthropic-messages"`` model, and of a Claude model on
``api="bedrock-converse"``, which sends the same model's parameters, docs/design.md §3)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict

from ..._models import Model, WireCompat

__all__ = ["AnthropicCompat", "claude_flags"]


class AnthropicCompat(WireCompat):
    """Per-model behaviour of Claude models (``api="anthropic-messages"``, and Claude on
    ``api="bedrock-converse"``). ``None`` means "infer from the model id" (Claude family and
    version), so a new model id works before the catalogue knows it; catalogue entries set the
    fields explicitly."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    thinking: Literal["budget", "adaptive", "always"] | None = None
    """How ``reasoning`` is sent: ``budget`` → ``thinking.budget_tokens`` (manual extended
    thinking, Claude 4.5 and earlier); ``adaptive`` → ``thinking: {type: adaptive}`` with an
    effort level (Claude 4.6 and later, where manual budgets are refused); ``always`` →
    adaptive thinking that cannot be turned off (Fable, Opus 5.5)."""

    supports_sampling: bool | None = None
    """Whether non-default ``temperature``/``top_p`` are accepted. Claude Opus 4.7 and the
    Claude 5 family answer 400 to them, so llmkit drops them there (reported)."""


_INFERRED = AnthropicCompat()


def claude_flags(model: Model) -> AnthropicCompat:
    """The model's Claude flags (all inferred from the id when it has none)."""
    compat = model.compat
    return compat if isinstance(compat, AnthropicCompat) else _INFERRED
