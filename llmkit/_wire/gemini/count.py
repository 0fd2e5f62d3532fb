"""Gemini token counting: ``POST {base}/models/{id}:countTokens`` with the call's whole
``GenerateContentRequest`` (contents, system instruction, tools, tool config, generation config)
as ``generateContentRequest``, the form that counts system instructions and tools too."""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import Context
from ..._models import Model
from ..contract import Options
from .request import build

__all__ = ["count_body", "count_result", "count_url"]


def _name(model: Model) -> str:
    return model.id if model.id.startswith("models/") else f"models/{model.id}"


def count_url(model: Model, base_url: str) -> str:
    """``{base}/models/{id}:countTokens``."""
    return f"{base_url.rstrip('/')}/{_name(model)}:countTokens"


def count_body(
    model: Model, context: Context, opts: Options
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The counting body (see the module docstring)."""
    body, diags = build(model, context, opts, stream=False)
    return {"generateContentRequest": {"model": _name(model), **body}}, diags


def count_result(body: Any) -> int | None:
    """``totalTokens`` of the answer."""
    value = body.get("totalTokens") if isinstance(body, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
