"""The incremental JSON state machine behind :class:`llmkit._json.partial.PartialJSON`.

:class:`Machine` parses text handed to it piece by piece, whatever the split (a token may be
cut at any character), straight into the value it hands out: the open containers on the
current path are the snapshot itself, updated in place. What a caller holds is never changed:
before the first change after a snapshot was handed out, the open path is copied (only from
the first container anybody else holds, where reference counts tell) (:mod:`.ownership`).
The tokens it matches are in :mod:`.grammar`. It knows nothing of feeding, laziness or final
classification: those are ``PartialJSON``'s, in its own module, along with the design notes
and the snapshot rules.
"""

from __future__ import annotations

from typing import Any

from .grammar import (
    COLON,
    ELEMENT,
    HEX,
    KEY,
    LITERAL_VALUES,
    LITERALS,
    MEMBER,
    NUM_RUN,
    SIMPLE_ESCAPES,
    START,
    WHITESPACE,
    decode_number,
)
from .ownership import Path
from .strings import STR_RUN, cut_escape
from .strings import scanstring as _scanstring

__all__ = [
    "AFTER",
    "TOK_NONE",
    "TOK_NUMBER",
    "TOK_STRING",
    "TOP_DONE",
    "Machine",
    "decode_number",
]

# Parser states between tokens. The four value-expecting states come first so that one
# comparison (``state <= _OBJ_VALUE``) selects them.
_TOP_VALUE = 0  # top level, nothing seen yet
_ARR_FIRST = 1  # after "[": a value or "]"
_ARR_NEXT = 2  # after "," in an array: a value ("]" here is a trailing comma)
_OBJ_VALUE = 3  # after ":": a value
_ARRAFTER = 4  # after an array element: "," or "]"
_OBJ_FIRST = 5  # after "{": a key or "}"
_OBJ_NEXT = 6  # after "," in an object: a key ("}" here is a trailing comma)
_OBJ_COLON = 7  # after a key: ":"
_OBJAFTER = 8  # after a member's value: "," or "}"
TOP_DONE = 9  # the top-level value is complete: only whitespace may follow

# The token in progress.
TOK_NONE = 0
TOK_STRING = 1
TOK_NUMBER = 2
_TOK_LITERAL = 3

# The state after a value, by the state that expected it (while a string value is in
# progress, the state is still the one that expected it).
AFTER = (TOP_DONE, _ARRAFTER, _ARRAFTER, _OBJAFTER)

_CONTROL = "control_character_escaped"
_TRAILING_COMMA = "trailing_comma_removed"


