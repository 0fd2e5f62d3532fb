"""The decoding hot path (issue #7): the shortcuts taken for speed give exactly the results of
the general path, and partial-argument work stays linear however the snapshots are read."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import llmkit
from llmkit._json import partial as _partial_json
from llmkit._json.scanner import loads
from tests.helpers import MODEL, call, sse, tools
from tests.json.trees import paths, value_at

ARGS = {
    "path": "src/app.py",
    "edits": [{"line": i, "old": f'x = "{i}"\t# é', "new": f"y = {i} \\ 😀"} for i in range(40)],
}
TEXT = json.dumps(ARGS)


def _deltas(text: str, seed: int) -> list[str]:
    rng, out, i = random.Random(seed), [], 0
    while i < len(text):
        n = rng.randint(1, 9)
        out.append(text[i : i + n])
        i += n
    return out


class _Count:
    """Counts the characters every PartialJSON parses (the main parser and any second one)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsers: list[_partial_json.PartialJSON] = []
        init = _partial_json.PartialJSON.__init__
        parsers = self.parsers

        def counting_init(p: _partial_json.PartialJSON) -> None:
            init(p)
            parsers.append(p)

        monkeypatch.setattr(_partial_json.PartialJSON, "__init__", counting_init)

    @property
    def chars(self) -> int:
        return sum(p._stats_chars for p in self.parsers)


def _stream(deltas: list[str]) -> bytes:
    return sse(
        tools(call(0, id="call_1", name="edit", arguments="")),
        *[tools(call(0, arguments=d)) for d in deltas],
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    )


@pytest.mark.parametrize("seed", range(3))
def test_snapshots_read_after_the_whole_stream_parse_each_character_once(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    # One network read holds the whole stream: every event, the call's end included, is
    # decoded before the caller reads the first snapshot. Reading them in order must not
    # start a second parser from the beginning.
    deltas = _deltas(TEXT, seed)
    count = _Count(monkeypatch)
    events = list(llmkit.parse_stream(MODEL, [_stream(deltas)]))
    values = [e.partial_arguments for e in events if isinstance(e, llmkit.ToolCallDelta)]
    assert count.chars == len(TEXT)  # each character parsed once, by one parser
    prefix = ""
    for delta, value in zip(deltas, values, strict=True):
        prefix += delta
        assert value == _partial_json.parse_partial(prefix)
    assert values[-1] == ARGS
    assert events[-1].message.tool_calls[0].arguments == ARGS


def test_snapshots_read_backwards_are_still_right(monkeypatch: pytest.MonkeyPatch) -> None:
    deltas = _deltas(TEXT, 7)
    events = list(llmkit.parse_stream(MODEL, [_stream(deltas)]))
    read = [e for e in events if isinstance(e, llmkit.ToolCallDelta)]
    forwards = [e.partial_arguments for e in read]
    prefixes = [""] * len(deltas)
    text = ""
    for i, d in enumerate(deltas):
        text += d
        prefixes[i] = text
    backwards = [e.partial_arguments for e in reversed(read)]
    assert backwards[::-1] == forwards == [_partial_json.parse_partial(p) for p in prefixes]


def test_a_broken_call_read_late_keeps_every_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    # The final classification of text that is not strict JSON uses the incremental parser;
    # snapshots read after it are still each delta's own value.
    text = TEXT[: len(TEXT) // 2]  # truncated
    deltas = _deltas(text, 3)
    events = list(llmkit.parse_stream(MODEL, [_stream(deltas)]))
    call_ = events[-1].message.tool_calls[0]
    assert call_.status == "recovered" and call_.raw_arguments == text
    values = [e.partial_arguments for e in events if isinstance(e, llmkit.ToolCallDelta)]
    assert values[-1] == call_.arguments == _partial_json.parse_partial(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1}',
        ' {"a":1}',
        '{"a":1} ',
        '{"a":1}x',
        "",
        "[1,2",
        "NaN",
        '"str"',
        "1 2",
        "\ufeff{}",
        '{"a":"\\ud83d\\ude00"}',
        '{"a":' + "1" * 5000 + "}",
    ],
)
def test_fast_loads_is_json_loads(text: str) -> None:
    def outcome(fn: Any) -> tuple[str, Any]:
        try:
            return ("ok", fn(text))
        except (ValueError, RecursionError) as exc:
            return (type(exc).__name__, str(exc))

    assert repr(outcome(loads)) == repr(outcome(json.loads))


