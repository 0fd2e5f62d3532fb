"""``decode_tool_call``: validate a tool call's arguments against its tool, the way a careful
caller would before executing anything.

The validation and its bounded repairs are :mod:`.validation`'s (shared with
``decode_output``): each fix is reported as an ``arguments_coerced`` diagnostic; anything else
is refused with a :class:`ToolArgumentsError` whose ``model_message`` is safe to send back to
the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel

from .._diagnostics import Diagnostic
from .._errors import ToolArgumentsError, ToolDefinitionError
from .validation import Invalid, coercion_diagnostics, short, validate_value

if TYPE_CHECKING:
    from .._messages import ToolCall
    from .definition import Tool

__all__ = ["decode_tool_call"]

M = TypeVar("M", bound=BaseModel)


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
    tool_or_model: Tool,
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any: ...


def decode_tool_call(
    tool_or_model: Tool | type[BaseModel],
    call: ToolCall,
    *,
    allow_recovered: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> BaseModel | dict[str, Any]:
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
        diagnostics: A list that receives one ``arguments_coerced`` diagnostic per coercion
            applied (``details``: ``tool``, ``path``, ``change``), when decoding succeeds.

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
    from .definition import Tool, _snake_case  # runtime import: _tools imports this module

    schema: dict[str, Any] | None
    if isinstance(tool_or_model, type) and issubclass(tool_or_model, BaseModel):
        model: type[BaseModel] | None = tool_or_model
        name = _snake_case(tool_or_model.__name__)
        accepted = {name, tool_or_model.__name__}
        schema = None
    elif isinstance(tool_or_model, Tool):
        model, name, schema = tool_or_model.args_model, tool_or_model.name, tool_or_model.parameters
        accepted = {name}
    else:
        raise ToolDefinitionError(
            f"decode_tool_call needs a Tool or a pydantic model class, got {tool_or_model!r}"
        )

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

    try:
        value, changes = validate_value(call.arguments, model, schema, "arguments")
    except Invalid as invalid:
        raise _refuse(name, call, invalid) from None
    if diagnostics is not None:
        diagnostics.extend(coercion_diagnostics(name, changes, call.id, "arguments"))
    return value  # type: ignore[no-any-return]
