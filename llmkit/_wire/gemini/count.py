"""Gemini token counting: ``POST {base}/models/{id}:countTokens`` with the call's whole
``GenerateContentRequest`` (contents, system instruction, tools, tool config, generation config)
as ``generateContentRequest``, the form that counts system instructions and tools too.

Vertex AI's ``countTokens`` (``{base}/publishers/google/models/{id}:countTokens``) takes no
``generateContentRequest``: ``contents``, ``systemInstruction``, ``tools`` and
``generationConfig`` sit at the top of the body (what google-genai sends with
``vertexai=True``). The tool config holds no tokens and goes silently; any other field of the
call (from ``provider_options``) is reported as not sent."""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._messages import Context
from ..._models import Model
from ..contract import Options
from ..request_features import counting_body
from .request import build, url

__all__ = ["count_body", "count_result", "count_url"]


def _name(model: Model) -> str:
    return model.id if model.id.startswith("models/") else f"models/{model.id}"


VERTEX_FIELDS = frozenset({"contents", "systemInstruction", "tools", "generationConfig"})
"""The fields of Vertex AI's ``CountTokensRequest`` that llmkit fills from the call."""


def count_url(model: Model, base_url: str) -> str:
    """``{base}/models/{id}:countTokens``, on Vertex AI ``{base}/publishers/google/models/…``."""
    return url(model, base_url, stream=False).removesuffix(":generateContent") + ":countTokens"


def count_body(
    model: Model, context: Context, opts: Options
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The counting body (see the module docstring)."""
    body, diags = build(model, context, opts, stream=False)
    if model.platform == "vertex":
        return counting_body(body, VERTEX_FIELDS, frozenset({"toolConfig"}), diags), diags
    return {"generateContentRequest": {"model": _name(model), **body}}, diags


def count_result(body: Any) -> int | None:
    """``totalTokens`` of the answer."""
    value = body.get("totalTokens") if isinstance(body, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