def test_fast_loads_turns_too_deep_nesting_into_a_value_error() -> None:
    # json.loads raises RecursionError for "[" * 100_000: a provider's bytes must only ever
    # raise what a decoder expects (ValueError), never an exception llmkit would treat as a bug.
    with pytest.raises(RecursionError):
        json.loads("[" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        loads("[" * 100_000)


@pytest.mark.parametrize("keep", ["none", "all", "every third", "inner values"])
def test_snapshots_a_caller_keeps_are_never_changed(keep: str) -> None:
    # A string in progress grows in place only when nothing outside the parser refers to it;
    # whatever a caller kept (a whole snapshot, or a string inside one) stays as it was.
    text = json.dumps({"a": "x" * 50, "content": 'line é 😀 \\ "q"\n' * 40, "z": [1, "yy" * 30]})
    parser = _partial_json.PartialJSON()
    kept: list[tuple[int, Any]] = []
    deltas = _deltas(text, 11)
    for i, delta in enumerate(deltas):
        value = parser.snapshot_after(delta)
        if keep == "all" or (keep == "every third" and i % 3 == 0):
            kept.append((i, value))
        elif keep == "inner values" and isinstance(value, dict) and "content" in value:
            kept.append((i, value["content"]))
    assert parser.snapshot_after("") == json.loads(text)
    prefix = list(_prefixes(deltas))
    for i, value in kept:
        expected = _partial_json.parse_partial(prefix[i])
        assert value == (expected["content"] if keep == "inner values" else expected)


def _prefixes(deltas: list[str]) -> Any:
    text = ""
    for d in deltas:
        text += d
        yield text


def test_a_long_string_read_after_every_delta_is_built_in_place() -> None:
    # Reading after every delta extends the string in progress instead of copying it, so a
    # delta costs the same at 4 MB as at 40 KB. A copy per delta would make the 4 MB run about
    # 100 times slower; the bound below leaves room for any machine's noise.
    import time

    def seconds(size: int) -> float:
        parser = _partial_json.PartialJSON()
        parser.snapshot_after('{"content": "' + "x" * size)
        start = time.perf_counter()
        for _ in range(2_000):
            parser.snapshot_after("abcdefghij")
        elapsed = time.perf_counter() - start
        assert len(parser.snapshot_after("")["content"]) == size + 20_000
        return elapsed

    small = min(seconds(40_000) for _ in range(3))
    large = min(seconds(4_000_000) for _ in range(3))
    assert large < 10 * small + 0.05, (small, large)


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth > 3 or kind < 0.3:
        return rng.choice([rng.randint(-99, 99), "s" * rng.randint(0, 5), 'é\\"😀', True, None])
    if kind < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 8))]
    return {f"k{i}": _random_value(rng, depth + 1) for i in range(rng.randint(0, 5))}


@pytest.mark.parametrize("seed", range(100))
def test_whatever_a_caller_keeps_of_a_snapshot_never_changes(seed: int) -> None:
    # Snapshots' lists are updated in place when nothing outside the parser holds them; any
    # snapshot, or any list, dict or string inside one, that a caller keeps stays as it was.
    rng = random.Random(seed)
    doc = {"items": [_random_value(rng, 1) for _ in range(rng.randint(1, 12))], "z": [1, 2]}
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    deltas = _deltas(text, seed)
    parser = _partial_json.PartialJSON()
    kept: list[tuple[int, tuple[Any, ...], Any]] = []
    for i, delta in enumerate(deltas):
        value = parser.snapshot_after(delta)
        if rng.random() < 0.15 and value is not None:
            path = rng.choice(paths(value))
            kept.append((i, path, value_at(value, path)))
        del value
    assert parser.snapshot_after("") == doc
    prefixes = list(_prefixes(deltas))
    for i, path, obj in kept:
        assert obj == value_at(_partial_json.parse_partial(prefixes[i]), path), (i, path)


def test_a_long_array_read_after_every_delta_is_updated_in_place() -> None:
    # A flat array of 80,000 numbers read after every delta: each snapshot costs what changed,
    # not the array's length, so the last 2,000 deltas cost what the first 2,000 did. A copy
    # per delta makes them ~10x slower; the bound leaves room for noise.
    import time

    numbers = ", ".join(str(i % 997) for i in range(80_000))
    text = '{"rows": [' + numbers + "]}"
    deltas = [text[i : i + 7] for i in range(0, len(text), 7)]
    parser = _partial_json.PartialJSON()

    def seconds(part: list[str]) -> float:
        start = time.perf_counter()
        for delta in part:
            parser.snapshot_after(delta)
        return time.perf_counter() - start

    first = seconds(deltas[:2_000])
    seconds(deltas[2_000:-2_000])
    last = seconds(deltas[-2_000:])
    assert parser.snapshot_after("") == json.loads(text)
    assert last < 3 * first + 0.02, (first, last)


@pytest.mark.parametrize(
    ("text", "cut"),
    [("a\\", True), ("a\\\\", False), ("a\\\\\\", True), ("\\", True), ("a", False), ("", False)],
)
def test_an_escape_cut_at_the_end_is_an_odd_run_of_backslashes(text: str, cut: bool) -> None:
    # The hot path keeps such pieces from json's scanner (whose failure is costly); an even
    # run is a whole escaped backslash and goes through the scanner.
    from llmkit._json.strings import cut_escape

    assert cut_escape(text) is cut


@pytest.mark.parametrize("seed", range(20))
def test_deltas_ending_in_backslashes_decode_like_json_loads(seed: int) -> None:
    # Every delta ends inside or just after a run of backslashes: each snapshot is the value
    # of the text so far (a cut escape left out), and the call ends complete.
    rng = random.Random(seed)
    value = {"s": "".join(rng.choice(["\\", "\\\\", "a", '"', "é"]) for _ in range(40))}
    text = json.dumps(value)
    deltas, start = [], 0
    for i, c in enumerate(text):
        if c == "\\" and rng.random() < 0.5:
            deltas.append(text[start : i + 1])
            start = i + 1
    deltas.append(text[start:])
    parser = _partial_json.PartialJSON()
    fed = ""
    for delta in deltas:
        fed += delta
        snapshot = parser.snapshot_after(delta)
        expected = _partial_json.parse_partial(fed)  # one parse of the whole prefix
        assert snapshot == expected, fed
    assert parser.finish().value == value
