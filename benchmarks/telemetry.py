"""What OpenTelemetry instrumentation costs a call (docs/observability.md).

Set-ups, each in a fresh process (OpenTelemetry's global providers can be set once):

- ``sdk``: the OTel SDK configured as in production, with exporters that drop everything: a
  ``TracerProvider`` with a ``BatchSpanProcessor`` (spans exported off the call path) and a
  ``MeterProvider`` with a ``PeriodicExportingMetricReader`` (every 60 s): every call records
  its span and metrics;
- ``api``: ``opentelemetry-api`` installed, no SDK configured (the API's no-ops);
- ``sdk-simple`` (``--setups``, not in the scenario): ``sdk`` with a ``SimpleSpanProcessor``,
  which exports each span inline as it ends (what console-exporter examples use);
- ``sdk-traces`` and ``sdk-metrics`` (``--setups``, not in the scenario): ``sdk`` with only
  its tracer provider or only its meter provider set (an application exporting one signal;
  the split of ``sdk``'s cost between the span and the four histogram records);

and in each, calls with ``telemetry=False`` beside calls with telemetry on, interleaved. The
calls are ``llmkit.complete`` of an OpenAI Chat stream of ``--events`` text deltas, served
(``--server``) from memory by an ``httpx.MockTransport`` (no socket: the ratio is llmkit's own
cost, the least favourable view) or over loopback HTTP by llmkit's fake provider in another
process (a connection per call, as llmkit's default client makes them); ``--body json``
serves the same reply from memory as one JSON body (not streamed).

Two measures:

- throughput (default): calls per second, median of ``--reps`` rounds, each timing a block
  with telemetry off and one on back to back in alternating order; the ratio on / off is the
  median of the rounds' own ratios, by wall clock and by the client process's CPU time;
- ``--callgrind``: CPU instructions per call under valgrind's callgrind, the slope between
  two call counts (start-up and imports cancel out), and per event, the slope between two
  stream lengths: repeatable on a shared machine. The per-event figure shows that a stream's
  work per event does not grow with telemetry on (the first chunk is timed once).

    python benchmarks/telemetry.py                   # throughput, both set-ups
    python benchmarks/telemetry.py --callgrind       # instruction counts (needs valgrind)
    python benchmarks/run.py --scenario telemetry    # the same throughput, in docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SETUPS = ("sdk", "api")
_COLLECTED = re.compile(r"Collected : (\d+)")


def _json_body(events: int) -> bytes:
    """The same reply not streamed: one OpenAI Chat completion object."""
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "gpt-4.1-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "word " * events},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 20, "completion_tokens": events},
        }
    ).encode()


def _body(events: int) -> list[bytes]:
    """An OpenAI Chat stream of ``events`` text deltas, cut into 512-byte writes."""
    chunk = (
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-mini",'
        '"choices":[{"index":0,"delta":{"content":"word "}}]}\n\n'
    )
    end = (
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-mini",'
        '"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-mini",'
        '"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":' + str(events) + "}}\n\n"
        "data: [DONE]\n\n"
    )
    data = (chunk * events + end).encode()
    return [data[i : i + 512] for i in range(0, len(data), 512)]


def _setup(kind: str) -> None:
    """Configure the global providers for one set-up (``api``: none). ``sdk`` is what an
    application runs in production, with exporters that drop everything: a ``BatchSpanProcessor``
    (spans exported off the call path, by its worker thread) and a
    ``PeriodicExportingMetricReader`` (collection every 60 s, by its own thread; under
    callgrind ``LLMKIT_BENCH_METRIC_INTERVAL_MS`` pushes it out of the measured window: one
    collection a minute is shared by every call of that minute). ``sdk-simple`` exports each
    span inline with a ``SimpleSpanProcessor``, as console-exporter examples do."""
    if kind == "api":
        return
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        MetricExporter,
        MetricExportResult,
        PeriodicExportingMetricReader,
    )
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    class DroppedMetrics(MetricExporter):
        def export(self, metrics_data: Any, timeout_millis: float = 0, **kwargs: Any) -> Any:
            return MetricExportResult.SUCCESS

        def force_flush(self, timeout_millis: float = 0) -> bool:
            return True

        def shutdown(self, timeout_millis: float = 0, **kwargs: Any) -> None:
            pass

    if kind != "sdk-metrics":
        provider = TracerProvider()
        processor = SimpleSpanProcessor if kind == "sdk-simple" else BatchSpanProcessor
        provider.add_span_processor(processor(Dropped()))
        trace.set_tracer_provider(provider)
    if kind != "sdk-traces":
        interval = float(os.environ.get("LLMKIT_BENCH_METRIC_INTERVAL_MS", 60_000))
        reader = PeriodicExportingMetricReader(DroppedMetrics(), export_interval_millis=interval)
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))


def serve(events: int) -> None:
    """The loopback server: llmkit's fake provider answering every request with ``events``
    text deltas; prints its base URL, serves until its standard input closes."""
    from llmkit.testing import FakeProvider, FakeReply

    reply = FakeReply("word " * events, delta_size=5, usage={"input": 20, "output": events})
    with FakeProvider(lambda request: reply, require_key=False) as fake:
        print(fake.base_url, flush=True)
        sys.stdin.read()


def _caller(events: int, base_url: str | None, body_kind: str = "sse") -> Any:
    """A ``complete`` call, served from memory (``base_url`` None) with a stream of
    ``events`` deltas, or with the same reply as one JSON body (``body_kind="json"``: a
    provider that answered without streaming), or by the loopback server at ``base_url``."""
    import httpx

    import llmkit

    body = _body(events)
    whole = _json_body(events)

    def handler(request: httpx.Request) -> httpx.Response:
        if body_kind == "json":
            return httpx.Response(200, headers={"content-type": "application/json"}, content=whole)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=iter(body)
        )

    options: dict[str, Any] = {"api_key": "k", "max_retries": 0}
    if base_url is None:
        options["client"] = httpx.Client(transport=httpx.MockTransport(handler))
    model = llmkit.Model(
        provider="openai",
        id="gpt-4.1-mini",
        api="openai-chat",
        base_url=base_url or "http://bench.invalid/v1",
    )
    context = llmkit.Context(messages=[llmkit.user("Say a few words.")])

    def call(telemetry: bool) -> None:
        message = llmkit.complete(model, context, telemetry=telemetry, **options)
        assert message.stop_reason == "stop" and len(message.text) == 5 * events

    return call


def child_throughput(
    kind: str, calls: int, events: int, reps: int, base_url: str | None, body: str = "sse"
) -> dict[str, float]:
    """Calls per second with telemetry off and on, and the ratio on / off, by wall clock and
    by this process's CPU time (the client's own work: the loopback server's, in its own
    process, and the scheduler's waits left out).

    Each round times a block of ``calls`` off and a block on, back to back, in alternating
    order (off-on, on-off, ...): the ratio is the median of the rounds' own ratios, so a
    drift of the machine over the run (another process, the server warming up) moves both
    halves of a round alike instead of the medians of two separately sorted lists."""
    _setup(kind)
    call = _caller(events, base_url, body)
    for on in (False, True):  # warm up: imports, the first tracer and instruments
        call(on)
    rates: dict[bool, list[float]] = {False: [], True: []}
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    for rep in range(reps):
        wall: dict[bool, float] = {}
        cpu: dict[bool, float] = {}
        for on in (False, True) if rep % 2 == 0 else (True, False):
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(calls):
                call(on)
            wall[on] = time.perf_counter() - start
            cpu[on] = time.process_time() - start_cpu
            rates[on].append(calls / wall[on])
        ratios.append(wall[False] / wall[True])
        cpu_ratios.append(cpu[False] / cpu[True])
    return {
        "off": statistics.median(rates[False]),
        "on": statistics.median(rates[True]),
        "ratio": statistics.median(ratios),
        "cpu_ratio": statistics.median(cpu_ratios),
    }


def child_calls(
    kind: str, telemetry: bool, calls: int, events: int, base_url: str | None, body: str
) -> None:
    """``calls`` calls (after one warm-up): the program callgrind counts."""
    _setup(kind)
    call = _caller(events, base_url, body)
    call(telemetry)
    for _ in range(calls):
        call(telemetry)


def _instructions(
    kind: str, telemetry: bool, calls: int, events: int, url: str | None, body: str
) -> int:
    proc = subprocess.run(
        [
            *("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"),
            *(sys.executable, __file__, "--child-calls", kind, str(int(telemetry))),
            *(str(calls), str(events), url or "-", body),
        ],
        capture_output=True,
        text=True,
        check=False,
        # The same dict and set layouts every run; no metric collection while counting.
        env={**os.environ, "PYTHONHASHSEED": "0", "LLMKIT_BENCH_METRIC_INTERVAL_MS": "3.6e6"},
    )
    found = _COLLECTED.search(proc.stderr)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(proc.stderr[-2000:])
    return int(found.group(1))


def callgrind(
    setups: list[str], events: int, low: int, high: int, url: str | None, body: str = "sse"
) -> None:
    print(
        f"instructions per call ({events} events a stream), and per event (calls of 50/250 events)"
    )
    print("| set-up | per call, off | per call, on | on / off | per event, off | per event, on |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for kind in setups:
        row: dict[str, float] = {}
        for label, on in (("off", False), ("on", True)):
            i_low = _instructions(kind, on, low, events, url, body)
            i_high = _instructions(kind, on, high, events, url, body)
            row[label] = (i_high - i_low) / (high - low)
            if url is not None:  # the server's stream length is fixed: no per-event figure
                row[label + "/event"] = float("nan")
                continue
            e_low = _instructions(kind, on, low, 50, url, body)
            e_high = _instructions(kind, on, low, 250, url, body)
            row[label + "/event"] = (e_high - e_low) / (200 * (low + 1))
        print(
            f"| {kind} | {row['off']:,.0f} | {row['on']:,.0f} | {row['on'] / row['off']:.3f} "
            f"| {row['off/event']:,.0f} | {row['on/event']:,.0f} |"
        )


def _rates(
    kind: str, calls: int, events: int, reps: int, url: str | None, body: str = "sse"
) -> dict[str, float]:
    """One set-up's calls per second, off and on, from a fresh process."""
    proc = subprocess.run(
        [
            *(sys.executable, __file__, "--child", kind),
            *(f"--calls={calls}", f"--events={events}", f"--reps={reps}", f"--body={body}"),
            *([f"--url={url}"] if url else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rates: dict[str, float] = json.loads(proc.stdout)
    return rates


class _Loopback:
    """llmkit's fake provider in another process, serving ``events`` text deltas a stream."""

    def __init__(self, events: int) -> None:
        self.events = events

    def __enter__(self) -> str:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", f"--events={self.events}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def __exit__(self, *exc: object) -> None:
        self.proc.communicate("")


def scenario(calls: int, events: int, reps: int, log: Any = None) -> dict[str, Any]:
    """``run.py --scenario telemetry``: calls per second in the three set-ups a user can be in,
    served from memory and over loopback HTTP. ``off`` is ``telemetry=False`` (what a call
    costs with no telemetry at all; measured in each set-up's process, interleaved with its
    calls with telemetry on), ``api`` is ``opentelemetry-api`` installed and no SDK configured,
    ``sdk`` the SDK configured with a dropping exporter. Ratios, not timings, are the result:
    each set-up's rate with telemetry on over its own ``telemetry=False`` rate."""
    out: dict[str, Any] = {"calls": calls, "events": events, "reps": reps, "rows": {}}
    for where in ("memory", "loopback"):
        if log is not None:
            log(f"telemetry: {calls} calls x {reps} rounds, {events} events, {where}")
        if where == "memory":
            row = {kind: _rates(kind, calls, events, reps, None) for kind in SETUPS}
        else:
            with _Loopback(events) as url:
                row = {kind: _rates(kind, calls, events, reps, url) for kind in SETUPS}
        out["rows"][where] = row
    return out


def section(result: dict[str, Any]) -> str:
    """The scenario's table for docs/benchmarks.md."""
    lines = [
        "## OpenTelemetry's cost",
        "",
        f"`llmkit.complete` of an OpenAI Chat stream of {result['events']} text deltas, "
        f"calls per second (median of {result['reps']} rounds of {result['calls']} calls "
        "with telemetry off and on, back to back in alternating order; a ratio is the median "
        "of the rounds' own ratios; `benchmarks/telemetry.py`): `telemetry=False`, and "
        "telemetry on with `opentelemetry-api` and no SDK configured (*API only*), and with "
        "the SDK configured as in production, a batch span processor and a periodic metric "
        "reader, each into an exporter that drops everything (*SDK*). Each set-up runs in a "
        "fresh process and is compared with `telemetry=False` in that process. *In memory*: an "
        "`httpx.MockTransport`, no socket (llmkit's own cost, the least favourable view); "
        "*loopback*: llmkit's fake provider in another process. *CPU*: the same ratio by the "
        "client process's CPU time (the server's work and the scheduler's waits left out). "
        "Targets: API only ≥ 0.99, SDK ≥ 0.95 of the `telemetry=False` rate.",
        "",
        "| served | `telemetry=False` | API only | ratio | CPU | SDK | ratio | CPU |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for where, row in result["rows"].items():
        api, sdk = row["api"], row["sdk"]
        off = (api["off"] + sdk["off"]) / 2
        lines.append(
            f"| {'in memory' if where == 'memory' else 'loopback'} | {off:,.0f} "
            f"| {api['on']:,.0f} | {api['ratio']:.3f} | {api['cpu_ratio']:.3f} "
            f"| {sdk['on']:,.0f} | {sdk['ratio']:.3f} | {sdk['cpu_ratio']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setups", default=",".join(SETUPS))
    parser.add_argument("--calls", type=int, default=300, help="calls per round")
    parser.add_argument("--events", type=int, default=100, help="text deltas per stream")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--server", choices=("memory", "loopback"), default="memory")
    parser.add_argument(
        "--body",
        choices=("sse", "json"),
        default="sse",
        help="in memory: a stream (sse) or the same reply not streamed (json)",
    )
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--low", type=int, default=20, help="callgrind: the smaller call count")
    parser.add_argument("--high", type=int, default=120, help="callgrind: the larger call count")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-calls", nargs=6, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.serve:
        serve(args.events)
        return
    if args.child:
        rates = child_throughput(
            args.child, args.calls, args.events, args.reps, args.url, args.body
        )
        print(json.dumps(rates))
        return
    if args.child_calls:
        kind, on, calls, events, url, body = args.child_calls
        url_or_none = None if url == "-" else url
        child_calls(kind, on == "1", int(calls), int(events), url_or_none, body)
        return
    if args.server == "loopback":
        if args.body != "sse":
            parser.error("--body json: in memory only (the fake provider streams when asked to)")
        with _Loopback(args.events) as args.url:
            _measure(args)
    else:
        _measure(args)


def _measure(args: argparse.Namespace) -> None:
    setups = args.setups.split(",")
    if args.callgrind:
        callgrind(setups, args.events, args.low, args.high, args.url, args.body)
        return
    where = "over loopback HTTP" if args.url else "in memory"
    if args.body == "json":
        where += ", not streamed"
    print(f"calls per second ({args.events} events a stream {where}, median of {args.reps} rounds)")
    print("| set-up | telemetry=False | telemetry on | on / off | on / off, client CPU |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind in setups:
        rates = _rates(kind, args.calls, args.events, args.reps, args.url, args.body)
        print(
            f"| {kind} | {rates['off']:,.0f} | {rates['on']:,.0f} | {rates['ratio']:.3f} "
            f"| {rates['cpu_ratio']:.3f} |"
        )


if __name__ == "__main__":
    main()
