"""Tests for llmkit._json.partial: snapshot rules, final classification, properties, linearity."""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmkit._json.partial import ParseResult, PartialJSON, parse_arguments, parse_partial

# --------------------------------------------------------------------------------- helpers


def _reject(name: str) -> Any:
    raise ValueError(name)


def _strict_loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject)


def _same(a: Any, b: Any) -> bool:
    """Deep equality that also tells True from 1, 1 from 1.0 and 0.0 from -0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def _prefix_consistent(partial: Any, full: Any) -> bool:
    """Whether ``partial`` is what a prefix of ``full``'s text may show (nothing invented)."""
    if isinstance(full, dict):
        return (
            isinstance(partial, dict)
            and set(partial) <= set(full)
            and all(_prefix_consistent(v, full[k]) for k, v in partial.items())
        )
    if isinstance(full, list):
        if not isinstance(partial, list) or len(partial) > len(full):
            return False
        if not partial:
            return True
        *done, last = partial
        return all(
            _same(x, y) for x, y in zip(done, full[: len(done)], strict=True)
        ) and _prefix_consistent(last, full[len(done)])
    if isinstance(full, str):
        return isinstance(partial, str) and full.startswith(partial)
    return _same(partial, full)


def _splits(text: str, rnd: random.Random, lo: int = 1, hi: int = 16) -> list[str]:
    out = []
    i = 0
    while i < len(text):
        k = rnd.randint(lo, hi)
        out.append(text[i : i + k])
        i += k
    return out


def _check_result_invariants(result: ParseResult) -> None:
    assert isinstance(result, ParseResult)
    assert isinstance(result.value, dict)
    if result.status == "complete":
        assert result.mode is None
        assert result.repairs == ()
        assert result.error is None
    elif result.status == "recovered":
        assert result.mode in ("repaired", "partial")
        assert result.repairs
        assert ("truncated" in result.repairs) == (result.mode == "partial")
        assert result.error
    else:
        assert result.status == "invalid"
        assert result.value == {}
        assert result.mode is None
        assert result.error
        assert result.position is not None
    if result.error is not None:
        assert len(result.error) <= 200


# ------------------------------------------------------------------------ snapshot rules


def test_snapshot_drops_dangling_key() -> None:
    assert parse_partial('{"a": 1, "b') == {"a": 1}
    assert parse_partial('{"a": 1, "b"') == {"a": 1}
    assert parse_partial('{"a": 1, "b" ') == {"a": 1}


def test_snapshot_drops_key_awaiting_its_value() -> None:
    assert parse_partial('{"a":') == {}
    assert parse_partial('{"a": ') == {}


def test_snapshot_drops_dangling_comma() -> None:
    assert parse_partial('{"a": 1,') == {"a": 1}
    assert parse_partial('{"a": 1, ') == {"a": 1}


def test_snapshot_keeps_string_in_progress() -> None:
    assert parse_partial('{"a": "hel') == {"a": "hel"}
    assert parse_partial('{"a": "') == {"a": ""}


def test_snapshot_decodes_escapes_in_string_in_progress() -> None:
    assert parse_partial(r'{"a": "x\n\"\u00e9\/\\') == {"a": 'x\n"é/\\'}


@pytest.mark.parametrize("tail", ["\\", "\\u", "\\u0", "\\u00", "\\u00e"])
def test_snapshot_leaves_out_incomplete_escape(tail: str) -> None:
    assert parse_partial('{"a": "hi' + tail) == {"a": "hi"}


def test_snapshot_holds_back_high_surrogate_until_its_pair() -> None:
    assert parse_partial(r'["x\ud83d') == ["x"]
    assert parse_partial(r'["x\ud83d\ude0') == ["x"]
    assert parse_partial(r'["x\ud83d\ude00') == ["x\U0001f600"]


def test_snapshot_releases_high_surrogate_without_pair() -> None:
    assert parse_partial(r'["x\ud83dy') == ["x\ud83dy"]
    assert parse_partial(r'["x\ud83d"') == ["x\ud83d"]


def test_snapshot_leaves_out_number_at_the_end() -> None:
    assert parse_partial("[1, 2") == [1]
    assert parse_partial("[1, 2,") == [1, 2]
    assert parse_partial("[1, 2 ") == [1, 2]
    assert parse_partial('{"a": 12') == {}
    assert parse_partial('{"a": 1.5e') == {}


