"""Run llmkit's benchmarks: ``python benchmarks/run.py`` (see benchmarks/README.md).

With no options it runs everything (about 25 minutes on 2 cores) and rewrites
``docs/benchmarks.md`` and ``docs/benchmark.png``; it prints the same tables. Exit status 1 if
any contestant returned a wrong result or crashed.
"""

from __future__ import annotations

import argparse
import compileall
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness, report
from benchmarks import telemetry as otel_cost
from benchmarks.coldstart import failures as coldstart_failures
from benchmarks.contestants import CONTESTANTS
from benchmarks.server import BenchServer
from benchmarks.streams import SHAPES, StreamSpec

SCENARIOS = (
    "throughput", "imports", "coldstart", "structured", "profile", "concurrency", "telemetry",
)  # fmt: skip


def _csv(kind: type = str):  # type: ignore[no-untyped-def]
    return lambda text: [kind(part) for part in text.split(",") if part]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python benchmarks/run.py",
        description="llmkit vs the floor and the vendor SDKs.",
    )
    p.add_argument(
        "--scenario",
        type=_csv(),
        default=list(SCENARIOS),
        help=f"comma-separated subset of {','.join(SCENARIOS)} (default: all)",
    )
    p.add_argument("--quick", action="store_true", help="N=1,000 only")
    p.add_argument(
        "--n",
        type=_csv(int),
        default=[1_000, 10_000, 50_000],
        help="argument deltas per stream, across the 4 calls (default 1000,10000,50000)",
    )
    p.add_argument("--reps", type=int, default=5, help="repetitions per cell (median; default 5)")
    p.add_argument(
        "--reps-large",
        type=int,
        default=3,
        help=f"repetitions per cell at N ≥ {harness.LARGE_N:,} (default 3: long runs vary little)",
    )
    p.add_argument("--cap", type=float, default=20.0, help="stop a run after this many seconds")
    p.add_argument("--apis", type=_csv(), default=list(harness.APIS))
    p.add_argument("--shapes", type=_csv(), default=list(SHAPES))
    p.add_argument("--contestants", type=_csv(), default=list(CONTESTANTS))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--streams", type=int, default=1000, help="concurrency scenario: streams")
    p.add_argument(
        "--interval",
        type=_csv(int),
        default=[500, 1000],
        help="concurrency scenario: ms between events, min,max (default 500,1000)",
    )
    p.add_argument("--import-reps", type=int, default=7)
    p.add_argument(
        "--coldstart-reps", type=int, default=15, help="cold start: fresh processes per contestant"
    )
    p.add_argument(
        "--structured-n",
        type=_csv(int),
        help="structured output: text deltas per reply (default: the --n sizes)",
    )
    p.add_argument("--structured-reps", type=int, default=3, help="structured output: best of")
    p.add_argument(
        "--telemetry-calls", type=int, default=300, help="telemetry: calls per round (default 300)"
    )
    p.add_argument(
        "--ranges",
        type=Path,
        nargs="+",
        metavar="JSON",
        help="no benchmark: print the min-max of every cell and target over these --json files",
    )
    p.add_argument(
        "--write",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write docs/benchmarks.md and docs/benchmark.png (default: only when "
        "every scenario runs)",
    )
    p.add_argument("--out", type=Path, default=harness.ROOT / "docs")
    p.add_argument("--json", type=Path, help="also save the raw measurements here")
    args = p.parse_args(argv)
    if args.quick:
        args.n = [1_000]
    unknown = set(args.scenario) - set(SCENARIOS)
    if unknown:
        p.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    if args.write is None:
        args.write = set(args.scenario) == set(SCENARIOS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.ranges:
        print(report.ranges([json.loads(path.read_text()) for path in args.ranges], args.ranges))
        return 0
    started = time.monotonic()
    info = report.machine()

    def log(line: str) -> None:
        print(f"[{time.monotonic() - started:6.0f}s] {line}", file=sys.stderr, flush=True)

    log(f"{info['cpu']}, {info['cores']} cores, load {info['load']}; {info['python']}")
    # Every contestant runs with its bytecode cached, as installed packages are (harness._python).
    compileall.compile_dir(harness.ROOT / "llmkit", quiet=1)
    tp = imports = importtime = concurrency = coldstart = structured = telemetry = None
    profiles = []
    with BenchServer() as server:
        if "imports" in args.scenario:
            imports = harness.measure_imports(args.import_reps, log=log)
            importtime = harness.importtime_profile()
        if "throughput" in args.scenario:
            tp = harness.run_throughput(
                server,
                apis=args.apis,
                shapes=args.shapes,
                ns=args.n,
                contestants=args.contestants,
                reps=args.reps,
                cap=args.cap,
                seed=args.seed,
                large_reps=args.reps_large,
                log=log,
            )
        if "coldstart" in args.scenario:
            coldstart = harness.run_coldstart(server, reps=args.coldstart_reps, log=log)
        if "structured" in args.scenario:
            structured = harness.run_structured(
                args.structured_n or args.n,
                reps=args.structured_reps,
                cap=args.cap,
                seed=args.seed,
                log=log,
            )
        if "profile" in args.scenario:
            # edits at 10k, and content at 50k, where reading partial arguments
            # grows faster than linearly: the profile shows where, the bound what is unavoidable.
            for shape, n in (("edits", 10_000), ("content", 50_000)):
                spec = StreamSpec("openai-chat", shape, n, args.seed)
                log(f"profiling llmkit-partial on {spec.key}")
                profile = harness.run_profile(server, spec)
                if shape == "content":
                    profile["bound"] = harness.measure_bound(spec)
                profiles.append(profile)
        if "concurrency" in args.scenario:
            concurrency = harness.run_concurrency(
                server, streams=args.streams, interval_ms=tuple(args.interval), log=log
            )
        if "telemetry" in args.scenario:
            telemetry = otel_cost.scenario(args.telemetry_calls, 100, args.reps, log=log)
    minutes = (time.monotonic() - started) / 60
    if harness.llmkit_digest() != info["llmkit"]:
        info["changed"] = harness.llmkit_digest()
        log("WARNING: llmkit's sources changed during the run; the figures mix versions")

    command = "python benchmarks/run.py" + (" " + " ".join(argv or sys.argv[1:])).rstrip()
    plotted = False
    if args.write and tp is not None:
        plotted = report.plot(tp, args.out / "benchmark.png")
    document = report.markdown(
        info=info,
        command=command.strip(),
        tp=tp,
        imports=imports,
        importtime=importtime,
        concurrency=concurrency,
        profiles=profiles,
        plotted=plotted,
        minutes=minutes,
        coldstart=coldstart,
        structured=structured,
        telemetry=telemetry,
    )
    print(document)
    if args.write:
        target = args.out / "benchmarks.md"
        previous = target.read_text(encoding="utf-8") if target.exists() else ""
        target.write_text(report.keep_history(document, previous), encoding="utf-8")
        log(
            f"wrote {args.out / 'benchmarks.md'}"
            + (
                f" and {args.out / 'benchmark.png'}"
                if plotted
                else " (no plot: install matplotlib)"
            )
        )
    if args.json:
        raw = {
            "machine": info,
            "throughput": report.throughput_to_json(tp),
            "imports": imports,
            "importtime": importtime,
            "concurrency": concurrency,
            "coldstart": coldstart,
            "structured": structured,
            "telemetry": telemetry,
            "profiles": profiles,
        }
        args.json.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    failures = (tp.failures() if tp else []) + coldstart_failures(coldstart)
    if structured and "error" in structured:
        failures.append(f"structured: {structured['error']}")
    for failure in failures:
        log(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
