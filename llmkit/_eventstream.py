"""A sans-I/O decoder of the AWS event-stream framing (``application/vnd.amazon.eventstream``).

Amazon Bedrock's ``ConverseStream`` answers in this binary framing, not SSE. Each message is::

    total_length:u32  headers_length:u32  prelude_crc:u32  headers  payload  message_crc:u32

(big-endian; ``prelude_crc`` is the CRC32 of the first 8 bytes, ``message_crc`` of everything
before it; ``total_length`` counts the whole message, both CRCs included). A header is
``name_length:u8 name type:u8 value``, the value typed: 0/1 booleans, 2/3/4/5 signed integers
of 1/2/4/8 bytes, 6 a byte array and 7 a UTF-8 string (both ``length:u16`` first), 8 a
timestamp (``int64`` milliseconds), 9 a UUID (16 bytes). Bedrock's messages carry
``:message-type`` (``event``, ``exception`` or ``error``), ``:event-type`` /
``:exception-type`` / ``:error-code`` and ``:content-type``; the payload is JSON.

Bytes in, :class:`EventStreamMessage` out, as :mod:`llmkit._sse` does for SSE: split at any
byte offset, no I/O, so it serves the sync and async pumps and ``parse_stream`` alike.

- Both CRCs are checked; a mismatch raises :class:`ChecksumMismatch` (the bytes after it
  cannot be trusted to be framed where they claim).
- Memory is bounded: a prelude announcing a message larger than ``max_event_size`` raises
  :class:`~llmkit._sse.EventTooLarge` at once, before any of its payload is buffered; nothing
  more than one message (plus the chunk being read) is ever held.
- A body that ends inside a message raises :class:`TruncatedFrame` from :meth:`flush`.
- The messages completed before a failure are always delivered first (a failure found behind
  them in the same chunk is raised by the next call), so chunking never changes the result.
- Lengths that contradict each other, or headers that overrun their block, raise
  :class:`MalformedFrame`.

All four are :class:`~llmkit._sse.FramingError`\\ s: the pipeline ends the stream with a
``StreamError`` carrying the partial message.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Union

from ._sse import DEFAULT_MAX_EVENT_SIZE, EventTooLarge, FramingError

__all__ = [
    "ChecksumMismatch",
    "EventStreamDecoder",
    "EventStreamMessage",
    "HeaderValue",
    "MalformedFrame",
    "TruncatedFrame",
]

HeaderValue = Union[bool, int, bytes, str]
"""A decoded header value: booleans, integers (timestamps as int64 milliseconds), strings, and
bytes for byte arrays and UUIDs (as botocore decodes them)."""

_PRELUDE = 12  # total length, headers length, prelude CRC
_MINIMUM = _PRELUDE + 4  # a message with no headers and no payload
_INTS = {2: (1, ">b"), 3: (2, ">h"), 4: (4, ">i"), 5: (8, ">q"), 8: (8, ">q")}
_unpack_prelude = struct.Struct(">III").unpack_from
_unpack_u32 = struct.Struct(">I").unpack_from
_crc32 = zlib.crc32


class ChecksumMismatch(FramingError):
    """A prelude or message CRC32 does not match its bytes."""


class TruncatedFrame(FramingError):
    """The body ended inside a message."""


class MalformedFrame(FramingError):
    """A message whose lengths or headers are not the framing's."""


class EventStreamMessage:
    """One decoded message.

    Attributes:
        headers: Every header, by name (read-only: messages with the same header block share
            one reading of it).
        payload: The payload bytes.
        message_type: ``:message-type`` (``event``, ``exception``, ``error``), ``""`` if absent.
        event: What the message is: ``:event-type`` for an event, ``:exception-type`` for an
            exception, ``:error-code`` for an error (``""`` if absent).
        data: The payload as text (UTF-8, invalid bytes replaced), for the wire decoder.
    """

    __slots__ = ("data", "event", "headers", "message_type", "payload")

    def __init__(
        self,
        headers: Mapping[str, HeaderValue],
        payload: bytes,
        kind: tuple[str, str] | None = None,
    ) -> None:
        """``kind``: ``(message_type, event)`` when already read from these headers."""
        self.headers = headers
        self.payload = payload
        self.message_type, self.event = _kind(headers) if kind is None else kind
        self.data = payload.decode("utf-8", "replace")

    def __repr__(self) -> str:
        return (
            f"EventStreamMessage(message_type={self.message_type!r}, event={self.event!r}, "
            f"data={self.data[:60]!r})"
        )


def _kind(headers: Mapping[str, HeaderValue]) -> tuple[str, str]:
    """``(message_type, event)`` of a message with these headers."""
    kind = headers.get(":message-type")
    message_type = kind if isinstance(kind, str) else ""
    name = headers.get(_EVENT_HEADER.get(message_type, ":event-type"))
    return message_type, name if isinstance(name, str) else ""


_EVENT_HEADER = {"exception": ":exception-type", "error": ":error-code"}


