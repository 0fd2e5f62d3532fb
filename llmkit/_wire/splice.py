"""The splice mechanism: the decoders' fast path for a stream's dominant frame, behind one boundary.

A tool-call stream is tens of thousands of frames that differ only in one JSON string, the
argument fragment: ``{"id":"chatcmpl-…",…,"function":{"arguments":"<fragment>"}}]},…}``.
:class:`SplicedDecoder` is the state machine every wire decoder runs on: it owns ``feed``, and a
wire supplies only its full path (``_full_path``, the plain reference: every frame can take it),
which of its frames to learn from (what ``_full_path`` returns) and its own check of what such a
frame means (``_argument_delta``). After a frame that went through the full path the decoder
may learn a *hole* from it (:meth:`SplicedDecoder._learn`): the frame's text with the part that
changes from frame to frame cut out. While the next frames fit the hole they are taken by it,
without being decoded; the first frame that does not fit ends the hole and takes the full path,
so every state change a full-path frame makes (a block opened or closed) ends the hole, and a
hole always meets the decoder in the state it was learnt in.

Two kinds of hole:

- :class:`Splice` (this module), one JSON string literal: the text before it (through the
  opening quote), the text after it, and the wire's ``tag`` for what the frame means (a slot,
  an item). A frame that starts with the one and ends with the other, with exactly one JSON
  string literal between them, is the same JSON document as the frame the splice was learnt
  from with another string in that place: JSON's grammar is context-free, so what comes before
  and after the literal parses the same whatever the literal holds. The literal is decoded by
  ``json``'s own C string scanner (strict, as ``json.loads`` is), so escapes, surrogates,
  control characters and errors are exactly ``json.loads``'s; anything else — another prefix,
  an unterminated or non-string value, trailing bytes, an empty string (what an empty fragment
  means is for each wire's full path to say, QUIRKS D3) — is not a match.
- Gemini's ``partialArgs`` fragment (:class:`llmkit._wire.gemini.template.Template`), one whole
  JSON value: Vertex streams a call's arguments as JSON-path fragments (QUIRKS D8).

A splice is learnt (:func:`learn`) only when the wire's check says the frame meant nothing but
"this string for this tag"; a sentinel string put in the literal's place must then be read back
by the check from the same place, with the same tag, which proves the cut is where the decoder
reads the value (not an equal string elsewhere in the frame). ``ignored`` names fields the
decoder never reads and providers change in every frame — OpenAI's ``obfuscation`` padding and
Responses' ``sequence_number``, Bedrock's ``"p"`` padding: their values are holes too (any JSON
string, any non-negative JSON integer, checked as strictly), given other values in the same
probe. A match is also a frame of the same kind (its ``event``) as the one learnt from.
``tests/wire/test_splice.py`` holds every wire to it: the same events and message with holes as
without them, on fuzzed streams.
"""

from __future__ import annotations

import json
import json.decoder
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from .._json.scanner import loads
from .contract import DeltaSink, Frame

__all__ = ["BUDGET", "Hole", "Splice", "SplicedDecoder", "first_alone", "learn"]

# json's own string scanner (C where available), strict as json.loads is; typeshed omits it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

BUDGET = 8
"""Holes a decoder may learn that never match (a field that changes in every frame and is not
among the ignored ones: chunk ids on some servers, QUIRKS A9) before it stops learning: past
that, every frame takes the full path without the cost of learning."""

_SENTINEL = "\x00llmkit splice \u2028\U0001f9e9\\"
_SENTINEL_LITERAL = json.dumps(_SENTINEL)


class Hole(Protocol):
    """A learnt frame shape, with what a frame of that shape means to its decoder."""

    def take(self, frame: Frame) -> bool:
        """Deliver what ``frame`` means when it has this shape (``True``); else ``False``, and
        the frame takes the full path."""
        ...


