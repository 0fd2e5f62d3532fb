"""Turning measurements into ``docs/benchmarks.md`` and ``docs/benchmark.png``."""

from __future__ import annotations

import datetime
import math
import os
import platform
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from .coldstart import FIRST_REQUEST as BUILT
from .coldstart import ONE_MODEL, ONE_VALIDATED, REFERENCE, SENDS
from .contestants import IMPORTS
from .harness import (
    FIRST_REQUEST,
    HEAVY,
    IMPORT_TARGETS,
    LARGE_N,
    LONG_REPS,
    Cell,
    Run,
    Throughput,
    llmkit_digest,
)
from .streams import MAX_DELTA, MAX_WRITE, MIN_DELTA, MIN_WRITE, K

X = "\N{MULTIPLICATION SIGN}"  # as in "1.50x floor"
API_TITLES = {
    "openai-chat": "OpenAI Chat Completions",
    "anthropic-messages": "Anthropic Messages",
    "openai-responses": "OpenAI Responses",
    "gemini": "Gemini (Vertex AI, streamed arguments)",
    "bedrock-converse": "Bedrock Converse",
}
SHAPE_TITLES = {
    "edits": 'edits (`{"path", "edits": [{"line", "old", "new"}, ...]}`)',
    "content": 'one long string (`{"path", "content": "<file text>"}`)',
}
DESCRIPTIONS = {
    "floor": "httpx + httpx-sse, `json.loads` per event, fragments joined and parsed once "
    "(Gemini: each `partialArgs` leaf set by its JSON path, string pieces joined at the end; "
    "Bedrock: httpx + a minimal event-stream frame parser, both CRC32s checked, `json.loads` "
    "per message)",
    "llmkit-partial": "`llmkit.stream`, reading `partial_arguments` on every `ToolCallDelta`",
    "llmkit": "`llmkit.stream`, not reading `partial_arguments`",
    "openai-sdk": "openai `chat.completions.stream` (strict tools: re-parses partial "
    "arguments every delta) / `responses.stream` (accumulates, parses at the end)",
    "anthropic-sdk": "anthropic `messages.stream` (re-parses the input JSON every delta)",
    "aws-sdk": "botocore's `bedrock-runtime` client (what boto3 returns), `converse_stream`, "
    "`toolUse.input` fragments joined and parsed once (SigV4-signed with test keys)",
}
PACKAGES = (
    "llmkit",
    "httpx",
    "httpx-sse",
    "httpcore",
    "h11",
    "pydantic",
    "pydantic-core",
    "openai",
    "anthropic",
    "jiter",
    "botocore",
)


# -- machine ------------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = []
    for package in PACKAGES:
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "versions": ", ".join(versions),
        "llmkit": llmkit_digest(),
        "load": "{:.2f} {:.2f} {:.2f}".format(*load),
    }


# -- formatting helpers ------------------------------------------------------------------------


def _n(n: int) -> str:
    return f"{n:,}"


