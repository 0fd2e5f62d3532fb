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
        "_started",
        "_taint",
        "tainted",
    )

    def __init__(self, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self._limit = max_event_size
        self._pending: list[bytes] = []  # bytes of an unterminated line
        self._pending_len = 0
        self._cr = False  # the previous chunk ended with CR: a leading LF is its CRLF pair
        self._event = ""
        self._data: list[str] = []
        self._data_len = 0
        self._started = False  # a leading byte order mark is skipped, as the SSE spec says
        self._head = b""
        # Events holding bytes that were not UTF-8 (their U+FFFD a replacement): the pipeline
        # reports them where they are decoded. ``_taint``: the event in progress holds some.
        self._taint = False
        self.tainted: list[SSEEvent] = []

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
        end = chunk.rfind(b"\n")  # the last line break: an LF, or a CR after it
        cr = chunk.rfind(b"\r", end + 1)
        if cr > end:
            end = cr
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
        if self._taint:  # the event in progress held bytes that were not UTF-8: marked there
            return self._checked(head)
        try:  # bytes that are not UTF-8 take the line-by-line path
            if 13 in head:  # a CR (an int is a memchr; a bytes needle first fails as an int)
                return self._lines(_split(head))
            text = head.decode("utf-8")  # _split's LF case, inlined
        except UnicodeDecodeError:
            return self._checked(head)
        lines = text.split("\n")
        lines.pop()  # head ends with a line break: the last item is empty
        return self._lines(lines)

    def _checked(self, raw: bytes) -> list[SSEEvent]:
        """Lines some of which are not UTF-8 (or following such a line in an event not yet
        complete), one by one: the event holding such a line is marked (``tainted``) when it
        completes, however the bytes were chunked."""
        out: list[SSEEvent] = []
        for raw_line in raw.splitlines():
            line = raw_line.decode("utf-8", "replace")
            events = self._lines([line])
            if events and self._taint:
                self._mark(events[0])
            out.extend(events)
            if "\ufffd" in line and not _utf8(raw_line):
                self._taint = True
        return out

    def _mark(self, event: SSEEvent) -> None:
        self._taint = False
        self.tainted.append(event)

    def flush(self) -> list[SSEEvent]:
        """End of input: complete a final unterminated line and a final undelimited event.

        The SSE spec discards an event not followed by a blank line; llmkit keeps its data
        instead (nothing received is lost) and lets the wire decoder judge it.
        """
        if not self._started and self._head:  # fewer than 3 bytes in all: not a BOM
            self._pending = [self._head]
            self._head = b""
        raw = b"".join(self._pending)
        self._pending = []
        self._pending_len = 0
        if raw and not _utf8(raw):
            return self._checked(raw + b"\n\n")
        events = self._lines(_split(raw + b"\n\n") if raw else [""])
        if self._taint and events:
            self._mark(events[0])
        return events

    def _overflow(self, size: int) -> None:
        # Drop what was buffered before raising: the memory is released at once, and a
        # caller that keeps feeding does not grow it again from where it stopped.
        self._pending = []
        self._pending_len = 0
        self._data = []
        self._data_len = 0
        raise EventTooLarge(size, self._limit)

    def _lines(self, lines: list[str]) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        # The event in progress in locals (one pass per line of the stream), put back at the
        # end; _overflow resets what it needs itself.
        event, data, size, limit = self._event, self._data, self._data_len, self._limit
        for line in lines:
            if not line:
                if data:
                    out.append(
                        SSEEvent(event or "message", data[0] if len(data) == 1 else "\n".join(data))
                    )
                    data = []
                    size = 0
                event = ""
                continue
            # The two lines of nearly every event first, each by one test: "data: " and
            # "event: " with the single space the SSE spec strips.
            if line.startswith("data: "):
                value = line[6:]
            elif line.startswith("event: "):
                event = line[7:]
                continue
            elif line.startswith("data:"):
                value = line[5:]
            elif line[0] == ":":
                continue  # comment / keepalive (QUIRKS A3)
            else:
                name, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if name == "event":
                    event = value
                elif name == "data":  # "data" with no colon: an empty data line
                    data.append(value)
                # "id" and "retry" are not used by any LLM wire API; other fields are ignored
                # as the SSE spec requires.
                continue
            data.append(value)
            size += len(value)
            if size > limit:
                self._overflow(size)
        self._event, self._data, self._data_len = event, data, size
        return out


def _utf8(raw: bytes) -> bool:
    """Whether ``raw`` is UTF-8 (its U+FFFD, if any, were sent as such)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _split(raw: bytes) -> list[str]:
    """The lines of ``raw`` (which ends with a line break), without their breaks: CRLF, LF or
    CR, the SSE spec's three. ``bytes.splitlines`` breaks at exactly those (``str.splitlines``
    would also break at U+2028 and others, which a JSON string may hold raw) and no UTF-8
    sequence holds a CR or LF byte, so each line decodes alone; for a CRLF stream (Gemini's)
    this is half the cost of two ``str.replace`` and a split. ``UnicodeDecodeError`` when
    ``raw`` is not UTF-8."""
    if 13 in raw:  # a CR
        return [line.decode("utf-8") if line else "" for line in raw.splitlines()]
    lines = raw.decode("utf-8").split("\n")
    lines.pop()  # raw ends with a line break: the last item is empty
    return lines
