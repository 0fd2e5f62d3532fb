"""OpenAI Responses token counting: ``POST {base_url}/responses/input_tokens`` with the call's
own mapping (input items, instructions, tools, ``text.format``, reasoning), without what that
endpoint does not take (``store``, ``include``, ``stream``, output limits, sampling, caching)."""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import Context
from ..._models import Model
from ..contract import Options
from ..request_features import counting_body
from .request import build

__all__ = ["COUNT_FIELDS", "count_body", "count_result", "count_url"]

COUNT_FIELDS = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "reasoning",
        "text",
        "truncation",
    }
)
"""The fields of openai's ``InputTokenCountParams`` llmkit sends."""

_DEFAULTS = frozenset({"store", "include", "stream"})  # added by llmkit itself


def count_url(model: Model, base_url: str) -> str:
    """``{base_url}/responses/input_tokens``."""
    return base_url.rstrip("/") + "/responses/input_tokens"


def count_body(
    model: Model, context: Context, opts: Options
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The counting body (see the module docstring)."""
    body, diags = build(model, context, opts, stream=False)
    return counting_body(body, COUNT_FIELDS, _DEFAULTS, diags), diags


def count_result(body: Any) -> int | None:
    """``input_tokens`` of the ``response.input_tokens`` answer."""
    value = body.get("input_tokens") if isinstance(body, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
