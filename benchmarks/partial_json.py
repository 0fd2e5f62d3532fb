"""Reading ``partial_arguments`` on every delta: linear, with reference counts relied on or not.

One tool call whose arguments hold one large open value, streamed as OpenAI Chat Completions
SSE in 7-character argument deltas and decoded by ``llmkit.parse_stream`` (no socket), reading
``ToolCallDelta.partial_arguments`` on every delta:

- ``array``: ``{"rows": [0, 1, 2, ...]}``, 10,000 to 80,000 numbers (the open list is wide);
- ``string``: ``{"content": "..."}``, 125 kB to 1 MB of text (the open string is long);

two ways of reading:

- ``dropped``: each value read and let go (a logger, a progress bar);
- ``kept``: ``state = event.partial_arguments``, held until the next delta's (a UI that redraws
  from its state);

each with the partial-JSON parser's reference-count path on (CPython with the GIL) and
switched off (``ownership.HELD = False``: what PyPy and free-threaded builds get), see
``llmkit/_json/ownership.py``.

Per cell: seconds (best of ``--reps``), members copied by the parser (its work counter:
container members copied to keep what was handed out unchanged), and two growth exponents,
``log(x_largest / x_smallest) / log(size_largest / size_smallest)`` (1 is linear, 2
quadratic): of the members copied (a count, the same on every machine; ``-`` where none are
copied) and of the seconds (noisy on a shared machine). The counter does not see string
copies: a kept snapshot holds the string in progress, so each ``+=`` of the parser copies it
(CPython extends a string in place only when nothing else refers to it), and only the seconds
show that. It reports; it asserts nothing. ``kept`` over a wide open array is quadratic with plain
``list`` snapshots whatever the parser does (docs/streaming.md, "Keeping snapshots"), so its
sizes stop at ``--kept-max``.

    python benchmarks/partial_json.py
    python benchmarks/partial_json.py --array 10000,80000 --string 125000,1000000 --reps 1
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import llmkit  # noqa: E402
from llmkit._json import ownership  # noqa: E402
from llmkit._json.partial import PartialJSON  # noqa: E402

MODEL = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")
DELTA = 7  # characters of argument text per delta


def arguments(shape: str, size: int) -> str:
    """The argument text: ``size`` array elements, or ``size`` characters of string."""
    if shape == "array":
        return '{"rows": [' + ", ".join(str(i % 997) for i in range(size)) + "]}"
    return '{"content": "' + ("lorem ipsum dolor sit amet, " * (size // 28 + 1))[:size] + '"}'


def stream(text: str) -> bytes:
    """The call as OpenAI Chat Completions SSE: its start, one event per delta, its end."""

    def event(entry: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}
        return "data: " + json.dumps({"id": "c", "choices": [choice]}) + "\n\n"

    start = {"index": 0, "id": "call_1", "type": "function"}
    parts = [event({**start, "function": {"name": "write", "arguments": ""}})]
    for i in range(0, len(text), DELTA):
        parts.append(event({"index": 0, "function": {"arguments": text[i : i + DELTA]}}))
    parts.append(
        "data: "
        + json.dumps(
            {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
        )
        + "\n\ndata: [DONE]\n\n"
    )
    return "".join(parts).encode()


@contextlib.contextmanager
def refcounts(on: bool) -> Iterator[bool]:
    """The reference-count path on (where this interpreter allows it) or switched off; yields
    whether it is on."""
    held, own = ownership.HELD, ownership.OWN
    if not on:
        ownership.HELD, ownership.OWN = False, -1
    try:
        yield ownership.HELD
    finally:
        ownership.HELD, ownership.OWN = held, own


@contextlib.contextmanager
def parsers() -> Iterator[list[PartialJSON]]:
    """Every ``PartialJSON`` made meanwhile (for its work counters)."""
    made: list[PartialJSON] = []
    init = PartialJSON.__init__

    def counting(self: PartialJSON) -> None:
        init(self)
        made.append(self)

    PartialJSON.__init__ = counting  # type: ignore[method-assign]
    try:
        yield made
    finally:
        PartialJSON.__init__ = init  # type: ignore[method-assign]


def read(body: bytes, keep: bool) -> tuple[float, int]:
    """Decode ``body`` reading every delta's ``partial_arguments``: (seconds, members
    copied)."""
    with parsers() as made:
        start = time.perf_counter()
        state = None
        for event in llmkit.parse_stream(MODEL, [body]):
            if isinstance(event, llmkit.ToolCallDelta):
                if keep:
                    state = event.partial_arguments
                else:
                    event.partial_arguments  # noqa: B018  (read and let go)
        seconds = time.perf_counter() - start
    del state
    return seconds, sum(p._stats_copied for p in made)


def exponent(sizes: list[int], values: list[float]) -> float | None:
    """The growth exponent between the smallest and the largest size."""
    if len(sizes) < 2 or min(values) <= 0:
        return None
    return math.log(values[-1] / values[0]) / math.log(sizes[-1] / sizes[0])


def measure(
    shapes: dict[str, list[int]], *, reps: int = 3, kept_max: int = 40_000
) -> list[dict[str, Any]]:
    """One row per shape, reading, and reference-count setting."""
    read(stream(arguments("array", 100)), keep=False)  # imports and caches warm
    rows = []
    for shape, all_sizes in shapes.items():
        for keep in (False, True):
            sizes = [n for n in all_sizes if not (keep and shape == "array" and n > kept_max)]
            for on in (True, False):
                with refcounts(on) as active:
                    if on and not active:
                        continue  # this interpreter has no reference-count path to turn off
                    cells = []
                    for n in sizes:
                        body = stream(arguments(shape, n))
                        best = min(read(body, keep) for _ in range(reps))
                        cells.append(best)
                rows.append(
                    {
                        "shape": shape,
                        "reading": "kept" if keep else "dropped",
                        "refcounts": "on" if on else "off",
                        "sizes": sizes,
                        "seconds": [s for s, _ in cells],
                        "copied": [c for _, c in cells],
                        "exponent": exponent(sizes, [s for s, _ in cells]),
                        "copied_exponent": exponent(sizes, [float(c) for _, c in cells]),
                    }
                )
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    out = [
        "| arguments | reading | refcounts | size | seconds | members copied "
        "| exponent (copied) | exponent (seconds) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def shown(exp: float | None) -> str:
        return f"{exp:.2f}" if exp is not None else "-"

    for row in rows:
        for i, n in enumerate(row["sizes"]):
            last = i == len(row["sizes"]) - 1
            out.append(
                f"| {row['shape']} | {row['reading']} | {row['refcounts']} | {n:,} | "
                f"{row['seconds'][i]:.3f} | {row['copied'][i]:,} | "
                f"{shown(row['copied_exponent']) if last else ''} | "
                f"{shown(row['exponent']) if last else ''} |"
            )
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--array", default="10000,20000,40000,80000", help="array elements")
    p.add_argument("--string", default="125000,250000,500000,1000000", help="string characters")
    p.add_argument("--reps", type=int, default=3, help="best of")
    p.add_argument("--kept-max", type=int, default=40_000, help="largest kept array")
    args = p.parse_args()
    shapes = {
        "array": [int(n) for n in args.array.split(",") if n],
        "string": [int(n) for n in args.string.split(",") if n],
    }
    print(
        f"{sys.implementation.name} {sys.version.split()[0]}; reference counts relied on: "
        f"{ownership.HELD}"
    )
    print(render(measure(shapes, reps=args.reps, kept_max=args.kept_max)))


if __name__ == "__main__":
    main()
