"""Checks of a finished message's text and arguments that keep a transcript durable: what
``model_dump_json()`` cannot write, or a reader could misread, is repaired and reported.

- A lone surrogate (a provider's ``"\\ud800"`` escape with no pair) cannot be encoded as UTF-8:
  it becomes U+FFFD (``invalid_unicode``), so the message, its ``Context`` and the next request
  always serialise.
- A key repeated in one object of a call's arguments (``{"a": 1, "a": 2}``): the last wins,
  as with ``json.loads`` and JavaScript's ``JSON.parse``, but a reader of ``raw_arguments``
  could take the first; the call is ``recovered`` (``tool_arguments_duplicate_keys``), so
  ``decode_tool_call`` refuses it unless ``allow_recovered=True``.
- Arguments nested deeper than :data:`MAX_DEPTH` are ``invalid`` (``{}``): a message holding
  them no longer validates or serialises (pydantic's recursion limit).

Each check first looks for what it is about with one C-speed scan, so ordinary text costs
next to nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "duplicate_keys",
    "has_surrogate",
    "repair_surrogates",
    "repair_value",
    "shape",
    "value_surrogates",
]

MAX_DEPTH = 128
"""The deepest nesting of arrays and objects kept in a call's arguments."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: twice as fast as an alternation
_SPACE = re.compile(r"\s+")


def repair_surrogates(text: str, held: bool | None = None) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were.
    ``held``: :func:`has_surrogate`'s answer for ``text``, when the caller has it."""
    if not (has_surrogate(text) if held is None else held):
        return text, 0
    return _SURROGATE.subn("\ufffd", text)


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate: it cannot then be encoded (two C-speed passes at
    most, the first for ASCII; UTF-16, which refuses surrogates as UTF-8 does, is the cheaper
    encoding to try)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-16-le")
    except UnicodeEncodeError:
        return True
    return False


def value_surrogates(raw: str, value: Any, held: bool | None = None) -> tuple[Any, int]:
    """``value`` (parsed from ``raw``) with lone surrogates in its strings and keys replaced;
    only walked when ``raw`` holds a surrogate or a surrogate escape at all. ``held``:
    :func:`has_surrogate`'s answer for ``raw``, when the caller has it."""
    escaped = ("\\ud" in raw or "\\uD" in raw) and _ESCAPED_SURROGATE.search(raw)
    if not escaped and not (has_surrogate(raw) if held is None else held):
        return value, 0
    return repair_value(value)


def repair_value(value: Any) -> tuple[Any, int]:
    """``value`` (JSON-like: dicts, lists, strings, scalars) with lone surrogates in its
    strings and keys replaced by U+FFFD, and how many there were; walked whole."""
    count = 0

    def fix(item: Any) -> Any:
        nonlocal count
        if isinstance(item, str):
            fixed, n = _SURROGATE.subn("\ufffd", item)
            count += n
            return fixed
        if isinstance(item, dict):
            return {fix(k): fix(v) for k, v in item.items()}
        if isinstance(item, list):
            return [fix(v) for v in item]
        return item

    return fix(value), count


def shape(value: Any) -> tuple[int, int]:
    """The nesting depth of a parsed value's arrays and objects, and how many keys its objects
    hold: one walk, a level at a time (no recursion, whatever the depth)."""
    depth = keys = 0
    level = [value] if isinstance(value, (dict, list)) else []
    while level:
        depth += 1
        below: list[Any] = []
        for item in level:
            children: Any = item
            if isinstance(item, dict):
                keys += len(item)
                children = item.values()
            for child in children:
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return depth, keys


def _written_keys(raw: str) -> int:
    """At least how many object keys a strict JSON text writes (exactly, unless a string
    begins with a colon). Its escaped backslashes taken out (left to right, as JSON reads
    them), a quote after a backslash is an escaped one and any other delimits a string, and
    ``":`` closes a key: C-speed counts (a replace when there are escaped backslashes). Space
    before a colon anywhere (``"key" : 1``) takes the slower way: the strings emptied first."""
    text = raw.replace("\\\\", "") if "\\\\" in raw else raw
    if " :" in text or "\n:" in text or "\t:" in text or "\r:" in text:
        return _SPACE.sub("", _STRING.sub('""', raw)).count('"":')
    return text.count('":') - text.count('\\":')


def duplicate_keys(raw: str, kept: int) -> list[str]:
    """The keys repeated within one object of ``raw`` (strict JSON, whose parsed value holds
    ``kept`` keys), in order; ``[]`` when none is: the exact search only runs when ``raw``
    writes more keys than the value kept (not when it has no more colons than that)."""
    colons = raw.count(":")
    if colons < 2 or colons <= kept or _written_keys(raw) == kept:
        return []
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) != len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen and key not in repeated:
                    repeated.append(key)
                seen.add(key)
        return out

    try:
        json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return []
    return repeated
