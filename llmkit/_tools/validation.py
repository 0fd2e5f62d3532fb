"""Validating a decoded JSON value the way a careful caller would before using it: the
machinery ``decode_tool_call`` (a tool call's arguments) and ``decode_output`` (a
structured-output reply) share.

Validation is pydantic's lax mode for a value with a model, jsonschema (Draft 2020-12) for a
plain schema. On top of it, a bounded repair loop walks the validation errors and fixes what
models commonly get wrong in harmless ways: an object or array sent as a JSON-encoded string, a
number or boolean sent as a string (plain schemas; pydantic does this itself), ``null`` for an
optional property (what OpenAI strict mode asks for, QUIRKS H1). Each fix is returned (and
reported by the callers as an ``arguments_coerced`` diagnostic); anything else is
:class:`Invalid`, with a summary that is safe to send back to the model.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from .._diagnostics import Diagnostic
from .._schema.strict import is_optional_property

__all__ = ["Invalid", "Path", "coercion_diagnostics", "format_path", "short", "validate_value"]

Path = tuple[str | int, ...]

_MAX_PASSES = 16  # each pass may fix many values; nesting deeper than this is not a slip
_MAX_LISTED = 8  # problems named in model_message; the rest are counted
_OBJECT_TYPES = {"model_type", "model_attributes_type", "dict_type", "dataclass_type"}
_ARRAY_TYPES = {"list_type", "tuple_type", "set_type", "frozen_set_type", "iterable_type"}
# pydantic messages for these name Python classes ("instance of Item"): say it in JSON terms.
_SAFE_MESSAGES = {
    **dict.fromkeys(_OBJECT_TYPES, "Input should be an object"),
    **dict.fromkeys(_ARRAY_TYPES, "Input should be an array"),
    "is_instance_of": "Input has the wrong type",
    "is_subclass_of": "Input has the wrong type",
    "dataclass_exact_type": "Input should be an object",
}
_TRUE = {"true", "t", "yes", "y", "on", "1"}  # the strings pydantic's lax bool accepts
_FALSE = {"false", "f", "no", "n", "off", "0"}
_INT = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


@dataclass
class _Problem:
    """One validation error, in terms of the arguments (not of the validator)."""

    path: Path
    type: str
    message: str
    input: Any = None
    expects: frozenset[str] = frozenset()  # JSON types wanted here, for a type mismatch
    got: str | None = None  # a short echo of the input for model_message


def format_path(path: Path) -> str:
    """``("items", 2, "qty")`` → ``items[2].qty``; an odd key is quoted: ``a["b c"]``."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _IDENT.match(key):
            out += f".{key}" if out else key
        else:
            out += f"[{json.dumps(key, ensure_ascii=False)}]"
    return out


def short(value: Any, limit: int = 60) -> str:
    """``value`` as JSON, cut to ``limit`` characters (for messages)."""
    text = json.dumps(value, ensure_ascii=False, default=lambda o: type(o).__name__)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _data_path(data: Any, loc: tuple[Any, ...]) -> Path:
    # pydantic's loc mixes real keys with union-member tags ("Item", "list[int]"): keep the
    # elements that exist in the data, and a final key that is missing from it.
    path: list[str | int] = []
    for i, key in enumerate(loc):
        is_key = isinstance(data, dict) and key in data
        if is_key or (isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data)):
            data = data[key]
        elif isinstance(data, dict) and isinstance(key, str) and i == len(loc) - 1:
            pass  # a missing key
        else:
            continue
        path.append(key)
    return tuple(path)


