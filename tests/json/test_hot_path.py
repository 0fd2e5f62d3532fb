"""The decoding hot path: the shortcuts taken for speed give exactly the results of the general
path, and partial-argument work stays linear however the snapshots are read (docs/design.md,
partial arguments). Linearity is proven with the parser's work counters (characters parsed,
containers and members copied), never with time."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import llmkit
from llmkit._json import partial as _partial_json
from llmkit._json.scanner import loads
from tests.json.trees import paths, value_at
from tests.support.helpers import MODEL, call, sse, tools

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


def _work(parser: _partial_json.PartialJSON) -> int:
    """Everything the parser did that grows with the input: characters parsed, containers
    copied and the members copied with them."""
    return parser._stats_chars + parser._stats_built + parser._stats_copied


def _read_every_delta(text: str, size: int, *, keep: bool) -> _partial_json.PartialJSON:
    parser = _partial_json.PartialJSON()
    kept = None
    for i in range(0, len(text), size):
        if keep:
            kept = parser.snapshot_after(text[i : i + size])  # a UI's `state = ...`
        else:
            parser.snapshot_after(text[i : i + size])
    assert parser.finish().value == json.loads(text)
    del kept
    return parser


@pytest.mark.parametrize("keep", [False, True], ids=["dropped", "kept"])
def test_a_long_string_read_after_every_delta_costs_linear_work(ownership: str, keep: bool) -> None:
    # Each read copies at most the open path (here one object of one member), never the
    # string's length in containers: eight times the text is eight times the work, with
    # reference counts or without, whether the caller keeps the last snapshot or not. (The
    # string itself grows by `+=`, in place when only the parser refers to it: CPython's
    # rule, the same for every caller.)
    def work(size: int) -> int:
        parser = _read_every_delta('{"content": "' + "abcdefghi " * size + '"}', 10, keep=keep)
        assert parser._stats_built <= size + 3  # at most one container per read
        return _work(parser)

    assert work(80_000) <= 8.1 * work(10_000)


def test_a_long_array_read_and_dropped_on_every_delta_costs_linear_work(ownership: str) -> None:
    # A flat array of numbers read after every delta, each snapshot dropped: with reference
    # counts nothing is copied (the array is updated in place); without them each read copies
    # the open path, the array included: the one case (a wide open container, read and
    # copied on every delta) where plain-list snapshots cost more than linear work
    # (docs/streaming.md, "Keeping snapshots").
    def work(n: int) -> tuple[int, int]:
        text = '{"rows": [' + ", ".join(str(i % 997) for i in range(n)) + "]}"
        parser = _read_every_delta(text, 7, keep=False)
        return _work(parser), parser._stats_copied

    (small, small_copied), (large, large_copied) = work(2_000), work(16_000)
    if ownership == "refcounts":
        assert small_copied == large_copied == 0
        assert large <= 8.1 * small
    else:
        # Members copied are the open array's length at every read: n * reads / 2.
        reads = len('{"rows": [' + ", ".join(str(i % 997) for i in range(16_000))) // 7
        assert large_copied == pytest.approx(16_000 * reads / 2, rel=0.05)


def test_a_kept_snapshot_costs_one_copy_of_the_open_path_per_read(ownership: str) -> None:
    # A caller who keeps the last snapshot until the next one arrives makes each read copy
    # the open containers (here the array, wide): what the contract costs with plain lists
    # that never change under their holder, with reference counts or without.
    text = '{"rows": [' + ", ".join(str(i % 997) for i in range(4_000)) + "]}"
    parser = _read_every_delta(text, 7, keep=True)
    reads = len(text) // 7
    assert parser._stats_copied == pytest.approx(4_000 * reads / 2, rel=0.05)


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
