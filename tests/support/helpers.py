"""Shared test helpers: build raw OpenAI Chat SSE bytes and replay them re-chunked."""

from __future__ import annotations

import json
import random
from typing import Any

import llmkit

MODEL = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")


def chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish: str | None = None,
    id: str = "chatcmpl-1",
    **extra: Any,
) -> dict[str, Any]:
    """One chat.completion.chunk with a single choice."""
    body: dict[str, Any] = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }
    body.update(extra)
    return body


def call(
    index: int | None = None,
    id: str | None = None,
    name: str | None = None,
    arguments: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """One entry of ``delta.tool_calls``; keys left out when None."""
    entry: dict[str, Any] = {}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
        entry["type"] = "function"
    fn: dict[str, Any] = {}
    if name is not None:
        fn["name"] = name
    if arguments is not None:
        fn["arguments"] = arguments
    if fn:
        entry["function"] = fn
    entry.update(extra)
    return entry


def tools(*entries: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """A chunk whose delta carries these tool-call entries."""
    return chunk({"tool_calls": list(entries)}, finish=finish)


def sse(*events: dict[str, Any] | str, done: bool = True, newline: str = "\n") -> bytes:
    """Frame payloads as ``data:`` events (str payloads are sent verbatim)."""
    out = []
    for e in events:
        data = e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)
        out.append(f"data: {data}{newline}{newline}")
    if done:
        out.append(f"data: [DONE]{newline}{newline}")
    return "".join(out).encode("utf-8")


def rechunk(body: bytes, seed: int) -> list[bytes]:
    """Split ``body`` at random offsets (inside UTF-8 sequences too)."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(body):
        n = rng.choice((1, 1, 2, 3, 5, 8, 13, 64, 500))
        out.append(body[i : i + n])
        i += n
    return out


def replay(body: bytes, model: llmkit.Model = MODEL, seeds: int = 4) -> list[llmkit.Event]:
    """Events for ``body``; asserts every re-chunking gives the same events and message."""
    reference = list(llmkit.parse_stream(model, [body]))
    ref_msg = reference[-1].message.model_dump()  # type: ignore[union-attr]
    for seed in range(seeds):
        events = list(llmkit.parse_stream(model, rechunk(body, seed)))
        assert [type(e) for e in events] == [type(e) for e in reference]
        assert events[-1].message.model_dump() == ref_msg  # type: ignore[union-attr]
    assert isinstance(reference[-1], (llmkit.Done, llmkit.ErrorEvent))
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in reference) == 1
    return reference


def final(body: bytes, model: llmkit.Model = MODEL) -> llmkit.AssistantMessage:
    """The final message for ``body`` (checked across re-chunkings)."""
    return replay(body, model)[-1].message  # type: ignore[union-attr]


def kinds(message: llmkit.AssistantMessage) -> list[str]:
    """Diagnostic kinds on ``message``, in order."""
    return [d.kind for d in message.diagnostics]


def consume(value: Any) -> None:
    """Force pydantic's lazy ``Iterable`` validators (the SDK request types use Iterable[...])
    so nested shapes are really checked. Unknown keys are not caught: TypedDicts ignore
    extras."""
    if isinstance(value, dict):
        for v in value.values():
            consume(v)
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        for v in value:
            consume(v)


def same_json(a: Any, b: Any) -> bool:
    """Deep equality that, unlike ``==``, tells ``True`` from ``1`` and ``1`` from ``1.0``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def prefix_consistent(partial: Any, final: Any) -> bool:
    """``partial`` is what a reader could know of ``final`` after a prefix of its text:
    only the last member of an open container may be incomplete (a string prefix, or itself
    prefix-consistent); everything before it is complete and equal; object keys come in the
    final order; scalars other than strings are never partial (a number at the very end is
    left out until it is complete). ``None`` before the value began."""
    if partial is None and final is not None:
        return True
    if isinstance(final, str):
        return isinstance(partial, str) and final.startswith(partial)
    if isinstance(final, dict):
        if not isinstance(partial, dict):
            return False
        keys = list(partial)
        if keys != list(final)[: len(keys)]:
            return False
        if not keys:
            return True
        *done_keys, last_key = keys
        complete = all(same_json(partial[k], final[k]) for k in done_keys)
        return complete and prefix_consistent(partial[last_key], final[last_key])
    if isinstance(final, list):
        if not isinstance(partial, list) or len(partial) > len(final):
            return False
        if not partial:
            return True
        *done, last = partial
        complete = all(same_json(x, y) for x, y in zip(done, final, strict=False))
        return complete and prefix_consistent(last, final[len(partial) - 1])
    return same_json(partial, final)
