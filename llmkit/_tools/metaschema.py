"""A fast, exact pre-check of a tool's ``parameters`` against the JSON Schema 2020-12
meta-schema, for the schemas pydantic and hand-written tools usually have.

:func:`surely_valid` answers ``True`` only for a schema that ``jsonschema``'s
``Draft202012Validator.check_schema`` would accept: every keyword it looks at is one whose
meta-schema rule it checks in full. Anything else (a ``$schema``, a ``pattern``, whose regex
the meta-schema's format checker compiles, an unusual keyword, a value of an unexpected type,
very deep nesting) answers ``False``, and the caller asks ``jsonschema`` itself. So importing
``jsonschema`` and building its meta-schema validator (tens of milliseconds) waits until a
schema needs it, and a tool is accepted or refused exactly as before.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["surely_valid"]

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_REF = re.compile(r"#(/\$defs/[A-Za-z0-9_.\-]+)?")
_MAX_DEPTH = 48

# Keywords whose value may be anything (annotations, and values compared to instances).
_ANY = frozenset({"default", "const"})
_STRINGS = frozenset({"title", "description", "format"})
_BOOLS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_COUNTS = frozenset(
    {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not"})
_SCHEMA_MAPS = frozenset({"properties", "$defs"})
_SCHEMA_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unique_strings(value: object) -> bool:
    return (
        type(value) is list
        and all(type(item) is str for item in value)
        and len(set(value)) == len(value)
    )


def _keyword(key: str, value: Any, depth: int) -> bool:
    if key in _ANY:
        return True
    if key in _STRINGS:
        return type(value) is str
    if key in _BOOLS:
        return type(value) is bool
    if key in _COUNTS:
        return type(value) is int and value >= 0
    if key in _NUMBERS:
        return _number(value)
    if key in _SUBSCHEMA:
        return _schema(value, depth + 1)
    if key in _SCHEMA_MAPS:
        return type(value) is dict and all(
            type(name) is str and _schema(sub, depth + 1) for name, sub in value.items()
        )
    if key in _SCHEMA_LISTS:
        return type(value) is list and bool(value) and all(_schema(s, depth + 1) for s in value)
    if key == "type":
        if type(value) is str:
            return value in _TYPES
        return bool(value) and _unique_strings(value) and all(t in _TYPES for t in value)
    if key == "required":
        return _unique_strings(value)
    if key in ("enum", "examples"):
        return type(value) is list
    if key == "$ref":
        return type(value) is str and _REF.fullmatch(value) is not None
    return False  # a keyword this check does not know: jsonschema decides


def _schema(schema: Any, depth: int) -> bool:
    if type(schema) is bool:
        return True
    if type(schema) is not dict or depth > _MAX_DEPTH:
        return False
    return all(type(key) is str and _keyword(key, value, depth) for key, value in schema.items())


def surely_valid(schema: dict[str, Any]) -> bool:
    """``True``: ``schema`` is a valid JSON Schema 2020-12 (``check_schema`` would accept it).
    ``False``: not known here; ask ``jsonschema``."""
    return _schema(schema, 0)