@pytest.mark.parametrize("text", ["[tr", "[nul", "[fals", "[-", '{"a": t'])
def test_snapshot_leaves_out_incomplete_literal_or_sign(text: str) -> None:
    assert parse_partial(text) in ([], {})


def test_snapshot_includes_complete_literal() -> None:
    assert parse_partial("[true") == [True]
    assert parse_partial('{"a": null') == {"a": None}
    assert parse_partial("[false, ") == [False]


def test_snapshot_includes_open_containers_with_their_content() -> None:
    assert parse_partial('{"a": [1, {"b": "x') == {"a": [1, {"b": "x"}]}
    assert parse_partial('{"a": [') == {"a": []}
    assert parse_partial('{"a": {') == {"a": {}}
    assert parse_partial("[[[") == [[[]]]


@pytest.mark.parametrize("text", ["", " ", "\n\t\r "])
def test_snapshot_before_any_value_is_none(text: str) -> None:
    assert parse_partial(text) is None


def test_snapshot_of_top_level_partial_string_is_the_string() -> None:
    assert parse_partial('"abc') == "abc"
    assert parse_partial('  "') == ""


def test_snapshot_of_top_level_scalars() -> None:
    assert parse_partial("12") is None
    assert parse_partial("12 ") == 12
    assert parse_partial("true") is True
    assert parse_partial('"ab"') == "ab"


def test_snapshot_after_syntax_error_keeps_value_before_error() -> None:
    assert parse_partial('{"a": 1, "b": [2, }') == {"a": 1, "b": [2]}


def test_snapshot_returns_same_object_when_nothing_changed() -> None:
    p = PartialJSON()
    p.feed('{"a": [1, {"b": "x')
    first = p.snapshot()
    assert p.snapshot() is first
    p.feed("   ")  # whitespace inside a string is content, so this changes the value
    second = p.snapshot()
    assert second == {"a": [1, {"b": "x   "}]}
    assert second is not first
    p.feed('"  ')  # closing quote then whitespace
    third = p.snapshot()
    p.feed("  \n")
    assert p.snapshot() is third
    p.feed("2")  # a number may grow: not visible yet
    assert p.snapshot() is third


def test_snapshot_shares_completed_sub_values() -> None:
    p = PartialJSON()
    p.feed('{"done": {"k": [1, 2]}, "s": "abc", "next": [')
    first = p.snapshot()
    p.feed('1, "x')
    second = p.snapshot()
    assert second["done"] is first["done"]
    assert second["s"] is first["s"]
    p.feed('y"]}')
    final = p.snapshot()
    assert final["done"] is first["done"]


def test_old_snapshots_never_change() -> None:
    p = PartialJSON()
    kept = []
    for piece in ['{"a": [1', ", 2", ', {"b": "x', 'yz"}', "]", ', "c": "q', '"}']:
        p.feed(piece)
        snap = p.snapshot()
        kept.append((snap, copy.deepcopy(snap)))
    for snap, frozen in kept:
        assert snap == frozen


def test_unchanged_open_containers_reuse_their_copy() -> None:
    p = PartialJSON()
    p.feed('{"outer": {"a": 1}, "list": [1, 2, 3], "s": "')
    first = p.snapshot()
    p.feed("more text")
    second = p.snapshot()
    # Only the top-level object changed (its partial child "s" grew); siblings are shared.
    assert second["list"] is first["list"]
    assert second["outer"] is first["outer"]


def test_feed_is_lazy_and_parses_each_character_once() -> None:
    p = PartialJSON()
    for piece in ['{"a', '": [1, ', '2, 3], "b": "', "xyz", '"}']:
        p.feed(piece)
    assert p._stats_chars == 0
    p.snapshot()
    assert p._stats_chars == len(p.raw)
    p.snapshot()
    p.is_complete_value()
    assert p._stats_chars == len(p.raw)


def test_raw_is_all_text_fed() -> None:
    p = PartialJSON()
    assert p.raw == ""
    for piece in ["{", '"a"', ": ", "1", "}"]:
        p.feed(piece)
        assert p.raw == '{"a": 1}'[: len(p.raw)]
    assert p.raw == '{"a": 1}'
    p.feed("")
    assert p.raw == '{"a": 1}'


