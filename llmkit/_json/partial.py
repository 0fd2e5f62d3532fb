"""Incremental, linear-time parsing of a tool call's streamed JSON arguments.

Providers stream a tool call's arguments as many small text deltas (often 4-16 characters, tens
of thousands of them for a large file edit), and a streaming UI wants a best-effort value after
every delta. Re-parsing the whole buffer per delta is quadratic; this module is not.

Design:

* **Lazy.** :meth:`PartialJSON.feed` only appends the delta to a list. The parser advances when a
  result is asked for (:meth:`~PartialJSON.snapshot`, :meth:`~PartialJSON.is_complete_value`,
  :meth:`~PartialJSON.finish`) and then consumes only the text fed since the last time.
* **State machine.** The parser keeps the open containers and the state of the token in
  progress (a string, with a pending escape and a held-back high surrogate; a number's
  characters; a literal's matched length), so a token may be split across deltas at any
  character. Every character is examined once, so parsing is O(n) over a call however the text
  is split (:mod:`.machine`).
* **Steps at C speed.** The common steps are one C-level call each, not a turn of the state
  machine per character: the string value in progress, to its closing quote or the end of the
  delta, by ``str`` tests and ``json``'s own string scanner (so escapes decode exactly as
  ``json.loads`` decodes them); a whole ``, "key": "value...`` (a member with the start of
  its value), ``, {`` and the like, each one regex match. Only the unusual (a ``\\u`` escape
  that may be half of a surrogate pair, a raw control character, a token cut between deltas)
  goes a token or a character at a time.
* **The value is the snapshot.** The parser builds the value it hands out directly: finished
  values are stored once in their container and shared by every later snapshot and the final
  value; the open containers on the current path and the string in progress in them are
  updated in place, and a snapshot is the outermost open container itself (the very same
  object when nothing changed). Handing one out costs nothing.
* **Nothing a caller holds ever changes.** Before the first change after a snapshot was handed
  out, the open path is copied, shallow (closed values are shared, never copied), and a held
  string is copied by the interpreter's own rule (``+=`` extends a string in place only when
  nothing else refers to it) (:mod:`.ownership`). Where ``sys.getrefcount`` can be relied on
  (CPython with the GIL, checked at import) only the containers somebody else holds are
  copied. Callers may keep old snapshots; they must treat them as read-only (completed
  sub-values are shared).
* **Complexity.** Parsing is linear in the text length. A read costs at most one copy of the
  open path, O(depth + members of the open containers), never the size of what is finished:
  linear over a call unless an open list or object is wide. With reference counts, a caller
  who drops each snapshot pays nothing for it (O(delta + depth) per read, however wide the
  open containers); a caller who keeps each snapshot pays the open path's copy per read on
  every interpreter: a wide open list read and kept on every delta is the one quadratic case,
  inherent to plain ``list`` snapshots that never change (docs/streaming.md, "Keeping
  snapshots").
* **finish()** first tries ``json.loads`` (C speed) on the whole text; only when that fails does
  it run (or continue) the incremental parser to classify and recover.

Snapshot rules ("best effort, never an invented value"): a dangling key, colon or comma is
dropped; a string in progress is kept with its escapes decoded, except an incomplete escape and a
high surrogate still waiting for its pair; a number at the very end is left out until a delimiter
proves it complete (``12`` may become ``123``), as is an incomplete literal (``tr``); open
containers are included with what they hold so far; before any value the snapshot is ``None``.

Repairs (the complete list; nothing else is repaired, and nothing is ever invented):

* ``control_character_escaped`` -- a raw U+0000-U+001F character inside a string is taken as if
  it had been escaped (the value contains that character, as ``json.loads(strict=False)``).
* ``trailing_comma_removed`` -- a comma directly before ``}`` or ``]`` is ignored.
* ``double_encoded`` -- the whole text is a JSON string whose content is strict JSON of an
  object; that object is the value.
* ``truncated`` -- the text ends inside the top-level object; the value follows the snapshot rules
  (open containers and strings closed, dangling key/colon/comma and trailing number dropped).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from .machine import TOK_NUMBER, TOK_STRING, TOP_DONE, Machine, decode_number

__all__ = ["ParseResult", "PartialJSON", "parse_arguments", "parse_partial"]

# JSON whitespace is exactly these four characters (RFC 8259).
_WS = " \t\n\r"
_WS_RUN = re.compile(r"[ \t\n\r]*")
_DOUBLE = "double_encoded"
_TRUNCATED = "truncated"


@dataclass(frozen=True, slots=True)
class ParseResult:
    """The final classification of a tool call's argument text.

    Attributes:
        value: The arguments; ``{}`` when ``status`` is ``"invalid"``.
        status: ``"complete"`` (strict JSON of an object, or empty text), ``"recovered"`` (see
            ``mode`` and ``repairs``) or ``"invalid"``.
        mode: Only when ``status == "recovered"``: ``"repaired"`` (the whole value is there) or
            ``"partial"`` (the text was truncated; ``value`` holds what was complete).
        repairs: The repairs applied, in order of first occurrence, ``"double_encoded"`` and
            ``"truncated"`` last.
        error: A short human-readable reason when the status is not ``"complete"``.
        position: Character offset of the first error (or first repair), when there is one.
    """

    value: dict[str, Any]
    status: Literal["complete", "recovered", "invalid"]
    mode: Literal["repaired", "partial"] | None = None
    repairs: tuple[str, ...] = ()
    error: str | None = None
    position: int | None = None


def _reject_constant(name: str) -> Any:
    # json.loads accepts NaN/Infinity/-Infinity by default; they are not JSON.
    raise ValueError(f"{name} is not valid JSON")


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _context(raw: str, pos: int) -> str:
    # At most 40 characters of context, so an error message never carries a huge excerpt.
    excerpt = repr(raw[max(0, pos - 20) : pos + 20])
    return excerpt if len(excerpt) <= 80 else excerpt[:77] + "..."


def _first_non_ws(raw: str) -> int:
    m = _WS_RUN.match(raw)
    return m.end() if m is not None else 0


def _invalid(error: str, position: int | None) -> ParseResult:
    return ParseResult(value={}, status="invalid", error=error, position=position)


class PartialJSON(Machine):
    """Incremental parser for one tool call's argument text.

    Feed the deltas as they arrive; ask for :meth:`snapshot` as often as needed (each character
    is parsed once, however often it is called); call :meth:`finish` at the end.

    Example:
        >>> p = PartialJSON()
        >>> p.feed('{"path": "a.py", "ed')
        >>> p.snapshot()
        {'path': 'a.py'}
        >>> p.feed('its": [1, 2]}')
        >>> p.finish().status
        'complete'
    """

    __slots__ = ("_late", "_late_at", "_parsed", "_raw", "_result", "deltas")

    def __init__(self) -> None:
        super().__init__()
        # Every piece of text fed, in order. Appending to it is feeding (the assembler's hot
        # path does that, without a call): nothing here caches anything it would invalidate.
        self.deltas: list[str] = []
        self._parsed = 0  # how many of them the state machine has taken
        self._raw: tuple[int, str] = (0, "")  # the join of the first n deltas, kept
        self._result: tuple[int, ParseResult] | None = None  # finish() of the first n deltas
        self._late: PartialJSON | None = None  # a second parser, for values read late
        self._late_at = 0  # deltas fed to it

    # ----------------------------------------------------------------------------- public API

    def feed(self, text: str) -> None:
        """Append a delta of argument text. O(1): parsing is deferred.

        Args:
            text: The next piece of the arguments' text.

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        if not isinstance(text, str):
            raise TypeError(f"feed() takes a str, not {type(text).__name__}")
        if text:
            self.deltas.append(text)

    def snapshot_after(self, text: str) -> Any:
        """``feed(text)`` then :meth:`snapshot`, in one step."""
        deltas = self.deltas
        if text:
            deltas.append(text)
        return self.snapshot_at(len(deltas))

    @property
    def parsed(self) -> int:
        """How many of the deltas fed the parser has taken (it takes them when asked)."""
        return self._parsed

    def snapshot_at(self, k: int) -> Any:
        """The value after the first ``k`` deltas fed (see :meth:`snapshot`).

        The parser takes deltas only when a value is asked for, and only up to the delta asked
        about: reading every delta's value in order — on time, or late because the events of
        one network read are decoded before the caller sees them, or after the stream —
        parses each delta once. Reading an earlier delta than the parser has reached uses a
        second parser, fed from the start (or on from where it stopped, if reads go forward
        again): correct in any order, linear when reads go forward.
        """
        parsed = self._parsed
        if k == parsed + 1:  # the per-delta hot path: the next delta, read on time
            self._parsed = k
            self._consume(self.deltas[parsed])
        elif k > parsed:  # several deltas at once
            self._parsed = k
            self._consume("".join(self.deltas[parsed:k]))
        elif k < parsed:
            return self._late_snapshot(k)
        # Handed out: the next change first makes sure nobody else sees it (Path.owns).
        self._owned = False
        root = self._root
        return self._top if root is None else root

    def _late_snapshot(self, k: int) -> Any:
        """The value after the first ``k`` deltas, ``k`` before where the parser is: from the
        second parser."""
        late = self._late
        if late is None or self._late_at > k:
            late = self._late = PartialJSON()
            self._late_at = 0
        late.deltas += self.deltas[self._late_at : k]
        self._late_at = k
        return late.snapshot()

    @property
    def raw(self) -> str:
        """All the text fed so far."""
        deltas = self.deltas
        n, joined = self._raw
        if n != len(deltas):
            joined = deltas[0] if len(deltas) == 1 else "".join(deltas)
            self._raw = (len(deltas), joined)
        return joined

    def snapshot(self) -> Any:
        """Return the best-effort value of the text fed so far.

        Complete values are included as they are; open containers with what they hold so far; a
        string in progress with what has been decoded. Dangling keys, a number that may still
        grow and incomplete literals are left out. ``None`` before any value. After a syntax
        error, the value as it was just before the error.

        The returned object is never mutated later, and is the same object as the previous
        snapshot when nothing changed. Treat it as read-only: completed sub-values are shared
        with later snapshots.

        Returns:
            A JSON-like value (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``) or
            ``None``.
        """
        return self.snapshot_at(len(self.deltas))

    def is_complete_value(self) -> bool:
        """Tell whether the text so far is exactly one complete JSON value.

        Surrounding JSON whitespace is allowed. The two in-place repairs (raw control characters
        in strings, trailing commas) do not make a value incomplete; anything :meth:`finish`
        would call invalid does. A top-level number counts as complete when its text so far is
        a valid number. Incremental: only text fed since the last call is parsed.

        Returns:
            ``True`` if the text is one complete value.
        """
        self._advance()
        if self._error is not None:
            return False
        if self._state == TOP_DONE:
            return True
        if not self._path and self._token == TOK_NUMBER:
            return decode_number("".join(self._num_parts))[1] is None
        return False

    def finish(self) -> ParseResult:
        """Classify the whole text and return the arguments.

        Empty or whitespace-only text gives ``{}`` (complete). Strict JSON of an object is
        complete, with exactly the value ``json.loads`` gives. A JSON string holding strict JSON
        of an object is recovered (``double_encoded``). Text that needs only the documented
        repairs is recovered (``repaired``); text truncated inside the top-level object is
        recovered (``partial``, value by the snapshot rules). Everything else is invalid, with
        ``{}`` as value and ``error``/``position`` set. Never raises.

        Returns:
            The :class:`ParseResult`. Cached until more text is fed.
        """
        n = len(self.deltas)
        result = self._result
        if result is None or result[0] != n:
            result = self._result = (n, self._finish(self.raw))
        return result[1]

    # ------------------------------------------------------------------------ classification

    def _finish(self, raw: str) -> ParseResult:
        if not raw.strip(_WS):
            return ParseResult(value={}, status="complete")
        if self._error is None and not self._repairs:
            # Fast path at C speed: most calls are strict JSON.
            try:
                value = json.loads(raw, parse_constant=_reject_constant)
            except (ValueError, RecursionError):
                pass
            else:
                return self._classify(value, raw)
        self._advance()
        if self._error is not None:
            pos = self._error_pos
            return _invalid(f"{self._error} at position {pos}: {_context(raw, pos)}", pos)
        if self._state == TOP_DONE:
            return self._classify(self._top, raw)
        if not self._path:
            start = _first_non_ws(raw)
            if self._token == TOK_NUMBER:
                # At the end of the text a top-level number is over: it is either not a valid
                # number or not an object.
                num_value, msg, off = decode_number("".join(self._num_parts))
                if msg is not None:
                    pos = self._num_start + off
                    return _invalid(f"{msg} at position {pos}: {_context(raw, pos)}", pos)
                return self._classify(num_value, raw)
            kind = "string" if self._token == TOK_STRING else "literal"
            return _invalid(
                f"arguments must be a JSON object, got a truncated {kind}",
                start,
            )
        if self._path[0].__class__ is not dict:
            return _invalid(
                "arguments must be a JSON object, got a truncated array", _first_non_ws(raw)
            )
        value = self.snapshot()
        repairs = self._repairs
        notes = [f"{name.replace('_', ' ')} at position {pos}" for name, pos in repairs.items()]
        notes.append(f"truncated at position {len(raw)}")
        return ParseResult(
            value=value,
            status="recovered",
            mode="partial",
            repairs=(*repairs, _TRUNCATED),
            error="; ".join(notes),
            position=min([len(raw), *repairs.values()]),
        )

    def _classify(self, value: Any, raw: str) -> ParseResult:
        """Classify a complete top-level value (repairs, if any, are in ``self._repairs``)."""
        repairs = self._repairs
        if isinstance(value, dict):
            if not repairs:
                return ParseResult(value=value, status="complete")
            notes = [f"{name.replace('_', ' ')} at position {pos}" for name, pos in repairs.items()]
            return ParseResult(
                value=value,
                status="recovered",
                mode="repaired",
                repairs=tuple(repairs),
                error="; ".join(notes),
                position=min(repairs.values()),
            )
        start = _first_non_ws(raw)
        if isinstance(value, str):
            try:
                inner = json.loads(value, parse_constant=_reject_constant)
            except (ValueError, RecursionError):
                inner = None
            if isinstance(inner, dict):
                return ParseResult(
                    value=inner,
                    status="recovered",
                    mode="repaired",
                    repairs=(*repairs, _DOUBLE),
                    error="arguments were a JSON string holding a JSON object (double-encoded)",
                    position=start,
                )
        return _invalid(f"arguments must be a JSON object, got {_type_name(value)}", start)

    def _advance(self) -> None:
        """Parse the text fed since the last call."""
        deltas = self.deltas
        parsed = self._parsed
        if parsed < len(deltas):
            self._consume(deltas[parsed] if parsed + 1 == len(deltas) else "".join(deltas[parsed:]))
            self._parsed = len(deltas)


def parse_arguments(text: str) -> ParseResult:
    """Classify a complete argument text in one shot.

    Args:
        text: The tool call's whole argument text.

    Returns:
        ``PartialJSON`` fed ``text``, then :meth:`PartialJSON.finish`.
    """
    parser = PartialJSON()
    parser.feed(text)
    return parser.finish()


def parse_partial(text: str) -> Any:
    """Return the best-effort value of a prefix of JSON text (see :meth:`PartialJSON.snapshot`).

    Args:
        text: A prefix of a JSON document.

    Returns:
        The snapshot value, ``None`` before any value.
    """
    parser = PartialJSON()
    parser.feed(text)
    return parser.snapshot()
