"""``decode_tool_call``: validate a tool call's arguments against its tool, the way a careful
caller would before executing anything.

The validation and its bounded repairs are :mod:`.validation`'s (shared with
``decode_output``): each fix is reported as an ``arguments_coerced`` diagnostic, each key the
tool does not define as ``arguments_extra_keys`` (:mod:`.extra_keys`); anything else is refused
with a :class:`ToolArgumentsError` whose ``model_message`` is safe to send back to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel

from .._diagnostics import Diagnostic
from .._errors import ToolArgumentsError, ToolDefinitionError
from .definition import ArgsT, Tool, _snake_case
from .extra_keys import Path, undeclared_in_model, undeclared_in_schema
from .provider import ProviderTool
from .validation import Invalid, coercion_diagnostics, format_path, short, validate_value

if TYPE_CHECKING:
    from .._messages import ToolCall

__all__ = ["decode_tool_call"]

M = TypeVar("M", bound=BaseModel)
T1 = TypeVar("T1")
T2 = TypeVar("T2")
T3 = TypeVar("T3")
T4 = TypeVar("T4")
T5 = TypeVar("T5")
T6 = TypeVar("T6")


def _refuse(name: str, call: ToolCall, invalid: Invalid) -> ToolArgumentsError:
    summary = invalid.summary
    return ToolArgumentsError(
        f"Invalid arguments for tool call {call.id!r} ({name}): {summary}",
        model_message=(
            f"Invalid arguments for {name}: {summary}. "
            f"Please call {name} again with corrected arguments."
        ),
        errors=invalid.errors,
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


# A tuple of tools and argument models decodes to the union of their types (a type checker
# sees each one); a list, to what the checker infers for its items (the union for pyright,
# the common base class for mypy).
@overload
def decode_tool_call(
    tool_or_model: tuple[Tool[T1] | type[T1]],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1: ...


@overload
def decode_tool_call(
    tool_or_model: tuple[Tool[T1] | type[T1], Tool[T2] | type[T2]],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1 | T2: ...


@overload
def decode_tool_call(
    tool_or_model: tuple[Tool[T1] | type[T1], Tool[T2] | type[T2], Tool[T3] | type[T3]],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1 | T2 | T3: ...


@overload
def decode_tool_call(
    tool_or_model: tuple[
        Tool[T1] | type[T1], Tool[T2] | type[T2], Tool[T3] | type[T3], Tool[T4] | type[T4]
    ],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1 | T2 | T3 | T4: ...


@overload
def decode_tool_call(
    tool_or_model: tuple[
        Tool[T1] | type[T1],
        Tool[T2] | type[T2],
        Tool[T3] | type[T3],
        Tool[T4] | type[T4],
        Tool[T5] | type[T5],
    ],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1 | T2 | T3 | T4 | T5: ...


@overload
def decode_tool_call(
    tool_or_model: tuple[
        Tool[T1] | type[T1],
        Tool[T2] | type[T2],
        Tool[T3] | type[T3],
        Tool[T4] | type[T4],
        Tool[T5] | type[T5],
        Tool[T6] | type[T6],
    ],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1 | T2 | T3 | T4 | T5 | T6: ...


@overload
def decode_tool_call(
    tool_or_model: list[type[M]],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> M: ...


@overload
def decode_tool_call(
    tool_or_model: list[Tool[T1]],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> T1: ...


@overload
def decode_tool_call(
    tool_or_model: list[Tool[Any] | ProviderTool],  # a Context's tools
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any: ...


@overload
def decode_tool_call(
    tool_or_model: list[Tool[Any] | type[Any] | ProviderTool],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any: ...


def decode_tool_call(
    tool_or_model: Tool[Any] | type[Any] | Sequence[Tool[Any] | type[Any] | ProviderTool],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any:
    """Validate a tool call's arguments and return them typed.

    With several tools, pass them all: the one the call names decodes it, and the caller
    dispatches on the instance (``match decode_tool_call((weather, lookup), call): case
    GetWeather(city=city): ...``). A type checker sees the union of their argument types for
    a tuple (up to six), and for a list what it infers for the list's items.

    Args:
        tool_or_model: The :class:`Tool` the call is for, or the pydantic model of its
            arguments, or a sequence of them (the tools offered; provider tools in it are
            skipped). A Tool made by ``tool()``/``tool_from_function()`` decodes to an
            instance of its model; a plain schema Tool (one built from a JSON Schema, or any
            Tool after a JSON round trip of its Context) decodes to a validated ``dict``. With
            a model class, the call's name must be the class name in snake_case (``GetWeather`` →
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
        ToolArgumentsError: The name is not the tool's (for a sequence: none of the tools'
            names; its ``model_message`` then lists the tools offered), the arguments were
            recovered or invalid (without ``allow_recovered``), or they do not validate. Its
            ``model_message`` can go back to the model as an error tool result; ``errors``
            lists each problem as ``{"path": "items[2].qty", "message": ..., "type": ...}``.
        ToolDefinitionError: ``tool_or_model`` is neither a Tool nor a pydantic model class.
    """
    if isinstance(tool_or_model, Sequence):
        tool_or_model = _named(tool_or_model, call)
    model, name, schema, accepted = _target(tool_or_model)
    _check_call(call, name, accepted, allow_recovered=allow_recovered)
    try:
        value, changes, args = validate_value(call.arguments, model, schema, "arguments")
    except Invalid as invalid:
        raise _refuse(name, call, invalid) from None
    if isinstance(value, BaseModel):
        extra = undeclared_in_model(value, args)
    else:
        assert schema is not None
        extra = undeclared_in_schema(schema, args)
    if diagnostics is not None:
        diagnostics += coercion_diagnostics(name, changes, call.id, "arguments")
        diagnostics += _extra_keys_diagnostic(name, call, extra, kept=model is None)
    return value


def _named(
    tools: Sequence[Tool[Any] | type[Any] | ProviderTool], call: ToolCall
) -> Tool[Any] | type[Any]:
    """The tool (or args model) of ``tools`` that ``call`` names (provider tools, which run
    at the provider, are skipped: a ``Context``'s ``tools`` can be passed as they are)."""
    names = []
    for candidate in tools:
        if isinstance(candidate, ProviderTool):
            continue
        _, name, _, accepted = _target(candidate)
        if call.name in accepted:
            return candidate
        names.append(name)
    shown = short(call.name)
    offered = ", ".join(names) if names else "none"
    raise ToolArgumentsError(
        f"Tool call {call.id!r} is for tool {call.name!r}, which is not one of: {offered}",
        model_message=(
            f"There is no tool named {shown} here. The tools available are: {offered}. "
            "Please call one of them."
        ),
        errors=[{"path": "", "message": f"unexpected tool name {shown}", "type": "tool_name"}],
        tool_call_id=call.id,
    )


def _target(
    tool_or_model: Tool[Any] | type[Any],
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
        shown = short(call.name)
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


def _extra_keys_diagnostic(
    name: str, call: ToolCall, extra: list[Path], *, kept: bool
) -> list[Diagnostic]:
    """``arguments_extra_keys`` naming the keys the tool does not define (ignored by an args
    model, kept in a plain tool's dict), if there are any."""
    if not extra:
        return []
    paths = [format_path(p) for p in extra]
    fate = "kept in the arguments" if kept else "ignored"
    return [
        Diagnostic(
            kind="arguments_extra_keys",
            message=f"{name}: keys the tool does not define were {fate}: {', '.join(paths)}",
            tool_call_id=call.id,
            details={"tool": name, "keys": paths, "kept": kept},
        )
    ]
