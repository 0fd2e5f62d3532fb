"""The incremental JSON state machine behind :class:`llmkit._json.partial.PartialJSON`.

:class:`Machine` parses text handed to it piece by piece, whatever the split (a token may be
cut at any character), and builds best-effort snapshots of the value so far with structural
sharing. It knows nothing of feeding, laziness or final classification: those are
``PartialJSON``'s, in its own module, along with the design notes and the snapshot rules.
"""

from __future__ import annotations

import re
from typing import Any

from .frames import Frame
from .snapshots import STR_BODY, TOK_STRING, TOP_DONE, Snapshots, unescape

__all__ = [
    "TOK_NUMBER",
    "TOK_STRING",
    "TOP_DONE",
    "Machine",
    "decode_number",
]

# Between tokens: whitespace, then a whole string without escapes (group 1) or one character.
_NEXT = re.compile(r'[ \t\n\r]*(?:"([^"\\\x00-\x1f]*)"|[^ \t\n\r])')
# Plain string characters: everything but the quote, the backslash and raw control characters.
_STR_RUN = re.compile(r'[^"\\\x00-\x1f]+')
# In an object, after a member (``, "key":``) or after "{" or "," (``"key":``): a whole key.
_MEMBER = re.compile(r'[ \t\n\r]*,[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:')
_KEY = re.compile(r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:')
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
# TOP_DONE (9, imported): the top-level value is complete: only whitespace may follow

# The token in progress.
_TOK_NONE = 0
# TOK_STRING (1, imported)
TOK_NUMBER = 2
_TOK_LITERAL = 3


_CONTROL = "control_character_escaped"
_TRAILING_COMMA = "trailing_comma_removed"


def decode_number(text: str) -> tuple[Any, str | None, int]:
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


class Machine(Snapshots):
    """Parser state and the state machine (snapshots: the :class:`Snapshots` base)."""

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
        "_repairs",
        "_stack",
        "_state",
        "_stats_chars",
        "_str_key",
        "_str_parts",
        "_token",
        "_top",
    )

    def __init__(self) -> None:
        self._offset = 0  # absolute offset of the next character to parse
        self._stack: list[Frame] = []
        self._state = _TOP_VALUE
        self._token = _TOK_NONE
        self._top: Any = None  # the top-level value once TOP_DONE
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
        # Errors and repairs.
        self._error: str | None = None
        self._error_pos = 0
        self._repairs: dict[str, int] = {}  # repair name -> first position (insertion ordered)
        # Snapshot cache: `_gen` counts changes visible in a snapshot.
        self._gen = 0
        self._snap_gen = 0
        self._snap: Any = None
        # Operation counters, for the linearity tests.
        self._stats_chars = 0  # characters run through the parser
        self._stats_built = 0  # containers copied for snapshots

    def _consume(self, text: str) -> bool:
        """Parse ``text``, the text following everything parsed so far.

        Returns ``True`` when the cached snapshot was brought up to date in place (see
        :meth:`_grow_in_place`): it is then the snapshot of everything parsed.
        """
        n = len(text)
        if self._error is not None:
            self._offset += n
            return False
        self._stats_chars += n
        i = 0
        if self._token == TOK_STRING and not self._esc and not self._high:
            # The most common delta: more characters of the string in progress, perhaps up to
            # its closing quote. Its content up to anything special (a quote, a ``\\u`` escape,
            # a cut escape, a raw control character) is taken in one regex match, decoded in C.
            end = STR_BODY.match(text).end()  # type: ignore[union-attr]  # it matches ""
            if end == n and self._grow_in_place(text):
                self._offset += n
                return True
            i = self._take_string(text, 0, end)
        if i < n:
            self._parse(text, i)
        self._offset += n
        return False

    def _take_string(self, s: str, i: int, end: int = -1) -> int:
        """Take the content of the string in progress from ``s[i:]`` up to anything special (a
        quote, a ``\\u`` escape, a cut escape, a raw control character) in one regex match,
        decoded in C, and its closing quote if that comes next. No escape or surrogate may be
        pending. ``end``: where that match ends, if the caller has it. Returns the index after
        what was taken."""
        if end < 0:
            end = STR_BODY.match(s, i).end()  # type: ignore[union-attr]  # it matches ""
        if end > i:
            self._str_parts.append(unescape(s[i:end]))
            if not self._str_key:
                self._str_cache = None
                self._gen += 1
        if end < len(s) and s[end] == '"':
            self._end_string()
            return end + 1
        return end

    def _fail(self, message: str, pos: int) -> None:
        self._error = message
        self._error_pos = pos

    def _repair(self, name: str, pos: int) -> None:
        if name not in self._repairs:
            self._repairs[name] = pos

    def _parse(self, s: str, i: int) -> None:
        """Run the state machine over ``s[i:]``; ``s`` is the text following everything parsed
        so far."""
        n = len(s)
        offset = self._offset
        while i < n:
            tok = self._token
            if tok:
                if tok == TOK_STRING:
                    i = self._scan_string(s, i)
                elif tok == TOK_NUMBER:
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

            # Between tokens. In an object, a whole ``, "key":`` (or ``"key":``) is one step.
            state = self._state
            if state in (_OBJ_AFTER, _OBJ_NEXT, _OBJ_FIRST):
                m = (_MEMBER if state == _OBJ_AFTER else _KEY).match(s, i)
                if m is not None:
                    frame = self._stack[-1]
                    frame.key = m.group(1)
                    frame.changed = True
                    self._state = _OBJ_VALUE
                    i = m.end()
                    continue
            # Skip whitespace, and take a whole string without escapes in one step (keys,
            # short values); anything else is handled a character at a time.
            m = _NEXT.match(s, i)
            if m is None:  # only whitespace left
                return
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
                    i = self._take_string(s, i + 1)
                elif c == "{":
                    self._push({}, _OBJ_FIRST)
                    i += 1
                elif c == "[":
                    self._push([], _ARR_FIRST)
                    i += 1
                elif c in "-0123456789":
                    # Consumed by the number branch above on the next turn.
                    self._token = TOK_NUMBER
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
            else:  # TOP_DONE
                self._fail("Extra data after the top-level value", offset + i)
                return

    def _push(self, container: dict[str, Any] | list[Any], state: int) -> None:
        self._stack.append(Frame(container))
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
            self._state = TOP_DONE
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
        self._token = TOK_STRING
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

    # ------------------------------------------------------------------- numbers and literals

    def _end_number(self) -> None:
        self._token = _TOK_NONE
        value, message, off = decode_number("".join(self._num_parts))
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
