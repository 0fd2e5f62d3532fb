"""Incremental, linear-time parsing of a tool call's streamed JSON arguments.

Providers stream a tool call's arguments as many small text deltas (often 4-16 characters, tens
of thousands of them for a large file edit), and a streaming UI wants a best-effort value after
every delta. Re-parsing the whole buffer per delta is quadratic; this module is not.

Design:

* **Lazy.** :meth:`PartialJSON.feed` only appends the delta to a list. The parser advances when a
  result is asked for (:meth:`~PartialJSON.snapshot`, :meth:`~PartialJSON.is_complete_value`,
  :meth:`~PartialJSON.finish`) and then consumes only the text fed since the last time.
* **State machine.** The parser keeps a stack of open containers and the state of the token in
  progress (a string with its decoded pieces, a pending escape and a held-back high surrogate; a
  number's characters; a literal's matched length), so a token may be split across deltas at any
  character. Runs of plain string characters, whitespace and number characters are consumed in
  bulk by compiled regular expressions; only structural characters and escapes are handled one
  at a time in Python. Every character is examined once, so parsing is O(n) over a call however
  the text is split.
* **Structural sharing.** A finished value (closed container, finished string, number, literal)
  is built once, stored in its parent, and shared by every later snapshot and the final value.
  A snapshot copies only the open containers on the current path whose content changed since the
  previous snapshot (shallow copies: a container's direct children, never its subtrees), and
  returns the very same object when nothing changed. Objects handed out are never mutated
  afterwards, so callers may keep old snapshots (they must treat them as read-only: completed
  sub-values are shared).
* **Complexity.** Parsing is linear in the text length. A snapshot costs O(1) when nothing
  changed, otherwise O(depth + sum of the direct-child counts of the open containers on the
  current path + what the string in progress gained). The string in progress is extended in
  place when the caller kept no earlier snapshot (CPython grows a ``str`` that has no other
  reference); while a caller holds one, it is copied, so that what was handed out never
  changes. The width term is inherent to handing out fresh immutable built-in containers: a
  snapshot after every delta of a very long flat array or object copies that container.
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

__all__ = ["ParseResult", "PartialJSON", "parse_arguments", "parse_partial"]

# JSON whitespace is exactly these four characters (RFC 8259); anything else is an error.
_WS = " \t\n\r"
_WS_RUN = re.compile(r"[ \t\n\r]*")
# Between tokens: whitespace, then a whole string without escapes (group 1) or one character.
_NEXT = re.compile(r'[ \t\n\r]*(?:"([^"\\\x00-\x1f]*)"|[^ \t\n\r])')
# Plain string characters: everything but the quote, the backslash and raw control characters.
_STR_RUN = re.compile(r'[^"\\\x00-\x1f]+')
# Characters that may continue a number; validity is checked once the number has ended.
_NUM_RUN = re.compile(r"[-+0-9.eE]+")
_HEX = re.compile(r"[0-9a-fA-F]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")

_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_LITERAL_VALUES: dict[str, Any] = {"true": True, "false": False, "null": None}

# Parser states between tokens. The four value-expecting states come first so that one
# comparison (``state <= _OBJ_VALUE``) selects them.
_TOP_VALUE = 0  # top level, nothing seen yet
_ARR_FIRST = 1  # after "[": a value or "]"
_ARR_NEXT = 2  # after "," in an array: a value ("]" here is a trailing comma)
_OBJ_VALUE = 3  # after ":": a value
_ARR_AFTER = 4  # after an array element: "," or "]"
_OBJ_FIRST = 5  # after "{": a key or "}"
_OBJ_NEXT = 6  # after "," in an object: a key ("}" here is a trailing comma)
_OBJ_COLON = 7  # after a key: ":"
_OBJ_AFTER = 8  # after a member's value: "," or "}"
_TOP_DONE = 9  # the top-level value is complete: only whitespace may follow

# The token in progress.
_TOK_NONE = 0
_TOK_STRING = 1
_TOK_NUMBER = 2
_TOK_LITERAL = 3

_NO_CHILD: Any = object()  # a snapshot's container that ends with no partial child

_CONTROL = "control_character_escaped"
_TRAILING_COMMA = "trailing_comma_removed"
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


def reject_constant(name: str) -> Any:
    # json.loads accepts NaN/Infinity/-Infinity by default; they are not JSON.
    raise ValueError(f"{name} is not valid JSON")


def _decode_number(text: str) -> tuple[Any, str | None, int]:
    """Convert a complete number token like ``json.loads`` does.

    Returns:
        ``(value, None, 0)``, or ``(None, message, offset of the error within text)``.
    """
    m = _NUMBER.fullmatch(text)
    if m is None:
        prefix = _NUMBER.match(text)
        return None, "Invalid number", prefix.end() if prefix is not None else 0
    if m.group(1) is not None or m.group(2) is not None:
        return float(text), None, 0
    try:
        return int(text), None, 0
    except ValueError:  # more digits than sys.get_int_max_str_digits(), as json.loads
        return None, "Integer has too many digits", 0


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


class _Frame:
    """An open container on the parser's stack."""

    __slots__ = ("changed", "is_dict", "items", "key", "snap", "snap_child")

    def __init__(self, items: dict[str, Any] | list[Any]) -> None:
        # The container being filled. It is never handed out while open (snapshots get copies),
        # so it can be mutated in place; once closed it becomes the finished, shared value.
        self.items = items
        self.is_dict = isinstance(items, dict)
        self.key = ""  # the current member's key (objects only)
        self.changed = True  # items/key changed since `snap` was built
        self.snap: Any = None  # last copy handed out
        self.snap_child: Any = _NO_CHILD  # the partial child that `snap` ends with


