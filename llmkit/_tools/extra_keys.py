"""Argument keys a tool does not define: found, so that none is dropped silently.

A model often sends a key its tool never declared (a misspelling, a hallucinated option).
pydantic ignores such keys by default and a plain JSON Schema lets them through, so
``decode_tool_call`` looks for them after validation and reports each as an
``arguments_extra_keys`` diagnostic (an args model with ``extra="forbid"`` refuses them during
validation instead; its schema says ``additionalProperties: false``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .._schema.strict import subschemas_at

__all__ = ["Path", "undeclared_in_model", "undeclared_in_schema"]

Path = tuple[str | int, ...]


def undeclared_in_model(value: Any, data: Any, path: Path = ()) -> list[Path]:
    """The paths of keys in ``data`` that validating it into ``value`` dropped: keys a model
    (at any depth) has no field for, when the model does not keep extras."""
    found: list[Path] = []
    if isinstance(value, BaseModel) and isinstance(data, dict):
        fields = type(value).model_fields
        known: dict[str, str] = {}
        for name, info in fields.items():
            known[name] = name
            for alias in (info.alias, info.validation_alias):
                if isinstance(alias, str):
                    known[alias] = name
        keeps_extras = type(value).model_config.get("extra") == "allow"
        for key, item in data.items():
            field = known.get(key)
            if field is None:
                if not keeps_extras:
                    found.append((*path, key))
                continue
            found += undeclared_in_model(getattr(value, field, None), item, (*path, key))
    elif isinstance(value, (list, tuple)) and isinstance(data, list):
        for i, (v, d) in enumerate(zip(value, data, strict=False)):
            found += undeclared_in_model(v, d, (*path, i))
    elif isinstance(value, dict) and isinstance(data, dict):
        for key, item in data.items():
            if key in value:
                found += undeclared_in_model(value[key], item, (*path, key))
    return found


def undeclared_in_schema(schema: dict[str, Any], data: Any, path: Path = ()) -> list[Path]:
    """The paths of keys in ``data`` that no applicable object schema declares. An object
    whose schema declares more keys (``additionalProperties: true`` or a schema,
    ``patternProperties``, no ``properties`` at all) is left alone."""
    found: list[Path] = []
    if isinstance(data, dict):
        candidates = [s for s in subschemas_at(schema, path) if _describes_object(s)]
        closed = candidates and all(_closed(s) for s in candidates)
        declared = {k for s in candidates for k in s.get("properties", {})}
        for key, item in data.items():
            if closed and key not in declared:
                found.append((*path, key))
            else:
                found += undeclared_in_schema(schema, item, (*path, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            found += undeclared_in_schema(schema, item, (*path, i))
    return found


def _describes_object(schema: dict[str, Any]) -> bool:
    return isinstance(schema.get("properties"), dict) or schema.get("type") == "object"


def _closed(schema: dict[str, Any]) -> bool:
    """Whether the schema names every key it admits (extra keys are then undeclared)."""
    return (
        isinstance(schema.get("properties"), dict)
        and not schema.get("patternProperties")
        # left out, extra keys are merely allowed; `true` or a schema for them declares them
        and schema.get("additionalProperties", False) is False
    )
