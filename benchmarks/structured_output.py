"""Structured output read through ``TextDelta.partial_output``: is it linear?

``python benchmarks/structured_output.py`` (no extra needed) streams one long structured-output
reply (a JSON object of N text deltas, 4-16 characters each, in OpenAI Chat Completions SSE cut
into 256-512 byte chunks, deterministic per seed) through ``llmkit.parse_stream`` and times,
per text delta:

- ``plain``: no ``response_format`` (the text hot path, ``partial_output`` is ``None``);
- ``partial_output``: ``response_format=`` given and ``event.partial_output`` read on every
  delta, as a streaming UI does (rendered, then dropped);
- ``partial_output (previous kept)``: the same, holding each value until the next one is read
  (to diff against it): the open containers on the path are then copied for the holder (a
  value handed out never changes), so the cost per delta grows with the width of the open
  array;
- ``re-parse``: the text so far re-parsed from scratch on every delta with
  ``pydantic_core.from_json(..., allow_partial=True)`` — what pydantic-ai does (instructor and
  the Vercel AI SDK re-parse the same way): C speed, but quadratic in the text.

Times are CPU seconds of the process (``time.process_time``: steadier than wall time on a
shared machine). Linear work shows as a flat cost per delta as N grows. A standalone script
(not part of ``run.py``'s scenarios): ``--n 1000,10000,50000``, ``--reps 3``, ``--cap 20``
seconds per run (``re-parse`` is skipped past it), ``--json PATH`` saves the measurements.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import llmkit

MODEL = llmkit.Model(
    provider="bench", id="bench", api="openai-chat", base_url="http://127.0.0.1:9/v1"
)
SCHEMA = {"type": "object"}  # what decoding needs to know: that the text is structured output


def output_text(n: int, seed: int) -> tuple[str, list[str]]:
    """A JSON object whose text splits into ``n`` deltas of 4-16 characters."""
    rng = random.Random(seed)
    rows, length = [], 0
    while length < n * 10 + 20:
        row = {
            "id": len(rows),
            "title": f"item {len(rows)}",
            "tags": ["a", "b"],
            "done": rng.random() < 0.5,
        }
        rows.append(row)
        length += len(json.dumps(row)) + 2
    text = json.dumps({"rows": rows})
    deltas, i = [], 0
    while i < len(text) and len(deltas) < n - 1:
        size = rng.randint(4, 16)
        deltas.append(text[i : i + size])
        i += size
    deltas.append(text[i:])
    return text, [d for d in deltas if d]


def chat_body(deltas: list[str], seed: int) -> list[bytes]:
    """The deltas as a Chat Completions stream, cut into 256-512 byte chunks."""
    events = []
    for d in deltas:
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": d}, "finish_reason": None}],
        }
        events.append("data: " + json.dumps(chunk) + "\n\n")
    finish = {
        "id": "chatcmpl-1",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 9},
    }
    events.append("data: " + json.dumps(finish) + "\n\n")
    events.append("data: [DONE]\n\n")
    raw = "".join(events).encode()
    rng, chunks, i = random.Random(seed), [], 0
    while i < len(raw):
        size = rng.randint(256, 512)
        chunks.append(raw[i : i + size])
        i += size
    return chunks


def _plain(chunks: list[bytes], cap: float) -> Any:
    for _ in llmkit.parse_stream(MODEL, chunks):
        pass
    return None


def _partial_output(chunks: list[bytes], cap: float) -> Any:
    last = None
    for event in llmkit.parse_stream(MODEL, chunks, response_format=SCHEMA):
        if isinstance(event, llmkit.TextDelta):
            event.partial_output  # noqa: B018 -- rendered, then dropped, as a UI does
            last = event
    return None if last is None else last.partial_output


def _partial_output_kept(chunks: list[bytes], cap: float) -> Any:
    previous = None
    for event in llmkit.parse_stream(MODEL, chunks, response_format=SCHEMA):
        if isinstance(event, llmkit.TextDelta):
            # Holding the previous value (to diff against it) while the next is built: the
            # open containers on its path are then copied, never changed under the holder.
            previous = event.partial_output
    return previous


def _reparse(chunks: list[bytes], cap: float) -> Any:
    from pydantic_core import from_json

    deadline = time.process_time() + cap
    pieces: list[str] = []
    value = None
    for event in llmkit.parse_stream(MODEL, chunks):
        if isinstance(event, llmkit.TextDelta):
            pieces.append(event.delta)
            value = from_json("".join(pieces), allow_partial=True)
            if time.process_time() > deadline:
                raise TimeoutError
    return value


CONTESTANTS: dict[str, Callable[[list[bytes], float], Any]] = {
    "plain": _plain,
    "partial_output": _partial_output,
    "partial_output (previous kept)": _partial_output_kept,
    "re-parse": _reparse,
}


def measure(n: int, reps: int, cap: float, seed: int) -> dict[str, float | None]:
    """Seconds per text delta for each contestant (best of ``reps``; ``None`` past ``cap``)."""
    text, deltas = output_text(n, seed)
    chunks = chat_body(deltas, seed)
    expected = json.loads(text)
    warm = chat_body(output_text(50, seed)[1], seed)
    for run in CONTESTANTS.values():  # lazy imports and first-use setup are not per delta
        run(warm, cap)
    out: dict[str, float | None] = {}
    for name, run in CONTESTANTS.items():
        best: float | None = None
        for _ in range(reps):
            start = time.process_time()
            try:
                value = run(chunks, cap)
            except TimeoutError:
                best = None
                break
            elapsed = time.process_time() - start
            if name != "plain" and value != expected:
                raise AssertionError(f"{name} returned a wrong value at n={n}")
            best = elapsed if best is None else min(best, elapsed)
        out[name] = None if best is None else best / len(deltas)
    return out


def table(results: dict[int, dict[str, float | None]]) -> str:
    names = list(CONTESTANTS)
    lines = ["| text deltas | " + " | ".join(f"{n} (µs/delta)" for n in names) + " |"]
    lines.append("| ---: |" + " ---: |" * len(names))
    for n, row in results.items():
        cells = [f"{row[name] * 1e6:.2f}" if row[name] is not None else "> cap" for name in names]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[int, dict[str, float | None]]:
    p = argparse.ArgumentParser(
        prog="python benchmarks/structured_output.py", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--n", default="1000,10000,50000", help="text deltas per stream (comma-separated)"
    )
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--cap", type=float, default=20.0, help="seconds per run before giving up")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="also save the measurements here")
    args = p.parse_args(argv)
    results = {
        n: measure(n, args.reps, args.cap, args.seed)
        for n in (int(x) for x in args.n.split(",") if x)
    }
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps({str(n): r for n, r in results.items()}, indent=2))
    return results


if __name__ == "__main__":
    main()
