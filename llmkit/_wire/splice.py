"""Splices: the decoders' fast path for a stream's dominant event, without decoding it whole.

A tool-call stream is tens of thousands of events that differ only in one JSON string, the
argument fragment: ``{"id":"chatcmpl-…",…,"function":{"arguments":"<fragment>"}}]},…}``. A
:class:`Splice` is such an event with that string cut out: the text before it (``prefix``,
through the opening quote), the text after it (``suffix``), and the decoder's ``tag`` for what
the event means (a slot, an item). An event that starts with the prefix and ends with the suffix,
with exactly one JSON string literal between them, is the same JSON document as the event the
splice was learnt from with another string in that place: JSON's grammar is context-free, so
what comes before and after the literal parses the same whatever the literal holds. The literal
is decoded by ``json``'s own C string scanner (strict, as ``json.loads`` is), so escapes,
surrogates, control characters and errors are exactly ``json.loads``'s; anything else — another
prefix, an unterminated or non-string value, trailing bytes — is not a match and takes the
decoder's full path.

A splice is learnt (:func:`learn`) from an event that went through the full path, and only when
the decoder's ``check`` says the event meant nothing but "this string for this tag"; a sentinel
string put in the literal's place must then be read back by ``check`` from the same place, with
the same tag, which proves the cut is where the decoder reads the value (not an equal string
elsewhere in the event). ``ignored`` names fields the decoder never reads and providers change
in every event — OpenAI's ``obfuscation`` padding and Responses' ``sequence_number``, Bedrock's
``"p"`` padding: their values are holes too (any JSON string, any non-negative JSON integer,
checked as strictly), given other values in the same probe.

A decoder keeps a splice only until its next full-path event, so every state change a full-path
event makes (a block opened or closed) ends the splice: a match means the same state as when the
splice was learnt.
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from typing import Any

from .._json.scanner import loads

__all__ = ["BUDGET", "Splice", "learn"]

# json's own string scanner (C where available), strict as json.loads is; typeshed omits it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

BUDGET = 8
"""Splices a decoder may learn that never match (a field that changes in every event and is not
among the ignored ones: chunk ids on some servers, QUIRKS A9) before it stops learning: past
that, every event takes the full path without the cost of learning (one more decode each)."""

_SENTINEL = "\x00llmkit splice \u2028\U0001f9e9\\"
_SENTINEL_LITERAL = json.dumps(_SENTINEL)


class Splice:
    """One learnt event shape: ``head``, then holes each followed by a constant text; one hole
    is the value (a JSON string), the others fields the decoder never reads (a JSON string, or
    a non-negative JSON integer)."""

    __slots__ = ("_at", "_head", "_holes", "_pattern", "_simple", "_suffix", "_tail", "hits", "tag")

    def __init__(self, head: str, steps: list[tuple[str, str]], tag: Any) -> None:
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
        self.tag = tag
        self.hits = 0

    def match(self, data: str) -> str | None:
        """The string in ``data``'s value literal when ``data`` has this shape, else ``None``."""
        if not data.startswith(self._head) or not data.endswith(self._suffix):
            return None
        if not self._simple:
            return self._match_steps(data)
        try:
            value, end = _scanstring(data, self._at)
        except ValueError:  # unterminated, a raw control character, a bad escape
            return None
        if end != len(data) - self._tail:
            return None
        self.hits += 1
        return value

    def _match_steps(self, data: str) -> str | None:
        assert self._pattern is not None
        # Between the head and the suffix, which match() has checked already.
        m = self._pattern.fullmatch(data, self._holes, len(data) - self._tail)
        if m is None:
            return None
        value = m.group(1)
        if "\\" in value:  # escapes (valid ones: the pattern says so) decoded as json does
            value = _scanstring(data, m.start(1))[0]
        self.hits += 1
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


def learn(data: str, event: Any, check: Check, ignored: tuple[str, ...] = ()) -> Splice | None:
    """A splice of ``data`` (decoded as ``event``), or ``None`` when ``check`` refuses it or
    the value's place cannot be proved. ``ignored``: keys of fields the decoder never reads,
    whose string or integer values may then differ between matching events."""
    spot = check(event)
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
    return Splice(data[: holes[0][0]], steps, tag)


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
