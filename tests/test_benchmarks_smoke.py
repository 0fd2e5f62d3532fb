"""Smoke test of the benchmark harness (``benchmarks/``).

The benchmark itself is not part of the test suite; this only proves the harness still works:
tiny streams (N=50) on every wire (Gemini's and Bedrock's included), one repetition, the floor
and the two llmkit contestants, each in its own process against the loopback server, and every
one of them must return exactly the generated tool calls; the Bedrock generator's binary
frames must pass botocore's own event-stream parser; the cold-start and structured-output
scenarios must run at a tiny size and the report must render them. It asserts correctness,
never timings.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from benchmarks import report  # noqa: E402
from benchmarks.coldstart import REFERENCE  # noqa: E402
from benchmarks.contestants import SUPPORTS, _frames  # noqa: E402
from benchmarks.harness import (  # noqa: E402
    APIS,
    run_coldstart,
    run_structured,
    run_throughput,
)
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


@pytest.mark.parametrize("api", APIS)
def test_generated_streams_are_deterministic_and_shaped_as_specified(api: str) -> None:
    for shape in SHAPES:
        spec = StreamSpec(api, shape, 50)
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


NEW_WIRES = ("gemini", "bedrock-converse")  # every contestant runs on these
NEW_CONTESTANTS = ["floor", "llmkit-partial", "llmkit"]
if importlib.util.find_spec("botocore") is not None:
    NEW_CONTESTANTS.append("aws-sdk")  # Bedrock only


def test_every_contestant_process_returns_the_generated_calls() -> None:
    old = [api for api in APIS if api not in NEW_WIRES]
    with BenchServer() as server:
        # Fewer processes on the wires measured since the harness began (keeps it fast).
        result = run_throughput(
            server, apis=old, ns=[50], reps=1, contestants=["floor", "llmkit-partial"]
        )
        new = run_throughput(
            server,
            apis=NEW_WIRES,
            ns=[50],
            reps=1,
            contestants=NEW_CONTESTANTS,
        )
    for outcome in (result, new):
        assert outcome.skipped == {}
        assert outcome.failures() == []
        assert not any(cell.capped for cell in outcome.cells.values())
    ran = {key for key, cell in (result.cells | new.cells).items() if cell.runs}
    for api in APIS:  # every wire, every shape: the generated calls
        names = (
            [c for c in NEW_CONTESTANTS if api in SUPPORTS[c]]
            if api in NEW_WIRES
            else ["floor", "llmkit-partial"]
        )
        for shape in SHAPES:
            for name in names:
                assert (api, shape, 50, name) in ran
    assert "Bedrock Converse, edits" in "\n".join(report.headline_lines(new))
    # --ranges reads what --json saved: two copies of one run give single values.
    raw = json.loads(
        json.dumps({"machine": report.machine(), "throughput": report.throughput_to_json(new)})
    )
    back = report.throughput_from_json(raw["throughput"])
    assert back is not None
    assert report.headline_lines(back) == report.headline_lines(new)
    text = report.ranges([raw, raw], ["a.json", "b.json"])
    assert "reading `partial_arguments`, Bedrock Converse" in text
    assert "| bedrock-converse | content | 50 | llmkit |" in text


def test_the_bedrock_generator_writes_frames_botocore_parses() -> None:
    eventstream = pytest.importorskip("botocore.eventstream")
    spec = StreamSpec("bedrock-converse", "edits", 50)
    rendered = render(spec)
    buffer = eventstream.EventStreamBuffer()
    messages = []
    for write in rendered.writes:  # cut mid-message, as the server sends it
        buffer.add_data(write)
        messages.extend(buffer)  # the CRCs are checked as each message is read
    assert len(messages) == rendered.events
    names = [m.headers[":event-type"] for m in messages]
    assert names[0] == "messageStart"
    assert names[-2:] == ["messageStop", "metadata"]
    assert all(m.headers[":message-type"] == "event" for m in messages)
    fragments: dict[int, list[str]] = {}
    for message in messages:
        payload = json.loads(message.payload)
        assert payload["p"]  # Bedrock's padding
        if message.headers[":event-type"] == "contentBlockDelta":
            index = payload["contentBlockIndex"]
            fragments.setdefault(index, []).append(payload["delta"]["toolUse"]["input"])
    calls = expected_calls(spec)
    assert [json.loads("".join(f)) for f in fragments.values()] == [c.arguments for c in calls]
    # The floor's own frame parser reads the same messages.
    floor = list(_frames(rendered.writes))
    assert [kind.decode() for kind, _ in floor] == names
    assert [payload for _, payload in floor] == [m.payload for m in messages]


def test_the_cold_start_and_structured_scenarios_run_and_render() -> None:
    with BenchServer() as server:
        cold = run_coldstart(server, reps=1, contestants=[REFERENCE, "floor", "llmkit"])
    assert set(cold["contestants"]) == {REFERENCE, "floor", "llmkit"}
    assert all("seconds" in entry for entry in cold["contestants"].values()), cold
    structured = run_structured([300], reps=1)
    assert "rows" in structured, structured
    assert all(v is not None and v > 0 for v in structured["rows"]["300"].values())
    text = report.coldstart_section(cold) + report.structured_section(structured)
    assert "## Cold start" in text
    assert "re-parse" in text
    rows = report.target_rows(None, None, cold)
    assert rows[0]["label"].startswith("cold start")
    assert rows[0]["value"] is not None


@pytest.mark.parametrize("api", APIS)
def test_in_memory_decoding_with_h11_between_reads_gives_the_generated_calls(api: str) -> None:
    # benchmarks/insitu.py: each contestant decodes the reads as h11 hands them over.
    from benchmarks.insitu import measure, reads
    from benchmarks.instructions import CONTESTANTS, _model, decoder

    spec = StreamSpec(api, "edits", 50)
    expected = [c.arguments for c in expected_calls(spec)]
    writes = render(spec).writes
    for who in ("floor", "llmkit", "llmkit-partial"):
        for h11_first in (False, True):
            calls = decoder(who, api)(reads(writes, h11_first))
            assert [args for _, _, args in calls] == expected, (who, h11_first)
    figures = measure(api, "edits", 50, 1, bound=True)
    assert set(figures) == {"alone", "h11"}
    assert all(set(mode) == {*CONTESTANTS, "cheapest"} for mode in figures.values())
    assert all(v > 0 for mode in figures.values() for v in mode.values())
    # The cost model is put back: llmkit reads partial arguments as before.
    import llmkit

    events = list(llmkit.parse_stream(_model(llmkit, api), reads(writes, False)))
    partial = [e.partial_arguments for e in events if isinstance(e, llmkit.ToolCallDelta)]
    assert partial[-1] == expected[-1]


def test_the_partial_json_scenario_reports_the_parsers_work() -> None:
    # benchmarks/partial_json.py: reading partial_arguments on every delta, dropped or kept,
    # reference counts on and off; its work counter says what each reading copies.
    from benchmarks.partial_json import measure, render
    from llmkit._json import ownership

    rows = measure({"array": [200, 400], "string": [1_000, 2_000]}, reps=1)
    copied = {(r["shape"], r["reading"], r["refcounts"]): r["copied"] for r in rows}
    assert all(c > 0 for c in copied["array", "kept", "off"])
    assert all(c > 0 for c in copied["array", "dropped", "off"])
    if ownership.HELD:
        assert copied["array", "dropped", "on"] == copied["string", "dropped", "on"] == [0, 0]
    assert "| array | kept | off | 400 |" in render(rows)


def test_the_telemetry_scenario_runs_and_renders() -> None:
    # run.py --scenario telemetry: each set-up in its own process, in memory and over loopback;
    # the child asserts every call's message, so a broken set-up fails here.
    from benchmarks import telemetry

    result = telemetry.scenario(calls=2, events=5, reps=1)
    assert set(result["rows"]) == {"memory", "loopback"}
    for row in result["rows"].values():
        assert set(row) == {"api", "sdk"}
        assert all(rate > 0 for rates in row.values() for rate in rates.values()), row
    text = report.markdown(
        info=report.machine(),
        command="run.py --scenario telemetry",
        tp=None,
        imports=None,
        importtime=None,
        concurrency=None,
        profiles=[],
        plotted=False,
        minutes=0.1,
        telemetry=result,
    )
    assert "## OpenTelemetry's cost" in text
    assert "| in memory |" in text and "| loopback |" in text
