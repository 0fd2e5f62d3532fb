"""Anthropic token counting: ``POST {base_url}/messages/count_tokens`` with the call's own
mapping (messages, system, tools, documents, thinking, ``output_config``, ``cache_control``),
without ``max_tokens``, ``stream`` and the sampling options, which that endpoint refuses.

Claude on Vertex AI counts at ``{base_url}/publishers/anthropic/models/count-tokens:rawPredict``
(one endpoint for every model), with ``model`` and ``anthropic_version`` in the body, as the
anthropic SDK's Vertex client sends it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import Context
from ..._models import Model
from ..contract import Options
from ..request_features import counting_body
from .request import DEFAULT_MAX_TOKENS, VERTEX_VERSION, build

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
    """``{base_url}/messages/count_tokens``; on Vertex AI ``…/count-tokens:rawPredict``."""
    if model.platform == "vertex":
        return base_url.rstrip("/") + "/publishers/anthropic/models/count-tokens:rawPredict"
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
    if model.platform == "vertex":  # the call's body names no model there
        body = {"anthropic_version": VERTEX_VERSION, "model": model.id, **body}
        fields = COUNT_FIELDS | {"anthropic_version"}
        return counting_body(body, fields, defaults, diags), diags
    return counting_body(body, COUNT_FIELDS, defaults, diags), diags


def count_result(body: Any) -> int | None:
    """``input_tokens`` of the answer."""
    value = body.get("input_tokens") if isinstance(body, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