def test_feed_rejects_non_str() -> None:
    with pytest.raises(TypeError):
        PartialJSON().feed(b"{}")  # type: ignore[arg-type]


# ----------------------------------------------------------------------- is_complete_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", False),
        ("  ", False),
        ("{}", True),
        (' {"a": [1, "x"]} \n', True),
        ('{"a": 1', False),
        ('{"a"', False),
        ('"abc"', True),
        ('"abc', False),
        ("12", True),
        ("1.", False),
        ("-", False),
        ("tru", False),
        ("null", True),
        ('{"a": 1}x', False),
        ('{"a": 1}{}', False),
        ('{"a": "x\ny"}', True),  # repaired in place, still one complete value
        ("[1,]", True),
        ("NaN", False),
    ],
)
def test_is_complete_value(text: str, expected: bool) -> None:
    p = PartialJSON()
    p.feed(text)
    assert p.is_complete_value() is expected


def test_is_complete_value_is_incremental() -> None:
    p = PartialJSON()
    text = '{"a": [1, 2, {"b": "c"}]}'
    for i, ch in enumerate(text):
        p.feed(ch)
        assert p.is_complete_value() is (i == len(text) - 1)
    assert p._stats_chars == len(text)


# -------------------------------------------------------------------------------- finish


@pytest.mark.parametrize("text", ["", "   ", "\n\t\r"])
def test_finish_empty_or_whitespace_is_empty_complete(text: str) -> None:
    result = parse_arguments(text)
    assert result == ParseResult(value={}, status="complete")


def test_finish_strict_object_is_complete_with_json_loads_value() -> None:
    text = '{"a": 1, "b": [true, null, 1.5, -0, 1e2, "x\\u00e9"], "c": {}}'
    result = parse_arguments(text)
    assert result.status == "complete"
    assert result.mode is None
    assert result.repairs == ()
    assert result.error is None
    assert result.position is None
    assert _same(result.value, json.loads(text))


def test_finish_duplicate_keys_last_wins() -> None:
    assert parse_arguments('{"a": 1, "b": 2, "a": 3}').value == {"a": 3, "b": 2}
    # Same through the recovery path (trailing comma forces it).
    result = parse_arguments('{"a": 1, "b": 2, "a": 3,}')
    assert list(result.value.items()) == [("a", 3), ("b", 2)]


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "NaN"])
def test_finish_rejects_nan_and_infinity(text: str) -> None:
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.value == {}


def test_finish_double_encoded_object_is_recovered() -> None:
    text = json.dumps(json.dumps({"path": "a.py", "n": 1}))
    result = parse_arguments(text)
    assert result.status == "recovered"
    assert result.mode == "repaired"
    assert "double_encoded" in result.repairs
    assert result.value == {"path": "a.py", "n": 1}


@pytest.mark.parametrize("text", ['"[1, 2]"', '"not json"', '"{\\"a\\": 1,}"', '""'])
def test_finish_json_string_without_object_inside_is_invalid(text: str) -> None:
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.error is not None
    assert "must be a JSON object, got a string" in result.error


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ("[1, 2]", "got an array"),
        ("12", "got a number"),
        ('"x"', "got a string"),
        ("null", "got null"),
        ("true", "got a boolean"),
    ],
)
def test_finish_top_level_non_object_is_invalid(text: str, got: str) -> None:
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.value == {}
    assert result.error == f"arguments must be a JSON object, {got}"
    assert result.position == 0


def test_finish_control_characters_in_strings_are_repaired() -> None:
    result = parse_arguments('{"text": "line1\nline2\ttab\x00", "k\x01": 1}')
    assert result.status == "recovered"
    assert result.mode == "repaired"
    assert result.repairs == ("control_character_escaped",)
    assert result.value == {"text": "line1\nline2\ttab\x00", "k\x01": 1}
    assert result.position == 15


def test_finish_trailing_commas_are_removed() -> None:
    result = parse_arguments('{"a": [1, 2,], "b": {"c": 1,},}')
    assert result.status == "recovered"
    assert result.mode == "repaired"
    assert result.repairs == ("trailing_comma_removed",)
    assert result.value == {"a": [1, 2], "b": {"c": 1}}
    assert result.position == 11