def _pydantic_validator(model: type[BaseModel]) -> Callable[[Any], tuple[Any, list[_Problem]]]:
    def validate(args: Any) -> tuple[Any, list[_Problem]]:
        try:
            return model.model_validate(args), []
        except ValidationError as e:
            problems = []
            for err in e.errors(include_url=False):
                kind = err["type"]
                value = err.get("input")
                scalar = value is None or isinstance(value, (str, int, float, bool))
                problems.append(
                    _Problem(
                        path=_data_path(args, err["loc"]),
                        type=kind,
                        message=_SAFE_MESSAGES.get(kind, err["msg"]),
                        input=value,
                        expects=frozenset(
                            {"object"}
                            if kind in _OBJECT_TYPES
                            else {"array"}
                            if kind in _ARRAY_TYPES
                            else ()
                        ),
                        got=short(value) if scalar and kind != "missing" else None,
                    )
                )
            return None, problems

    return validate


_ARTICLE = {"object": "an object", "array": "an array", "integer": "an integer", "null": "null"}


def _jsonschema_validator(schema: dict[str, Any]) -> Callable[[Any], tuple[Any, list[_Problem]]]:
    # Imported here: `import llmkit` must not import jsonschema.
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    # No format checker: in Draft 2020-12 "format" is an annotation unless asked for.
    validator = cls(schema)

    def convert(err: Any, seen_required: set[Path]) -> list[_Problem]:
        path: Path = tuple(err.absolute_path)
        if err.validator == "required":
            if path in seen_required:  # one error per missing key, all listed the first time
                return []
            seen_required.add(path)
            missing = [k for k in err.validator_value if k not in err.instance]
            return [_Problem((*path, k), "missing", "Field required") for k in missing]
        expects: list[str] = []  # in schema order, for the message
        if err.validator == "type":
            expects = _as_list(err.validator_value)
        elif err.validator in ("anyOf", "oneOf") and err.context:
            branches: dict[Any, list[Any]] = {}
            for e in err.context:
                branches.setdefault(e.relative_schema_path[0], []).append(e)
            mismatched = [
                [e for e in errs if not e.relative_path and e.validator == "type"]
                for errs in branches.values()
            ]
            matching = [
                errs for errs, m in zip(branches.values(), mismatched, strict=True) if not m
            ]
            if matching:
                # The value has the right type for some branch: its problems are the useful
                # ones (not "should be null" for a malformed object).
                best = min(matching, key=len)
                return [p for e in best for p in convert(e, seen_required)]
            expects = [t for m in mismatched for e in m for t in _as_list(e.validator_value)]
        if expects:
            names = " or ".join(_ARTICLE.get(t, f"a {t}") for t in dict.fromkeys(expects))
            message = f"Input should be {names}"
        else:
            message = err.message
            long = repr(err.instance)
            if len(long) > 60:  # jsonschema echoes the whole instance: keep it short
                message = message.replace(long, short(err.instance))
        return [_Problem(path, err.validator, message[:300], err.instance, frozenset(expects))]

    def validate(args: Any) -> tuple[Any, list[_Problem]]:
        seen: set[Path] = set()
        problems = [p for err in validator.iter_errors(args) for p in convert(err, seen)]
        return (None if problems else args), problems

    return validate


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _fix(
    problem: _Problem, *, scalars: bool, optional: Callable[[Path], bool]
) -> tuple[str, Any] | None:
    """The repair for one problem: (change code, new value or _DROP), or None."""
    value, expects = problem.input, problem.expects
    if isinstance(value, str) and expects & {"object", "array"}:
        try:
            decoded = json.loads(value)
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
_CHANGES = {
    "json_string_decoded": "a JSON-encoded string was decoded",
    "string_to_number": "a string was read as a number",
    "string_to_boolean": "a string was read as a boolean",
    "number_to_boolean": "a number was read as a boolean",
    "null_dropped": "null for an optional property was treated as omitted",
}


def _apply(args: dict[str, Any], path: Path, old: Any, new: Any) -> bool:
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


