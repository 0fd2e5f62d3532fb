"""The orchestration: which runs to make, in which order, and what they measured.

Everything timed happens in child processes (:mod:`benchmarks.contestants`,
:mod:`benchmarks.concurrency`); this process only serves the streams (the loopback server
runs on a thread here), launches the children one at a time, and collects their JSON lines.

Rules, applied per (wire API, shape, N):

- each repetition runs every contestant once, in an order rotated by one at every repetition,
  so that each contestant takes each position and slow drifts in machine load spread evenly;
- a run that passes the cap (20 s) is stopped and the cell reads "> 20 s"; no more
  repetitions of it. A cell whose first run took more than half the cap gets
  :data:`LONG_REPS` (3) runs instead of ``reps``: at that length the spread between runs is
  small, and it keeps the whole command near 25 minutes (as does ``large_reps``). A
  contestant whose median at the previous N, scaled linearly to this N, already exceeds the
  cap is not run (it cannot grow slower than linearly): "> 20 s", projected;
- every run's result is checked: the digest of its 4 calls (ids, names, parsed arguments)
  must equal the generated one. A wrong result is a failure, whatever its time.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .contestants import ALL_APIS, CONTESTANTS, IMPORTS, LLMKIT, SUPPORTS
from .server import BenchServer
from .streams import (
    ENCODERS,
    NO_IDS,
    SHAPES,
    StreamSpec,
    digest,
    expected_digest,
    render,
)

ROOT = Path(__file__).resolve().parent.parent
APIS = ALL_APIS
WIRE_MODULES = {
    "openai-chat": "llmkit._wire.openai_chat.decode",
    "anthropic-messages": "llmkit._wire.anthropic_messages.decode",
    "openai-responses": "llmkit._wire.openai_responses.decode",
    "gemini": "llmkit._wire.gemini.decode",
    "bedrock-converse": "llmkit._wire.bedrock_converse.decode",
}
SDK_PACKAGES = {"openai-sdk": "openai", "anthropic-sdk": "anthropic", "aws-sdk": "botocore"}
WARMUP_N = 40
LONG_REPS = 3  # runs for a cell whose first run took more than half the cap
LARGE_N = 50_000  # run.py --reps-large applies from this N up
Log = Callable[[str], None]


def _python(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``python <args>`` from the repository root (so ``benchmarks`` imports).

    Bytecode is cached (``PYTHONDONTWRITEBYTECODE`` is removed, as CI sets it): an installed
    package has its ``.pyc`` files, and an editable llmkit recompiled from source in every
    fresh process would be charged about 0.1 s of compiling that no user pays."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


def _last_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-3:]
        raise RuntimeError(f"exit {proc.returncode}: {' | '.join(tail)}"[:600])
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def llmkit_digest() -> str:
    """A fingerprint of llmkit's sources as measured (uncommitted changes included), so that a
    report names the exact code, and a run can tell if the code changed under it."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "llmkit").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json"):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


# -- availability -------------------------------------------------------------------------------


def availability(
    apis: Iterable[str], contestants: Iterable[str]
) -> dict[tuple[str, str], str | None]:
    """``(api, contestant) -> None`` if it can run, else the reason it is skipped.

    llmkit's adapter for an API counts only if it imports *and* parses a generated stream
    into the expected calls (checked here with ``llmkit.parse_stream``, no network), since
    some adapters are being written while this benchmark runs.
    """
    out: dict[tuple[str, str], str | None] = {}
    for api in apis:
        llmkit_reason = _llmkit_reason(api)
        for name in contestants:
            if api not in SUPPORTS[name]:
                continue
            if name in LLMKIT and llmkit_reason:
                out[api, name] = llmkit_reason
            elif api not in ENCODERS:
                out[api, name] = (
                    f"no {api} stream generator yet: its API sends tool calls whole, not as "
                    "argument deltas (see benchmarks/streams.py)"
                )
            elif name in SDK_PACKAGES:
                package = SDK_PACKAGES[name]
                found = importlib.util.find_spec(package) is not None
                out[api, name] = None if found else f"the {package} package is not installed"
            else:
                out[api, name] = None
    return out