def test_finish_lists_every_repair_once_in_order() -> None:
    result = parse_arguments('{"a": [1,], "b": "x\ny", "c": [2,]}')
    assert result.repairs == ("trailing_comma_removed", "control_character_escaped")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1, "b": "x', {"a": 1, "b": "x"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1,', {"a": 1}),
        ('{"a": [1, {"b": tr', {"a": [1, {}]}),
        ('{"a": 12', {}),
        ("{", {}),
        ('{"a": "\\u00', {"a": ""}),
    ],
)
def test_finish_truncated_object_is_recovered_partial(text: str, value: dict[str, Any]) -> None:
    result = parse_arguments(text)
    assert result.status == "recovered"
    assert result.mode == "partial"
    assert result.repairs == ("truncated",)
    assert result.value == value
    assert result.position == len(text)


def test_finish_truncated_with_repairs_lists_all() -> None:
    result = parse_arguments('{"a": [1,], "b": "x\ny')
    assert result.status == "recovered"
    assert result.mode == "partial"
    assert result.repairs == ("trailing_comma_removed", "control_character_escaped", "truncated")
    assert result.value == {"a": [1], "b": "x\ny"}
    assert result.position == 8


@pytest.mark.parametrize("text", ["[1,", '"abc', "[", "tru", '["a", {"b": 1'])
def test_finish_truncated_non_object_is_invalid(text: str) -> None:
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.value == {}
    assert result.error is not None
    assert "must be a JSON object" in result.error


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('{"a":1}{"b":2}', 7),
        ('{"a":1}}', 7),
        ('{"a": tru}', 9),
        ('{"a": nulL}', 9),
        ('```json\n{"a": 1}\n```', 0),
        ('{"a" 1}', 5),
        ("{'a': 1}", 1),
        ('{"a": 1 "b": 2}', 8),
        ('{"a": [1 2]}', 9),
        ('{"a": 01}', 7),
        ('{"a": 1.}', 7),
        ('{"a": -}', 6),
        ('{"a": "\\x"}', 7),
        ('{"a": "\\u12G4"}', 7),
        ("{,}", 1),
        ("[1,,2]", 3),
        ('{"a": 1}\x0c', 8),
        ('\ufeff{"a": 1}', 0),
    ],
)
def test_finish_syntax_errors_are_invalid_with_position(text: str, position: int) -> None:
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.value == {}
    assert result.position == position
    assert result.error is not None
    assert f"position {position}" in result.error


def test_finish_error_context_is_short() -> None:
    text = '{"a": "' + "x" * 100_000 + '"} garbage ' + "y" * 100_000
    result = parse_arguments(text)
    assert result.status == "invalid"
    assert result.error is not None
    assert len(result.error) < 160
    assert result.position == 100_010


@pytest.mark.parametrize(
    "number",
    [
        *("0", "-0", "1", "-1", "1.0", "-0.0", "1e3", "1E+3", "1e-3", "0.1", "2.5E-10"),
        *("123456789012345678901234567890", "9" * 1000, "1.5e308", "1e400", "-1e400"),
    ],
)
def test_numbers_match_json_loads(number: str) -> None:
    text = '{"n": ' + number + ', "l": [' + number + "]}"
    expected = json.loads(text)
    assert _same(parse_partial(text), expected)
    # The recovery path (trailing comma) must decode numbers the same way.
    repaired = parse_arguments(text[:-1] + ",}")
    assert repaired.status == "recovered"
    assert _same(repaired.value, expected)


def test_integer_beyond_digit_limit_is_invalid_not_an_exception() -> None:
    result = parse_arguments('{"n": ' + "9" * 5000 + ",}")
    assert result.status == "invalid"


@pytest.mark.parametrize(
    "literal",
    [
        r'"\ud800"',
        r'"\udc00"',
        r'"a\ud800b"',
        r'"\ud800\ud800\udc00"',
        r'"\ud83d\ude00"',
        r'"\ud800\n"',
        r'"\udc00\ud800"',
        r'"\uD83D\uDE00"',
        r'"\ud800\u0041"',
        '"\ud800"',  # a raw lone surrogate character
    ],
)
def test_surrogates_decode_like_json_loads_at_any_split(literal: str) -> None:
    text = '{"s": ' + literal + "}"
    expected = json.loads(text)
    for cut in range(len(text) + 1):
        p = PartialJSON()
        p.feed(text[:cut])
        p.snapshot()
        p.feed(text[cut:])
        assert p.snapshot() == expected
    repaired = parse_arguments(text[:-1] + ",}")
    assert repaired.value == expected