class SplicedDecoder(ABC):
    """A wire's decoder: the full path, with the splice fast path in front of it (see the
    module docstring). Subclasses supply :meth:`_full_path` and :meth:`_argument_delta` (or
    their own :meth:`_learn`), and ``IGNORED``."""

    __slots__ = ("_budget", "_hole", "_new", "_sink")

    IGNORED: ClassVar[tuple[str, ...]] = ()
    """Fields the full path never reads, whose values may differ between frames a hole takes."""

    def __init__(self, sink: DeltaSink) -> None:
        self._sink = sink
        self._hole: Hole | None = None  # the hole in use: it took the frame before this one
        self._new: Hole | None = None  # a hole learnt from the frame before, not tried yet
        self._budget = BUDGET

    def feed(self, frame: Frame) -> None:
        """One frame: taken by the hole learnt last when it fits, else the full path's. A hole
        whose first try fails took nothing: it counts against the budget (no count of what a
        hole takes, which would cost every frame it takes)."""
        hole = self._hole
        if hole is not None:
            if hole.take(frame):
                return
            self._hole = None  # a full-path frame may change what a match would mean
        else:
            hole = self._new
            if hole is not None:
                self._new = None
                if hole.take(frame):
                    self._hole = hole
                    return
                self._budget -= 1
        payload = self._full_path(frame)
        if payload is not None and self._budget > 0 and not self._sink.ended:
            self._new = self._learn(frame, payload)

    @abstractmethod
    def _full_path(self, frame: Frame) -> Any:
        """Decode ``frame`` the plain way; return its decoded payload when the frame is one a
        hole may be learnt from (the wire's argument-delta frame, as the wire recognises it),
        else ``None``."""

    def _object(self, data: str) -> dict[str, Any] | None:
        """``data`` decoded, when it is a JSON object; else ``None``, the event reported as
        skipped (an SSE event of a wire whose every event is one JSON object)."""
        try:
            decoded = loads(data)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            return decoded
        self._sink.malformed(
            "An SSE event that is not a JSON object was skipped", excerpt=data[:80]
        )
        return None

    def _argument_delta(self, payload: Any) -> tuple[Any, str] | None:
        """The wire's check: ``(tag, fragment)`` when its full path reads ``payload`` (in the
        decoder's present state) as nothing but that argument text for that tag, else
        ``None``. Every field the full path reads is checked."""
        return None

    def _learn(self, frame: Frame, payload: Any) -> Hole | None:
        """A hole for frames like ``frame`` (decoded as ``payload``): by default a
        :class:`Splice` whose matches go to ``sink.arguments(tag, fragment)``."""
        return learn(frame, payload, self._argument_delta, self._sink.arguments, self.IGNORED)


def first_alone(items: Any) -> dict[str, Any] | None:
    """The element of ``items`` when it is a list of exactly one object, whose ``index`` (if
    any) is 0: a check's reading of a response's choices or candidates, where the full path
    reads the first one and reports any other."""
    if items.__class__ is not list or len(items) != 1:
        return None
    item = items[0]
    return item if item.__class__ is dict and item.get("index", 0) == 0 else None


class Splice:
    """One learnt frame shape: ``head``, then holes each followed by a constant text; one hole
    is the value (a JSON string), the others fields the decoder never reads (a JSON string, or
    a non-negative JSON integer). A match is delivered as ``deliver(tag, value)``."""

    __slots__ = (
        "_at",
        "_deliver",
        "_event",
        "_head",
        "_holes",
        "_pattern",
        "_simple",
        "_suffix",
        "_tail",
        "_type",
        "tag",
    )

    def __init__(
        self,
        head: str,
        steps: list[tuple[str, str]],
        tag: Any,
        deliver: Callable[[Any, str], None],
        *,
        event: str = "",
        message_type: str | None = None,
    ) -> None:
        # steps: (hole kind: "value" | "string" | "integer", the text after it)
        self._simple = len(steps) == 1  # one hole, the value: the usual shape
        # What every match starts with: for the usual shape, the value literal's opening
        # quote too, and the value's first character is at ``_at``.
        self._head = head + '"' if self._simple else head
        self._holes = len(head)  # where the first hole begins
        self._at = len(head) + 1
        self._suffix = steps[-1][1]
        self._tail = len(self._suffix)
        # The others: one regular expression (compiled once per splice learnt).
        self._pattern = None if self._simple else _pattern(steps)
        # The kind of frame a match is: the learnt one's event and, where the framing has
        # one, its message type (an event-stream exception may name itself anything).
        self._event = event
        self._type = message_type
        self._deliver = deliver
        self.tag = tag

    def take(self, frame: Frame) -> bool:
        """Deliver the string in ``frame``'s value literal when ``frame`` has this shape and
        the string is not empty (``True``), else ``False``."""
        data = frame.data
        if (
            frame.event != self._event
            or not data.startswith(self._head)
            or not data.endswith(self._suffix)
        ):
            return False
        value: str | None
        if self._simple:
            try:
                value, end = _scanstring(data, self._at)
            except ValueError:  # unterminated, a raw control character, a bad escape
                return False
            if end != len(data) - self._tail:
                return False
        else:
            value = self._match_steps(data)
        if not value:
            return False
        if self._type is not None and frame.message_type != self._type:  # type: ignore[attr-defined]
            return False
        self._deliver(self.tag, value)
        return True

    def _match_steps(self, data: str) -> str | None:
        assert self._pattern is not None
        # Between the head and the suffix, which take() has checked already.
        m = self._pattern.fullmatch(data, self._holes, len(data) - self._tail)
        if m is None:
            return None
        value = m.group(1)
        if "\\" in value:  # escapes (valid ones: the pattern says so) decoded as json does
            value = _scanstring(data, m.start(1))[0]
        return value