def _llmkit_reason(api: str) -> str | None:
    try:
        importlib.import_module(WIRE_MODULES[api])
    except Exception as exc:  # ImportError, or an adapter half-written
        return f"`import {WIRE_MODULES[api]}` fails ({type(exc).__name__}: {exc})"[:300]
    if api not in ENCODERS:
        return None
    import llmkit

    spec = StreamSpec(api, "edits", WARMUP_N)
    model = llmkit.Model(
        provider="bench", id="bench", api=cast("llmkit.Api", api), base_url="http://127.0.0.1/v1"
    )
    try:
        last = list(llmkit.parse_stream(model, render(spec).writes))[-1]
        if not isinstance(last, (llmkit.Done, llmkit.ErrorEvent)):
            return f"llmkit's {api} stream does not end with Done or ErrorEvent"
        calls = [
            (None if api in NO_IDS else c.id, c.name, c.arguments) for c in last.message.tool_calls
        ]
    except Exception as exc:
        return f"llmkit cannot parse the {api} stream ({type(exc).__name__}: {exc})"[:300]
    if digest(calls) != expected_digest(spec):
        return f"llmkit parses the {api} stream into different calls"
    return None


# -- throughput -------------------------------------------------------------------------------


@dataclass
class Run:
    """One timed run of one contestant."""

    seconds: float
    peak_rss: int
    capped: bool = False
    problem: str | None = None  # a failure: wrong result, exception, crash


@dataclass
class Cell:
    """All runs of one contestant on one stream."""

    runs: list[Run] = field(default_factory=list)
    projected: bool = False  # not run: the previous N already projects past the cap
    unavailable: str | None = None

    @property
    def capped(self) -> bool:
        return self.projected or any(r.capped for r in self.runs)

    @property
    def failed(self) -> str | None:
        return next((r.problem for r in self.runs if r.problem), None)

    @property
    def seconds(self) -> float | None:
        """Median seconds, or None when capped, failed or not run."""
        if self.capped or self.failed or not self.runs:
            return None
        return statistics.median(r.seconds for r in self.runs)

    @property
    def peak_rss(self) -> int | None:
        values = [r.peak_rss for r in self.runs if not r.problem]
        return int(statistics.median(values)) if values else None


@dataclass
class Throughput:
    """Scenario 1's results."""

    apis: list[str]
    shapes: list[str]
    ns: list[int]
    contestants: list[str]
    reps: int
    cap: float
    cells: dict[tuple[str, str, int, str], Cell] = field(default_factory=dict)
    events: dict[tuple[str, str, int], int] = field(default_factory=dict)
    skipped: dict[tuple[str, str], str] = field(default_factory=dict)  # (api, contestant)
    large_reps: int | None = None  # repetitions at N ≥ LARGE_N, when fewer than reps

    def contestants_for(self, api: str) -> list[str]:
        return [c for c in self.contestants if (api, c) not in self.skipped and api in SUPPORTS[c]]

    def failures(self) -> list[str]:
        return [
            f"{api}/{shape}/N={n}/{name}: {cell.failed}"
            for (api, shape, n, name), cell in self.cells.items()
            if cell.failed
        ]


def run_one(
    server: BenchServer,
    contestant: str,
    spec: StreamSpec,
    *,
    cap: float,
    profile: str | None = None,
) -> Run:
    """One contestant process on one stream; checks its result."""
    warm = StreamSpec(spec.api, spec.shape, WARMUP_N, spec.seed)
    server.prepare(warm)
    server.prepare(spec)
    args = [
        "-m",
        "benchmarks.contestants",
        contestant,
        spec.api,
        spec.shape,
        server.base_url(spec),
        server.base_url(warm),
        "--cap",
        str(cap),
    ]
    if profile:
        args += ["--profile", profile]
    try:
        # The child stops itself at the cap; this timeout is for a child that hangs.
        out = _last_json(_python(*args, timeout=cap + 180))
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
        return Run(0.0, 0, problem=f"{type(exc).__name__}: {exc}"[:600])
    run = Run(out["seconds"], out["peak_rss"], capped=out["capped"])
    if out["problems"]:
        run.problem = "; ".join(out["problems"])
    elif not run.capped and out["digest"] != expected_digest(spec):
        run.problem = "wrong result: the calls differ from the generated ones"
    return run