def _lax_changes(given: Any, validated: Any, path: Path, out: list[tuple[Path, str]]) -> None:
    """Find the scalar coercions pydantic's lax mode made, by comparing input and output."""
    if isinstance(given, dict) and isinstance(validated, dict):
        for key, value in given.items():
            if key in validated:
                _lax_changes(value, validated[key], (*path, key), out)
    elif isinstance(given, list) and isinstance(validated, (list, tuple)):
        if len(given) == len(validated):
            for i, (a, b) in enumerate(zip(given, validated, strict=True)):
                _lax_changes(a, b, (*path, i), out)
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


class Invalid(Exception):
    """The value does not validate, even after the repairs: ``summary`` (safe for the model:
    paths, short echoes of scalars, nothing of llmkit's internals) and ``errors`` (one dict per
    problem)."""

    def __init__(self, problems: list[_Problem], root: str) -> None:
        unique: dict[tuple[str, str], _Problem] = {}
        for p in problems:
            unique.setdefault((format_path(p.path), p.message), p)
        lines = []
        for (path, message), p in list(unique.items())[:_MAX_LISTED]:
            got = f" (got {p.got})" if p.got is not None else ""
            lines.append(f"{path or root}: {message}{got}")
        if len(unique) > _MAX_LISTED:
            lines.append(f"and {len(unique) - _MAX_LISTED} more")
        self.summary = "; ".join(lines)
        self.errors: list[dict[str, Any]] = [
            {"path": path, "message": message, "type": p.type}
            for (path, message), p in unique.items()
        ]
        super().__init__(self.summary)


def validate_value(
    value: Any, model: type[BaseModel] | None, schema: dict[str, Any] | None, root: str
) -> tuple[Any, list[tuple[Path, str]]]:
    """Validate ``value`` (never modified) against a pydantic model (lax mode) or a JSON
    Schema, with the bounded repair loop of the module docstring.

    Args:
        value: The decoded JSON value.
        model: The pydantic model, if any (its schema is only built when a null needs checking).
        schema: The JSON Schema, for a value without a model.
        root: What the value is called where a problem has no path (``"arguments"``).

    Returns:
        The validated value (a model instance, or the repaired value for a schema) and the
        coercions applied, as ``(path, change)``.

    Raises:
        Invalid: what does not validate.
    """
    value = copy.deepcopy(value)  # the repairs below write into this copy
    if model is not None:
        validate = _pydantic_validator(model)
    else:
        assert schema is not None
        validate = _jsonschema_validator(schema)

    def optional(path: Path) -> bool:
        nonlocal schema
        if schema is None:  # only built when a null needs checking
            assert model is not None
            try:
                schema = model.model_json_schema()
            except Exception:  # noqa: catch-all -- pydantic: a type without a JSON Schema
                return False
        return is_optional_property(schema, path)

    changes: list[tuple[Path, str]] = []
    for _ in range(_MAX_PASSES):
        validated, problems = validate(value)
        if not problems:
            break
        fixed = False
        for p in problems:
            fix = _fix(p, scalars=model is None, optional=optional)
            if fix is not None and _apply(value, p.path, p.input, fix[1]):
                changes.append((p.path, fix[0]))
                fixed = True
        if not fixed:
            raise Invalid(problems, root)
    else:
        raise Invalid(problems, root)

    if isinstance(validated, BaseModel):
        # Serialising a custom type may fail: this report is best effort, the value is valid.
        with contextlib.suppress(Exception):
            _lax_changes(value, validated.model_dump(by_alias=True, warnings=False), (), changes)
    return validated, changes


def coercion_diagnostics(
    name: str, changes: list[tuple[Path, str]], tool_call_id: str | None, root: str
) -> list[Diagnostic]:
    """One ``arguments_coerced`` diagnostic per coercion applied (``details``: ``tool``,
    ``path``, ``change``)."""
    return [
        Diagnostic(
            kind="arguments_coerced",
            message=f"{name}: {format_path(path) or root}: {_CHANGES[change]}",
            tool_call_id=tool_call_id,
            details={"tool": name, "path": format_path(path), "change": change},
        )
        for path, change in changes
    ]