def _is_utf8(payload: bytes) -> bool:
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class EventStreamDecoder:
    """Incremental decoder: ``feed(bytes)`` returns the messages completed by those bytes."""

    __slots__ = ("_buf", "_error", "_headers", "_limit", "_need", "tainted")

    def __init__(self, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self._limit = max_event_size
        self.tainted: list[EventStreamMessage] = []  # payloads that were not UTF-8
        self._buf = bytearray()
        self._need: int | None = None  # total length of the message whose prelude was read
        # A failure found after good messages in the same chunk: raised on the next call, so
        # the good ones are delivered first, however the bytes were chunked.
        self._error: FramingError | None = None
        # Header blocks already parsed, by their bytes: a stream repeats a handful of them
        # (one per event type) thousands of times, and parsing is a pure function of the bytes.
        self._headers: dict[bytes, _Block] = {}

    def feed(self, chunk: bytes) -> list[EventStreamMessage]:
        """Consume ``chunk`` and return the messages it completed (possibly none).

        Raises:
            EventTooLarge: a prelude announces a message over ``max_event_size``.
            ChecksumMismatch: a prelude or message CRC is wrong.
            MalformedFrame: the lengths or headers are not the framing's.
        """
        self._raise_pending()
        if not chunk:
            return []
        buf = self._buf
        buf += chunk
        out: list[EventStreamMessage] = []
        pos, end = 0, len(buf)
        seen = self._headers
        # One view of the buffer for the whole call, released before the buffer is resized.
        # Each message is read inline, prelude and all: a stream has tens of thousands of
        # messages, each one pass of this loop.
        view = memoryview(buf)
        failure: FramingError | None = None
        try:
            while end - pos >= _PRELUDE:
                total = self._need
                if total is None:
                    total, headers_length, crc = _unpack_prelude(buf, pos)
                    if _crc32(view[pos : pos + 8]) != crc:
                        raise ChecksumMismatch("An event-stream prelude failed its CRC32 check")
                    if total < _MINIMUM or headers_length > total - _MINIMUM:
                        raise MalformedFrame(
                            "An event-stream prelude is inconsistent "
                            f"(total {total}, headers {headers_length})"
                        )
                    if total > self._limit:
                        raise EventTooLarge(total, self._limit, "Event-stream message")
                    self._need = total
                if end - pos < total:
                    break
                # The message, read in place: its CRC over the view, then only its header
                # block and payload copied out; a header block seen before is not parsed again.
                stop = pos + total - 4
                (crc,) = _unpack_u32(buf, stop)
                if _crc32(view[pos:stop]) != crc:
                    raise ChecksumMismatch("An event-stream message failed its CRC32 check")
                (headers_length,) = _unpack_u32(buf, pos + 4)
                headers_end = pos + _PRELUDE + headers_length
                block = bytes(view[pos + _PRELUDE : headers_end])
                known = seen.get(block)
                if known is None:
                    known = _block(block, seen)
                message = EventStreamMessage(known[0], bytes(view[headers_end:stop]), known[1])
                if "\ufffd" in message.data and not _is_utf8(message.payload):
                    self.tainted.append(message)  # the pipeline reports invalid_unicode
                out.append(message)
                pos += total
                self._need = None
        except FramingError as exc:
            failure = exc
        finally:
            view.release()  # the buffer is resized next: no export may outlive this call
        if failure is not None:
            # Drop what was buffered: the memory is released at once, and nothing after a
            # broken message can be trusted to be framed where it claims.
            buf.clear()
            self._need = None
            if not out:
                raise failure
            self._error = failure
            return out
        del buf[:pos]
        return out

    def flush(self) -> list[EventStreamMessage]:
        """End of input: nothing may be left over.

        Raises:
            TruncatedFrame: the body ended inside a message.
        """
        self._raise_pending()
        if not self._buf:
            return []
        held, need = len(self._buf), self._need
        self._buf.clear()
        self._need = None
        of = f"{need}" if need is not None else "at least 16"
        raise TruncatedFrame(
            f"The body ended inside an event-stream message ({held} of {of} bytes)"
        )

    def _raise_pending(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error


_HEADER_BLOCKS = 32
"""Distinct header blocks a decoder keeps parsed (a Converse stream has fewer than ten)."""


_Block = tuple[Mapping[str, HeaderValue], tuple[str, str]]
"""A header block parsed: the headers (read-only), and the message type and event
(:func:`_kind`)."""


def _block(block: bytes, seen: dict[bytes, _Block]) -> _Block:
    """A header block's reading, kept in ``seen`` (up to :data:`_HEADER_BLOCKS` of them)."""
    headers = _headers(block)
    known = (MappingProxyType(headers), _kind(headers))
    if len(seen) < _HEADER_BLOCKS:
        seen[block] = known
    return known


def _headers(block: bytes) -> dict[str, HeaderValue]:
    out: dict[str, HeaderValue] = {}
    pos, end, frame = 0, len(block), block

    def take(count: int) -> bytes:
        nonlocal pos
        if pos + count > end:
            # The CRC matched, so these are the sender's bytes: headers it did not frame right.
            raise MalformedFrame("An event-stream header runs past the header block")
        raw = frame[pos : pos + count]
        pos += count
        return raw

    while pos < end:
        try:
            name = take(take(1)[0]).decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedFrame("An event-stream header name is not UTF-8") from None
        kind = take(1)[0]
        value: HeaderValue
        if kind in (0, 1):
            value = kind == 0
        elif kind in _INTS:
            width, fmt = _INTS[kind]
            (value,) = struct.unpack(fmt, take(width))
        elif kind in (6, 7):
            (length,) = struct.unpack(">H", take(2))
            raw = take(length)
            try:
                value = raw.decode("utf-8") if kind == 7 else raw
            except UnicodeDecodeError:
                raise MalformedFrame(f"The header {name!r} is not UTF-8") from None
        elif kind == 9:
            value = take(16)
        else:
            raise MalformedFrame(f"The event-stream header {name!r} has an unknown type {kind}")
        out[name] = value
    return out