class PartialJSON:
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

    __slots__ = (
        "_comma_pos",
        "_error",
        "_error_pos",
        "_esc",
        "_esc_pos",
        "_gen",
        "_high",
        "_lit",
        "_lit_len",
        "_num_parts",
        "_num_start",
        "_offset",
        "_parts",
        "_pending",
        "_repairs",
        "_result",
        "_snap",
        "_snap_gen",
        "_stack",
        "_state",
        "_stats_built",
        "_stats_chars",
        "_str_cache",
        "_str_key",
        "_str_parts",
        "_token",
        "_top",
    )

    def __init__(self) -> None:
        self._parts: list[str] = []  # everything fed, joined lazily by `raw`
        self._pending: list[str] = []  # fed but not parsed yet
        self._offset = 0  # absolute offset of the first pending character
        self._stack: list[_Frame] = []
        self._state = _TOP_VALUE
        self._token = _TOK_NONE
        self._top: Any = None  # the top-level value once _TOP_DONE
        self._comma_pos = 0
        # String in progress.
        self._str_key = False
        self._str_parts: list[str] = []
        self._str_cache: str | None = None  # "".join(_str_parts) if still valid
        self._esc = ""  # an escape in progress: "\\", "\\u", "\\u0", ...
        self._esc_pos = 0
        self._high = ""  # a decoded high surrogate waiting to see if a low one follows
        # Number in progress.
        self._num_parts: list[str] = []
        self._num_start = 0
        # Literal in progress.
        self._lit = ""
        self._lit_len = 0
        # Diagnostics.
        self._error: str | None = None
        self._error_pos = 0
        self._repairs: dict[str, int] = {}  # repair name -> first position (insertion ordered)
        # Snapshot cache: `_gen` counts changes visible in a snapshot.
        self._gen = 0
        self._snap_gen = 0
        self._snap: Any = None
        self._result: ParseResult | None = None
        # Operation counters, for the linearity tests.
        self._stats_chars = 0  # characters run through the parser
        self._stats_built = 0  # containers copied for snapshots

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
            self._parts.append(text)
            self._pending.append(text)
            self._result = None

    def snapshot_after(self, text: str) -> Any:
        """``feed(text)`` then :meth:`snapshot`, in one step (the per-delta hot path)."""
        if self._pending:
            self._advance()
        if text:
            self._parts.append(text)
            self._result = None
            if (
                self._token == _TOK_STRING
                and not self._str_key
                and not self._esc
                and not self._high
                and self._error is None
                and _STR_RUN.fullmatch(text) is not None
            ):
                # The most common delta: more plain characters of the string value in progress.
                self._stats_chars += len(text)
                self._offset += len(text)
                self._str_parts.append(text)
                self._str_cache = None
                self._gen += 1
                self._snap = self._build_snapshot()
                self._snap_gen = self._gen
                return self._snap
            self._consume(text)
        if self._gen != self._snap_gen:
            self._snap = self._build_snapshot()
            self._snap_gen = self._gen
        return self._snap

    @property
    def raw(self) -> str:
        """All the text fed so far."""
        parts = self._parts
        if len(parts) == 1:
            return parts[0]
        joined = "".join(parts)
        # Keep the join: the next call only joins what was fed since.
        parts[:] = [joined] if joined else []
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
        self._advance()
        if self._gen != self._snap_gen:
            self._snap = self._build_snapshot()
            self._snap_gen = self._gen
        return self._snap

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
        if self._state == _TOP_DONE:
            return True
        if not self._stack and self._token == _TOK_NUMBER:
            return _decode_number("".join(self._num_parts))[1] is None
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
        if self._result is None:
            self._result = self._finish(self.raw)
        return self._result

    # ------------------------------------------------------------------------ classification

    def _finish(self, raw: str) -> ParseResult:
        if not raw.strip(_WS):
            return ParseResult(value={}, status="complete")
        if self._error is None and not self._repairs:
            # Fast path at C speed: most calls are strict JSON.
            try:
                value = json.loads(raw, parse_constant=reject_constant)
            except (ValueError, RecursionError):
                pass
            else:
                return self._classify(value, raw)
        self._advance()
        if self._error is not None:
            pos = self._error_pos
            return _invalid(f"{self._error} at position {pos}: {_context(raw, pos)}", pos)
        if self._state == _TOP_DONE:
            return self._classify(self._top, raw)
        if not self._stack:
            start = _first_non_ws(raw)
            if self._token == _TOK_NUMBER:
                # At the end of the text a top-level number is over: it is either not a valid
                # number or not an object.
                num_value, msg, off = _decode_number("".join(self._num_parts))
                if msg is not None:
                    pos = self._num_start + off
                    return _invalid(f"{msg} at position {pos}: {_context(raw, pos)}", pos)
                return self._classify(num_value, raw)
            kind = "string" if self._token == _TOK_STRING else "literal"
            return _invalid(
                f"arguments must be a JSON object, got a truncated {kind}",
                start,
            )
        if not isinstance(self._stack[0].items, dict):
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
                inner = json.loads(value, parse_constant=reject_constant)
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

    # -------------------------------------------------------------------------------- parser

    def _advance(self) -> None:
        """Parse the text fed since the last call."""
        pending = self._pending
        if not pending:
            return
        text = pending[0] if len(pending) == 1 else "".join(pending)
        pending.clear()
        self._consume(text)

    def _consume(self, text: str) -> None:
        """Parse ``text``, the text following everything parsed so far."""
        if self._error is None:
            if (
                self._token == _TOK_STRING
                and not self._esc
                and not self._high
                and _STR_RUN.fullmatch(text) is not None
            ):
                # The most common delta: more plain characters of the string in progress.
                self._stats_chars += len(text)
                self._str_parts.append(text)
                if not self._str_key:
                    self._str_cache = None
                    self._gen += 1
            else:
                self._parse(text)
        self._offset += len(text)

    def _fail(self, message: str, pos: int) -> None:
        self._error = message
        self._error_pos = pos

    def _repair(self, name: str, pos: int) -> None:
        if name not in self._repairs:
            self._repairs[name] = pos

    def _parse(self, s: str) -> None:
        """Run the state machine over ``s``, the text following everything parsed so far."""
        self._stats_chars += len(s)
        n = len(s)
        i = 0
        offset = self._offset
        while i < n:
            tok = self._token
            if tok:
                if tok == _TOK_STRING:
                    i = self._scan_string(s, i)
                elif tok == _TOK_NUMBER:
                    m = _NUM_RUN.match(s, i)
                    if m is not None:
                        self._num_parts.append(m.group())
                        i = m.end()
                        if i == n:  # the number may go on in the next delta
                            return
                    self._end_number()  # s[i] is a delimiter; it is handled below next turn
                else:
                    i = self._scan_literal(s, i)
                if self._error is not None:
                    return
                continue

            # Between tokens: skip whitespace, and take a whole string without escapes in one
            # step (keys, short values); anything else is handled a character at a time.
            m = _NEXT.match(s, i)
            if m is None:  # only whitespace left
                return
            state = self._state
            plain = m.group(1)
            if plain is not None:
                if state <= _OBJ_VALUE:
                    self._commit(plain)
                    i = m.end()
                    continue
                if state in (_OBJ_FIRST, _OBJ_NEXT):
                    frame = self._stack[-1]
                    frame.key = plain
                    frame.changed = True
                    self._state = _OBJ_COLON
                    i = m.end()
                    continue
                i = m.start(1) - 1  # a string where none may be: reported below
            else:
                i = m.end() - 1
            c = s[i]

            if state <= _OBJ_VALUE:  # a value is expected
                if c == '"':
                    self._start_string(False)
                    i += 1
                elif c == "{":
                    self._push({}, _OBJ_FIRST)
                    i += 1
                elif c == "[":
                    self._push([], _ARR_FIRST)
                    i += 1
                elif c in "-0123456789":
                    # Consumed by the number branch above on the next turn.
                    self._token = _TOK_NUMBER
                    self._num_parts = []
                    self._num_start = offset + i
                elif c in _LITERALS:
                    self._token = _TOK_LITERAL
                    self._lit = _LITERALS[c]
                    self._lit_len = 1
                    i += 1
                elif c == "]" and state in (_ARR_FIRST, _ARR_NEXT):
                    if state == _ARR_NEXT:
                        self._repair(_TRAILING_COMMA, self._comma_pos)
                    self._close()
                    i += 1
                else:
                    self._fail("Expecting value", offset + i)
                    return
            elif state == _ARR_AFTER:
                if c == ",":
                    self._state = _ARR_NEXT
                    self._comma_pos = offset + i
                elif c == "]":
                    self._close()
                else:
                    self._fail("Expecting ',' or ']' in array", offset + i)
                    return
                i += 1
            elif state == _OBJ_AFTER:
                if c == ",":
                    self._state = _OBJ_NEXT
                    self._comma_pos = offset + i
                elif c == "}":
                    self._close()
                else:
                    self._fail("Expecting ',' or '}' in object", offset + i)
                    return
                i += 1
            elif state == _OBJ_COLON:
                if c != ":":
                    self._fail("Expecting ':' after property name", offset + i)
                    return
                self._state = _OBJ_VALUE
                i += 1
            elif state in (_OBJ_FIRST, _OBJ_NEXT):
                if c == '"':
                    self._start_string(True)
                elif c == "}":
                    if state == _OBJ_NEXT:
                        self._repair(_TRAILING_COMMA, self._comma_pos)
                    self._close()
                else:
                    self._fail("Expecting property name in double quotes", offset + i)
                    return
                i += 1
            else:  # _TOP_DONE
                self._fail("Extra data after the top-level value", offset + i)
                return

    def _push(self, container: dict[str, Any] | list[Any], state: int) -> None:
        self._stack.append(_Frame(container))
        self._state = state
        self._gen += 1

    def _close(self) -> None:
        # The closed container is final from here on: it becomes the shared value.
        self._commit(self._stack.pop().items)

    def _commit(self, value: Any) -> None:
        """Store a finished value in the innermost open container (or as the top level)."""
        self._gen += 1
        stack = self._stack
        if not stack:
            self._top = value
            self._state = _TOP_DONE
            return
        frame = stack[-1]
        frame.changed = True
        items = frame.items
        if isinstance(items, dict):
            items[frame.key] = value  # like json.loads: a repeated key keeps the last value
            self._state = _OBJ_AFTER
        else:
            items.append(value)
            self._state = _ARR_AFTER

    # ------------------------------------------------------------------------------- strings

    def _start_string(self, is_key: bool) -> None:
        self._token = _TOK_STRING
        self._str_key = is_key
        self._str_parts = []
        self._str_cache = ""
        if not is_key:
            self._gen += 1  # the (empty) string in progress appears in the snapshot

    def _scan_string(self, s: str, i: int) -> int:
        """Consume string content from ``s[i:]``; return the index after what was consumed."""
        n = len(s)
        parts = self._str_parts
        before = len(parts)
        run = _STR_RUN.match
        while i < n:
            if self._esc:
                i = self._scan_escape(s, i)
                if self._error is not None:
                    break
                continue
            m = run(s, i)
            if m is not None:
                if self._high:
                    parts.append(self._high)
                    self._high = ""
                parts.append(m.group())
                i = m.end()
                if i == n:
                    break
            c = s[i]
            if c == '"':
                self._end_string()
                return i + 1
            if c == "\\":
                self._esc = "\\"
                self._esc_pos = self._offset + i
            else:
                # A raw control character: taken as its escaped form (a documented repair).
                self._repair(_CONTROL, self._offset + i)
                if self._high:
                    parts.append(self._high)
                    self._high = ""
                parts.append(c)
            i += 1
        if len(parts) != before and not self._str_key:
            self._str_cache = None
            self._gen += 1
        return i

    def _scan_escape(self, s: str, i: int) -> int:
        """Consume (part of) the escape in progress; ``s[i]`` exists."""
        parts = self._str_parts
        esc = self._esc
        if len(esc) == 1:  # just the backslash so far
            c = s[i]
            if c == "u":
                self._esc = "\\u"
                return i + 1
            char = _SIMPLE_ESCAPES.get(c)
            if char is None:
                self._fail("Invalid \\escape", self._esc_pos)
                return i
            self._esc = ""
            if self._high:
                parts.append(self._high)
                self._high = ""
            parts.append(char)
            return i + 1
        need = 6 - len(esc)
        piece = s[i : i + need]
        m = _HEX.match(piece)
        if m is None or m.end() != len(piece):
            self._fail("Invalid \\uXXXX escape", self._esc_pos)
            return i
        esc += piece
        i += len(piece)
        if len(esc) < 6:
            self._esc = esc
            return i
        self._esc = ""
        code = int(esc[2:], 16)
        high = self._high
        if high:
            self._high = ""
            if 0xDC00 <= code <= 0xDFFF:
                parts.append(chr(0x10000 + ((ord(high) - 0xD800) << 10) + (code - 0xDC00)))
                return i
            parts.append(high)  # a lone high surrogate, kept as json.loads keeps it
        if 0xD800 <= code <= 0xDBFF:
            # Held back: with a low surrogate next it becomes one character.
            self._high = chr(code)
        else:
            parts.append(chr(code))
        return i

    def _end_string(self) -> None:
        parts = self._str_parts
        if self._high:
            parts.append(self._high)
            self._high = ""
        # With nothing new since the last snapshot, parts == [cached string]: reuse that object.
        value = parts[0] if len(parts) == 1 else "".join(parts)
        self._token = _TOK_NONE
        self._str_parts = []
        if self._str_key:
            frame = self._stack[-1]
            frame.key = value
            frame.changed = True
            self._state = _OBJ_COLON
        else:
            self._commit(value)

    def _partial_string(self) -> str:
        cached = self._str_cache
        if cached is None:
            parts = self._str_parts
            if len(parts) == 2:  # the usual case: the string so far and one new piece
                cached, piece = parts
                parts.clear()
                cached += piece  # in place when this is the only reference (see below)
                parts.append(cached)
            elif len(parts) > 1:
                # The string so far and the pieces received since: ``+=`` on a local holding
                # the only reference lets CPython extend the string in place instead of copying
                # it (nobody can see that: while a caller holds an earlier snapshot, it is
                # copied). So reading a long string after every delta costs time proportional
                # to the delta, not to the string.
                rest = parts[1:]
                cached = parts[0]
                parts.clear()
                for piece in rest:
                    cached += piece
                parts.append(cached)
            else:
                cached = "".join(parts)
                parts[:] = [cached] if cached else []
            self._str_cache = cached
        return cached

    # ------------------------------------------------------------------- numbers and literals

    def _end_number(self) -> None:
        self._token = _TOK_NONE
        value, message, off = _decode_number("".join(self._num_parts))
        self._num_parts = []
        if message is not None:
            self._fail(message, self._num_start + off)
        else:
            self._commit(value)

    def _scan_literal(self, s: str, i: int) -> int:
        lit = self._lit
        rest = lit[self._lit_len :]
        piece = s[i : i + len(rest)]
        if not rest.startswith(piece):
            j = 0
            while piece[j] == rest[j]:
                j += 1
            self._fail(f"Invalid literal (expected {lit!r})", self._offset + i + j)
            return i + j
        self._lit_len += len(piece)
        if self._lit_len == len(lit):
            self._token = _TOK_NONE
            self._commit(_LITERAL_VALUES[lit])
        return i + len(piece)

    # ----------------------------------------------------------------------------- snapshots

    def _build_snapshot(self) -> Any:
        stack = self._stack
        if self._token == _TOK_STRING and not self._str_key:
            if self._str_cache is None:
                # The string in progress grew, so every container on the path is copied anew.
                # Let go of the previous copies first: when the caller kept no earlier
                # snapshot, the string is then referenced only here and grows in place (see
                # _partial_string).
                self._snap = None
                for frame in stack:
                    frame.snap = frame.snap_child = None
                child: Any = self._partial_string()
                for frame in reversed(stack):
                    copy = frame.items.copy()
                    if frame.is_dict:
                        copy[frame.key] = child  # type: ignore[call-overload]
                    else:
                        copy.append(child)  # type: ignore[union-attr]
                    frame.snap_child = child
                    frame.snap = child = copy
                    frame.changed = False
                self._stats_built += len(stack)
                return child
            child = self._str_cache
        else:
            child = _NO_CHILD
        # Innermost first: each open container is re-copied only if it or its partial child
        # changed; otherwise its previous copy is reused (and so are all outer ones).
        for frame in reversed(stack):
            if frame.changed or frame.snap_child is not child:
                copy = frame.items.copy()
                if child is not _NO_CHILD:
                    if frame.is_dict:
                        copy[frame.key] = child  # type: ignore[call-overload]
                    else:
                        copy.append(child)  # type: ignore[union-attr]
                frame.snap = copy
                frame.snap_child = child
                frame.changed = False
                self._stats_built += 1
            child = frame.snap
        if child is not _NO_CHILD:
            return child
        return self._top if self._state == _TOP_DONE else None


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
