"""``decode_tool_call``: validate a tool call's arguments against its tool, the way a careful
caller would before executing anything.

Validation is pydantic's lax mode for a tool that keeps its model, jsonschema (Draft 2020-12)
for a plain schema tool. On top of it, a bounded repair loop walks the validation errors and
fixes what models commonly get wrong in harmless ways: an object or array sent as a
JSON-encoded string, a number or boolean sent as a string (plain schemas; pydantic does this
itself), ``null`` for an optional property (what OpenAI strict mode asks for, QUIRKS H1).
Each fix is reported as an ``arguments_coerced`` diagnostic; anything else is refused with a
:class:`ToolArgumentsError` whose ``model_message`` is safe to send back to the model.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel, ValidationError

from .._diagnostics import Diagnostic
from .._errors import ToolArgumentsError, ToolDefinitionError
from .._schema.strict import is_optional_property
from .definition import ArgsT, Tool, _snake_case
from .extra_keys import Path, undeclared_in_model, undeclared_in_schema
from .repairs import CHANGES, apply, fix, lax_changes

if TYPE_CHECKING:
    from .._messages import ToolCall

__all__ = ["decode_tool_call"]

M = TypeVar("M", bound=BaseModel)

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


def _short(value: Any, limit: int = 60) -> str:
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
                        got=_short(value) if scalar and kind != "missing" else None,
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
                message = message.replace(long, _short(err.instance))
        return [_Problem(path, err.validator, message[:300], err.instance, frozenset(expects))]

    def validate(args: Any) -> tuple[Any, list[_Problem]]:
        seen: set[Path] = set()
        problems = [p for err in validator.iter_errors(args) for p in convert(err, seen)]
        return (None if problems else args), problems

    return validate


def _refuse(name: str, call: ToolCall, problems: list[_Problem]) -> ToolArgumentsError:
    unique: dict[tuple[str, str], _Problem] = {}
    for p in problems:
        unique.setdefault((format_path(p.path), p.message), p)
    lines = []
    for (path, message), p in list(unique.items())[:_MAX_LISTED]:
        got = f" (got {p.got})" if p.got is not None else ""
        lines.append(f"{path or 'arguments'}: {message}{got}")
    if len(unique) > _MAX_LISTED:
        lines.append(f"and {len(unique) - _MAX_LISTED} more")
    summary = "; ".join(lines)
    return ToolArgumentsError(
        f"Invalid arguments for tool call {call.id!r} ({name}): {summary}",
        model_message=(
            f"Invalid arguments for {name}: {summary}. "
            f"Please call {name} again with corrected arguments."
        ),
        errors=[
            {"path": path, "message": message, "type": p.type}
            for (path, message), p in unique.items()
        ],
        tool_call_id=call.id,
    )


@overload
def decode_tool_call(
    tool_or_model: type[M],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> M: ...


@overload
def decode_tool_call(
    tool_or_model: Tool[ArgsT],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> ArgsT: ...


def decode_tool_call(
    tool_or_model: Tool[Any] | type[BaseModel],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any:
    """Validate a tool call's arguments and return them typed.

    Args:
        tool_or_model: The :class:`Tool` the call is for, or the pydantic model of its
            arguments. A Tool made by ``tool()``/``tool_from_function()`` decodes to an instance
            of its model; a plain schema Tool (one built from a JSON Schema, or any Tool after a
            JSON round trip of its Context) decodes to a validated ``dict``. With a model class,
            the call's name must be the class name in snake_case (``GetWeather`` →
            ``get_weather``) or the class name itself; for a tool renamed with ``tool(...,
            name=...)``, pass the Tool.
        call: The tool call. Never modified.
        allow_recovered: Accept a call whose arguments were recovered from broken or
            truncated JSON (``status`` ``recovered`` or ``invalid``); refused by default,
            since a cut-off call is not safe to execute blindly.
        diagnostics: A list that receives, when decoding succeeds, one ``arguments_coerced``
            diagnostic per coercion applied (``details``: ``tool``, ``path``, ``change``) and
            one ``arguments_extra_keys`` naming the keys the tool does not define (``details``:
            ``tool``, ``keys``, ``kept``): an args model ignores them, a plain schema tool's
            dict keeps them. An args model with ``extra="forbid"`` refuses them instead.

    Returns:
        The model instance, or a dict for a plain schema tool (JSON Schema defaults are not
        filled in).

    Raises:
        ToolArgumentsError: The name is not the tool's, the arguments were recovered or
            invalid (without ``allow_recovered``), or they do not validate. Its
            ``model_message`` can go back to the model as an error tool result; ``errors``
            lists each problem as ``{"path": "items[2].qty", "message": ..., "type": ...}``.
        ToolDefinitionError: ``tool_or_model`` is neither a Tool nor a pydantic model class.
    """
    model, name, schema, accepted = _target(tool_or_model)
    _check_call(call, name, accepted, allow_recovered=allow_recovered)
    args = copy.deepcopy(call.arguments)  # the repairs write into this copy
    value, changes = _validate(model, schema, name, call, args)
    if isinstance(value, BaseModel):
        # Serialising a custom type may fail: this report is best effort, the value is valid.
        with contextlib.suppress(Exception):
            lax_changes(args, value.model_dump(by_alias=True, warnings=False), (), changes)
        extra = undeclared_in_model(value, args)
    else:
        assert schema is not None
        extra = undeclared_in_schema(schema, args)
    if diagnostics is not None:
        diagnostics += _report(name, call, changes, extra, kept=model is None)
    return value


def _target(
    tool_or_model: Tool[Any] | type[BaseModel],
) -> tuple[type[BaseModel] | None, str, dict[str, Any] | None, set[str]]:
    """The args model (if any), the tool name, its schema (for a plain Tool), and the names
    a call may have."""
    if isinstance(tool_or_model, type) and issubclass(tool_or_model, BaseModel):
        name = _snake_case(tool_or_model.__name__)
        return tool_or_model, name, None, {name, tool_or_model.__name__}
    if isinstance(tool_or_model, Tool):
        model, name = tool_or_model.args_model, tool_or_model.name
        return model, name, None if model is not None else tool_or_model.parameters, {name}
    raise ToolDefinitionError(
        f"decode_tool_call needs a Tool or a pydantic model class, got {tool_or_model!r}"
    )


def _check_call(call: ToolCall, name: str, accepted: set[str], *, allow_recovered: bool) -> None:
    """Refuse a call to another tool, and recovered arguments unless allowed."""
    if call.name not in accepted:
        shown = _short(call.name)
        raise ToolArgumentsError(
            f"Tool call {call.id!r} is for tool {call.name!r}, not {name!r}",
            model_message=(
                f"There is no tool named {shown} here. Please call one of the available tools."
            ),
            errors=[{"path": "", "message": f"unexpected tool name {shown}", "type": "tool_name"}],
            tool_call_id=call.id,
        )
    if call.status != "complete" and not allow_recovered:
        raise ToolArgumentsError(
            f"Tool call {call.id!r} ({name}) has {call.status} arguments; "
            "pass allow_recovered=True to decode them anyway",
            model_message=(
                f"The arguments for {name} were incomplete or not valid JSON. "
                f"Please call {name} again with complete, valid JSON arguments."
            ),
            errors=[
                {
                    "path": "",
                    "message": f"arguments {call.status}",
                    "type": f"arguments_{call.status}",
                }
            ],
            tool_call_id=call.id,
        )


def _validate(
    model: type[BaseModel] | None,
    schema: dict[str, Any] | None,
    name: str,
    call: ToolCall,
    args: dict[str, Any],
) -> tuple[Any, list[tuple[Path, str]]]:
    """Validate ``args`` (repairing it in place, pass by pass), or refuse it."""
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
            except Exception:  # noqa: BLE001 -- catch-all: pydantic: a type without a JSON Schema
                return False
        return is_optional_property(schema, path)

    changes: list[tuple[Path, str]] = []
    for _ in range(_MAX_PASSES):
        value, problems = validate(args)
        if not problems:
            return value, changes
        fixed = False
        for p in problems:
            repair = fix(p, scalars=model is None, optional=optional)
            if repair is not None and apply(args, p.path, p.input, repair[1]):
                changes.append((p.path, repair[0]))
                fixed = True
        if not fixed:
            break
    raise _refuse(name, call, problems)


def _report(
    name: str, call: ToolCall, changes: list[tuple[Path, str]], extra: list[Path], *, kept: bool
) -> list[Diagnostic]:
    """One ``arguments_coerced`` per repair, one ``arguments_extra_keys`` naming the keys the
    tool does not define (ignored by a model, kept in a plain tool's dict)."""
    out = [
        Diagnostic(
            kind="arguments_coerced",
            message=f"{name}: {format_path(path) or 'arguments'}: {CHANGES[change]}",
            tool_call_id=call.id,
            details={"tool": name, "path": format_path(path), "change": change},
        )
        for path, change in changes
    ]
    if extra:
        paths = [format_path(p) for p in extra]
        fate = "kept in the arguments" if kept else "ignored"
        out.append(
            Diagnostic(
                kind="arguments_extra_keys",
                message=f"{name}: keys the tool does not define were {fate}: {', '.join(paths)}",
                tool_call_id=call.id,
                details={"tool": name, "keys": paths, "kept": kept},
            )
        )
    return out