def _k(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _seconds(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(headers) - 1)
    marks = {"l": "---", "r": "---:"}
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# -- derived figures ---------------------------------------------------------------------------


def growth(
    tp: Throughput, api: str, shape: str, name: str, lo: int, hi: int
) -> tuple[str, float | None]:
    """The growth exponent log(t_hi / t_lo) / log(hi / lo), as text and as a value."""
    low = tp.cells.get((api, shape, lo, name))
    high = tp.cells.get((api, shape, hi, name))
    if low is None or high is None or low.seconds is None:
        return "—", None
    if high.seconds is not None:
        value = math.log(high.seconds / low.seconds) / math.log(hi / lo)
        return f"{value:.2f}", value
    if high.capped and not high.projected:  # stopped at the cap: a lower bound
        bound = math.log(tp.cap / low.seconds) / math.log(hi / lo)
        return f"> {bound:.2f}", None
    return "—", None


def ratio_to_floor(tp: Throughput, api: str, shape: str, n: int, name: str) -> float | None:
    cell, floor = tp.cells.get((api, shape, n, name)), tp.cells.get((api, shape, n, "floor"))
    if cell is None or floor is None or cell.seconds is None or floor.seconds is None:
        return None
    return cell.seconds / floor.seconds


def _cell_text(tp: Throughput, api: str, shape: str, n: int, name: str) -> tuple[str, str]:
    """Seconds with the ratio to the floor, and µs per event; or why there is no figure."""
    cell = tp.cells.get((api, shape, n, name))
    if cell is None:
        return "not run", ""
    if cell.failed:
        return "FAILED", ""
    if cell.projected:
        return f"> {tp.cap:g} s*", ""
    if cell.capped:
        return f"> {tp.cap:g} s", ""
    seconds = cell.seconds
    if seconds is None:
        return "not run", ""
    ratio = ratio_to_floor(tp, api, shape, n, name)
    text = _seconds(seconds) + ("" if name == "floor" or ratio is None else f" ({ratio:.2f}{X})")
    return text, f"{seconds / tp.events[api, shape, n] * 1e6:.1f}"


def _peak_rss(tp: Throughput, api: str, shape: str, name: str) -> str:
    for n in reversed(tp.ns):
        cell = tp.cells.get((api, shape, n, name))
        if cell is not None and cell.seconds is not None and cell.peak_rss:
            return f"{cell.peak_rss / 2**20:.0f} MiB"
    return "—"


# -- sections -----------------------------------------------------------------------------------


def throughput_tables(tp: Throughput, imports: dict[str, float | None] | None = None) -> str:
    """One table per (wire API, shape): seconds (and / floor), µs per event, growth, RSS,
    import time."""
    out = []
    lo, hi = (tp.ns[-2], tp.ns[-1]) if len(tp.ns) > 1 else (0, 0)
    for api in tp.apis:
        names = tp.contestants_for(api)
        if not names:
            continue
        for shape in tp.shapes:
            headers = ["contestant"]
            for n in tp.ns:
                headers += [f"N={_n(n)}: s ({X} floor)", "µs/event"]
            if lo:
                headers.append(f"growth {_k(lo)}-{_k(hi)}")
            headers += ["peak RSS", "import"]
            rows = []
            for name in names:
                row = [name]
                for n in tp.ns:
                    row += list(_cell_text(tp, api, shape, n, name))
                if lo:
                    row.append(growth(tp, api, shape, name, lo, hi)[0])
                row.append(_peak_rss(tp, api, shape, name))
                value = (imports or {}).get(IMPORTS[name])
                row.append(_ms(value) if value else "—")
                rows.append(row)
            events = ", ".join(
                _n(tp.events[api, shape, n]) for n in tp.ns if (api, shape, n) in tp.events
            )
            out.append(
                f"#### {API_TITLES[api]} — {SHAPE_TITLES[shape]}\n\n"
                f"{'Event-stream messages' if api == 'bedrock-converse' else 'SSE events'} per "
                f"stream: {events}.\n\n" + _table(headers, rows)
            )
    return "\n\n".join(out)


def _worst_ratio(
    tp: Throughput, name: str, *, min_n: int = 0, api: str | None = None
) -> tuple[float | None, str]:
    worst, where = None, ""
    for capi, shape, n, cname in tp.cells:
        if cname != name or n < min_n or (api is not None and capi != api):
            continue
        ratio = ratio_to_floor(tp, capi, shape, n, name)
        if ratio is not None and (worst is None or ratio > worst):
            worst, where = ratio, f"{capi}, {shape}, N={_n(n)}"
    return worst, where


NEW_WIRES_NOTE = (
    "Gemini is Vertex AI with `streamFunctionCallArguments` (Gemini's public API sends each "
    "call whole, with no argument deltas): one `partialArgs` fragment per chunk, strings in "
    "pieces of 4-16 characters, as recorded from Vertex; it sends no call ids, so only names "
    "and arguments are compared there. Bedrock is `ConverseStream`'s binary event stream "
    "(llmkit with a Bedrock API key as bearer token). Gemini has no SDK contestant "
    "(google-genai hands the fragments over unassembled): see benchmarks/README.md."
)

# The performance targets (README, "Speed").
TARGET_PARTIAL_18, TARGET_NOREAD_18, TARGET_COLD = 1.3, 1.1, 1.3
TARGET_EXTRA_KIB, TARGET_LAG_MS = 2.0, 2.0
TARGET_MIN_N = 10_000  # the throughput targets hold from this N up


def target_rows(
    tp: Throughput | None,
    concurrency: dict[str, Any] | None,
    coldstart: dict[str, Any] | None,
    imports: dict[str, float | None] | None = None,
) -> list[dict[str, Any]]:
    """The performance targets, each with its worst measured case: ``label``, ``value`` (the
    figure compared with the target, or None when not measured), ``unit``, ``where``, ``met``.
    Shared by the report and ``run.py --ranges``."""
    rows: list[dict[str, Any]] = []

    def add(label: str, value: float | None, unit: str, where: str, limit: float) -> None:
        met = None if value is None else value <= limit + 1e-12
        rows.append({"label": label, "value": value, "unit": unit, "where": where, "met": met})

    if tp is not None:
        for api in tp.apis:
            if "llmkit-partial" not in tp.contestants_for(api):
                continue
            worst, where = _worst_ratio(tp, "llmkit-partial", min_n=TARGET_MIN_N, api=api)
            add(
                f"reading `partial_arguments`, {API_TITLES[api]}: ≤ {TARGET_PARTIAL_18}{X} "
                f"floor at N = 10k and 50k",
                worst,
                X,
                where,
                TARGET_PARTIAL_18,
            )
        worst, where = _worst_ratio(tp, "llmkit", min_n=TARGET_MIN_N)
        add(
            f"not reading them, every wire: ≤ {TARGET_NOREAD_18}{X} floor at N ≥ 10k",
            worst,
            X,
            where,
            TARGET_NOREAD_18,
        )
    # The measure: import + the first request built, nothing sent. From the cold-start
    # scenario when it ran (the Context has a tool there, as in its stream row, and httpx is
    # imported as a plain install has it), else from the imports scenario.
    cold = (coldstart or {}).get("contestants", {})
    built, bare_cold, bound = (
        cold.get(BUILT, {}).get("seconds"),
        cold.get(REFERENCE, {}).get("seconds"),
        cold.get(ONE_VALIDATED, {}).get("seconds"),
    )
    first, bare = (imports or {}).get(FIRST_REQUEST), (imports or {}).get("httpx, pydantic")
    where = f"{_ms(first)} vs {_ms(bare)}" if first and bare else ""
    if built and bare_cold:
        first, bare = built, bare_cold
        where = f"{_ms(first)} vs {_ms(bare)}"
        if bound:
            where += f"; the bound, one pydantic model validated: {bound / bare:.2f}{X}"
    if first and bare:
        add(
            f"`import llmkit` + the first request built ≤ {TARGET_COLD}{X} "
            "`import httpx, pydantic`",
            first / bare,
            X,
            where,
            TARGET_COLD,
        )
    if coldstart:
        entries = coldstart["contestants"]
        llmkit, reference = entries.get("llmkit", {}), entries.get(REFERENCE, {})
        floor = entries.get("floor", {})
        value = None
        where = ""
        if "seconds" in llmkit and "seconds" in reference:
            value = llmkit["seconds"] / reference["seconds"]
            where = f"{_ms(llmkit['seconds'])} vs {_ms(reference['seconds'])}"
            if "seconds" in floor:
                where += (
                    f"; the floor doing the same: {floor['seconds'] / reference['seconds']:.2f}{X}"
                )
        add(
            f"cold start (import, build, one small stream) ≤ {TARGET_COLD}{X} "
            "`import httpx, pydantic`",
            value,
            X,
            where,
            TARGET_COLD,
        )
    modes = (concurrency or {}).get("modes") or {}
    floor = modes.get("floor-shared", {})
    if concurrency and "error" not in floor:
        for mode in ("llmkit-shared", "llmkit-default"):
            result = modes.get(mode)
            if result is None:
                continue
            ok = "error" not in result
            extra = (result["per_stream"] - floor["per_stream"]) / 1024 if ok else None
            add(
                f"memory per open stream, {concurrency['streams']:,} concurrent ({mode}): "
                f"≤ floor + {TARGET_EXTRA_KIB:g} KiB",
                extra,
                "KiB",
                f"{result['per_stream'] / 1024:.1f} KiB vs floor {floor['per_stream'] / 1024:.1f}"
                if ok
                else "FAILED",
                TARGET_EXTRA_KIB,
            )
        for mode in ("llmkit-shared", "llmkit-default"):
            result = modes.get(mode)
            if result is None:
                continue
            ok = "error" not in result
            p99, floor_p99 = (
                (result["stalls"]["steady"]["p99"], floor["stalls"]["steady"]["p99"])
                if ok
                else (0.0, 0.0)
            )
            add(
                f"event-loop lag p99, steady ({mode}): ≤ floor's p99 + {TARGET_LAG_MS:g} ms",
                (p99 - floor_p99) * 1000 if ok else None,
                "ms",
                f"{p99 * 1000:.1f} ms vs floor {floor_p99 * 1000:.1f} ms" if ok else "FAILED",
                TARGET_LAG_MS,
            )
    return rows


def _value_text(row: dict[str, Any]) -> str:
    value, unit = row["value"], row["unit"]
    if value is None:
        return "not measured"
    if unit == X:
        return f"{value:.2f}{X}"
    return f"{value:+.1f} {unit}"


def headline_lines(tp: Throughput) -> list[str]:
    """One line per wire and shape: llmkit's time as a multiple of the floor's, per N."""
    lines = []
    for api in tp.apis:
        for shape in tp.shapes:
            parts = []
            for n in tp.ns:
                reading = ratio_to_floor(tp, api, shape, n, "llmkit-partial")
                plain = ratio_to_floor(tp, api, shape, n, "llmkit")
                if reading is None and plain is None:
                    continue
                text = f"{reading:.2f}{X}" if reading is not None else "—"
                if plain is not None:
                    text += f" ({plain:.2f}{X} not reading)"
                parts.append(f"{text} at N={_n(n)}")
            if parts:
                lines.append(f"{API_TITLES[api]}, {shape}: {', '.join(parts)}")
    return lines


def targets(
    tp: Throughput | None,
    concurrency: dict[str, Any] | None,
    coldstart: dict[str, Any] | None,
    imports: dict[str, float | None] | None = None,
) -> tuple[str, list[str]]:
    """The issue's targets against the worst measured figure, and the headline lines."""
    rows = []
    for row in target_rows(tp, concurrency, coldstart, imports):
        met = "—" if row["met"] is None else "yes" if row["met"] else "**no**"
        measured = _value_text(row) + (f" ({row['where']})" if row["where"] else "")
        rows.append([row["label"], measured, met])
    headline = headline_lines(tp) if tp is not None else []
    return _table(["target", "worst measured", "met"], rows, "llr"), headline


def imports_table(imports: dict[str, float | None], importtime: dict[str, Any] | None) -> str:
    def label(name: str) -> str:
        if name == FIRST_REQUEST:  # what a lazy `import llmkit` defers to the first call
            return "`import llmkit` + the first `llmkit.build_request(...)` (one-message Context)"
        return f"`{IMPORT_TARGETS.get(name, name)}`"

    rows = [[label(name), _ms(value) if value else "—"] for name, value in imports.items()]
    text = _table(["statements (fresh interpreter, median of several)", "time"], rows)
    if importtime:
        top = [
            [f"`{name}`", f"{own / 1000:.1f}", f"{cumulative / 1000:.1f}"]
            for name, own, cumulative in importtime["top"]
        ]

        def names(modules: list[str]) -> str:
            return ", ".join(f"`{m}`" for m in modules) or "none"

        text += (
            "\n\nWhere `import llmkit` + the first `build_request` spend their import time "
            f"(`python -X importtime`, one run, {importtime['total_us'] / 1000:.0f} ms of "
            "imports in all under importtime; the largest own times):\n\n"
            + _table(["module", "own ms", "cumulative ms"], top)
            + f"\n\nOf {names(list(HEAVY))}: loaded by `import llmkit` alone: "
            f"{names(importtime['loaded_at_import'])}; after the first request: "
            f"{names(importtime['loaded_at_first_request'])}."
        )
    return text


def _gc(result: dict[str, Any], phase: str) -> str:
    gc = result.get("gc", {}).get(phase)
    if gc is None:
        return "—"
    return f"{_ms(gc['max'])} ({gc['full']} of {gc['collections']})"


def concurrency_table(concurrency: dict[str, Any]) -> str:
    rows = []
    for mode, r in concurrency["modes"].items():
        if "error" in r:
            rows.append([mode, "FAILED: " + r["error"]] + [""] * 8)
            continue
        stalls = r["stalls"]
        correct = f"{r['completed']}/{r['streams']}"
        if r["errors"]:
            correct += f", errors: {r['errors']}"
        rows.append(
            [
                mode,
                f"{r['per_stream'] / 1024:.1f} KiB",
                f"{r['rss_before'] / 2**20:.0f} MiB, {r['rss_open'] / 2**20:.0f} MiB",
                f"{_ms(stalls['steady']['max'])} (p99 {_ms(stalls['steady']['p99'])})",
                _gc(r, "steady"),
                _ms(stalls["launch"]["max"]),
                f"{r['open_seconds']:.1f} s",
                f"{r['events_per_second']:.0f}",
                correct,
            ]
        )
    headers = [
        "mode",
        "RSS per open stream",
        "RSS before, all open",
        "largest stall, steady",
        "largest GC pause, steady (full collections)",
        "largest stall, launch",
        "time to open all",
        "events/s, steady",
        "correct",
    ]
    text = _table(headers, rows)
    floor = concurrency["modes"].get("floor-shared", {}).get("per_stream")
    if floor:
        shares = [
            f"{mode} {(r['per_stream'] - floor) / 1024:+.1f} KiB"
            for mode, r in concurrency["modes"].items()
            if mode.startswith("llmkit") and "error" not in r
        ]
        text += (
            f"\n\nhttpx itself (floor-shared) holds {floor / 1024:.1f} KiB per open stream; "
            f"llmkit's own share on top of it: {', '.join(shares)}."
        )
    return text


def profile_section(profile: dict[str, Any], tp: Throughput | None, top: int = 25) -> str:
    if "error" in profile:
        return f"The profile of `{profile['spec']}` failed: {profile['error']}"

    def rows(key: str) -> list[list[str]]:
        return [
            [f"`{r['function']}`", f"{r['calls']:,}", f"{r['own']:.3f}", f"{r['cumulative']:.3f}"]
            for r in profile[key][:top]
        ]

    headers = ["function", "calls", "own s", "cumulative s"]
    text = (
        f"{profile['seconds']:.2f} s under cProfile ({profile['total']:.2f} s of profiled "
        "function time). cProfile inflates per-call costs: read the ranking, not the "
        "absolute times."
    )
    if "bound" in profile:
        api, shape, n, _seed = profile["spec"].split(".")
        text += (
            f"\n\nCopying each call's growing argument string once per delta (what a snapshot "
            f"costs while the caller still holds the previous one, and nothing else) takes "
            f"{profile['bound']:.3f} s for this stream (median of 5). This run drops each "
            f"snapshot, so llmkit extends the string in place instead of copying it."
        )
        if tp is not None:
            reading = tp.cells.get((api, shape, int(n), "llmkit-partial"))
            plain = tp.cells.get((api, shape, int(n), "llmkit"))
            if reading and plain and reading.seconds is not None and plain.seconds is not None:
                extra = reading.seconds - plain.seconds
                text += (
                    f" Reading `partial_arguments` on every delta costs llmkit {extra:.3f} s "
                    "more than not reading them (scenario 1's medians)."
                )
    return (
        f"{text}\n\nBy cumulative time:\n\n{_table(headers, rows('by_cumulative'), 'lrrr')}"
        f"\n\nBy own time:\n\n{_table(headers, rows('by_own'), 'lrrr')}"
    )


# -- the plot ---------------------------------------------------------------------------------

STYLES: dict[str, dict[str, Any]] = {
    "floor": {"color": "black", "linestyle": "--", "marker": "o"},
    "llmkit-partial": {"color": "tab:blue", "marker": "s"},
    "llmkit": {"color": "tab:cyan", "marker": "D"},
    "openai-sdk": {"color": "tab:red", "marker": "^"},
    "anthropic-sdk": {"color": "tab:orange", "marker": "v"},
    "aws-sdk": {"color": "tab:green", "marker": "P"},
}


def plot(tp: Throughput, path: Path) -> bool:
    """Time vs N, log-log, one panel per (wire API, shape). False if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    apis = [api for api in tp.apis if tp.contestants_for(api)]
    fig, axes = plt.subplots(
        len(tp.shapes),
        len(apis),
        figsize=(4.6 * len(apis), 3.9 * len(tp.shapes)),
        squeeze=False,
        sharex=True,
    )
    for col, api in enumerate(apis):
        for row, shape in enumerate(tp.shapes):
            ax = axes[row][col]
            for name in tp.contestants_for(api):
                _plot_contestant(ax, tp, api, shape, name)
            ax.axhline(tp.cap, color="grey", linewidth=0.8, linestyle=":")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{API_TITLES[api]}, {shape}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            if row == len(tp.shapes) - 1:
                ax.set_xlabel(f"N (argument deltas across {K} calls)")
            if col == 0:
                ax.set_ylabel("seconds (median)")
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(
        f"Time to stream {K} tool calls vs N, log-log (hollow marker: stopped at, or projected "
        f"past, the {tp.cap:g} s cap)",
        fontsize=11,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _plot_contestant(ax: Any, tp: Throughput, api: str, shape: str, name: str) -> None:
    xs, ys, capped = [], [], []
    for n in tp.ns:
        cell = tp.cells.get((api, shape, n, name))
        if cell is not None and cell.seconds is not None:
            xs.append(n)
            ys.append(cell.seconds)
        elif cell is not None and cell.capped:
            capped.append(n)
    style = STYLES.get(name, {})
    ax.plot(xs, ys, label=name, **style)
    if capped:  # drawn on the cap line, hollow, joined by a dotted line
        color, marker = style.get("color"), style.get("marker", "o")
        ax.plot(capped, [tp.cap] * len(capped), linestyle="none", marker=marker,
                markerfacecolor="none", color=color, markersize=9)  # fmt: skip
        if xs:
            ax.plot([xs[-1], capped[0]], [ys[-1], tp.cap], linestyle=":", color=color)


# -- the document -----------------------------------------------------------------------------


def markdown(
    *,
    info: dict[str, str],
    command: str,
    tp: Throughput | None,
    imports: dict[str, float | None] | None,
    importtime: dict[str, Any] | None,
    concurrency: dict[str, Any] | None,
    profiles: list[dict[str, Any]],
    plotted: bool,
    minutes: float,
    coldstart: dict[str, Any] | None = None,
    structured: dict[str, Any] | None = None,
    telemetry: dict[str, Any] | None = None,
) -> str:
    """``docs/benchmarks.md``."""
    parts = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` (see [benchmarks/README.md](../benchmarks/README.md)); "
        "do not edit by hand, except the last section, History of measurements, which "
        "each run keeps. Every figure before it comes from one run of that command.",
        "",
        f"- date: {info['date']}; the run took {minutes:.1f} min",
        f"- machine: {info['cpu']}, {info['cores']} cores, {info['os']}; load average at "
        f"start {info['load']} (other work was running: figures are medians, interleaved)",
        f"- {info['python']}; {info['versions']}",
        f"- llmkit sources: digest `{info['llmkit']}` (sha256 of `llmkit/**/*.py` and "
        "`*.json`, uncommitted changes included)",
    ]
    if info.get("changed"):
        parts += [
            "",
            f"**Warning: llmkit's sources changed during this run** (digest "
            f"`{info['changed']}` at the end): the llmkit figures mix versions. Run it again.",
        ]
    table, headline = targets(tp, concurrency, coldstart, imports)
    if headline:
        parts += [
            "",
            "**Headline**: llmkit streaming 4 tool calls while reading `partial_arguments` "
            "on every delta (in brackets: not reading them), as a multiple of the floor's time "
            "(raw httpx + httpx-sse or a minimal event-stream parser + `json.loads`), on every "
            "wire:",
            "",
        ] + [f"- {line}" for line in headline]
    parts += [
        "",
        "## Targets",
        "",
        "Each target against its worst measured case (the throughput rows: the largest ratio "
        "over both shapes at N ≥ 10,000; memory and lag: llmkit's figure minus the floor's "
        "in scenario 2). `run.py --ranges a.json b.json c.json` gives the min-max over "
        "several runs.",
        "",
        table,
    ]
    if tp is not None:
        parts += ["", _scenario1(tp, imports)]
        if plotted:
            parts += ["", "![time vs N, log-log](benchmark.png)"]
    if coldstart:
        parts += ["", coldstart_section(coldstart)]
    if structured:
        parts += ["", structured_section(structured)]
    if telemetry:
        from benchmarks.telemetry import section

        parts += ["", section(telemetry)]
    if imports:
        parts += ["", "## Import time", "", imports_table(imports, importtime)]
    if concurrency:
        parts += ["", _scenario2(concurrency)]
    for profile in profiles:
        parts += [
            "",
            f"## Profile: llmkit reading `partial_arguments`, `{profile['spec']}`",
            "",
            profile_section(profile, tp),
        ]
    return "\n".join(parts) + "\n"


HISTORY_HEADING = "## History of measurements"


def keep_history(document: str, previous: str) -> str:
    """*document* with the previous file's hand-written history section appended."""
    at = previous.find("\n" + HISTORY_HEADING + "\n")
    if at < 0:
        return document
    return document + previous[at:]


def _scenario1(tp: Throughput, imports: dict[str, float | None] | None) -> str:
    parts = [
        "## Scenario 1: K=4 parallel tool calls, N argument deltas",
        "",
        f"Each stream carries {K} tool calls, one after another as the providers send them; "
        f"**N is the total number of argument deltas across the {K} calls** (N={_n(tp.ns[0])} "
        f"is {_n(tp.ns[0] // K)} per call), each delta {MIN_DELTA}-{MAX_DELTA} characters. "
        f"The loopback server (127.0.0.1, HTTP/1.1, chunked) cuts each body at arbitrary "
        f"offsets into {MIN_WRITE}-{MAX_WRITE} byte chunks (deterministic per seed). Each run "
        "is its own process: import, one warm-up request (40 deltas), then one timed request, "
        "from issuing it until the 4 parsed calls are in hand. The floor and the SDKs keep one "
        "client per process; llmkit is called as documented, without `client=`, so it opens "
        f"a connection per request (its default client keeps none). Median of {tp.reps} runs"
        + (f" ({tp.large_reps} at N ≥ {_n(LARGE_N)}, " if tp.large_reps else " (")
        + f"{LONG_REPS} for a cell whose first run took over {tp.cap / 2:g} s), contestants "
        "interleaved (the order "
        "rotates every repetition). Every run's calls (ids, names, parsed arguments) are "
        f'checked against the generated ones. A run is stopped at {tp.cap:g} s ("> '
        f'{tp.cap:g} s"); "*": not run, because its median at the previous N, scaled '
        f"linearly, already exceeds {tp.cap:g} s. µs/event = seconds / SSE events in the "
        "stream (event-stream messages on Bedrock). Growth = log(t(50k) / t(10k)) / log 5 "
        "(1 = linear, 2 = quadratic). Peak RSS: "
        "the contestant's process at the largest N it completed. Import: the median time to "
        "import its library in a fresh interpreter.",
        "",
        "Contestants:",
        "",
        *[f"- **{name}**: {DESCRIPTIONS[name]}" for name in tp.contestants],
        "",
        *(
            [NEW_WIRES_NOTE, ""]
            if any(api in ("gemini", "bedrock-converse") for api in tp.apis)
            else []
        ),
        throughput_tables(tp, imports),
    ]
    if tp.skipped:
        parts += ["", "Skipped:", ""]
        parts += [f"- {api} / {name}: {reason}" for (api, name), reason in tp.skipped.items()]
    failures = tp.failures()
    if failures:
        parts += ["", "**Failures:**", ""] + [f"- {f}" for f in failures]
    return "\n".join(parts)


def _scenario2(concurrency: dict[str, Any]) -> str:
    low, high = concurrency["interval_ms"]
    streams = concurrency["streams"]
    parts = [
        f"## Scenario 2: {streams:,} concurrent `astream` calls",
        "",
        f"One process, {streams:,} streams started at once (one task each) against the "
        f"loopback server, each sending one small text event every {low}-{high} ms until "
        f"told to stop (the server held {concurrency['peak_connections']:,} connections at "
        "its peak). RSS per open stream = (RSS with every stream open and receiving, minus "
        "RSS before) / streams, the median of 8 samples. Stalls: a ticker task sleeps 5 ms "
        "and records how late it wakes; *steady* = every stream open; *launch* = from "
        "creating the tasks until every stream has received text (every call's synchronous "
        "setup and connection happen in that burst). `llmkit-default` is llmkit's default "
        "(no `client=`: the event loop's shared client, no connection kept past a call); "
        "`llmkit-shared` passes one "
        "`httpx.AsyncClient(limits=httpx.Limits(max_connections=2000))` as `client=`; "
        "`floor-shared` is httpx + httpx-sse with that shared client, for reference.",
        "",
        concurrency_table(concurrency),
    ]
    if (low, high) != (50, 100):
        parts += [
            "",
            f"Why {low}-{high} ms rather than 50-100 ms: {streams:,} streams at one event "
            "every 50-100 ms make about 13,000 events/s, more than one Python process "
            "decodes on this machine even for the floor (raw httpx + httpx-sse stalled for "
            "seconds at that rate when this benchmark was built), so the stall would measure "
            "CPU saturation, not the cost of an open stream. "
            "`python benchmarks/run.py --scenario concurrency --interval 50,100` runs it.",
        ]
    return "\n".join(parts)


def coldstart_section(coldstart: dict[str, Any]) -> str:
    entries = coldstart["contestants"]
    reference = entries.get(REFERENCE, {}).get("seconds")
    floor = entries.get("floor", {}).get("seconds")
    rows = []
    for name, entry in entries.items():
        if "seconds" not in entry:
            rows.append([name, "FAILED: " + entry.get("problem", "no figure"), "", "", "", ""])
            continue
        low, high = entry["spread"]
        ratio = f"{entry['seconds'] / reference:.2f}{X}" if reference else "—"
        to_floor = f"{entry['seconds'] / floor:.2f}{X}" if floor and name in SENDS else "—"
        rows.append(
            [
                f"`{name}`" if name == REFERENCE else name,
                _ms(entry["seconds"]),
                ratio,
                to_floor,
                f"{_ms(low)}-{_ms(high)}",
                _ms(entry["wall"]),
            ]
        )
    headers = [
        "contestant",
        "cold start (median)",
        f"{X} `import httpx, pydantic`",
        f"{X} floor",
        "min-max",
        "whole process",
    ]
    return "\n".join(
        [
            "## Cold start",
            "",
            f"A fresh `python -c` process per run: import the library, build one client or "
            f"request, make one streaming request to the loopback server (OpenAI Chat; "
            f"Anthropic Messages for the anthropic SDK: {K} tool calls, {coldstart['n']} "
            "argument deltas) and read it to the end; timed from the process's first statement "
            "(the interpreter's own start-up, the same for all, is left out; *whole process* "
            "includes it and the exit). `import httpx, pydantic` does only that import. "
            f"`{BUILT}` sends nothing: `import llmkit`, the same Model and Context (one tool) "
            "and `llmkit.build_request(...)`, the cold-start target row; "
            f"`{ONE_MODEL}`: `import httpx, pydantic` and one two-field pydantic model class "
            f"defined (`defer_build`, as llmkit's are); `{ONE_VALIDATED}`: the same class "
            "built and one instance validated, what any code using pydantic pays and what "
            "bounds the target row while llmkit's types are pydantic models (validating the "
            "caller's Model and Context builds llmkit's first validators). The floor: httpx + "
            "httpx-sse + `json.loads`; llmkit: `llmkit.stream`; the SDKs: "
            "`chat.completions.create(stream=True)` and `messages.create(stream=True)`, "
            f"iterated. Median of {coldstart['reps']} processes per contestant after one "
            "untimed round, interleaved (the order rotates every round); every process's calls "
            "are checked. Each process first makes `import click` fail, untimed: httpx loads "
            "its optional command-line client (click, pygments) where they are installed, as "
            "the bench extra has them, which a `pip install llmkit` does not. The target is "
            "stated against `import httpx, pydantic` alone; the floor's own ratio to it shows "
            f"what one request and one stream add. {X} floor compares the same work.",
            "",
            _table(headers, rows),
        ]
    )


def structured_section(structured: dict[str, Any]) -> str:
    title = "## Structured output read through `partial_output`"
    if "error" in structured:
        return f"{title}\n\nThe structured-output run failed: {structured['error']}"
    rows_in = structured["rows"]
    names = list(next(iter(rows_in.values())))
    rows = []
    for n, row in rows_in.items():
        rows.append(
            [_n(int(n))] + [f"{row[c] * 1e6:.2f}" if row[c] is not None else "> cap" for c in names]
        )
    text = _table(["text deltas"] + [f"{c} (µs/delta)" for c in names], rows)
    ns = sorted(int(n) for n in rows_in)
    growth_lines = []
    if len(ns) > 1:
        lo, hi = str(ns[-2]), str(ns[-1])
        for c in names:
            a, b = rows_in[lo][c], rows_in[hi][c]
            if a and b:
                growth_lines.append(f"{c} {b / a:.2f}{X}")
    parts = [
        title,
        "",
        "`benchmarks/structured_output.py` in a fresh process: one long structured-output "
        "reply (a JSON object in N text deltas of 4-16 characters, OpenAI Chat SSE in 256-512 "
        "byte chunks, `llmkit.parse_stream`, no network), CPU time per text delta, best of "
        f"{structured['reps']}. *plain*: no `response_format`; *partial_output*: "
        "`TextDelta.partial_output` read on every delta (also while holding the previous "
        "value); *re-parse*: the text so far re-parsed on every delta with "
        "`pydantic_core.from_json(..., allow_partial=True)`, as pydantic-ai does (stopped past "
        f'{structured["cap"]:g} s: "> cap"). Linear work is a flat cost per delta as N grows.',
        "",
        text,
    ]
    if growth_lines:
        parts += [
            "",
            f"µs/delta at N={_n(ns[-1])} over N={_n(ns[-2])} (1.00{X} = linear): "
            + ", ".join(growth_lines)
            + ".",
        ]
    return "\n".join(parts)


# -- several runs ------------------------------------------------------------------------------


def throughput_to_json(tp: Throughput | None) -> dict[str, Any] | None:
    """Scenario 1's results as ``run.py --json`` saves them."""
    if tp is None:
        return None
    return {
        "apis": tp.apis,
        "shapes": tp.shapes,
        "contestants": tp.contestants,
        "ns": tp.ns,
        "reps": tp.reps,
        "large_reps": tp.large_reps,
        "cap": tp.cap,
        "events": {".".join(map(str, k)): v for k, v in tp.events.items()},
        "skipped": {".".join(k): v for k, v in tp.skipped.items()},
        "cells": {".".join(map(str, k)): asdict(v) for k, v in tp.cells.items()},
    }


def throughput_from_json(raw: dict[str, Any] | None) -> Throughput | None:
    """Scenario 1's results back from ``run.py --json``."""
    if not raw:
        return None
    cells: dict[tuple[str, str, int, str], Cell] = {}
    for key, value in raw["cells"].items():
        api, shape, n, name = key.split(".")
        runs = [Run(**run) for run in value["runs"]]
        cells[api, shape, int(n), name] = Cell(runs, value["projected"], value["unavailable"])
    apis = raw.get("apis") or list(dict.fromkeys(k[0] for k in cells))
    shapes = raw.get("shapes") or list(dict.fromkeys(k[1] for k in cells))
    contestants = raw.get("contestants") or list(dict.fromkeys(k[3] for k in cells))
    tp = Throughput(apis, shapes, raw["ns"], contestants, raw["reps"], raw["cap"], cells)
    tp.large_reps = raw.get("large_reps")
    for key, value in raw["events"].items():
        api, shape, n = key.split(".")
        tp.events[api, shape, int(n)] = value
    for key, reason in raw["skipped"].items():
        api, name = key.split(".")
        tp.skipped[api, name] = reason
    return tp


def _span(values: list[float], fmt: str) -> str:
    if not values:
        return "—"
    low, high = min(values), max(values)
    return (
        fmt.format(low)
        if fmt.format(low) == fmt.format(high)
        else (f"{fmt.format(low)}-{fmt.format(high)}")
    )


def ranges(raws: list[dict[str, Any]], names: list[Any]) -> str:
    """The min-max over several ``run.py --json`` files: every target's worst case, every
    scenario-1 cell (seconds and ratio to the floor), the cold start and structured output."""
    tps = [throughput_from_json(raw.get("throughput")) for raw in raws]
    parts = [
        f"# Ranges over {len(raws)} runs",
        "",
        *[
            f"- `{name}`: {raw['machine']['date']}, llmkit `{raw['machine']['llmkit']}`, load "
            f"{raw['machine']['load']}"
            for name, raw in zip(names, raws, strict=True)
        ],
    ]
    digests = {raw["machine"]["llmkit"] for raw in raws}
    if len(digests) > 1:
        parts += ["", f"**Warning: the runs measured different llmkit sources** ({digests})."]
    by_label: dict[str, list[dict[str, Any]]] = {}
    for raw, tp in zip(raws, tps, strict=True):
        rows_of_run = target_rows(
            tp, raw.get("concurrency"), raw.get("coldstart"), raw.get("imports")
        )
        for row in rows_of_run:
            by_label.setdefault(row["label"], []).append(row)
    rows = []
    for label, found in by_label.items():
        values = [r["value"] for r in found if r["value"] is not None]
        unit = found[0]["unit"]
        fmt = "{:.2f}" + X if unit == X else "{:+.1f} " + unit
        met = [r["met"] for r in found if r["met"] is not None]
        verdict = (
            "—"
            if not met
            else "yes, every run"
            if all(met)
            else (f"**no** in {met.count(False)} of {len(met)}")
        )
        rows.append([label, _span(values, fmt), verdict])
    parts += ["", "## Targets", "", _table(["target", "worst case, min-max", "met"], rows, "llr")]
    present = [tp for tp in tps if tp is not None]
    if present:
        first = present[0]
        rows = []
        for api, shape, n, name in first.cells:
            seconds = [
                c.seconds
                for tp in present
                if (c := tp.cells.get((api, shape, n, name))) is not None and c.seconds is not None
            ]
            ratios = [
                r
                for tp in present
                if (r := ratio_to_floor(tp, api, shape, n, name)) is not None and name != "floor"
            ]
            rows.append(
                [api, shape, _n(n), name, _span(seconds, "{:.3f}"), _span(ratios, "{:.2f}" + X)]
            )
        headers = ["wire", "shape", "N", "contestant", "seconds, min-max", f"{X} floor, min-max"]
        parts += ["", "## Scenario 1", "", _table(headers, rows, "lllrrr")]
    cold = [raw["coldstart"] for raw in raws if raw.get("coldstart")]
    if cold:
        rows = []
        for name in cold[0]["contestants"]:
            ms = [
                c["contestants"][name]["seconds"] * 1000
                for c in cold
                if "seconds" in c["contestants"].get(name, {})
            ]
            rows.append([name, _span(ms, "{:.0f} ms")])
        parts += ["", "## Cold start", "", _table(["contestant", "median, min-max"], rows)]
    structured = [
        raw["structured"]
        for raw in raws
        if raw.get("structured", {}) and "rows" in raw["structured"]
    ]
    if structured:
        names_ = list(next(iter(structured[0]["rows"].values())))
        rows = []
        for n in structured[0]["rows"]:
            row = [_n(int(n))]
            for c in names_:
                values = [s["rows"][n][c] * 1e6 for s in structured if s["rows"].get(n, {}).get(c)]
                row.append(_span(values, "{:.2f}"))
            rows.append(row)
        parts += [
            "",
            "## Structured output (µs/delta)",
            "",
            _table(["text deltas", *names_], rows),
        ]
    return "\n".join(parts) + "\n"
