"""The byte-level SSE decoder (QUIRKS A1, A2, A3) and its bounded memory."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit._sse import EventTooLarge, SSEDecoder
from tests.support.chunking import cut_points, split
from tests.support.corpus import (
    CorpusSkip,
    Exchange,
    corpus_files,
    load_exchanges,
    rechunk,
    sse_events,
)


def decode(*chunks: bytes, limit: int = 1 << 20) -> list[tuple[str, str]]:
    dec = SSEDecoder(limit)
    out = []
    for c in chunks:
        out.extend(dec.feed(c))
    out.extend(dec.flush())
    return [(e.event, e.data) for e in out]


def test_lf_crlf_and_cr_framing_are_equal() -> None:
    for nl in ("\n", "\r\n", "\r"):
        body = f"event: a{nl}data: 1{nl}{nl}data: 2{nl}data: 3{nl}{nl}".encode()
        assert decode(body) == [("a", "1"), ("message", "2\n3")]


def test_crlf_split_across_chunks_is_one_line_break() -> None:
    assert decode(b"data: 1\r", b"\ndata: 2\r\n\r", b"\n") == [("message", "1\n2")]


def test_multibyte_character_split_across_chunks_A1() -> None:
    body = 'data: {"t": "😀 日本"}\n\n'.encode()
    for cut in range(1, len(body)):
        assert decode(body[:cut], body[cut:]) == [("message", '{"t": "😀 日本"}')]


def test_u2028_and_u2029_do_not_split_lines_A2() -> None:
    body = 'data: {"t": "a\u2028b\u2029c\x85d"}\n\n'.encode()
    assert decode(body) == [("message", '{"t": "a\u2028b\u2029c\x85d"}')]
    # The same in a CRLF stream (Gemini's framing, read by another path), with the other
    # characters str.splitlines breaks at, and an invalid byte next to a CR.
    odd = "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\x1dh\x1ei"
    crlf = f'data: {{"t": "{odd}"}}\r\n\r\ndata: x\xff\r\n\r\n'.encode("utf-8", "surrogateescape")
    crlf = crlf.replace(b"\xc3\xbf", b"\xff")  # a raw 0xFF byte, not U+00FF
    assert decode(crlf) == [("message", f'{{"t": "{odd}"}}'), ("message", "x\ufffd")]


def test_comments_and_keepalives_are_skipped_A3() -> None:
    body = b": OPENROUTER PROCESSING\n\n: ping\ndata: x\n\n"
    assert decode(body) == [("message", "x")]


def test_data_without_space_and_field_without_colon() -> None:
    assert decode(b"data:x\ndata\n\n") == [("message", "x\n")]


def test_data_line_before_event_line_in_one_event() -> None:
    # Bedrock-mantle writes data: before event: (tests/fixtures/openai-responses/PROVENANCE.md).
    assert decode(b"data: {}\nevent: response.created\n\n") == [("response.created", "{}")]


def test_unterminated_last_event_is_kept_at_eof() -> None:
    assert decode(b"data: [DONE]") == [("message", "[DONE]")]
    assert decode(b"data: a\n") == [("message", "a")]


def test_line_larger_than_limit_fails_bounded() -> None:
    dec = SSEDecoder(1000)
    dec.feed(b"data: ")
    with pytest.raises(EventTooLarge):
        for _ in range(100):
            dec.feed(b"x" * 100)


def test_event_of_many_lines_larger_than_limit_fails() -> None:
    with pytest.raises(EventTooLarge):
        decode(b"data: " + b"y" * 600 + b"\n" + b"data: " + b"y" * 600 + b"\n\n", limit=1000)


def test_long_line_in_many_chunks_is_joined_once() -> None:
    # Linear: the pending pieces are joined when the line ends, not re-copied per chunk.
    dec = SSEDecoder(50_000_000)
    assert dec.feed(b"data: ") == []
    for _ in range(20_000):
        assert dec.feed(b"z" * 512) == []
    (event,) = dec.feed(b"\n\n")
    assert len(event.data) == 20_000 * 512


@settings(max_examples=200, deadline=None)
@given(
    events=st.lists(
        st.text(
            alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
            max_size=30,
        ),
        max_size=6,
    ),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_any_chunking_gives_the_same_events(
    events: list[str], newline: str, cuts: list[int]
) -> None:
    body = "".join(f"data: {e}{newline}{newline}" for e in events).encode()
    points = sorted({c % (len(body) + 1) for c in cuts})
    pieces = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    expected = [("message", e) for e in events]
    assert decode(*pieces) == expected


# --------------------------------------------------------------------------- against the spec
# The decoder against the independent parser of the corpus tests, over bytes cut at any offset,
# and the same bytes fed whole (the events, and EventTooLarge, at the same read).


def _run(decoder: SSEDecoder, chunks: list[bytes]) -> list[tuple[str, str] | str]:
    out: list[tuple[str, str] | str] = []
    try:
        for c in chunks:
            out.extend((e.event, e.data) for e in decoder.feed(c))
        out.extend((e.event, e.data) for e in decoder.flush())
    except EventTooLarge:
        out.append("EventTooLarge")
    return out


def _decoded(chunks: list[bytes], limit: int = 1 << 20) -> list[tuple[str, str] | str]:
    """The events of ``chunks``, asserted equal to those of the same bytes in one read."""
    events = _run(SSEDecoder(limit), chunks)
    whole = _run(SSEDecoder(limit), [b"".join(chunks)])
    if "EventTooLarge" not in events and "EventTooLarge" not in whole:
        assert events == whole, chunks
    return events


# Every form of the event line (one space stripped, none, two, a colon in the value).
_EVENT_LINES = [b"event: e", b"event:", b"event:delta", b"event: ", b"event:  two", b"event: a:b"]
_NEWLINES = st.sampled_from([b"\n", b"\r\n", b"\r"])
_VALUES = st.sampled_from([b"", b"x", b"{}", '{"t": "ü日😀"}'.encode(), b" lead", b"a\rb", b":"])


@st.composite
def _sse_bodies(draw: st.DrawFn) -> bytes:
    """Events of the usual shape among every other thing an SSE body may hold."""
    out = [draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf"]))]
    for _ in range(draw(st.integers(0, 6))):
        nl = draw(_NEWLINES)
        for _ in range(draw(st.integers(0, 2))):
            out.append(draw(st.sampled_from([b": ping", b"id: 7", b"retry: 10", b"foo: bar"])) + nl)
        if draw(st.booleans()):
            out.append(draw(st.sampled_from(_EVENT_LINES)) + nl)
        for _ in range(draw(st.integers(1, 3))):
            out.append(draw(st.sampled_from([b"data: ", b"data:", b"data"])) + draw(_VALUES))
            out.append(draw(st.sampled_from([nl, nl, nl, b"\n", b"\r\n", b"\r"])))
        out.append(draw(st.sampled_from([nl, nl, nl, b"\n", b"\r\n", b"\r", b"event: late" + nl])))
    return b"".join(out)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_mixed_fields_and_line_ends_cut_anywhere_follow_the_spec(data: st.DataObject) -> None:
    body = data.draw(_sse_bodies())
    cuts = data.draw(cut_points(body)) if len(body) > 1 else ()
    events = _decoded(split(body, cuts))
    assert events == sse_events(body + b"\n\n", flush_at_eof=True)


@settings(max_examples=300, deadline=None)
@given(
    body=st.lists(
        st.sampled_from(
            [
                b"data: ",
                b"data:",
                b"event: ",
                b"\n",
                b"\r\n",
                b"\r",
                b": c",
                b"x",
                b"\xff",
                "é😀".encode(),
                b"\xef\xbb\xbf",
                b"id: 1",
            ]
        ),
        max_size=30,
    ).map(b"".join),
    cuts=st.lists(st.integers(1, 200), max_size=10),
    limit=st.sampled_from([4, 8, 12, 20, 1 << 20]),
)
def test_any_bytes_and_limit_cut_anywhere_decode_as_in_one_read(
    body: bytes, cuts: list[int], limit: int
) -> None:
    # Invalid UTF-8, stray CRs, tiny limits: never anything but events or EventTooLarge.
    points = tuple(sorted({c for c in cuts if c < len(body)}))
    _decoded(split(body, points), limit)


@pytest.mark.parametrize("api", ["openai-chat", "anthropic-messages", "openai-responses", "gemini"])
@pytest.mark.parametrize("shape", ["edits", "content"])
def test_generated_streams_cut_anywhere_A1(api: str, shape: str) -> None:
    from benchmarks.streams import StreamSpec, render

    body = b"".join(render(StreamSpec(api, shape, 60)).writes)
    expected = sse_events(body)
    assert expected and _decoded([body]) == expected
    rng = random.Random(f"{api}/{shape}")
    for _ in range(8):
        chunks = rechunk(body, rng)
        assert _decoded(chunks) == expected


_SSE_WIRES = (
    "anthropic-messages",
    "gemini",
    "llama-server",
    "openai-chat",
    "openai-compatible",
    "openai-responses",
)


def test_corpus_streams_cut_anywhere_A1() -> None:
    bodies = [
        exchange.body
        for path in corpus_files(*_SSE_WIRES)
        for exchange in _exchanges(path)
        if exchange.is_sse and exchange.body
    ]
    assert len(bodies) > 100
    rng = random.Random(18)
    for body in bodies:
        expected = _decoded([body])
        for _ in range(3):
            assert _decoded(rechunk(body, rng)) == expected


def _exchanges(path: Path) -> list[Exchange]:
    try:
        return load_exchanges(path)
    except (CorpusSkip, ValueError):  # not a recording (a capture list), or not here
        return []


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        # A bare CR inside what looks like one data line is a line break of its own.
        ([b"data: a\rdata: b\n\n"], [("message", "a\nb")]),
        # A second data line: not the usual shape; the lines are joined with LF.
        ([b"data: a\ndata: b\n\ndata: c\n\n"], [("message", "a\nb"), ("message", "c")]),
        # An LF data line closed by a CRLF blank line, and the reverse.
        ([b"data: a\n\r\ndata: b\r\n\n"], [("message", "a"), ("message", "b")]),
        # event: after data: (bedrock-mantle) and two event: lines (the last one holds).
        ([b"data: {}\nevent: x\n\nevent: y\nevent: z\ndata: 1\n\n"], [("x", "{}"), ("z", "1")]),
        # No space after the colon; an empty event name; three blank lines in a row.
        (
            [b"event:x\ndata:1\n\nevent: \ndata: 2\n\n\n\ndata: 3\n\n"],
            [("x", "1"), ("message", "2"), ("message", "3")],
        ),
        # The event: line arrives alone, then its data: line, then another event: line alone.
        (
            [b"event: e\n", b"data: 1\n\nevent: f\n", b"\n", b"data: 2\n\n"],
            [("e", "1"), ("message", "2")],
        ),
        ([b"event: e\n", b": ping\n", b"data: 1\n\n"], [("e", "1")]),
        ([b"event: e\n"], []),
        # An event: line with nothing after it, and a comment between usual events.
        ([b"event: x\n\ndata: 1\n\n: ping\n\ndata: 2\n\n"], [("message", "1"), ("message", "2")]),
        # Cut inside "data:", inside "event:", between the lines of one event.
        ([b"da", b"ta: 1\n\neve", b"nt: e\n", b"data: 2\n", b"\n"], [("message", "1"), ("e", "2")]),
        # A BOM, then the usual shape; a second BOM is data.
        ([b"\xef\xbb", b"\xbfdata: \xef\xbb\xbf\n\n"], [("message", "\ufeff")]),
    ],
)
def test_event_shapes_beyond_one_data_line(
    chunks: list[bytes], expected: list[tuple[str, str]]
) -> None:
    assert _decoded(chunks) == expected


def test_an_event_larger_than_the_limit_fails_with_or_without_event_line() -> None:
    for body in (b"data: " + b"z" * 30 + b"\n\n", b"event: e\ndata: " + b"z" * 30 + b"\n\n"):
        assert _decoded([body], 20) == ["EventTooLarge"]
        assert _decoded([body], 40)[0] != "EventTooLarge"


def test_data_of_an_unfinished_event_counts_against_the_limit_at_once() -> None:
    # A complete data: line is counted when it arrives, so the next read's bytes are checked
    # against what is already held.
    assert _decoded([b"event: e\ndata: " + b"z" * 10 + b"\n", b"y" * 12], 20) == ["EventTooLarge"]