def test_deep_nesting_does_not_raise() -> None:
    deep = '{"a": ' * 5000 + "1" + "}" * 5000
    result = parse_arguments(deep)  # json.loads hits the recursion limit; the parser does not
    assert result.status == "complete"
    assert parse_arguments("[" * 100_000).status == "invalid"
    assert parse_arguments('{"a": ' + "[" * 100_000).status == "recovered"


def test_finish_is_cached_until_more_text_is_fed() -> None:
    p = PartialJSON()
    p.feed('{"a": 1')
    first = p.finish()
    assert first.status == "recovered"
    assert p.finish() is first
    p.feed("}")
    second = p.finish()
    assert second.status == "complete"
    assert second.value == {"a": 1}


def test_finish_after_snapshots_agrees_with_one_shot() -> None:
    text = '{"a": [1, 2,], "b": "x\ny", "c": {"d": tr'
    p = PartialJSON()
    for piece in _splits(text, random.Random(0), 1, 5):
        p.feed(piece)
        p.snapshot()
    assert p.finish() == parse_arguments(text)


def test_top_level_number_then_more_digits_after_finish() -> None:
    p = PartialJSON()
    p.feed("1")
    assert p.finish().status == "invalid"
    p.feed("2")
    assert p.is_complete_value()
    p.feed(" ")
    assert p.snapshot() == 12


def test_parse_partial_and_parse_arguments_one_shot() -> None:
    assert parse_partial('{"a": [1, 2') == {"a": [1]}
    assert parse_arguments('{"a": [1, 2]}') == ParseResult(value={"a": [1, 2]}, status="complete")


# -------------------------------------------------------------------------------- linearity


def _edits_document(n_edits: int) -> str:
    rnd = random.Random(n_edits)
    edits = [
        {"line": i, "text": " ".join(f"word{rnd.randint(0, 99)}" for _ in range(8)) + "\n\\"}
        for i in range(n_edits)
    ]
    return json.dumps({"path": "src/app.py", "meta": {"ok": True, "n": None}, "edits": edits})


def _stream(text: str) -> PartialJSON:
    # The caller keeps each snapshot until it reads the next one (a UI comparing the two), so
    # the parser must copy the open containers it changes instead of updating them in place.
    p = PartialJSON()
    previous = None
    for piece in _splits(text, random.Random(1), 4, 16):
        p.feed(piece)
        previous = p.snapshot()
    del previous
    assert p.finish().status == "complete"
    return p


def test_parsing_work_is_linear_with_a_snapshot_after_every_delta() -> None:
    # Operation counts, not wall clock: every character goes through the state machine exactly
    # once however many deltas and snapshots, and a snapshot copies at most one container per
    # open nesting level (here at most 3: object > edits list > edit object).
    for n_edits in (50, 400):
        text = _edits_document(n_edits)
        p = _stream(text)
        n_snapshots = len(_splits(text, random.Random(1), 4, 16))
        assert p._stats_chars == len(text)
        assert p._stats_built <= 3 * n_snapshots


def test_parsing_work_for_8x_input_is_8x() -> None:
    small, big = _edits_document(100), _edits_document(800)
    p_small, p_big = _stream(small), _stream(big)
    ratio_text = len(big) / len(small)
    assert p_big._stats_chars / p_small._stats_chars == pytest.approx(ratio_text)
    # Containers built per snapshot stay bounded by the depth, so total work scales like the
    # number of deltas, i.e. like the text.
    assert p_big._stats_built / p_small._stats_built < 1.25 * ratio_text


def test_snapshot_after_whitespace_only_delta_builds_nothing() -> None:
    p = PartialJSON()
    p.feed('{"a": [1, {"b": 2}')
    p.snapshot()
    built = p._stats_built
    for _ in range(100):
        p.feed(" ")
        p.snapshot()
    assert p._stats_built == built


# ------------------------------------------------------------------------------ properties

