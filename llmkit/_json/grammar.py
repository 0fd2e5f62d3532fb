"""The JSON token grammar the state machine (:mod:`.machine`) matches with: whitespace,
escapes, literals, numbers, and the compiled patterns of its common steps."""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "COLON",
    "ELEMENT",
    "HEX",
    "KEY",
    "LITERALS",
    "LITERAL_VALUES",
    "MEMBER",
    "NUM_RUN",
    "SIMPLE_ESCAPES",
    "START",
    "WHITESPACE",
    "decode_number",
]

WHITESPACE = " \t\n\r"  # JSON's, exactly (RFC 8259)
# The common steps, each one regex match. In an object, after a member (``, "key": ``) or after
# "{" or "," (``"key": ``): as much as there is of a key, its colon and the start of its value
# (a delta may end anywhere in it: each group says how far it got). In an array, after an
# element: ``, `` and the start of the next. After a key: its colon and the start of the value.
# Where a value is expected: its start. The start of a value: a string's opening quote and its
# plain content ("text"), with its closing quote if that comes next ("closed"); a whole number,
# when a delimiter follows it in the same text ("number"); or "{" / "[" ("opener"). Anything
# else (an escape in a key, a literal, a number at the end of the text, ...) is left to the
# general path.
_WS = r"[ \t\n\r]*"
_VALUE = (
    r'(?:"(?P<text>[^"\\\x00-\x1f]*)(?P<closed>")?'
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?=[ \t\n\r,\]}])"
    r"|(?P<opener>[{\[]))"
)
_KEY_ON = (
    r'"(?P<key>[^"\\\x00-\x1f]*)(?:(?P<quote>")(?:' + _WS + r"(?P<colon>:)" + _WS + _VALUE + "?)?)?"
)
MEMBER = re.compile(_WS + "," + _WS + "(?:" + _KEY_ON + ")?")
KEY = re.compile(_WS + _KEY_ON)
ELEMENT = re.compile(_WS + "," + _WS + _VALUE + "?")
COLON = re.compile(_WS + ":" + _WS + _VALUE + "?")
START = re.compile(_WS + _VALUE)
# Characters that may continue a number; validity is checked once the number has ended.
NUM_RUN = re.compile(r"[-+0-9.eE]+")
HEX = re.compile(r"[0-9a-fA-F]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")

SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
LITERALS = {"t": "true", "f": "false", "n": "null"}
LITERAL_VALUES: dict[str, Any] = {"true": True, "false": False, "null": None}


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
