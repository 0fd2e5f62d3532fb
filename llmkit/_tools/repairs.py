"""The harmless slips ``decode_tool_call`` repairs in a call's arguments, each reported.

Models often send an object or array as a JSON-encoded string, a number or boolean as a string
(plain schemas; pydantic's lax mode does these itself), or ``null`` for an optional property
(what OpenAI strict mode asks for, QUIRKS H1). :func:`fix` names the repair for one validation
problem, :func:`apply` makes it in the arguments, and :func:`lax_changes` finds the coercions
pydantic's lax mode made by itself, so that every one is reported as ``arguments_coerced``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._json.scanner import loads

if TYPE_CHECKING:
    from .extra_keys import Path
    from .validation import _Problem

__all__ = ["CHANGES", "apply", "fix", "lax_changes"]

_TRUE = {"true", "t", "yes", "y", "on", "1"}  # the strings pydantic's lax bool accepts
_FALSE = {"false", "f", "no", "n", "off", "0"}
_INT = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def fix(
    problem: _Problem, *, scalars: bool, optional: Callable[[Path], bool]
) -> tuple[str, Any] | None:
    """The repair for one problem: (change code, new value or _DROP), or None."""
    value, expects = problem.input, problem.expects
    if isinstance(value, str) and expects & {"object", "array"}:
        try:
            decoded = loads(value)
        except ValueError:
            decoded = None
        if (isinstance(decoded, dict) and "object" in expects) or (
            isinstance(decoded, list) and "array" in expects
        ):
            return "json_string_decoded", decoded
    if isinstance(value, str) and scalars:  # pydantic's lax mode already does these
        text = value.strip()
        if "integer" in expects and _INT.match(text):
            return "string_to_number", int(text)
        if "number" in expects and _NUMBER.match(text) and math.isfinite(float(text)):
            return "string_to_number", int(text) if _INT.match(text) else float(text)
        if "boolean" in expects and text.lower() in _TRUE | _FALSE:
            return "string_to_boolean", text.lower() in _TRUE
    if scalars and "boolean" in expects and type(value) is int and value in (0, 1):
        return "number_to_boolean", bool(value)
    if value is None and problem.path and optional(problem.path):
        return "null_dropped", _DROP
    return None


_DROP: Any = object()


CHANGES = {
    "json_string_decoded": "a JSON-encoded string was decoded",
    "string_to_number": "a string was read as a number",
    "string_to_boolean": "a string was read as a boolean",
    "number_to_boolean": "a number was read as a boolean",
    "null_dropped": "null for an optional property was treated as omitted",
}


def apply(args: dict[str, Any], path: Path, old: Any, new: Any) -> bool:
    if not path:
        return False
    parent: Any = args
    try:
        for key in path[:-1]:
            parent = parent[key]
        current = parent[path[-1]]
    except (KeyError, IndexError, TypeError):  # already changed by a fix earlier in this pass
        return False
    # Several errors may point at one value (a union's members): change it only once.
    if type(current) is not type(old) or current != old:
        return False
    key = path[-1]
    if new is _DROP:
        del parent[key]
    else:
        parent[key] = new
    return True


def lax_changes(given: Any, validated: Any, path: Path, out: list[tuple[Path, str]]) -> None:
    """Find the scalar coercions pydantic's lax mode made, by comparing input and output."""
    if isinstance(given, dict) and isinstance(validated, dict):
        for key, value in given.items():
            if key in validated:
                lax_changes(value, validated[key], (*path, key), out)
    elif isinstance(given, list) and isinstance(validated, (list, tuple)):
        if len(given) == len(validated):
            for i, (a, b) in enumerate(zip(given, validated, strict=True)):
                lax_changes(a, b, (*path, i), out)
    elif isinstance(given, str) and isinstance(validated, bool):
        out.append((path, "string_to_boolean"))
    elif isinstance(given, str) and isinstance(validated, (int, float)):
        out.append((path, "string_to_number"))
    elif (
        isinstance(given, (int, float))
        and not isinstance(given, bool)
        and isinstance(validated, bool)
    ):
        out.append((path, "number_to_boolean"))
