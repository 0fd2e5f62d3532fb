"""Validating a decoded JSON value the way a careful caller would before using it: the
machinery ``decode_tool_call`` (a tool call's arguments) and ``decode_output`` (a
structured-output reply) share.

Validation is pydantic's lax mode for a value with a model, jsonschema (Draft 2020-12) for a
plain schema. On top of it, a bounded repair loop walks the validation errors and fixes what
models commonly get wrong in harmless ways (:mod:`.repairs`: an object or array sent as a
JSON-encoded string, a number or boolean sent as a string, ``null`` for an optional property,
QUIRKS H1). Each fix is returned (and
reported by the callers as an ``arguments_coerced`` diagnostic); anything else is
:class:`Invalid`, with a summary that is safe to send back to the model.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from .._diagnostics import Diagnostic
from .._schema.strict import is_optional_property
from .extra_keys import Path
from .repairs import CHANGES, apply, fix, lax_changes

__all__ = ["Invalid", "Path", "coercion_diagnostics", "format_path", "short", "validate_value"]


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
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


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


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _jsonschema_validator(schema: dict[str, Any]) -> Callable[[Any], tuple[Any, list[_Problem]]]:
    # Imported here: `import llmkit` must not import jsonschema.
    import jsonschema
    import jsonschema.validators  # the submodule used below, explicitly

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
) -> tuple[Any, list[tuple[Path, str]], Any]:
    """Validate ``value`` (never modified) against a pydantic model (lax mode) or a JSON
    Schema, with the bounded repair loop of the module docstring.

    Args:
        value: The decoded JSON value.
        model: The pydantic model, if any (its schema is only built when a null needs checking).
        schema: The JSON Schema, for a value without a model.
        root: What the value is called where a problem has no path (``"arguments"``).

    Returns:
        The validated value (a model instance, or the repaired value for a schema), the
        coercions applied, as ``(path, change)``, and the repaired input (what the undeclared
        keys are looked for in).

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
            except Exception:  # noqa: BLE001 -- noqa: catch-all: pydantic: a type without a JSON Schema
                return False
        return is_optional_property(schema, path)

    changes: list[tuple[Path, str]] = []
    problems: list[_Problem] = []  # for the type checker: the first pass always binds it
    for _ in range(_MAX_PASSES):
        validated, problems = validate(value)
        if not problems:
            break
        fixed = False
        for p in problems:
            repair = fix(p, scalars=model is None, optional=optional)
            if repair is not None and apply(value, p.path, p.input, repair[1]):
                changes.append((p.path, repair[0]))
                fixed = True
        if not fixed:
            raise Invalid(problems, root)
    else:
        raise Invalid(problems, root)

    if isinstance(validated, BaseModel):
        # Serialising a custom type may fail: this report is best effort, the value is valid.
        with contextlib.suppress(Exception):
            lax_changes(value, validated.model_dump(by_alias=True, warnings=False), (), changes)
    return validated, changes, value


def coercion_diagnostics(
    name: str, changes: list[tuple[Path, str]], tool_call_id: str | None, root: str
) -> list[Diagnostic]:
    """One ``arguments_coerced`` diagnostic per coercion applied (``details``: ``tool``,
    ``path``, ``change``)."""
    return [
        Diagnostic(
            kind="arguments_coerced",
            message=f"{name}: {format_path(path) or root}: {CHANGES[change]}",
            tool_call_id=tool_call_id,
            details={"tool": name, "path": format_path(path), "change": change},
        )
        for path, change in changes
    ]
