"""Responses usage in llmkit's convention, and the rest of what a response says about itself
(kept on ``message.provider_data``)."""

from __future__ import annotations

from typing import Any

from ..._messages import Usage
from .. import typed_reads as values
from ..contract import DeltaSink

__all__ = ["KEPT", "MAPPED", "response_usage", "total_disagrees", "unmapped_usage"]

# What the response says about itself beyond its output and usage (its tier, its timestamps,
# ...), kept in message.provider_data as sent.
KEPT = (
    *("service_tier", "moderation", "prompt_cache_diagnostics", "prompt_cache_options"),
    *("tool_usage", "input_transformations", "access_programs", "image"),
    "completed_at",
)

# What response_usage maps (total_tokens is their sum: one that is not is reported and the usage
# object kept whole, total_disagrees).
MAPPED = frozenset(
    {
        *("input_tokens", "output_tokens", "total_tokens", "input_tokens_details.cached_tokens"),
        *("input_tokens_details.cache_write_tokens", "output_tokens_details.reasoning_tokens"),
    }
)


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
    usage = Usage(
        input=values.count(sink, u.get("input_tokens"), "usage.input_tokens"),
        output=values.count(sink, u.get("output_tokens"), "usage.output_tokens"),
        cache_read=values.count(sink, details.get("cached_tokens"), "usage.cached_tokens"),
        cache_write=values.count(
            sink, details.get("cache_write_tokens"), "usage.cache_write_tokens"
        ),
        reasoning=values.count(sink, out.get("reasoning_tokens"), "usage.reasoning_tokens"),
    )
    return usage


def total_disagrees(sink: DeltaSink, sent: dict[str, Any], usage: Usage) -> bool:
    """Whether the ``total_tokens`` of a usage object ``sent`` is not the input plus the output
    it maps to (``usage``, llmkit's convention: reasoning inside the output, cache inside the
    input); reported when it is not. One that is says nothing more: it is not kept. One that
    is not: the caller keeps the usage object whole (Responses and Chat alike)."""
    total = sent.get("total_tokens")
    if (
        not isinstance(total, int)
        or isinstance(total, bool)
        or usage.input is None
        or usage.output is None
        or total == usage.input + usage.output
    ):
        return False
    sink.malformed(
        f"usage.total_tokens ({total}) is not the input and output tokens' sum "
        f"({usage.input + usage.output}); kept the parts, and the usage whole",
        once="usage.total_tokens",  # some servers send usage in every chunk
        total_tokens=total,
    )
    return True


def unmapped_usage(usage: dict[str, Any], mapped: frozenset[str]) -> bool:
    """Whether ``usage`` holds a count llmkit does not map (``mapped``: dotted paths): any
    value other than ``None``, ``0`` or an empty object outside them. The usage object is then
    kept whole on ``message.provider_data["usage"]`` (audio or image tokens, predictions, cache
    writes by TTL, ...)."""

    def walk(value: Any, path: str) -> bool:
        if path in mapped:
            return False
        if isinstance(value, dict):
            return any(walk(v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        return value is not None and value != 0

    return walk(usage, "")