# A plain seed, not st.randoms(): every call on a hypothesis Random is a (slow) draw.
_seeds = st.integers(min_value=0, max_value=2**32 - 1)
_text_chars = st.one_of(
    st.characters(exclude_categories=()),  # includes lone surrogates
    st.sampled_from('"\\/\b\f\n\r\t\x00\x1f\x7f\u2028é日\U0001f600'),
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(_text_chars, max_size=12),
)
_json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(_text_chars, max_size=6), children, max_size=5),
    ),
    max_leaves=12,
)
_dump_options: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [
        {"ensure_ascii": True},
        {"ensure_ascii": False},
        {"ensure_ascii": True, "separators": (",", ":")},
        {"ensure_ascii": False, "separators": (",", ":")},
        {"ensure_ascii": True, "indent": 2},
        {"ensure_ascii": False, "indent": 1},
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_json_values, options=_dump_options)
def test_property_every_prefix_is_prefix_consistent(doc: Any, options: dict[str, Any]) -> None:
    text = json.dumps(doc, **options)
    full = json.loads(text)
    p = PartialJSON()
    for i, ch in enumerate(text):
        p.feed(ch)
        snap = p.snapshot()
        if snap is None:  # only before the value starts, or while a top-level number may grow
            assert not isinstance(full, (dict, list, str)), text[: i + 1]
        else:
            assert _prefix_consistent(snap, full), (text[: i + 1], snap)
    # One-shot parses of (sampled) prefixes are prefix-consistent too.
    for cut in range(0, len(text) + 1, max(1, len(text) // 40)):
        partial = parse_partial(text[:cut])
        assert partial is None or _prefix_consistent(partial, full)
    assert p.is_complete_value()
    if not isinstance(full, (int, float)) or isinstance(full, bool):
        assert _same(p.snapshot(), full)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_json_values, options=_dump_options, seed=_seeds)
def test_property_random_splits_match_one_shot_prefix_parses(
    doc: Any, options: dict[str, Any], seed: int
) -> None:
    rnd = random.Random(seed)
    text = json.dumps({"args": doc, "tail": [doc]}, **options)
    full = json.loads(text)
    p = PartialJSON()
    kept = []
    fed = 0
    for piece in _splits(text, rnd, 1, 12):
        p.feed(piece)
        fed += len(piece)
        snap = p.snapshot()
        assert _same(snap, parse_partial(text[:fed]))
        kept.append((snap, copy.deepcopy(snap)))
    assert _same(p.snapshot(), full)
    result = p.finish()
    assert result.status == "complete"
    assert _same(result.value, full)
    for snap, frozen in kept:  # no snapshot was changed after it was returned
        assert _same(snap, frozen)


def _mutations(draw: st.DrawFn) -> str:
    doc = draw(_json_values)
    text = json.dumps({"a": doc, "b": [doc, 1]}, **draw(_dump_options))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["cut", "delete", "insert"]))
        pos = draw(st.integers(0, len(text)))
        if op == "cut":
            text = text[:pos]
        elif op == "delete":
            text = text[:pos] + text[pos + 1 :]
        else:
            token = draw(
                st.sampled_from(
                    [
                        *(",", "}", "]", "{", "[", '"', "\\", ":", "\n", "\x01", "1", "-", "."),
                        *("e", "t", "NaN", " ", "\\u", "\\ud800", "x", "null", ",]", ",}"),
                    ]
                )
            )
            text = text[:pos] + token + text[pos:]
    return text


_jsonish = st.one_of(
    st.composite(_mutations)(),
    st.lists(
        st.sampled_from(
            [
                *("{", "}", "[", "]", ",", ":", '"a"', '"', "\\", "u", "0", "1", "-", ".", "e"),
                *("+", "true", "tru", "null", "false", " ", "\n", "\x01", "x", '"\\u00e9"', "12"),
                *(",]", '"\\ud83d\\ude00"', "-0.5e3", "[1,]", '{"a":1,}', "NaN", "Infinity"),
                '"k":',
            ]
        ),
        max_size=30,
    ).map("".join),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_jsonish, seed=_seeds)