def run_throughput(
    server: BenchServer,
    *,
    apis: Iterable[str] = APIS,
    shapes: Iterable[str] = SHAPES,
    ns: Iterable[int] = (1_000, 10_000, 50_000),
    contestants: Iterable[str] = CONTESTANTS,
    reps: int = 5,
    cap: float = 20.0,
    seed: int = 1,
    large_reps: int | None = None,
    log: Log = lambda line: None,
) -> Throughput:
    """Scenario 1: every available contestant on every stream, interleaved, ``reps`` times
    (``large_reps`` at N ≥ :data:`LARGE_N`, where runs are long and vary little)."""
    apis, shapes, ns, contestants = list(apis), list(shapes), sorted(ns), list(contestants)
    result = Throughput(apis, shapes, ns, contestants, reps, cap)
    if large_reps is not None and large_reps < reps and any(n >= LARGE_N for n in ns):
        result.large_reps = large_reps
    for (api, name), reason in availability(apis, contestants).items():
        if reason:
            result.skipped[api, name] = reason
            log(f"skip {api} {name}: {reason}")
    for api in apis:
        present = result.contestants_for(api)
        if not present:
            continue
        for shape in shapes:
            previous: int | None = None
            for n in ns:
                spec = StreamSpec(api, shape, n, seed)
                result.events[api, shape, n] = server.prepare(spec)
                cells = {
                    name: result.cells.setdefault((api, shape, n, name), Cell()) for name in present
                }
                for name in present:
                    before = result.cells.get((api, shape, previous, name)) if previous else None
                    if (
                        before is not None
                        and previous
                        and _projects_past(before, n / previous, cap)
                    ):
                        cells[name].projected = True
                n_reps = reps if large_reps is None or n < LARGE_N else min(reps, large_reps)
                for rep in range(n_reps):
                    shift = rep % len(present)
                    for name in present[shift:] + present[:shift]:
                        cell = cells[name]
                        if cell.capped or cell.failed or rep >= _wanted(cell, n_reps, cap):
                            continue
                        run = run_one(server, name, spec, cap=cap)
                        cell.runs.append(run)
                        state = (
                            f"FAILED {run.problem}"
                            if run.problem
                            else f"> {cap:g} s (stopped)"
                            if run.capped
                            else f"{run.seconds:.3f} s"
                        )
                        log(f"{api:18} {shape:7} N={n:<6} rep {rep + 1}/{n_reps} {name:14} {state}")
                previous = n
    return result


def _wanted(cell: Cell, reps: int, cap: float) -> int:
    long = bool(cell.runs) and cell.runs[0].seconds > cap / 2
    return min(reps, LONG_REPS) if long else reps


def _projects_past(cell: Cell, factor: float, cap: float) -> bool:
    if cell.capped:
        return True
    seconds = cell.seconds
    return seconds is not None and seconds * factor > cap


# -- import time ------------------------------------------------------------------------------

# label -> the statements timed. "llmkit, first request" adds what a lazy package defers past
# `import llmkit`: resolving the public names and building the first request.
FIRST_REQUEST = "llmkit, first request"
IMPORT_TARGETS = {
    "httpx, pydantic": "import httpx, pydantic",
    "httpx, httpx_sse": "import httpx, httpx_sse",
    "llmkit": "import llmkit",
    FIRST_REQUEST: (
        "import llmkit; llmkit.build_request(llmkit.Model(provider='p', id='m', "
        "api='openai-chat', base_url='http://127.0.0.1/v1'), "
        "llmkit.Context(messages=[llmkit.user('hi')]), api_key='k')"
    ),
    "openai": "import openai",
    "anthropic": "import anthropic",
    "botocore": "import botocore.session",
}
HEAVY = (
    "jsonschema",
    "openai",
    "anthropic",
    "google.genai",
    "jiter",
    "llmkit._schema.strict",
    "llmkit._wire.openai_chat.decode",
    "llmkit._wire.anthropic_messages.decode",
)


