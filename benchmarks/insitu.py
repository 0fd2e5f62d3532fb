"""Scenario 1 in memory, with and without the HTTP/1.1 parsing that sits between two reads.

End to end, every read of a streamed body goes through h11 (the chunked framing, the state
machine) before the decoder sees it, and that work shares the CPU's caches with the decoder's.
This decodes scenario 1's own streams (``streams.render``: the same bytes, cut into the same
256-512 byte writes) with no socket, in one process, two ways:

- ``alone``: the writes straight into each contestant's decoding (what
  ``instructions.py`` counts);
- ``h11``: each write framed as one HTTP/1.1 chunk and taken out by an ``h11.Connection``
  (``receive_data`` then ``next_event``, as httpcore does per read), then decoded.

Contestants and their decoding are ``instructions.py``'s (:func:`~benchmarks.instructions.decoder`):
the floor, ``llmkit`` and ``llmkit-partial`` (reading ``partial_arguments`` on every
``ToolCallDelta``). Each
figure is the best of ``--reps`` runs, in µs per event, and as a multiple of the floor's.

The ``h11`` ratios track the end-to-end ones of ``run.py`` within a few percent at a fraction
of their noise, and the difference between the two columns is the cost of running between two
HTTP reads rather than in a tight loop: a decoder pays more per event there (its code and data
are no longer in cache), the more the larger its footprint.

``--bound`` adds a cost model, ``cheapest``: ``llmkit-partial`` with the partial-arguments
parser replaced by the cheapest step a reading can take — every delta appended in place to one
string of the open object after the ownership check that keeps a held snapshot unchanged, as
if every delta were plain string content. Its values are wrong (the calls at the end are
still right: they are classified from the whole text); its time is the least any parser with
this contract could cost per delta here, so the gap from ``reading`` to ``cheapest`` is what
parsing the deltas' structure costs.

    python benchmarks/insitu.py --apis anthropic-messages,gemini --shapes edits
    python benchmarks/insitu.py --bound
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.instructions import APIS, CONTESTANTS, SHAPES, decoder  # noqa: E402
from llmkit._json.ownership import OWN, getrefcount  # noqa: E402  (the cost model's own)

_HEAD = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"


def reads(writes: list[bytes], h11_first: bool) -> Iterator[bytes]:
    """The writes as the decoder gets them: as they are, or each one taken out of an HTTP/1.1
    chunk by h11 first."""
    if not h11_first:
        yield from writes
        return
    import h11

    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="POST", target="/", headers=[("host", "x")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(_HEAD)
    conn.next_event()  # the response head
    for write in writes:
        conn.receive_data(b"%x\r\n%b\r\n" % (len(write), write))
        event = conn.next_event()
        assert isinstance(event, h11.Data)
        yield bytes(event.data)


def _cheapest_step(self: Any, k: int) -> Any:
    """The ``--bound`` cost model of ``PartialJSON.snapshot_at``: delta ``k`` appended in place
    to one string of one object, after the ownership check (see the module docstring). It
    imports nothing: an import statement here ran on every delta and cost more than the step
    (about 2 µs per event, which the first figures of this model included)."""
    top = self._top
    if top is None:
        top = self._top = {"": ""}
        self._path = [top]
    if not self._owned:
        self._owned = True
        for container in self._path:
            if getrefcount(container) != OWN:
                break
    text = top[""]
    top[""] = None
    text += self.deltas[k - 1]
    top[""] = text
    self._owned = False
    return top


@contextlib.contextmanager
def _cheapest() -> Iterator[None]:
    from llmkit._json.partial import PartialJSON

    real = PartialJSON.snapshot_at
    PartialJSON.snapshot_at = _cheapest_step  # type: ignore[method-assign]
    try:
        yield
    finally:
        PartialJSON.snapshot_at = real  # type: ignore[method-assign]


def measure(
    api: str, shape: str, n: int, reps: int, bound: bool = False
) -> dict[str, dict[str, float]]:
    """µs per event, ``{"alone" | "h11": {contestant: µs}}`` (with ``bound``, ``"cheapest"``
    too: the cost model of the module docstring)."""
    from benchmarks.streams import StreamSpec, render

    rendered = render(StreamSpec(api, shape, n))
    out: dict[str, dict[str, float]] = {}
    who_all = [*CONTESTANTS, "cheapest"] if bound else list(CONTESTANTS)
    for mode in ("alone", "h11"):
        out[mode] = {}
        for who in who_all:
            run = decoder("llmkit-partial" if who == "cheapest" else who, api)
            best = float("inf")
            with _cheapest() if who == "cheapest" else contextlib.nullcontext():
                for _ in range(reps):
                    start = time.perf_counter()
                    run(reads(rendered.writes, mode == "h11"))
                    best = min(best, time.perf_counter() - start)
            out[mode][who] = best / rendered.events * 1e6
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apis", default=",".join(APIS))
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument(
        "--bound", action="store_true", help="also the cheapest conceivable reading (a model)"
    )
    args = parser.parse_args(argv)
    columns = ["llmkit", "llmkit-partial", *(["cheapest"] if args.bound else [])]
    print(f"µs per event, best of {args.reps}, N = {args.n} (x the floor's, same row)")
    print(
        f"{'wire':<20} {'shape':<8} {'reads':<6} {'floor':>7} {'llmkit':>15} {'reading':>15}"
        + (f" {'cheapest':>15}" if args.bound else "")
    )
    for api in args.apis.split(","):
        for shape in args.shapes.split(","):
            for mode, per in measure(api, shape, args.n, args.reps, args.bound).items():
                floor = per["floor"]
                cells = [f"{per[w]:6.2f} ({per[w] / floor:4.2f}x)" for w in columns]
                print(
                    f"{api:<20} {shape:<8} {mode:<6} {floor:7.2f} "
                    + " ".join(f"{c:>15}" for c in cells)
                )


if __name__ == "__main__":
    main()
