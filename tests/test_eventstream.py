"""The AWS event-stream decoder (``llmkit._eventstream``), against an independent encoder written
here (struct + zlib, from the framing's specification) and against botocore's own parser.

Generated messages with every header type are re-split at random byte offsets (hypothesis) and
must decode exactly as encoded, and exactly as ``botocore.eventstream.EventStreamBuffer``
decodes them; a bad prelude or message CRC, a body cut inside a message, lengths that
contradict each other and a 100 MB message each end in a typed ``FramingError``, with memory
bounded.
"""

from __future__ import annotations

import gc
import struct
import tracemalloc
import uuid
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmkit._eventstream import (
    ChecksumMismatch,
    EventStreamDecoder,
    MalformedFrame,
    TruncatedFrame,
)
from llmkit._sse import EventTooLarge, FramingError
from tests.support.eventstream import Header, bedrock_event, encode
from tests.support.fuzzing import fuzz

eventstream = pytest.importorskip("botocore.eventstream")


def expected_value(kind: int, value: Any) -> Any:
    return {0: True, 1: False}.get(kind, value) if kind in (0, 1) else value


HEADER = st.one_of(
    st.just((0, True)),
    st.just((1, False)),
    st.tuples(st.just(2), st.integers(-128, 127)),
    st.tuples(st.just(3), st.integers(-(2**15), 2**15 - 1)),
    st.tuples(st.just(4), st.integers(-(2**31), 2**31 - 1)),
    st.tuples(st.just(5), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(6), st.binary(max_size=40)),
    st.tuples(st.just(7), st.text(max_size=20)),
    st.tuples(st.just(8), st.integers(0, 2**62)),
    st.tuples(st.just(9), st.binary(min_size=16, max_size=16)),
)
MESSAGE = st.tuples(
    st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda n: len(n.encode()) < 256), HEADER, max_size=5
    ),
    st.binary(max_size=300),
)


def split_at(body: bytes, cuts: list[int]) -> list[bytes]:
    marks = sorted(c % (len(body) + 1) for c in cuts)
    return [body[a:b] for a, b in zip([0, *marks], [*marks, len(body)], strict=True)]


def decode(chunks: list[bytes], limit: int = 1 << 24) -> list[tuple[dict[str, Any], bytes]]:
    decoder = EventStreamDecoder(limit)
    out = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    out += decoder.flush()
    return [(dict(m.headers), m.payload) for m in out]


def botocore_decode(body: bytes) -> list[tuple[dict[str, Any], bytes]]:
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(body)
    return [(dict(m.headers), m.payload) for m in buffer]


@fuzz(ci=60)
@given(
    messages=st.lists(MESSAGE, max_size=6),
    cuts=st.lists(st.integers(min_value=0), max_size=12),
)
def test_generated_messages_decode_exactly_at_any_split_and_as_botocore_does(
    messages: list[tuple[dict[str, Header], bytes]], cuts: list[int]
) -> None:
    body = b"".join(encode(h, p) for h, p in messages)
    expected = [({n: expected_value(k, v) for n, (k, v) in h.items()}, p) for h, p in messages]
    assert decode(split_at(body, cuts)) == expected
    assert decode([body[i : i + 1] for i in range(len(body))]) == expected
    assert botocore_decode(body) == expected


def test_message_type_and_event_name_per_kind() -> None:
    body = (
        bedrock_event("messageStart", b'{"role":"assistant"}')
        + encode(
            {":message-type": (7, "exception"), ":exception-type": (7, "throttlingException")},
            b'{"message":"slow down"}',
        )
        + encode({":message-type": (7, "error"), ":error-code": (7, "InternalFailure")}, b"")
        + encode({}, b"x")
    )
    got = [(m.message_type, m.event, m.data) for m in EventStreamDecoder().feed(body)]
    assert got == [
        ("event", "messageStart", '{"role":"assistant"}'),
        ("exception", "throttlingException", '{"message":"slow down"}'),
        ("error", "InternalFailure", ""),
        ("", "", "x"),
    ]


@pytest.mark.parametrize("where", ["prelude", "message"])
def test_a_bad_crc_is_a_checksum_mismatch(where: str) -> None:
    good = bedrock_event("messageStart", b'{"role":"assistant"}')
    offset = 9 if where == "prelude" else len(good) - 1
    bad = good[:offset] + bytes([good[offset] ^ 0x01]) + good[offset + 1 :]
    decoder = EventStreamDecoder()
    assert len(decoder.feed(good)) == 1
    with pytest.raises(ChecksumMismatch, match="CRC32"):
        decoder.feed(bad)
    assert not decoder._buf  # the broken bytes were dropped


