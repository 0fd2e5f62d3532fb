"""Content-coded response bodies, decoded in bounded pieces (no I/O).

httpx decodes a gzip or deflate body one network read at a time, each read whole: 60 KiB of a
gzip bomb become hundreds of MiB in one call, before any limit can look at them. An
:class:`Inflater` decodes the same bytes in pieces of at most :data:`PIECE` bytes, lazily, so
what reads them (the SSE framer, the event-stream framer, a whole body's :class:`Bounded`)
bounds memory by the decoded bytes, with the limit the caller controls (``max_event_size``).
llmkit's requests ask for no coding; a body coded anyway with another coding (``br``, when the
``brotli`` package is installed) is left to httpx's decoder, each read still counted.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx

__all__ = ["PIECE", "BodyReader", "Bounded", "Inflater", "coding", "inflater"]

PIECE = 64 * 1024
"""The most decoded bytes one step of an :class:`Inflater` produces."""

_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class Inflater:
    """A gzip or deflate body, decoded lazily in pieces of at most :data:`PIECE` bytes."""

    __slots__ = ("_coding", "_started", "_z")

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._z = zlib.decompressobj(_WBITS[coding])
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data`` (raises ``httpx.DecodingError`` on bad bytes)."""
        if not self._started and data and self._coding == "deflate":
            self._started = True
            try:  # "deflate" is zlib-wrapped by the RFC, raw deflate by many servers
                zlib.decompressobj(zlib.MAX_WBITS).decompress(data[:2])
            except zlib.error:
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
        z = self._z
        while data and not z.eof:
            try:
                out = z.decompress(data, PIECE)
            except zlib.error as exc:
                raise httpx.DecodingError(f"The {self._coding} body is corrupt: {exc}") from exc
            data = z.unconsumed_tail
            if out:
                yield out
            elif data:  # no progress: nothing more will come of these bytes
                break

    def flush(self) -> Iterator[bytes]:
        """What the decoder still holds at the end of the body."""
        try:
            out = self._z.flush()
        except zlib.error as exc:  # pragma: no cover - zlib's flush hardly ever raises
            raise httpx.DecodingError(f"The {self._coding} body is corrupt: {exc}") from exc
        for start in range(0, len(out), PIECE):
            yield out[start : start + PIECE]


def coding(response: httpx.Response) -> str:
    """``response``'s content coding: ``""`` (none), ``"bounded"`` (gzip or deflate: an
    :class:`Inflater` decodes it) or ``"other"`` (left to httpx)."""
    name = response.headers.get("content-encoding", "").strip().lower()
    if name in ("", "identity"):
        return ""
    return "bounded" if name in _WBITS else "other"


def inflater(response: httpx.Response) -> Inflater | None:
    """The bounded decoder of ``response``'s gzip or deflate body; ``None`` for any other."""
    name = response.headers.get("content-encoding", "").strip().lower()
    return Inflater(name) if name in _WBITS else None


class Bounded:
    """A whole body collected up to ``limit`` decoded bytes."""

    __slots__ = ("limit", "parts", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> bool:
        """Keep ``piece``; false once the body went over the limit (what is kept stops at
        the limit: a caller may still read an error body's beginning)."""
        room = self.limit - self.size
        self.size += len(piece)
        if room > 0:
            self.parts.append(piece[:room])
        return self.size <= self.limit

    def body(self) -> bytes:
        return b"".join(self.parts)


class BodyReader:
    """A whole body read up to ``limit`` decoded bytes: the pumps feed it raw reads until
    :meth:`feed` says it has enough (the body ended, or went over the limit)."""

    __slots__ = ("_inflater", "kept")

    def __init__(self, response: httpx.Response, limit: int) -> None:
        self._inflater = inflater(response)
        self.kept = Bounded(limit)

    def feed(self, raw: bytes) -> bool:
        """Keep what ``raw`` decodes to; false once over the limit (stop reading)."""
        pieces = self._inflater.feed(raw) if self._inflater is not None else (raw,)
        add = self.kept.add
        return all(add(piece) for piece in pieces)  # stops decoding at the limit

    def end(self) -> bool:
        """The body ended; false if it went over the limit."""
        if self._inflater is not None:
            add = self.kept.add
            return all(add(piece) for piece in self._inflater.flush())
        return self.kept.size <= self.kept.limit

    @property
    def over(self) -> bool:
        return self.kept.size > self.kept.limit

    def body(self) -> bytes:
        return self.kept.body()
