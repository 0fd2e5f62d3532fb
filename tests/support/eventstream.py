"""AWS event-stream bytes for the tests, written from the framing's specification (struct +
zlib) and independent of llmkit: :func:`encode` builds a message with typed headers,
:func:`bedrock_event` a Converse event as bedrock-runtime frames it, :func:`split_messages`
walks a body back into (headers, payload) pairs without checking anything but lengths."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

Header = tuple[int, Any]
"""(type code, value) for each of the framing's ten header types."""

CONTENT_TYPE = "application/vnd.amazon.eventstream"


def encode_header(name: str, kind: int, value: Any) -> bytes:
    raw = name.encode()
    out = struct.pack(">B", len(raw)) + raw + struct.pack(">B", kind)
    if kind in (0, 1):
        return out
    if kind == 2:
        return out + struct.pack(">b", value)
    if kind == 3:
        return out + struct.pack(">h", value)
    if kind == 4:
        return out + struct.pack(">i", value)
    if kind in (5, 8):
        return out + struct.pack(">q", value)
    if kind == 6:
        return out + struct.pack(">H", len(value)) + value
    if kind == 7:
        data = value.encode()
        return out + struct.pack(">H", len(data)) + data
    assert kind == 9
    return out + value


def encode(headers: dict[str, Header], payload: bytes) -> bytes:
    """One message, as the specification lays it out (both CRCs right)."""
    block = b"".join(encode_header(name, kind, value) for name, (kind, value) in headers.items())
    total = 12 + len(block) + len(payload) + 4
    prelude = struct.pack(">II", total, len(block))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + block + payload
    return body + struct.pack(">I", zlib.crc32(body))


def bedrock_event(event_type: str, payload: bytes | dict[str, Any]) -> bytes:
    """A Converse event message (string headers, in bedrock-runtime's order)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return encode(
        {
            ":event-type": (7, event_type),
            ":content-type": (7, "application/json"),
            ":message-type": (7, "event"),
        },
        data,
    )


def bedrock_exception(exception_type: str, payload: dict[str, Any]) -> bytes:
    """An exception message (``:message-type: exception``)."""
    return encode(
        {
            ":exception-type": (7, exception_type),
            ":content-type": (7, "application/json"),
            ":message-type": (7, "exception"),
        },
        json.dumps(payload).encode(),
    )


def split_messages(body: bytes) -> list[tuple[dict[str, str], bytes]]:
    """A well-formed body's messages as (string headers, payload); lengths only."""
    out = []
    pos = 0
    while pos + 12 <= len(body):
        total, headers_length = struct.unpack_from(">II", body, pos)
        end = pos + 12 + headers_length
        headers: dict[str, str] = {}
        at = pos + 12
        while at < end:
            size = body[at]
            name = body[at + 1 : at + 1 + size].decode()
            at += 1 + size
            assert body[at] == 7, "only string headers are split here"
            (length,) = struct.unpack_from(">H", body, at + 1)
            headers[name] = body[at + 3 : at + 3 + length].decode()
            at += 3 + length
        out.append((headers, body[end : pos + total - 4]))
        pos += total
    assert pos == len(body), "trailing bytes"
    return out


def events(body: bytes) -> list[tuple[str, Any]]:
    """A Converse stream as (event type or exception type, parsed payload)."""
    return [
        (h.get(":event-type") or h.get(":exception-type") or "", json.loads(p))
        for h, p in split_messages(body)
    ]
