"""The byte-level SSE decoder (QUIRKS A1, A2, A3) and its bounded memory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit._sse import EventTooLarge, SSEDecoder


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
