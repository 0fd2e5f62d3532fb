"""String content for the partial-JSON state machine: the runs it takes in one regex match,
decoded at C speed by ``json``'s own string scanner (so escapes decode exactly as
``json.loads`` decodes them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from json import decoder as _decoder

__all__ = ["STR_BODY", "STR_RUN", "cut_escape", "scanstring", "unescape"]

# String content with only two-character escapes (no \\u: a surrogate pair may be split), none
# cut off at the end: decoded at C speed by `unescape`.
STR_BODY = re.compile(r'[^"\\\x00-\x1f]*(?:\\["\\/bfnrt][^"\\\x00-\x1f]*)*')
# Plain string characters: everything but the quote, the backslash and raw control characters.
STR_RUN = re.compile(r'[^"\\\x00-\x1f]+')
# json's string decoder (C where available): (decoded, end) of the string that starts at `end`.
scanstring: Callable[[str, int], tuple[str, int]] = getattr(_decoder, "scanstring")  # noqa: B009


def unescape(text: str) -> str:
    """Decode string content that matches ``STR_BODY``."""
    return scanstring(text + '"', 0)[0] if "\\" in text else text


def cut_escape(text: str) -> bool:
    """Whether ``text`` ends inside an escape: an odd run of backslashes at its end. Such a
    piece of string content is not given to :func:`scanstring` with a quote added (the
    backslash would escape it): the scanner would fail, and a failure costs a
    ``JSONDecodeError`` built and dropped, several times a successful scan."""
    return text[-1:] == "\\" and (len(text) - len(text.rstrip("\\"))) % 2 == 1
