"""Turning measurements into ``docs/benchmarks.md`` and ``docs/benchmark.png``."""

from __future__ import annotations

import datetime
import math
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from .contestants import IMPORTS
from .harness import (
    FIRST_REQUEST,
    HEAVY,
    IMPORT_TARGETS,
    LONG_REPS,
    Throughput,
    llmkit_digest,
)
from .streams import MAX_DELTA, MAX_WRITE, MIN_DELTA, MIN_WRITE, K

X = "\N{MULTIPLICATION SIGN}"  # as in "1.50x floor"
API_TITLES = {
    "openai-chat": "OpenAI Chat Completions",
    "anthropic-messages": "Anthropic Messages",
    "openai-responses": "OpenAI Responses",
    "gemini": "Gemini",
}
SHAPE_TITLES = {
    "edits": 'edits (`{"path", "edits": [{"line", "old", "new"}, ...]}`)',
    "content": 'one long string (`{"path", "content": "<file text>"}`)',
}
DESCRIPTIONS = {
    "floor": "httpx + httpx-sse, `json.loads` per event, fragments joined and parsed once",
    "llmkit-partial": "`llmkit.stream`, reading `partial_arguments` on every `ToolCallDelta`",
    "llmkit": "`llmkit.stream`, not reading `partial_arguments`",
    "openai-sdk": "openai `chat.completions.stream` (strict tools: re-parses partial "
    "arguments every delta) / `responses.stream` (accumulates, parses at the end)",
    "anthropic-sdk": "anthropic `messages.stream` (re-parses the input JSON every delta)",
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
)
# The targets of issue #7.
TARGET_PARTIAL, TARGET_NOREAD, TARGET_GROWTH, TARGET_IMPORT = 1.5, 1.3, 1.1, 1.5
TARGET_KIB, TARGET_STALL_MS = 20, 50


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
                f"SSE events per stream: {events}.\n\n" + _table(headers, rows)
            )
    return "\n\n".join(out)


def _worst_ratio(tp: Throughput, name: str) -> tuple[float | None, str]:
    worst, where = None, ""
    for api, shape, n, cname in tp.cells:
        ratio = ratio_to_floor(tp, api, shape, n, name) if cname == name else None
        if ratio is not None and (worst is None or ratio > worst):
            worst, where = ratio, f"{api}, {shape}, N={_n(n)}"
    return worst, where


