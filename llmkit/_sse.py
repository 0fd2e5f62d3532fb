"""A sans-I/O Server-Sent Events decoder over raw bytes.

Bytes in, :class:`SSEEvent` out; no I/O, so the same decoder serves the sync and
async pumps and ``parse_stream``. It works on bytes rather than text because:

- lines are split on CR, LF and CRLF only, never on U+2028/U+2029/U+0085 (QUIRKS A2), and a
  CRLF split across two network chunks is one line break, not two;
- text is decoded only for complete lines, so a multi-byte character split across chunks is
  never mangled (QUIRKS A1);
- memory is bounded: a line or event larger than ``max_event_size`` raises
  :class:`EventTooLarge` instead of growing without end, and a long line arriving in many
  chunks is joined once, not re-copied per chunk.

Comment lines (``: OPENROUTER PROCESSING``, QUIRKS A3) are skipped.

Nearly every event an LLM sends is one ``data:`` line, maybe after one ``event:`` line: the text
of whole lines is split at blank lines, and an event of that shape is sliced out of its block
whole; any other block (comments, ``id``, several data lines, an event begun in an earlier
read) goes line by line, so the lines seen, the events and the ``max_event_size`` checks are the
same either way (``tests/test_sse.py`` compares the two).
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "EventTooLarge", "FramingError", "SSEDecoder", "SSEEvent"]

DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


class FramingError(Exception):
    """The bytes of a streamed body cannot be framed any further (a frame decoder's typed
    failure: too large, a bad checksum, cut in the middle); the stream ends with an error."""


class EventTooLarge(FramingError):
    """A single SSE line or event (or an event-stream frame) exceeded ``max_event_size``."""

    def __init__(self, size: int, limit: int, what: str = "SSE event") -> None:
        super().__init__(f"{what} of at least {size} bytes exceeds the limit of {limit} bytes")
        self.size = size
        self.limit = limit


class SSEEvent:
    """One event: its ``event`` field (``"message"`` when it had none, as the SSE spec says)
    and its data lines joined with LF. A plain slotted object: streams have tens of thousands."""

    __slots__ = ("data", "event")

    def __init__(self, event: str, data: str) -> None:
        self.event = event
        self.data = data

    def __repr__(self) -> str:
        return f"SSEEvent(event={self.event!r}, data={self.data!r})"


class SSEDecoder:
    """Incremental SSE decoder: ``feed(bytes)`` returns the events completed by those bytes."""

    __slots__ = (
        "_cr",
        "_data",
        "_data_len",
        "_event",
        "_head",
        "_limit",
        "_pending",
        "_pending_len",
        "_rest",
        "_started",
    )

    def __init__(self, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self._limit = max_event_size
        self._pending: list[bytes] = []  # bytes of an unterminated line
        self._pending_len = 0
        self._rest = ""  # a complete event: line, its event's data: line still to come
        self._cr = False  # the previous chunk ended with CR: a leading LF is its CRLF pair
        self._event = ""
        self._data: list[str] = []
        self._data_len = 0
        self._started = False  # a leading byte order mark is skipped, as the SSE spec says
        self._head = b""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume ``chunk`` and return the events it completed (possibly none)."""
        if not chunk:
            return []  # an empty read must not end a pending CR's chance to pair with LF
        if not self._started:
            # The BOM may itself arrive split across reads: hold the first bytes until known.
            head = self._head + chunk
            if len(head) < 3 and _BOM.startswith(head):
                self._head = head
                return []
            self._started = True
            self._head = b""
            chunk = head[3:] if head.startswith(_BOM) else head
            if not chunk:
                return []
        if self._cr:
            self._cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        if end < 0:
            if chunk:
                self._pending.append(chunk)
                self._pending_len += len(chunk)
                if self._pending_len + self._data_len > self._limit:
                    self._overflow(self._pending_len + self._data_len)
            return []
        head = chunk[: end + 1]
        if self._pending:
            self._pending.append(head)
            head = b"".join(self._pending)
            self._pending = []
            self._pending_len = 0
        tail = chunk[end + 1 :]
        if tail:
            self._pending.append(tail)
            self._pending_len = len(tail)
        elif chunk[end] == 13:  # ends with CR
            self._cr = True
        return self._lines(head.decode("utf-8", "replace"))

    def flush(self) -> list[SSEEvent]:
        """End of input: complete a final unterminated line and a final undelimited event.

        The SSE spec discards an event not followed by a blank line; llmkit keeps its data
        instead (nothing received is lost) and lets the wire decoder judge it.
        """
        if not self._started and self._head:  # fewer than 3 bytes in all: not a BOM
            self._pending = [self._head]
            self._head = b""
        text = b"".join(self._pending).decode("utf-8", "replace")
        self._pending = []
        self._pending_len = 0
        events = self._lines(text + "\n\n") if text else self._lines("\n")
        return events

    def _overflow(self, size: int) -> None:
        # Drop what was buffered before raising: the memory is released at once, and a
        # caller that keeps feeding does not grow it again from where it stopped.
        self._pending = []
        self._pending_len = 0
        self._data = []
        self._data_len = 0
        raise EventTooLarge(size, self._limit)

    def _lines(self, text: str) -> list[SSEEvent]:
        """The events completed by ``text``: whole lines, its last one ended."""
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if self._rest:
            text = self._rest + text
            self._rest = ""
        # Split at blank lines: each block but the last is an event's lines, then its blank
        # line. Nearly every event an LLM sends is one ``data:`` line, maybe after one
        # ``event:`` line: those are read from the block whole; any other block goes line by
        # line, so the lines seen are exactly ``text.split("\n")``'s either way.
        blocks = text.split("\n\n")
        rest = blocks.pop()  # complete lines of an event not ended yet ("" when none)
        out: list[SSEEvent] = []
        limit = self._limit
        first = 0
        if blocks and (self._data or self._event):  # the end of an event already begun
            self._each(blocks[0].split("\n"), out)
            self._each(_BLANK, out)
            first = 1
        # (Slices and ``in`` here, not startswith/find: those parse their arguments in C at a
        # cost that shows per event.)
        for block in blocks[first:] if first else blocks:
            if len(block) <= limit:
                if block[:6] == "data: ":
                    if "\n" not in block:
                        out.append(SSEEvent("message", block[6:]))
                        continue
                elif block[:7] == "event: ":
                    event, _, line = block.partition("\n")
                    if line[:6] == "data: " and "\n" not in line:
                        out.append(SSEEvent(event[7:] or "message", line[6:]))
                        continue
            self._each(block.split("\n"), out)
            self._each(_BLANK, out)
        if rest[:7] == "event: " and "\n" not in rest[:-1]:
            # An event: line whose data: line has not arrived: kept as text, so that the event
            # is read whole next time (the line-by-line path would only have set _event).
            self._rest = rest
        elif rest:
            lines = rest.split("\n")
            lines.pop()  # rest ends with a line break: the last item is empty
            self._each(lines, out)
        return out

    def _each(self, lines: list[str], out: list[SSEEvent]) -> None:
        """Line by line: any field, comments, several data lines."""
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append(
                        SSEEvent(
                            self._event or "message",
                            data[0] if len(data) == 1 else "\n".join(data),
                        )
                    )
                    data = self._data = []
                    self._data_len = 0
                self._event = ""
                continue
            if line.startswith("data:"):
                value = line[6:] if line.startswith("data: ") else line[5:]
                data.append(value)
                self._data_len += len(value)
                if self._data_len > self._limit:
                    self._overflow(self._data_len)
            elif line[0] == ":":
                continue  # comment / keepalive (QUIRKS A3)
            else:
                name, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if name == "event":
                    self._event = value
                elif name == "data":  # "data" with no colon: an empty data line
                    data.append(value)
                # "id" and "retry" are not used by any LLM wire API; other fields are ignored
                # as the SSE spec requires.


_BLANK = [""]
