"""Checks on the page's history before anything reads it: it came from a browser.

Whatever the shapes (``_history.py`` checks those), the values must be what JSON can carry
and what a request can send again: text without lone surrogates (``json.loads`` turns the
escape ``"\\ud800"`` into one, and it cannot be encoded as UTF-8), finite numbers (Python's
``json`` reads ``NaN`` and ``Infinity``, JSON has neither), string keys, and nesting no
deeper than :data:`MAX_DEPTH` (deeper input would exhaust Python's recursion wherever it is
later encoded). The walk is iterative and linear in the input; the size of the input is the
web server's to bound (its request body limit).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import NoReturn

from .._errors import InvalidRequestError

__all__ = ["MAX_DEPTH", "Where", "check_json"]

MAX_DEPTH = 100
"""How deeply one UI message may nest (objects and lists; the message itself is level 1)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class Where:
    """Where in the input we are, for error messages."""

    def __init__(self, index: int, message_id: object) -> None:
        self.index = index
        self.id = message_id if isinstance(message_id, str) else None
        self.part: int | None = None

    def __str__(self) -> str:
        where = f"messages[{self.index}]"
        if self.id is not None:
            where += f" (id {self.id[:80]!r})"
        if self.part is not None:
            where += f" part {self.part}"
        return where

    def fail(self, problem: str) -> NoReturn:
        raise InvalidRequestError(f"UI message history: {self}: {problem}")


def check_json(index: int, message: object) -> None:
    """Refuse ``message`` (the ``index``-th) unless every value in it is sound JSON.

    Raises:
        InvalidRequestError: Naming the message and, inside its ``parts``, the part.
    """
    where = Where(index, message.get("id") if isinstance(message, Mapping) else None)
    # (value, depth, part number or None, whether value is the message's "parts" list)
    stack: list[tuple[object, int, int | None, bool]] = [(message, 1, None, False)]
    while stack:
        value, depth, part, is_parts = stack.pop()
        where.part = part
        if isinstance(value, str):
            if _SURROGATE.search(value):
                where.fail("a string holds a lone surrogate (not text: it cannot be sent)")
        elif value is None or isinstance(value, (bool, int)):
            pass
        elif isinstance(value, float):
            if not math.isfinite(value):
                where.fail(f"{value} is not a JSON number")
        elif isinstance(value, Mapping):
            if depth > MAX_DEPTH:
                where.fail(f"nested deeper than {MAX_DEPTH} levels")
            for key, inner in value.items():
                if not isinstance(key, str):
                    where.fail(f"an object key must be a string (got {type(key).__name__})")
                if _SURROGATE.search(key):
                    where.fail("a key holds a lone surrogate (not text: it cannot be sent)")
                stack.append((inner, depth + 1, part, depth == 1 and key == "parts"))
        elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
            if depth > MAX_DEPTH:
                where.fail(f"nested deeper than {MAX_DEPTH} levels")
            for n, inner in enumerate(value):
                stack.append((inner, depth + 1, n if is_parts else part, False))
        else:
            where.fail(f"a {type(value).__name__} is not a JSON value")