def targets(
    tp: Throughput | None,
    imports: dict[str, float | None] | None,
    concurrency: dict[str, Any] | None,
) -> tuple[str, list[str]]:
    """The issue's targets against the worst measured figure, and the headline lines."""
    rows, headline = [], []

    def met(ok: bool) -> str:
        return "yes" if ok else "**no**"

    if tp is not None:
        for name, target, label in (
            ("llmkit-partial", TARGET_PARTIAL, "reading `partial_arguments`"),
            ("llmkit", TARGET_NOREAD, "not reading them"),
        ):
            worst, where = _worst_ratio(tp, name)
            if worst is not None:
                rows.append(
                    [
                        f"llmkit {label}: ≤ {target}{X} floor at every N",
                        f"worst {worst:.2f}{X} ({where})",
                        met(worst <= target),
                    ]
                )
        if len(tp.ns) > 1:
            lo, hi = tp.ns[-2], tp.ns[-1]
            worst_growth, where = None, ""
            for api in tp.apis:
                for shape in tp.shapes:
                    value = growth(tp, api, shape, "llmkit-partial", lo, hi)[1]
                    if value is not None and (worst_growth is None or value > worst_growth):
                        worst_growth, where = value, f"{api}, {shape}"
            if worst_growth is not None:
                rows.append(
                    [
                        f"reading them: growth exponent {_k(lo)}-{_k(hi)} ≤ {TARGET_GROWTH}",
                        f"worst {worst_growth:.2f} ({where})",
                        met(worst_growth <= TARGET_GROWTH),
                    ]
                )
        for api in tp.apis:
            for shape in tp.shapes:
                parts = []
                for n in tp.ns:
                    ratio = ratio_to_floor(tp, api, shape, n, "llmkit-partial")
                    if ratio is not None:
                        parts.append(f"{ratio:.2f}{X} at N={_n(n)}")
                if parts:
                    headline.append(f"{API_TITLES[api]}, {shape}: {', '.join(parts)}")
    if imports and imports.get("llmkit") and imports.get("httpx, pydantic"):
        llmkit, reference = imports["llmkit"], imports["httpx, pydantic"]
        assert llmkit is not None and reference is not None
        measured = f"{llmkit / reference:.2f}{X} ({_ms(llmkit)} vs {_ms(reference)})"
        first = imports.get(FIRST_REQUEST)
        if first:
            measured += f"; with the first request built: {first / reference:.2f}{X} ({_ms(first)})"
        rows.append(
            [
                f"`import llmkit` ≤ {TARGET_IMPORT}{X} `import httpx, pydantic`",
                measured,
                met(llmkit / reference <= TARGET_IMPORT),
            ]
        )
    for mode, result in ((concurrency or {}).get("modes") or {}).items():
        if "error" in result or not mode.startswith("llmkit"):
            continue
        kib = result["per_stream"] / 1024
        stall = result["stalls"]["steady"]
        rows.append(
            [
                f"1,000 streams ({mode}): ≤ {TARGET_KIB} KB each",
                f"{kib:.1f} KiB",
                met(kib <= TARGET_KIB),
            ]
        )
        rows.append(
            [
                f"1,000 streams ({mode}): no stall over {TARGET_STALL_MS} ms",
                f"{_ms(stall['max'])} (p99 {_ms(stall['p99'])})",
                met(stall["max"] * 1000 <= TARGET_STALL_MS),
            ]
        )
    return _table(["target (issue #7)", "measured", "met"], rows, "llr"), headline


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
) -> str:
    """``docs/benchmarks.md``."""
    parts = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` (see [benchmarks/README.md](../benchmarks/README.md)); "
        "do not edit by hand. Every figure below comes from one run of that command.",
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
    table, headline = targets(tp, imports, concurrency)
    if headline:
        parts += [
            "",
            "**Headline**: llmkit streaming 4 tool calls while reading `partial_arguments` "
            "on every delta, as a multiple of the floor's time (raw httpx + httpx-sse + "
            "`json.loads`):",
            "",
        ] + [f"- {line}" for line in headline]
    parts += ["", "## Targets", "", table]
    if tp is not None:
        parts += ["", _scenario1(tp, imports)]
        if plotted:
            parts += ["", "![time vs N, log-log](benchmark.png)"]
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
        "client per process; llmkit is called as documented, without `client=`, so its "
        f"per-call `httpx.Client` is in its time. Median of {tp.reps} runs ({LONG_REPS} for a "
        f"cell whose first run took over {tp.cap / 2:g} s), contestants interleaved (the order "
        "rotates every repetition). Every run's calls (ids, names, parsed arguments) are "
        f'checked against the generated ones. A run is stopped at {tp.cap:g} s ("> '
        f'{tp.cap:g} s"); "*": not run, because its median at the previous N, scaled '
        f"linearly, already exceeds {tp.cap:g} s. µs/event = seconds / SSE events in the "
        "stream. Growth = log(t(50k) / t(10k)) / log 5 (1 = linear, 2 = quadratic). Peak RSS: "
        "the contestant's process at the largest N it completed. Import: the median time to "
        "import its library in a fresh interpreter.",
        "",
        "Contestants:",
        "",
        *[f"- **{name}**: {DESCRIPTIONS[name]}" for name in tp.contestants],
        "",
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
        "setup and connection happen in that burst). `llmkit-per-call` is llmkit's default "
        "(an `httpx.AsyncClient` per call); `llmkit-shared` passes one "
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