def test_a_flipped_payload_byte_fails_the_message_crc() -> None:
    good = bedrock_event("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"hi"}}')
    bad = good[:-10] + b"X" + good[-9:]
    with pytest.raises(ChecksumMismatch):
        decode([bad])


@pytest.mark.parametrize("cut", [1, 11, 12, 30, -1])
def test_a_body_cut_inside_a_message_is_truncated(cut: int) -> None:
    body = bedrock_event("messageStart", b'{"role":"assistant"}')
    decoder = EventStreamDecoder()
    assert decoder.feed(body[:cut]) == []
    with pytest.raises(TruncatedFrame, match="ended inside"):
        decoder.flush()
    assert decoder.flush() == []  # and it is reported once


@pytest.mark.parametrize(("total", "headers"), [(15, 0), (16, 1), (100, 90), (0, 0)], ids=str)
def test_contradictory_lengths_are_malformed(total: int, headers: int) -> None:
    prelude = struct.pack(">II", total, headers)
    prelude += struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(MalformedFrame):
        EventStreamDecoder().feed(prelude + b"\0" * 200)


@pytest.mark.parametrize(
    "block",
    [
        b"\x05:abc",  # the name runs past the block
        b"\x01a\x07\x00\x09abc",  # the string value runs past the block
        b"\x01a\x0c",  # type 12 does not exist
        b"\x01\xff\x07\x00\x00",  # the name is not UTF-8
    ],
)
def test_headers_that_overrun_or_have_unknown_types_are_malformed(block: bytes) -> None:
    total = 12 + len(block) + 4
    prelude = struct.pack(">II", total, len(block))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + block
    body += struct.pack(">I", zlib.crc32(body))
    with pytest.raises(MalformedFrame):
        decode([body])


def huge_message(size: int) -> Iterator[bytes]:
    """A message whose valid prelude announces ``size`` bytes, the rest produced lazily."""
    prelude = struct.pack(">II", size, 0)
    yield prelude + struct.pack(">I", zlib.crc32(prelude))
    piece = b"\0" * 65536
    for _ in range((size - 12) // len(piece)):
        yield piece


def test_a_100_mb_message_fails_at_its_prelude_with_memory_bounded() -> None:
    decoder = EventStreamDecoder()  # default limit: 16 MiB
    gc.collect()
    tracemalloc.start()
    raised = None
    fed = 0
    try:
        for chunk in huge_message(100 * 1024 * 1024):
            fed += 1
            try:
                decoder.feed(chunk)
            except EventTooLarge as exc:
                raised = exc
                break
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(raised, FramingError) and "exceeds the limit" in str(raised)
    assert raised.size == 100 * 1024 * 1024 and fed == 1
    assert peak < 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_a_large_message_under_the_limit_arriving_in_tiny_chunks_is_linear() -> None:
    payload = b"y" * 3_000_000
    body = bedrock_event("contentBlockDelta", payload)
    decoder = EventStreamDecoder()
    got = []
    for i in range(0, len(body), 997):
        got += decoder.feed(body[i : i + 997])
    assert [m.payload for m in got] == [payload]
    assert not decoder._buf


def test_a_limit_smaller_than_a_message_is_too_large() -> None:
    body = bedrock_event("messageStart", b"x" * 100)
    with pytest.raises(EventTooLarge):
        decode([body], limit=64)


def test_uuid_headers_decode_to_their_16_bytes() -> None:
    value = uuid.UUID(int=12345).bytes
    [(headers, _)] = decode([encode({"id": (9, value)}, b"")])
    assert headers == {"id": value}


def test_good_messages_before_a_bad_one_in_the_same_chunk_come_first() -> None:
    # Found by the stream fuzzer: a CRC failure used to discard the messages completed before
    # it in the same chunk, so one chunk and many chunks gave different events.
    good = bedrock_event("messageStart", b'{"role":"assistant"}')
    bad = good[:-1] + bytes([good[-1] ^ 0xFF])
    decoder = EventStreamDecoder()
    assert [m.event for m in decoder.feed(good + bad)] == ["messageStart"]
    with pytest.raises(ChecksumMismatch):
        decoder.flush()


def test_messages_with_one_header_block_share_its_reading_read_only() -> None:
    # A stream repeats a handful of header blocks thousands of times: each is read once, and
    # what every message holds is a read-only view of that one reading.
    block = {":message-type": (7, "event"), ":event-type": (7, "contentBlockDelta")}
    decoder = EventStreamDecoder()
    first, second = decoder.feed(encode(block, b"{}") + encode(block, b"[]"))
    assert first.headers is second.headers
    assert first.headers == {":message-type": "event", ":event-type": "contentBlockDelta"}
    with pytest.raises(TypeError):
        first.headers[":event-type"] = "messageStop"  # type: ignore[index]
    assert (first.payload, second.payload) == (b"{}", b"[]")
