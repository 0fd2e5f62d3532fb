"""Responses usage in llmkit's convention."""

from __future__ import annotations

from typing import Any

from ..._messages import Usage
from .. import values
from ..contract import DeltaSink

__all__ = ["response_usage"]


def response_usage(sink: DeltaSink, value: Any) -> Usage | None:
    """A Responses ``usage`` object in llmkit's convention (``None``: none sent)."""
    u = values.obj(sink, value, "usage")
    if u is None:
        return None
    # input_tokens counts every input token (cache reads and writes are parts of it) and
    # output_tokens includes reasoning tokens: already llmkit's convention. A count that was
    # not reported stays None, never guessed (J1).
    details = values.obj(sink, u.get("input_tokens_details"), "usage.input_tokens_details") or {}
    out = values.obj(sink, u.get("output_tokens_details"), "usage.output_tokens_details") or {}
    return Usage(
        input=values.count(sink, u.get("input_tokens"), "usage.input_tokens"),
        output=values.count(sink, u.get("output_tokens"), "usage.output_tokens"),
        cache_read=values.count(sink, details.get("cached_tokens"), "usage.cached_tokens"),
        cache_write=values.count(
            sink, details.get("cache_write_tokens"), "usage.cache_write_tokens"
        ),
        reasoning=values.count(sink, out.get("reasoning_tokens"), "usage.reasoning_tokens"),
    )
