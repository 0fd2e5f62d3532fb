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

__all__ = ["MAX_DEPTH", "duplicate_keys", "repair_surrogates", "too_deep", "value_surrogates"]

MAX_DEPTH = 128
"""The deepest nesting of arrays and objects kept in a call's arguments."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def repair_surrogates(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many there were."""
    return _SURROGATE.subn("\ufffd", text)


def value_surrogates(raw: str, value: Any) -> tuple[Any, int]:
    """``value`` (parsed from ``raw``) with lone surrogates in its strings and keys replaced;
    only walked when ``raw`` holds a surrogate escape at all."""
    if not _ESCAPED_SURROGATE.search(raw) and not _SURROGATE.search(raw):
        return value, 0
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


def too_deep(raw: str) -> bool:
    """Arrays and objects in ``raw`` nest deeper than :data:`MAX_DEPTH` (strings skipped)."""
    if raw.count("{") + raw.count("[") <= MAX_DEPTH:
        return False
    depth = 0
    for char in _STRING.sub('""', raw):
        if char in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "}]":
            depth -= 1
    return False


def duplicate_keys(raw: str) -> list[str]:
    """The keys repeated within one object of ``raw`` (strict JSON), in order; ``[]`` when
    ``raw`` has no object with two keys or does not parse."""
    if raw.count(":") < 2:
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
