"""Instructions per argument delta, counted by callgrind: the deterministic view of scenario 1.

Wall-clock ratios move by up to ±25 % between runs on a shared machine; instruction counts do
not (callgrind counts what the CPU executes, whatever else runs). This decodes scenario 1's
own streams (``streams.render``: the same bytes, cut into the same 256-512 byte writes) in
memory, with no socket, through the same code each contestant runs after the bytes arrive:

- ``floor``: an ``httpx.Response`` over the writes, httpx-sse's ``EventSource.iter_sse`` and
  the scenario's own floor decoders (``contestants._floor_*``; Bedrock: ``iter_bytes`` into
  its minimal frame parser);
- ``llmkit`` / ``llmkit-partial``: the same ``httpx.Response``'s ``iter_bytes`` into
  ``llmkit.parse_stream`` (what ``stream()`` runs on each read), reading ``partial_arguments``
  on every ``ToolCallDelta`` or not.

Each (contestant, wire, shape) runs twice under ``valgrind --tool=callgrind``, at N = ``low``
and ``high`` argument deltas; (I(high) - I(low)) / (high - low) is the cost per delta, with
interpreter start-up, imports and set-up cancelled out. What it leaves out is the HTTP path
(sockets, h11, chunked decoding), which both sides pay alike: end-to-end ratios are therefore
closer to 1 than these.

    python benchmarks/instructions.py                      # every wire and shape
    python benchmarks/instructions.py --apis gemini --shapes edits --contestants llmkit

Each child checks its calls against the generated ones (a wrong result is an error). Needs
valgrind (Debian: ``apt-get install valgrind``); about 1 minute per cell on 2 cores.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONTESTANTS = ("floor", "llmkit", "llmkit-partial")
APIS = ("openai-chat", "anthropic-messages", "openai-responses", "gemini", "bedrock-converse")
SHAPES = ("edits", "content")


def _response(writes: Iterable[bytes], api: str) -> Any:
    import httpx

    content_type = (
        "application/vnd.amazon.eventstream"
        if api == "bedrock-converse"
        else "text/event-stream; charset=utf-8"
    )
    return httpx.Response(200, headers={"content-type": content_type}, content=iter(writes))


def decoder(contestant: str, api: str) -> Callable[[Iterable[bytes]], list[tuple[Any, str, Any]]]:
    """``contestant``'s decoding of a body's reads, in memory, to ``(id, name, arguments)`` per
    call: the floor (an ``httpx.Response`` over the reads, httpx-sse and the scenario's floor
    decoders; Bedrock's minimal frame parser) or ``llmkit.parse_stream`` over the same
    response, reading ``partial_arguments`` on every ``ToolCallDelta`` for ``llmkit-partial``.
    The reads are pulled as the decoding goes."""
    sys.path.insert(0, str(ROOT))
    from benchmarks import contestants as c

    if contestant == "floor":
        if api == "bedrock-converse":
            return lambda reads: c._floor_bedrock(_response(reads, api).iter_bytes())
        import httpx_sse

        floor = {
            "openai-chat": c._floor_chat,
            "anthropic-messages": c._floor_anthropic,
            "openai-responses": c._floor_responses,
            "gemini": c._floor_gemini,
        }[api]
        return lambda reads: floor(httpx_sse.EventSource(_response(reads, api)).iter_sse())

    import llmkit

    model, delta = _model(llmkit, api), llmkit.ToolCallDelta
    read = contestant == "llmkit-partial"

    def run(reads: Iterable[bytes]) -> list[tuple[Any, str, Any]]:
        last = None
        for event in llmkit.parse_stream(model, _response(reads, api).iter_bytes()):
            if read and type(event) is delta:
                event.partial_arguments  # noqa: B018 - the read is the point
            last = event
        assert isinstance(last, llmkit.Done)
        return [(t.id, t.name, t.arguments) for t in last.message.tool_calls]

    return run


def child(contestant: str, api: str, shape: str, path: str) -> str:
    """Decode the writes pickled at ``path`` as ``contestant``; the calls' digest."""
    with open(path, "rb") as f:
        writes: list[bytes] = pickle.load(f)
    sys.path.insert(0, str(ROOT))
    from benchmarks.streams import NO_IDS, digest

    own_ids = api not in NO_IDS  # (the floor has None there too: the wire sends none)
    calls = decoder(contestant, api)(writes)
    return digest([(i if own_ids else None, name, args) for i, name, args in calls])


def _model(llmkit: Any, api: str) -> Any:
    from benchmarks.contestants import VERTEX_PATH
    from benchmarks.streams import MODEL_IDS

    provider = {
        "openai-chat": "openai",
        "openai-responses": "openai",
        "anthropic-messages": "anthropic",
        "gemini": "vertex",
        "bedrock-converse": "bedrock",
    }[api]
    fields: dict[str, Any] = {}
    base = "http://127.0.0.1/v1"
    if api == "gemini":
        fields = {"platform": "vertex", "eager_input_streaming": True}
        base = "http://127.0.0.1" + VERTEX_PATH
    elif api == "bedrock-converse":
        fields = {"platform": "bedrock"}
        base = "http://127.0.0.1"
    return llmkit.Model(provider=provider, id=MODEL_IDS[api], api=api, base_url=base, **fields)


def _write_stream(api: str, shape: str, n: int, folder: str) -> tuple[str, str]:
    sys.path.insert(0, str(ROOT))
    from benchmarks.streams import StreamSpec, expected_digest, render

    spec = StreamSpec(api, shape, n)
    path = os.path.join(folder, f"{spec.key}.pickle")
    with open(path, "wb") as f:
        pickle.dump(render(spec).writes, f)
    return path, expected_digest(spec)


_COLLECTED = re.compile(r"Collected : (\d+)")


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    # Bytecode cached (a first run writes it: compiling must not be counted), hashes fixed.
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def check(contestant: str, api: str, shape: str, path: str, expected: str) -> None:
    """One child run without callgrind: its calls must be the generated ones (and every
    module it imports is compiled to bytecode before anything is counted)."""
    proc = _run([sys.executable, __file__, "--child", contestant, api, shape, path])
    if proc.returncode != 0:
        raise RuntimeError(f"{contestant} {api} {shape}: {proc.stderr[-2000:]}")
    if proc.stdout.strip() != expected:
        raise RuntimeError(f"{contestant} {api} {shape}: wrong calls")


def count(contestant: str, api: str, shape: str, path: str) -> int:
    """Instructions of one child run under callgrind."""
    proc = _run(
        [
            *("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"),
            *(sys.executable, __file__, "--child", contestant, api, shape, path),
        ]
    )
    found = _COLLECTED.search(proc.stderr)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"{contestant} {api} {shape}: {proc.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apis", default=",".join(APIS))
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--contestants", default=",".join(CONTESTANTS))
    parser.add_argument("--low", type=int, default=2000)
    parser.add_argument("--high", type=int, default=12000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", help="also save the figures here")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.stdout.write(child(*args.child) + "\n")
        return

    apis, shapes = args.apis.split(","), args.shapes.split(",")
    contestants = args.contestants.split(",")
    if "floor" not in contestants:
        contestants.insert(0, "floor")
    results: dict[tuple[str, str, str, int], int] = {}
    with tempfile.TemporaryDirectory() as folder:
        streams = {
            (api, shape, n): _write_stream(api, shape, n, folder)
            for api in apis
            for shape in shapes
            for n in (args.low, args.high)
        }
        cells = [(who, *key) for key in streams for who in contestants]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(lambda cell: check(*cell[:3], *streams[cell[1:]]), cells))
            futures = {pool.submit(count, *cell[:3], streams[cell[1:]][0]): cell for cell in cells}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
    span = args.high - args.low
    rows: list[dict[str, Any]] = []
    print(f"instructions per argument delta, (I({args.high}) - I({args.low})) / {span}")
    print(f"{'wire':<20} {'shape':<8} " + " ".join(f"{c:>22}" for c in contestants))
    for api in apis:
        for shape in shapes:
            per = {
                who: (results[who, api, shape, args.high] - results[who, api, shape, args.low])
                / span
                for who in contestants
            }
            floor = per["floor"]
            cells = [
                f"{per[who] / 1000:>9.1f}k ({per[who] / floor:4.2f}x)".rjust(22)
                for who in contestants
            ]
            print(f"{api:<20} {shape:<8} " + " ".join(cells))
            rows.append({"api": api, "shape": shape, "per_delta": per})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