def _pattern(steps: list[tuple[str, str]]) -> re.Pattern[str]:
    """One regular expression for what lies between the head and the suffix of a splice with
    several holes: each hole as JSON's grammar of its kind (the value's content, group 1,
    taken), each constant text between two holes as it is."""
    parts: list[str] = []
    for n, (kind, after) in enumerate(steps):
        if kind == "integer":
            parts.append(_INTEGER)
        elif kind == "value":
            parts.append(f'"({_CHARS})"')
        else:
            parts.append(f'"{_CHARS}"')
        if n + 1 < len(steps):  # the last one's text is the suffix
            parts.append(re.escape(after))
    return re.compile("".join(parts), re.DOTALL)


# A JSON string literal's content (RFC 8259: no raw quote, backslash or control character;
# the escapes json accepts) and a non-negative JSON integer, of the length an ignored counter
# has (longer ones take the full path, where json.loads decides).
_CHARS = r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*'
_INTEGER = r"(?:0|[1-9][0-9]{0,22})"


Check = Callable[[Any], "tuple[Any, str] | None"]
"""A decoder's reading of a decoded event: ``(tag, string)`` when the event means nothing but
that string for that tag (its fast path), else ``None``."""


def learn(
    frame: Frame,
    payload: Any,
    check: Check,
    deliver: Callable[[Any, str], None],
    ignored: tuple[str, ...] = (),
) -> Splice | None:
    """A splice of ``frame`` (its data decoded as ``payload``) whose matches go to
    ``deliver(tag, value)``, or ``None`` when ``check`` refuses it or the value's place cannot
    be proved. ``ignored``: keys of fields the decoder never reads, whose string or integer
    values may then differ between matching frames. A match is a frame of the same kind: the
    same ``event`` and, where the framing has one, the same ``message_type``."""
    data = frame.data
    spot = check(payload)
    if spot is None:
        return None
    tag, value = spot
    for literal in (json.dumps(value, ensure_ascii=False), json.dumps(value)):
        at = data.rfind(literal)
        if at >= 0:
            break
    else:
        return None  # the provider escaped it some other way: no splice, the full path
    holes = [(at, at + len(literal), "value")]
    for key in ignored:
        hole = _hole(data, key)
        if hole is not None:
            holes.append(hole)
    holes.sort()
    steps: list[tuple[str, str]] = []
    probe: list[str] = [data[: holes[0][0]]]
    for n, (begin, end, kind) in enumerate(holes):
        if n and begin < holes[n - 1][1]:
            return None  # overlapping holes: the value was found inside an ignored one
        after = data[end : holes[n + 1][0] if n + 1 < len(holes) else len(data)]
        if kind == "integer" and (not after or after[0].isdigit()):
            return None
        steps.append((kind, after))
        probe += [_PROBES[kind], after]
    try:
        decoded = loads("".join(probe))
    except ValueError:
        return None
    if check(decoded) != (tag, _SENTINEL):
        return None
    framing: str | None = getattr(frame, "message_type", None)  # event-stream frames have one
    return Splice(data[: holes[0][0]], steps, tag, deliver, event=frame.event, message_type=framing)


_PROBES = {
    "value": _SENTINEL_LITERAL,
    "string": json.dumps("\\probe\u2028", ensure_ascii=False),
    "integer": "31415926535",
}


def _hole(data: str, key: str) -> tuple[int, int, str] | None:
    """Where the value of the one ``"key":`` field of ``data`` lies, and its kind; ``None``
    when there is no such field, more than one, or its value is neither kind."""
    name = json.dumps(key) + ":"
    at = data.find(name)
    if at < 0 or data.find(name, at + 1) >= 0:
        return None
    start = at + len(name)
    if data[start : start + 1] == '"':
        try:
            _, end = _scanstring(data, start + 1)
        except ValueError:
            return None
        return start, end, "string"
    end = start
    while end < len(data) and "0" <= data[end] <= "9":
        end += 1
    return (start, end, "integer") if end > start else None
