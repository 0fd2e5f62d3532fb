"""The per-delta path of ``PartialJSON.snapshot_after``: a delta that only extends the string
value in progress brings the previous snapshot up to date in place when nobody but the parser
holds it (docs/design.md, partial arguments). These tests fail if that ever changes a snapshot
a caller holds, gives another value than the general path, or stops being O(delta)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from llmkit._json import ownership
from llmkit._json.partial import PartialJSON, parse_partial
from tests.json.trees import paths, value_at

# Characters that exercise every way through a string: plain runs, two-character escapes,
# \u escapes (BMP and surrogate pairs), non-ASCII, quotes and backslashes.
_PIECES = ["abc", "é", "😀", '"', "\\", "\n", "\t", "/", "\u2028", "x y", "\x7f", "日本"]


def _text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(size))


def _doc(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth >= 3 or kind < 0.35:
        return rng.choice([_text(rng, rng.randint(0, 40)), rng.randint(-9, 999), None, 1.5])
    if kind < 0.65:
        return [_doc(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": _doc(rng, depth + 1) for i in range(rng.randint(0, 4))}


def _cut(text: str, rng: random.Random) -> list[str]:
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 16)
        out.append(text[i : i + n])
        i += n
    return out


@pytest.mark.parametrize("seed", range(150))
def test_held_snapshots_and_parts_of_them_never_change(seed: int) -> None:
    # Deep copies taken when a caller keeps something are compared at the end: a kept
    # snapshot, or a list, dict or string inside one, must never have been updated in place.
    rng = random.Random(seed)
    doc = {"path": "a.py", "edits": [_doc(rng, 1) for _ in range(rng.randint(1, 6))]}
    doc["content"] = _text(rng, rng.randint(0, 200))
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.3)
    deltas = _cut(text, rng)
    parser = PartialJSON()
    kept: list[tuple[Any, Any, str]] = []
    prefix = ""
    for delta in deltas:
        prefix += delta
        value = parser.snapshot_after(delta)
        assert value == parse_partial(prefix), prefix  # the general path, from scratch
        if value is not None and rng.random() < 0.2:
            part = value_at(value, rng.choice(paths(value)))
            kept.append((part, copy.deepcopy(part), prefix))
        del value
    assert parser.snapshot_after("") == doc == json.loads(text)
    for part, at_the_time, where in kept:
        assert part == at_the_time, where


@pytest.mark.parametrize("seed", range(40))
def test_a_growing_string_with_escapes_cut_anywhere_decodes_like_json_loads(seed: int) -> None:
    rng = random.Random(seed)
    content = _text(rng, 300)
    text = json.dumps({"a": [{"content": content}]}, ensure_ascii=seed % 2 == 0)
    parser = PartialJSON()
    prefix = ""
    for delta in _cut(text, rng):
        prefix += delta
        value = parser.snapshot_after(delta)
        got = value["a"][0].get("content", "") if value and value["a"] else ""
        # What the string holds so far is a prefix of the final content, never more.
        assert content.startswith(got), prefix
        assert value == parse_partial(prefix), prefix
    assert parser.finish().value == json.loads(text)


@pytest.mark.skipif(not ownership.HELD, reason="in-place updates need CPython's refcounts")
def test_a_string_growing_deep_inside_updates_the_snapshot_in_place() -> None:
    # Nobody holds the snapshots: each delta of the string costs O(delta). No container is
    # copied (the build counter stays put) and the snapshot stays the same object.
    parser = PartialJSON()
    parser.snapshot_after('{"path": "a", "edits": [{"line": 1}, {"line": 2, "new": "')
    built = parser._stats_built
    first = id(parser.snapshot_after("x"))
    for i in range(5_000):
        assert id(parser.snapshot_after('abc\\n\\"' if i % 2 else "défg")) == first
    assert parser._stats_built == built
    value = parser.snapshot_after('"}]}')
    assert value["edits"][1]["new"] == "x" + 'défgabc\n"' * 2_500
    assert parser.finish().status == "complete"


def test_a_held_snapshot_is_copied_not_updated() -> None:
    parser = PartialJSON()
    held = parser.snapshot_after('{"edits": [{"new": "ab')
    inner = held["edits"][0]
    text = inner["new"]
    after = parser.snapshot_after("cd")
    assert held == {"edits": [{"new": "ab"}]} and inner == {"new": "ab"} and text == "ab"
    assert after == {"edits": [{"new": "abcd"}]} and after is not held
    # Holding only the string in progress: the containers may be reused, the string is not.
    del held, inner, after
    kept = parser.snapshot_after("ef")["edits"][0]["new"]
    parser.snapshot_after("gh")
    assert kept == "abcdef"
    assert parser.snapshot_after('"}]}') == {"edits": [{"new": "abcdefgh"}]}


@pytest.mark.parametrize("unit", ["b ", "b\n"])
def test_reading_every_delta_of_a_long_string_costs_linear_work(unit: str) -> None:
    # Work counters, not time: characters parsed equal the text's length, and containers
    # built grow at most with the text (not with the text times the depth or width). Without
    # escapes, no delta spent inside the string builds any container (when in place works);
    # a delta ending in a cut escape takes the general path.
    def counters(size: int) -> tuple[int, int]:
        text = json.dumps({"edits": [{"old": "a" * 10, "new": unit * size}]})
        parser = PartialJSON()
        for i in range(0, len(text), 7):
            parser.snapshot_after(text[i : i + 7])
        assert parser.finish().value == json.loads(text)
        return parser._stats_chars, parser._stats_built

    small_chars, small_built = counters(5_000)
    big_chars, big_built = counters(50_000)
    assert big_chars / small_chars == pytest.approx(10, rel=0.01)
    assert big_built <= 11 * small_built
    if ownership.HELD and unit == "b ":
        assert big_built <= small_built + 2  # where the last cuts fall differs


@pytest.mark.parametrize("seed", range(40))
def test_without_refcounts_snapshots_are_copied_and_still_right(
    no_refcounts: None, seed: int
) -> None:
    rng = random.Random(seed)
    doc = {"path": "a.py", "edits": [_doc(rng, 1) for _ in range(rng.randint(1, 6))]}
    doc["content"] = _text(rng, rng.randint(0, 200))
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.3)
    parser = PartialJSON()
    kept: list[tuple[Any, Any]] = []
    prefix = ""
    for delta in _cut(text, rng):
        prefix += delta
        value = parser.snapshot_after(delta)
        assert value == parse_partial(prefix), prefix
        if value is not None and rng.random() < 0.2:
            kept.append((value, copy.deepcopy(value)))
        del value
    assert parser.finish().value == doc
    assert parser._stats_built > 0  # the copying path was the one taken
    for value, at_the_time in kept:
        assert value == at_the_time
