"""Typed reads of provider JSON, for the decoders.

A provider value is never trusted to have the type its wire documents: a decoder reads each
field it needs through one of these, and a value of the wrong type is reported
(``event_malformed``, once per field) and read as missing. So no provider value can raise out
of a decoder, and none is dropped silently. The hot paths check types inline and call these
only for what is not the common shape.
"""

from __future__ import annotations

from typing import Any

from .contract import DeltaSink

__all__ = ["count", "obj", "seq", "text", "wrong_type"]


def wrong_type(sink: DeltaSink, what: str, value: Any, expected: str) -> None:
    """Report that ``what`` had the wrong type and was ignored."""
    sink.malformed(
        f"The provider sent {what} as a {type(value).__name__}, not {expected}; ignored",
        once=what,
        field=what,
    )


def obj(sink: DeltaSink, value: Any, what: str) -> dict[str, Any] | None:
    """``value`` if it is a JSON object; ``None`` if absent (or null); else reported, ``None``."""
    if isinstance(value, dict):
        return value
    if value is not None:
        wrong_type(sink, what, value, "an object")
    return None


def seq(sink: DeltaSink, value: Any, what: str) -> list[Any]:
    """``value`` if it is a JSON array; ``[]`` if absent (or null); else reported, ``[]``."""
    if isinstance(value, list):
        return value
    if value is not None:
        wrong_type(sink, what, value, "an array")
    return []


def text(sink: DeltaSink, value: Any, what: str) -> str | None:
    """``value`` if it is a string; ``None`` if absent (or null); else reported, ``None``."""
    if isinstance(value, str):
        return value
    if value is not None:
        wrong_type(sink, what, value, "a string")
    return None


def count(sink: DeltaSink, value: Any, what: str) -> int | None:
    """A token count: a non-negative integer (``2.0`` is taken as ``2``); anything else is
    reported and read as not reported (``None``: never guessed)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    wrong_type(sink, what, value, "a token count")
    return None
