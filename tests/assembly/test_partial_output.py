"""``TextDelta.partial_output`` (structured output, docs/design.md §5): with ``response_format``
every TextDelta carries the partial JSON value of the message text so far, computed lazily by the
partial-arguments parser. Generated streams on every wire, re-split at random byte offsets: the last
value is ``json.loads(text)``, every value is a prefix-consistent partial, a value a caller holds
never changes, and the total cost is linear (each character parsed once; a long output read on every
delta costs per delta what a short one does)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmkit
from llmkit._fake.encoding import ServeContext
from llmkit._fake.http_server import ENCODERS
from llmkit._json import ownership as _ownership
from llmkit._json import partial as _partial_json
from llmkit.testing import FakeReply, FakeRequest
from tests.support.chunking import cut_points, split
from tests.support.fuzzing import fuzz
from tests.support.helpers import prefix_consistent

WIRES = sorted(ENCODERS)
SCHEMA = {"type": "object"}  # only its presence matters to the decoding side

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5)


# A structured output is an object (or an array): its last character closes it, so the last
# delta's value is the whole value. (A bare top-level number could still grow: the parser
# leaves it out until the text ends, and decode_output then has it.)
JSON = _containers(st.recursive(SCALARS, _containers, max_leaves=30))


def body(api: str, text: str, delta_size: int) -> bytes:
    """A streamed reply whose text is ``text``, as ``api`` sends it (the fake's encoders)."""
    encoder = ENCODERS[api]
    wants = {"model": "m", "stream": True}
    request = FakeRequest("POST", "/", {}, wants, json.dumps(wants).encode())
    ctx = ServeContext(number=1, created=0, next_call_id=lambda: "call_1")
    reply = FakeReply(text, delta_size=delta_size, usage={"input": 3, "output": 5})
    return b"".join(encoder.stream_events(reply, request, ctx))


def model(api: str) -> llmkit.Model:
    return llmkit.Model(provider="fake", id="fake-model", api=api, base_url="http://127.0.0.1:9/v1")  # type: ignore[arg-type]


def read_every_delta(events: list[llmkit.Event]) -> tuple[list[str], list[Any], list[Any]]:
    deltas, values, copies = [], [], []
    for e in events:
        if isinstance(e, llmkit.TextDelta):
            deltas.append(e.delta)
            values.append(e.partial_output)
            copies.append(copy.deepcopy(values[-1]))
    return deltas, values, copies


@pytest.mark.parametrize("api", WIRES)
@fuzz(ci=25)
@given(data=st.data())
def test_partial_output_over_random_splits(api: str, data: st.DataObject) -> None:
    value = data.draw(JSON, label="value")
    text = json.dumps(
        value, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 1]))
    )
    raw = body(api, text, data.draw(st.integers(1, 16), label="delta size"))
    chunks = split(raw, data.draw(cut_points(raw), label="cuts"))
    events = list(llmkit.parse_stream(model(api), chunks, response_format=SCHEMA))
    deltas, values, copies = read_every_delta(events)
    assert "".join(deltas) == text
    assert values[-1] == json.loads(text)
    for partial in values:
        assert prefix_consistent(partial, value), (partial, value)
    assert values == copies  # nothing a caller held was changed by later deltas
    assert isinstance(events[-1], llmkit.Done)
    assert llmkit.decode_output({}, events[-1].message) == value  # {}: any JSON value


@pytest.mark.parametrize("api", WIRES)
def test_without_response_format_partial_output_is_none(api: str) -> None:
    events = list(llmkit.parse_stream(model(api), [body(api, '{"a": 1}', 3)]))
    deltas = [e for e in events if isinstance(e, llmkit.TextDelta)]
    assert deltas and all(type(e) is llmkit.TextDelta and e.partial_output is None for e in deltas)


def test_structured_deltas_equal_and_show_as_plain_text_deltas() -> None:
    raw = body("openai-chat", '{"a": 1}', 3)
    plain = [
        e
        for e in llmkit.parse_stream(model("openai-chat"), [raw])
        if isinstance(e, llmkit.TextDelta)
    ]
    structured = [
        e
        for e in llmkit.parse_stream(model("openai-chat"), [raw], response_format=SCHEMA)
        if isinstance(e, llmkit.TextDelta)
    ]
    assert structured == plain and repr(structured[0]) == repr(plain[0])
    assert [e.partial_output for e in structured] == [{}, {}, {"a": 1}]


def test_partial_output_read_late_or_backwards_is_still_each_deltas_value() -> None:
    text = json.dumps({"items": [{"n": i, "s": "é" * i} for i in range(30)]})
    events = [
        e
        for e in llmkit.parse_stream(
            model("anthropic-messages"),
            [body("anthropic-messages", text, 5)],
            response_format=SCHEMA,
        )
        if isinstance(e, llmkit.TextDelta)
    ]
    prefix, expected = "", []
    for e in events:
        prefix += e.delta
        expected.append(_partial_json.parse_partial(prefix))
    assert [e.partial_output for e in reversed(events)] == expected[::-1]
    assert [e.partial_output for e in events] == expected


class _Count:
    """Counts the characters every PartialJSON parses."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsers: list[_partial_json.PartialJSON] = []
        init, parsers = _partial_json.PartialJSON.__init__, self.parsers

        def counting_init(p: _partial_json.PartialJSON) -> None:
            init(p)
            parsers.append(p)

        monkeypatch.setattr(_partial_json.PartialJSON, "__init__", counting_init)

    @property
    def chars(self) -> int:
        return sum(p._stats_chars for p in self.parsers)


@pytest.mark.parametrize("api", WIRES)
def test_reading_every_delta_parses_each_character_once(
    monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    text = json.dumps(
        {"rows": [{"id": i, "name": f"row {i}", "ok": i % 2 == 0} for i in range(300)]}
    )
    count = _Count(monkeypatch)
    events = list(llmkit.parse_stream(model(api), [body(api, text, 7)], response_format=SCHEMA))
    values = [e.partial_output for e in events if isinstance(e, llmkit.TextDelta)]
    assert count.chars == len(text)  # linear: one parser, every character once
    assert values[-1] == json.loads(text)


def test_a_long_output_costs_per_delta_what_a_short_one_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Re-parsing the whole text on every delta (what instructor, the Vercel AI SDK and
    # pydantic-ai do) makes the 100x longer stream about 100x costlier per delta; a linear parse
    # keeps the work per delta flat. Counted with the parser's work counters (characters parsed,
    # containers and members copied), not timed.
    def per_delta(rows: int) -> tuple[float, float]:
        text = json.dumps({"rows": [{"id": i, "text": "lorem ipsum " * 3} for i in range(rows)]})
        count = _Count(monkeypatch)
        n = 0
        for e in llmkit.parse_stream(
            model("openai-chat"), [body("openai-chat", text, 8)], response_format=SCHEMA
        ):
            if isinstance(e, llmkit.TextDelta):
                e.partial_output  # noqa: B018 -- what a UI does on every delta
                n += 1
        parsing = count.chars + sum(p._stats_built for p in count.parsers)
        copied = sum(p._stats_copied for p in count.parsers)
        return parsing / n, copied / n

    (short, short_copied), (long, long_copied) = per_delta(20), per_delta(2_000)
    assert long <= 1.2 * short, (short, long)
    if _ownership.HELD:  # each snapshot dropped: reference counts say so, nothing is copied
        assert short_copied == long_copied == 0
    # Elsewhere each read copies the open "rows" list (docs/streaming.md, "Keeping
    # snapshots"): members copied per delta grow with the list, the one term that does.
