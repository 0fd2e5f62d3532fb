"""The tool-call bookkeeping is linear in the number of calls: thousands of calls in one
response, or one id shared by thousands of calls, cost work in proportion (a work counter: the
lines llmkit executes, never a wall-clock ratio)."""

from __future__ import annotations

import math
import sys
from types import FrameType
from typing import Any

import llmkit
from tests.support.helpers import MODEL, call, chunk, sse, tools

PACKAGE = llmkit.__file__.rsplit("/", 1)[0]


def lines_run(body: bytes) -> tuple[int, llmkit.AssistantMessage]:
    """The number of lines of llmkit's code that decoding ``body`` runs, and the message."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(trace)
    try:
        *_, last = llmkit.parse_stream(MODEL, [body])
    finally:
        sys.settrace(None)
    return count, last.message  # type: ignore[union-attr]


def growth(make: Any, small: int = 400, large: int = 1600) -> float:
    """The exponent k in work ~ n**k between two sizes."""
    a, first = lines_run(make(small))
    b, second = lines_run(make(large))
    assert len(first.tool_calls) == small and len(second.tool_calls) == large
    return math.log(b / a) / math.log(large / small)


def many_calls(n: int) -> bytes:
    events = [tools(call(i, f"call_{i}", "f", '{"a":1}')) for i in range(n)]
    return sse(*events, chunk(finish="tool_calls"))


def one_shared_id(n: int) -> bytes:
    events = [tools(call(i, "call_same", "f", '{"a":1}')) for i in range(n)]
    return sse(*events, chunk(finish="tool_calls"))


def test_thousands_of_calls_in_one_response_cost_linear_work() -> None:
    assert growth(many_calls) < 1.15


def test_one_id_shared_by_thousands_of_calls_costs_linear_work() -> None:
    assert growth(one_shared_id) < 1.15
    _, message = lines_run(one_shared_id(50))
    ids = [c.id for c in message.tool_calls]
    assert ids[:3] == ["call_same", "call_same_2", "call_same_3"] and len(set(ids)) == 50
