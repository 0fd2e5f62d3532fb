"""Smoke test of the benchmark harness (``benchmarks/``, issue #7).

The benchmark itself is not part of the test suite; this only proves the harness still works:
tiny streams (N=50), one repetition, the floor and the two llmkit contestants, each in its
own process against the loopback server, and every one of them must return exactly the
generated tool calls. It asserts correctness, never timings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import run_throughput  # noqa: E402
from benchmarks.server import BenchServer  # noqa: E402
from benchmarks.streams import (  # noqa: E402
    MAX_DELTA,
    MAX_WRITE,
    MIN_DELTA,
    MIN_WRITE,
    SHAPES,
    K,
    StreamSpec,
    expected_calls,
    render,
)


def test_generated_streams_are_deterministic_and_shaped_as_specified() -> None:
    for shape in SHAPES:
        spec = StreamSpec("openai-chat", shape, 50)
        calls = expected_calls(spec)
        assert len(calls) == K
        assert sum(len(c.deltas) for c in calls) == 50  # N counts deltas across the 4 calls
        for call in calls:
            assert all(MIN_DELTA <= len(d) <= MAX_DELTA for d in call.deltas)
            assert json.loads("".join(call.deltas)) == call.arguments
        first, again = render(spec), render(spec)
        assert first.body == again.body
        assert first.writes == again.writes
        assert b"".join(first.writes) == first.body
        assert all(MIN_WRITE <= len(w) <= MAX_WRITE for w in first.writes[:-1])


def test_every_contestant_process_returns_the_generated_calls() -> None:
    with BenchServer() as server:
        result = run_throughput(
            server, ns=[50], reps=1, contestants=["floor", "llmkit-partial", "llmkit"]
        )
    ran = {key for key, cell in result.cells.items() if cell.runs}
    assert ("openai-chat", "edits", 50, "llmkit-partial") in ran
    assert ("openai-chat", "content", 50, "floor") in ran
    assert result.failures() == []
    assert not any(cell.capped for cell in result.cells.values())
