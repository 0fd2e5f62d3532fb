"""Anthropic token counting: ``POST {base_url}/messages/count_tokens`` with the call's own
mapping (messages, system, tools, documents, thinking, ``output_config``, ``cache_control``),
without ``max_tokens``, ``stream`` and the sampling options, which that endpoint refuses."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import Context
from ..._models import Model
from ..contract import Options
from ..features import counting_body
from .request import DEFAULT_MAX_TOKENS, build

__all__ = ["COUNT_FIELDS", "count_body", "count_result", "count_url"]

COUNT_FIELDS = frozenset(
    {
        "model",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "output_config",
        "cache_control",
    }
)
"""The fields of anthropic's ``MessageCountTokensParams`` llmkit sends."""


def count_url(model: Model, base_url: str) -> str:
    """``{base_url}/messages/count_tokens``."""
    return base_url.rstrip("/") + "/messages/count_tokens"


def count_body(
    model: Model, context: Context, opts: Options
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The counting body (see the module docstring)."""
    # max_tokens is not sent, but a thinking budget is sized against it, as for the call.
    limit = opts.max_tokens if opts.max_tokens is not None else model.max_output_tokens
    body, diags = build(
        model, context, replace(opts, max_tokens=limit or DEFAULT_MAX_TOKENS), stream=False
    )
    defaults = frozenset({"max_tokens"} if opts.max_tokens is None else ())
    return counting_body(body, COUNT_FIELDS, defaults, diags), diags


def count_result(body: Any) -> int | None:
    """``input_tokens`` of the answer."""
    value = body.get("input_tokens") if isinstance(body, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