class Machine(Path):
    """Parser state and the state machine (the open path and its ownership: :class:`Path`)."""

    __slots__ = (
        "_comma_pos",
        "_error",
        "_error_pos",
        "_esc",
        "_esc_pos",
        "_fast",
        "_high",
        "_key_parts",
        "_lit",
        "_lit_len",
        "_num_parts",
        "_num_start",
        "_offset",
        "_repairs",
        "_skipped",
        "_state",
        "_token",
    )

    def __init__(self) -> None:
        Path.__init__(self)
        self._offset = 0  # absolute offset of the next character to parse
        self._state = _TOP_VALUE
        self._token = TOK_NONE
        self._comma_pos = 0
        # String in progress: a value string lives in its container (Path.grow); a key is
        # collected here until its closing quote.
        self._key_parts: list[str] | None = None  # not None while the string is a key
        # A string value is in progress with no escape or surrogate pending: its next character
        # is plain content (the per-delta fast path's condition, one attribute to test).
        self._fast = False
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
        self._skipped = 0  # characters not parsed: those after a syntax error

    def _consume(self, s: str) -> None:
        """Parse ``s``, the text following everything parsed so far.

        The common steps are taken here, each one C-level match or scan: the string value in
        progress (to its closing quote or the end of ``s``) and the transitions of
        :data:`.grammar.MEMBER` and its kin. Everything else goes one token or character at a time
        through :meth:`_general`, :meth:`_scan_string` and the number and literal scanners.
        """
        n = len(s)
        i = 0
        if self._error is not None:
            self._offset += n
            self._skipped += n
            return
        offset = self._offset
        while i < n:
            if self._fast:  # a string value in progress, nothing pending
                piece = s[i:] if i else s
                if '"' not in piece and "\\" not in piece and piece.isprintable():
                    self.grow(piece)
                    break
                if "\\u" not in piece and not (s[-1] == "\\" and cut_escape(s)):
                    # No half of a surrogate pair to hold back, no escape cut at the end (it
                    # would escape the quote added here, and the scanner's failure is dear):
                    # the C scanner, to the closing quote or the one added.
                    try:
                        piece, end = _scanstring(s + '"', i)
                    except ValueError:  # a raw control character, a cut or bad escape
                        pass
                    else:
                        if piece:
                            self.grow(piece)
                        if end > n:
                            break
                        self._token = TOK_NONE
                        self._fast = False
                        self._state = AFTER[self._state]
                        i = end
                        continue
                i = self._scan_string(s, i)
                if self._error is not None:
                    break
                continue
            tok = self._token
            if tok:
                if tok == TOK_STRING:  # a key, or an escape or surrogate pending
                    key_parts = self._key_parts
                    if key_parts is not None and not self._esc and not self._high:
                        end = s.find('"', i)
                        piece = s[i:end] if end >= 0 else s[i:]
                        if "\\" not in piece and piece.isprintable():  # a plain key (all are)
                            key_parts.append(piece)
                            if end < 0:
                                break
                            self.key = "".join(key_parts)
                            self._key_parts = None
                            self._token = TOK_NONE
                            self._state = _OBJ_COLON
                            i = end + 1
                            continue
                    i = self._scan_string(s, i)
                elif tok == TOK_NUMBER:
                    m = NUM_RUN.match(s, i)
                    if m is not None:
                        self._num_parts.append(m.group())
                        i = m.end()
                        if i == n:  # the number may go on in the next delta
                            break
                    self._end_number()  # s[i] is a delimiter; it is handled below next turn
                else:
                    i = self._scan_literal(s, i)
                if self._error is not None:
                    break
                continue

            # Between tokens: the common steps first (see grammar.MEMBER), one regex match each.
            state = self._state
            c = s[i]
            if state == _OBJAFTER:
                if c == "}":
                    self._state = AFTER[self.pop()]
                    i += 1
                    continue
                m = MEMBER.match(s, i)
                if m is None:
                    i = self._general(s, i)
                    continue
                key, quote, colon, text, closed, number, opener = m.groups()
                if key is None:  # only the comma so far
                    self._state = _OBJ_NEXT
                    self._comma_pos = offset + s.index(",", i)
                    i = m.end()
                    continue
            elif state == _ARRAFTER:
                if c == "]":
                    self._state = AFTER[self.pop()]
                    i += 1
                    continue
                m = ELEMENT.match(s, i)
                if m is None:
                    i = self._general(s, i)
                    continue
                text, closed, number, opener = m.groups()
                state = _ARR_NEXT
                self._comma_pos = offset + s.index(",", i)
            elif state <= _OBJ_VALUE:
                m = START.match(s, i)
                if m is None:
                    i = self._general(s, i)
                    continue
                text, closed, number, opener = m.groups()
            elif state == _OBJ_COLON:
                m = COLON.match(s, i)
                if m is None:
                    i = self._general(s, i)
                    continue
                text, closed, number, opener = m.groups()
                state = _OBJ_VALUE
            elif state != TOP_DONE:  # _OBJ_FIRST, _OBJ_NEXT: a key
                m = KEY.match(s, i)
                if m is None:
                    i = self._general(s, i)
                    continue
                key, quote, colon, text, closed, number, opener = m.groups()
            else:
                i = self._general(s, i)
                continue
            i = m.end()
            if state > _OBJ_VALUE:  # MEMBER or KEY matched a key, as far as it got
                # Only those two branches leave state above _OBJ_VALUE, and both bound key (a
                # str: MEMBER's match without one went on above), quote and colon in this turn.
                # pyright cannot tie the state to the branch (mypy --strict passes): ignored on
                # these lines only, rather than rebinding them on every turn of the hot loop.
                if quote is None:  # cut off: its string goes on  # pyright: ignore[reportPossiblyUnboundVariable]
                    self._token = TOK_STRING
                    self._key_parts = [key]  # pyright: ignore[reportPossiblyUnboundVariable, reportAttributeAccessIssue]
                    self._state = _OBJ_NEXT
                    continue
                self.key = key  # pyright: ignore[reportPossiblyUnboundVariable]
                if colon is None:  # pyright: ignore[reportPossiblyUnboundVariable]
                    self._state = _OBJ_COLON
                    continue
                state = _OBJ_VALUE  # and perhaps the value's start
            if text is not None:
                value: Any = text
            elif number is not None:
                if len(number) > 4000:  # perhaps more digits than int() takes: said below
                    self._state = state
                    i = m.start("number")
                    self._token = TOK_NUMBER
                    self._num_parts = []
                    self._num_start = offset + i
                    continue
                try:
                    value = int(number)
                except ValueError:  # a fraction or an exponent (the match is a JSON number)
                    value = float(number)
            elif opener is not None:
                if opener == "{":
                    self.push({})
                    self._state = _OBJ_FIRST
                else:
                    self.push([])
                    self._state = _ARR_FIRST
                continue
            else:  # the value does not start here: the general path takes it next turn
                self._state = state
                if i < n and s[i] in "-0123456789":
                    # A number running to the end of the text (the patterns take a number
                    # only with the delimiter after it): it may go on in the next delta. The
                    # number branch above takes it, as _general would have had it do.
                    self._token = TOK_NUMBER
                    self._num_parts = []
                    self._num_start = offset + i
                continue
            self.put(value)
            if closed is None and text is not None:  # a string value goes on
                self._token = TOK_STRING
                self._key_parts = None
                self._fast = True
                self._state = state
            else:
                self._state = AFTER[state]
        self._offset = offset + n

    @property
    def _stats_chars(self) -> int:
        """Characters run through the state machine (for the linearity tests)."""
        return self._offset - self._skipped

    def _fail(self, message: str, pos: int) -> None:
        self._fast = False
        self._error = message
        self._error_pos = pos

    def _repair(self, name: str, pos: int) -> None:
        if name not in self._repairs:
            self._repairs[name] = pos

    def _general(self, s: str, i: int) -> int:
        """One step between tokens, whatever comes: whitespace, a punctuation character, a
        whole string without escapes, the start of any token; a syntax error. ``s[i:]`` is
        not empty; returns the index after what was taken (``len(s)`` after an error)."""
        n = len(s)
        offset = self._offset
        state = self._state
        c = s[i]
        while c in WHITESPACE:  # usually one space, if any
            i += 1
            if i == n:
                return n
            c = s[i]

        if state <= _OBJ_VALUE:  # a value is expected
            if c == '"':
                self._start_string()
                return i + 1
            if c == "{":
                self.push({})
                self._state = _OBJ_FIRST
                return i + 1
            if c == "[":
                self.push([])
                self._state = _ARR_FIRST
                return i + 1
            if c in "-0123456789":
                # Consumed by the number branch of _consume on the next turn.
                self._token = TOK_NUMBER
                self._num_parts = []
                self._num_start = offset + i
                return i
            if c in LITERALS:
                self._token = _TOK_LITERAL
                self._lit = LITERALS[c]
                self._lit_len = 1
                return i + 1
            if c == "]" and state in (_ARR_FIRST, _ARR_NEXT):
                if state == _ARR_NEXT:
                    self._repair(_TRAILING_COMMA, self._comma_pos)
                self._close()
                return i + 1
            self._fail("Expecting value", offset + i)
        elif state == _ARRAFTER:
            if c == ",":
                self._state = _ARR_NEXT
                self._comma_pos = offset + i
                return i + 1
            if c == "]":
                self._close()
                return i + 1
            self._fail("Expecting ',' or ']' in array", offset + i)
        elif state == _OBJAFTER:
            if c == ",":
                self._state = _OBJ_NEXT
                self._comma_pos = offset + i
                return i + 1
            if c == "}":
                self._close()
                return i + 1
            self._fail("Expecting ',' or '}' in object", offset + i)
        elif state == _OBJ_COLON:
            if c == ":":
                self._state = _OBJ_VALUE
                return i + 1
            self._fail("Expecting ':' after property name", offset + i)
        elif state in (_OBJ_FIRST, _OBJ_NEXT):
            if c == '"':
                self._token = TOK_STRING
                self._key_parts = []
                return i + 1
            if c == "}":
                if state == _OBJ_NEXT:
                    self._repair(_TRAILING_COMMA, self._comma_pos)
                self._close()
                return i + 1
            self._fail("Expecting property name in double quotes", offset + i)
        else:  # TOP_DONE
            self._fail("Extra data after the top-level value", offset + i)
        return n

    def _close(self) -> None:
        # The closed container is final from here on, already in its parent: the shared value.
        self._state = AFTER[self.pop()]

    def _commit(self, value: Any) -> None:
        """Store a finished scalar in the innermost open container (or as the top level)."""
        state = self._state
        self.put(value)
        self._state = AFTER[state]

    # ------------------------------------------------------------------------------- strings

    def _start_string(self) -> None:
        """A string value begins: it is in the snapshot (empty) from now on."""
        self._token = TOK_STRING
        self._key_parts = None
        self._fast = True
        self.put("")

    def _scan_string(self, s: str, i: int) -> int:
        """Consume string content from ``s[i:]``; return the index after what was consumed."""
        n = len(s)
        parts: list[str] = []
        run = STR_RUN.match
        while i < n:
            if self._esc:
                i = self._scan_escape(s, i, parts)
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
                self._take(parts)
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
        self._take(parts)
        self._fast = (
            self._key_parts is None and not self._esc and not self._high and self._error is None
        )
        return i

    def _take(self, parts: list[str]) -> None:
        """What one pass decoded of the string in progress."""
        if parts:
            key_parts = self._key_parts
            if key_parts is None:
                self.grow(parts[0] if len(parts) == 1 else "".join(parts))
            else:
                key_parts += parts

    def _scan_escape(self, s: str, i: int, parts: list[str]) -> int:
        """Consume (part of) the escape in progress; ``s[i]`` exists."""
        esc = self._esc
        if len(esc) == 1:  # just the backslash so far
            c = s[i]
            if c == "u":
                self._esc = "\\u"
                return i + 1
            char = SIMPLE_ESCAPES.get(c)
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
        m = HEX.match(piece)
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
        high = self._high
        self._token = TOK_NONE
        self._fast = False
        key_parts = self._key_parts
        if key_parts is not None:
            if high:
                key_parts.append(high)
            self.key = "".join(key_parts)
            self._key_parts = None
            self._state = _OBJ_COLON
            return
        if high:
            self.grow(high)
        self._high = ""
        self._state = AFTER[self._state]

    # ------------------------------------------------------------------- numbers and literals

    def _end_number(self) -> None:
        self._token = TOK_NONE
        parts = self._num_parts
        text = parts[0] if len(parts) == 1 else "".join(parts)
        self._num_parts = []
        if len(text) < 19 and text.isdigit() and text.isascii() and text[0] != "0":
            self._commit(int(text))  # the usual number, a plain integer: no grammar to check
            return
        value, message, off = decode_number(text)
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
            self._token = TOK_NONE
            self._commit(LITERAL_VALUES[lit])
        return i + len(piece)