def measure_imports(reps: int = 7, log: Log = lambda line: None) -> dict[str, float | None]:
    """Median seconds to run each of :data:`IMPORT_TARGETS` in a fresh interpreter
    (interleaved: the order rotates every repetition)."""
    labels = list(IMPORT_TARGETS)
    times: dict[str, list[float]] = {label: [] for label in labels}
    code = "import time; t = time.perf_counter(); {}; print(time.perf_counter() - t)"
    for rep in range(reps):
        shift = rep % len(labels)
        for label in labels[shift:] + labels[:shift]:
            proc = _python("-c", code.format(IMPORT_TARGETS[label]), timeout=120)
            if proc.returncode == 0:
                times[label].append(float(proc.stdout.strip().splitlines()[-1]))
    medians = {t: (statistics.median(v) if v else None) for t, v in times.items()}
    for target, value in medians.items():
        log(f"import {target}: " + (f"{value * 1000:.0f} ms" if value else "unavailable"))
    return medians


def importtime_profile(top: int = 12) -> dict[str, Any]:
    """Where ``import llmkit`` plus the first ``build_request`` spend their import time
    (``python -X importtime``, one run), and which of :data:`HEAVY` are loaded after
    ``import llmkit`` alone and after the first request."""
    probe = f"import sys, json; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    at_import = _python("-c", f"import llmkit; {probe}", timeout=120)
    first = _python(
        "-X", "importtime", "-c", f"{IMPORT_TARGETS[FIRST_REQUEST]}; {probe}", timeout=120
    )
    rows, total = [], 0
    for line in first.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|")
        if not name.startswith("  "):  # a top-level import (nested ones are indented)
            total += int(cumulative)
        rows.append((name.strip(), int(own), int(cumulative)))

    def loaded(proc: subprocess.CompletedProcess[str]) -> list[str]:
        return json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else []

    return {
        "total_us": total,
        "top": sorted(rows, key=lambda r: -r[1])[:top],
        "loaded_at_import": loaded(at_import),
        "loaded_at_first_request": loaded(first),
    }


# -- profile ----------------------------------------------------------------------------------