def test_property_agrees_with_json_loads(text: str, seed: int) -> None:
    rnd = random.Random(seed)
    p = PartialJSON()
    for piece in _splits(text, rnd, 1, 8):
        p.feed(piece)
        p.snapshot()
    try:
        expected = _strict_loads(text)
    except (ValueError, RecursionError):
        strict_ok = False
    else:
        strict_ok = True
    complete = p.is_complete_value()
    result = p.finish()
    _check_result_invariants(result)
    if strict_ok:
        assert complete
        if not isinstance(expected, (int, float)) or text[-1:] in " \t\n\r":
            assert _same(p.snapshot(), expected)
        if isinstance(expected, dict):
            assert result.status == "complete"
            assert _same(result.value, expected)
    else:
        if complete:  # structurally one value but not strict JSON: only via a repair
            assert p._repairs
        assert result.status != "complete" or not text.strip(" \t\n\r")
    if result.status == "recovered" and result.mode == "repaired":
        assert complete or "double_encoded" in result.repairs


@settings(max_examples=300, deadline=None)
@given(text=st.text(), seed=_seeds)
def test_property_arbitrary_text_never_raises(text: str, seed: int) -> None:
    rnd = random.Random(seed)
    p = PartialJSON()
    for piece in _splits(text, rnd, 1, 6):
        p.feed(piece)
        p.snapshot()
        p.is_complete_value()
    _check_result_invariants(p.finish())
    _check_result_invariants(parse_arguments(text))
    parse_partial(text)


@settings(max_examples=200, deadline=None)
@given(
    number=st.from_regex(
        r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?", fullmatch=True
    )
)
def test_property_numbers_decode_like_json_loads(number: str) -> None:
    text = '{"n": [' + number + "]}"
    assert _same(parse_partial(text), json.loads(text))
    assert parse_partial(text[:-2]) == {"n": []}  # still possibly incomplete


def _sloppy_string(s: str, rnd: random.Random, repairs: set[str]) -> str:
    out = []
    for ch in s:
        if ch < " " and rnd.random() < 0.5:
            out.append(ch)  # raw control character
            repairs.add("control_character_escaped")
        else:
            out.append(json.dumps(ch, ensure_ascii=rnd.random() < 0.5)[1:-1])
    return '"' + "".join(out) + '"'


def _sloppy_dumps(value: Any, rnd: random.Random, repairs: set[str]) -> str:
    """Serialize with the sloppiness the repairs cover: raw control characters, trailing commas."""
    if isinstance(value, (dict, list)):
        if isinstance(value, dict):
            items = [
                _sloppy_string(k, rnd, repairs) + ":" + _sloppy_dumps(v, rnd, repairs)
                for k, v in value.items()
            ]
            opening, closing = "{", "}"
        else:
            items = [_sloppy_dumps(v, rnd, repairs) for v in value]
            opening, closing = "[", "]"
        trailing = bool(items) and rnd.random() < 0.3
        if trailing:
            repairs.add("trailing_comma_removed")
        return opening + ", ".join(items) + ("," if trailing else "") + closing
    if isinstance(value, str):
        return _sloppy_string(value, rnd, repairs)
    return json.dumps(value)


_plain_text = st.text(
    st.one_of(st.characters(), st.sampled_from('"\\\n\r\t\x00\x1f\x7f')), max_size=10
)  # no surrogates: raw and escaped forms then decode to the same string
_plain_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        _plain_text,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_plain_text, children, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc=st.dictionaries(_plain_text, _plain_values, max_size=4),
    seed=_seeds,
)
def test_property_repairs_recover_the_exact_value(doc: dict[str, Any], seed: int) -> None:
    rnd = random.Random(seed)
    repairs: set[str] = set()
    text = _sloppy_dumps(doc, rnd, repairs)
    result = parse_arguments(text)
    if repairs:
        assert result.status == "recovered"
        assert result.mode == "repaired"
        assert set(result.repairs) == repairs
    else:
        assert result.status == "complete"
    assert _same(result.value, doc)
    # Streamed with snapshots, the same classification.
    p = PartialJSON()
    for piece in _splits(text, rnd, 1, 10):
        p.feed(piece)
        p.snapshot()
    assert p.finish() == result
    # Truncated anywhere after the opening brace: recovered, nothing invented.
    cut = rnd.randint(1, len(text) - 1) if len(text) > 2 else 1
    truncated = parse_arguments(text[:cut])
    _check_result_invariants(truncated)
    assert truncated.status == "recovered"
    assert truncated.mode == "partial"
    assert _prefix_consistent(truncated.value, doc)
