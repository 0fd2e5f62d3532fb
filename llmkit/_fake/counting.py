"""The token-counting endpoints the fake provider serves (``count_tokens``): Anthropic
``POST /v1/messages/count_tokens``, OpenAI Responses ``POST /v1/responses/input_tokens`` and
Gemini ``POST /v1beta/models/{model}:countTokens``, and Vertex AI's two (``…/publishers/google/
models/{model}:countTokens``, ``…/publishers/anthropic/models/count-tokens:rawPredict``),
answered in each wire's shape.

They are answered by the fake itself, without taking a scripted reply: the count is
``FakeProvider(count_tokens=...)`` applied to the request, by default :func:`estimate` (about
four characters a token over every string the body holds, deterministic, so a longer prompt
always counts more).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from .script import FakeRequest

__all__ = ["Counter", "answer", "estimate", "route"]

Counter = Callable[[FakeRequest], int]
"""Counts a counting request's input tokens."""

_GEMINI = re.compile(
    r"^(/v1beta|/v1/projects/[^/]+/locations/[^/]+/publishers/google)/models/[^/:]+:countTokens$"
)
_VERTEX_CLAUDE = re.compile(
    r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/count-tokens:rawPredict$"
)
_PATHS = {
    "/v1/messages/count_tokens": "anthropic-messages",
    "/v1/responses/input_tokens": "openai-responses",
}


def route(method: str, path: str) -> str | None:
    """The wire whose counting endpoint ``path`` is, or ``None``."""
    if method != "POST":
        return None
    bare = path.split("?", 1)[0].rstrip("/")
    if bare in _PATHS:
        return _PATHS[bare]
    if _VERTEX_CLAUDE.match(bare):
        return "anthropic-messages"
    return "gemini" if _GEMINI.match(bare) else None


def _strings(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_strings(v) for k, v in value.items() if k != "model")
    if isinstance(value, list):
        return sum(_strings(v) for v in value)
    return 0


def estimate(request: FakeRequest) -> int:
    """About four characters a token over every string in the body (at least 1)."""
    return max(1, math.ceil(_strings(request.body) / 4))


def answer(api: str, count: int) -> bytes:
    """The counting endpoint's answer for ``count`` input tokens."""
    if api == "anthropic-messages":
        body: dict[str, Any] = {"input_tokens": count}
    elif api == "openai-responses":
        body = {"object": "response.input_tokens", "input_tokens": count}
    else:
        body = {"totalTokens": count}
    return json.dumps(body, separators=(",", ":")).encode()