def run_profile(server: BenchServer, spec: StreamSpec, *, cap: float = 120.0) -> dict[str, Any]:
    """cProfile of ``llmkit-partial`` on ``spec`` (the timed request only)."""
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "llmkit.prof")
        run = run_one(server, "llmkit-partial", spec, cap=cap, profile=path)
        if run.problem or run.capped:
            return {"spec": spec.key, "error": run.problem or "capped"}
        stats = pstats.Stats(path)
    rows = []
    for (filename, line, function), (_cc, calls, own, cumulative, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append(
            {
                "function": _short(filename, line, function),
                "calls": calls,
                "own": own,
                "cumulative": cumulative,
            }
        )
    return {
        "spec": spec.key,
        "seconds": run.seconds,
        "total": stats.total_tt,  # type: ignore[attr-defined]
        "by_cumulative": sorted(rows, key=lambda r: -r["cumulative"])[:25],
        "by_own": sorted(rows, key=lambda r: -r["own"])[:25],
    }


def _short(filename: str, line: int, function: str) -> str:
    """``httpx/_models.py:884(iter_bytes)``: paths relative to site-packages, the standard
    library or the repository."""
    if filename == "~":
        return function  # a builtin: "<method 'append' of 'list' objects>"
    filename = re.sub(r"^.*/(site-packages|lib/python3\.\d+)/", "", filename)
    with contextlib.suppress(ValueError):  # outside the repository: keep the path
        filename = str(Path(filename).resolve().relative_to(ROOT))
    return f"{filename}:{line}({function})"


def measure_bound(spec: StreamSpec, reps: int = 5) -> float:
    """Median of :func:`benchmarks.contestants.materialise_bound` in fresh processes."""
    code = (
        "from benchmarks.contestants import materialise_bound; "
        f"print(materialise_bound({spec.api!r}, {spec.shape!r}, {spec.n}, {spec.seed}))"
    )
    return statistics.median(float(_python("-c", code, timeout=300).stdout) for _ in range(reps))


# -- concurrency ------------------------------------------------------------------------------

CONCURRENCY_MODES = ("llmkit-default", "llmkit-shared", "floor-shared")


def run_concurrency(
    server: BenchServer,
    *,
    streams: int = 1000,
    interval_ms: tuple[int, int] = (500, 1000),
    modes: Iterable[str] = CONCURRENCY_MODES,
    log: Log = lambda line: None,
) -> dict[str, Any]:
    """Scenario 2, one process per mode."""
    results: dict[str, Any] = {}
    for mode in modes:
        url = server.slow_url(uuid.uuid4().hex[:12], *interval_ms)
        try:
            out = _last_json(
                _python(
                    "-m",
                    "benchmarks.concurrency",
                    mode,
                    url,
                    "--streams",
                    str(streams),
                    timeout=600,
                )
            )
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
            out = {"mode": mode, "error": f"{type(exc).__name__}: {exc}"[:600]}
        results[mode] = out
        if "error" in out:
            log(f"concurrency {mode}: FAILED {out['error']}")
        else:
            log(
                f"concurrency {mode}: {out['per_stream'] / 1024:.1f} KiB/stream, steady stall "
                f"{out['stalls']['steady']['max'] * 1000:.0f} ms, launch stall "
                f"{out['stalls']['launch']['max'] * 1000:.0f} ms, {out['completed']}/{streams} ok"
            )
    return {
        "streams": streams,
        "interval_ms": list(interval_ms),
        "modes": results,
        "peak_connections": server.peak_connections,
    }


__all__ = [
    "APIS",
    "CONCURRENCY_MODES",
    "FIRST_REQUEST",
    "IMPORTS",
    "Cell",
    "Run",
    "Throughput",
    "availability",
    "importtime_profile",
    "measure_bound",
    "measure_imports",
    "run_coldstart",
    "run_concurrency",
    "run_one",
    "run_profile",
    "run_structured",
    "run_throughput",
]


# -- cold start -------------------------------------------------------------------------------


def run_coldstart(
    server: BenchServer,
    *,
    reps: int = 15,
    contestants: Iterable[str] | None = None,
    log: Log = lambda line: None,
) -> dict[str, Any]:
    """The cold-start scenario (:mod:`benchmarks.coldstart`): fresh processes, interleaved."""
    from . import coldstart

    urls = {}
    for api in ("openai-chat", "anthropic-messages"):
        spec = StreamSpec(api, "edits", coldstart.COLDSTART_N)
        server.prepare(spec)
        urls[api] = server.base_url(spec)
    return coldstart.measure(
        urls.__getitem__,
        reps=reps,
        contestants=list(contestants) if contestants else None,
        python=_python,
        log=log,
    )


# -- structured output ------------------------------------------------------------------------


def run_structured(
    ns: Iterable[int],
    *,
    reps: int = 3,
    cap: float = 20.0,
    seed: int = 1,
    log: Log = lambda line: None,
) -> dict[str, Any]:
    """``benchmarks/structured_output.py`` in a fresh process: µs per text delta of reading
    ``partial_output`` vs re-parsing, per N."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "structured.json"
        args = ["--n", ",".join(map(str, ns)), "--reps", str(reps), "--cap", str(cap)]
        args += ["--seed", str(seed), "--json", str(path)]
        proc = _python(str(ROOT / "benchmarks" / "structured_output.py"), *args, timeout=3600)
        if proc.returncode != 0:
            tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
            log(f"structured output: FAILED exit {proc.returncode}: {tail}")
            return {"error": f"exit {proc.returncode}: {tail}"[:600], "reps": reps, "cap": cap}
        rows = json.loads(path.read_text())
    for n, row in rows.items():
        cells = ", ".join(
            f"{name} {value * 1e6:.2f}" if value is not None else f"{name} > cap"
            for name, value in row.items()
        )
        log(f"structured output N={int(n):,}: µs/delta {cells}")
    return {"reps": reps, "cap": cap, "rows": rows}
