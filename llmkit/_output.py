"""``decode_output``: a structured-output reply (``response_format=``) as a validated value.

The same validation as ``decode_tool_call`` (:func:`llmkit._tools.validation.validate_value`:
pydantic's lax mode for a model class, jsonschema for a schema, the same bounded repairs, each
reported as ``arguments_coerced``), applied to ``message.text`` parsed as JSON. A reply that
was cut short (``stop_reason`` ``length``, ``error`` or ``aborted``) is refused unless
``allow_partial=True``, which parses what arrived the way ``TextDelta.partial_output`` does
(open containers closed, a dangling key or unfinished number left out) and validates that.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel

from ._errors import OutputValidationError
from ._tools.validation import Invalid, coercion_diagnostics, validate_value

if TYPE_CHECKING:
    from ._diagnostics import Diagnostic
    from ._messages import AssistantMessage

__all__ = ["decode_output"]

M = TypeVar("M", bound=BaseModel)

_CUT = ("length", "error", "aborted")
_ASK = "Please answer again with only a JSON value that matches the required schema."


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")  # NaN and Infinity are not JSON


def _parse(text: str, allow_partial: bool) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        if not allow_partial:
            raise
    from ._json.partial import parse_partial

    value = parse_partial(text)
    if value is None:
        raise ValueError("no JSON value in the text")
    return value


@overload
def decode_output(
    output: type[M],
    message: AssistantMessage,
    *,
    allow_partial: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> M: ...


@overload
def decode_output(
    output: dict[str, Any],
    message: AssistantMessage,
    *,
    allow_partial: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any: ...


def decode_output(
    output: type[BaseModel] | dict[str, Any],
    message: AssistantMessage,
    *,
    allow_partial: bool = False,
    diagnostics: list[Diagnostic] | None = None,
) -> Any:
    """Validate a structured-output reply and return it typed.

    Args:
        output: The ``response_format`` the request gave: a pydantic model class (the result
            is an instance of it) or a JSON Schema (the result is the validated value, a dict
            for an object schema; JSON Schema defaults are not filled in).
        message: The reply; its ``text`` (all text parts joined) is the JSON.
        allow_partial: Accept a reply that was cut short (``stop_reason`` ``length``,
            ``error`` or ``aborted``): what arrived is parsed as a partial value (open
            containers closed) and validated as it is.
        diagnostics: A list that receives one ``arguments_coerced`` diagnostic per coercion
            applied (``details``: ``tool`` = the output's name, ``path``, ``change``).

    Returns:
        The model instance, or the validated value for a schema.

    Raises:
        OutputValidationError: The reply was cut short (without ``allow_partial``), is not
            JSON, or does not validate. Its ``model_message`` can go back to the model;
            ``errors`` lists each problem as ``{"path": "items[2].qty", "message": ...,
            "type": ...}``.
    """
    if isinstance(output, type) and issubclass(output, BaseModel):
        model: type[BaseModel] | None = output
        schema: dict[str, Any] | None = None
        name = output.__name__
    elif isinstance(output, dict):
        model, schema = None, output
        name = str(output.get("title") or "output")
    else:
        raise TypeError(
            f"decode_output needs a pydantic model class or a JSON schema, got {output!r}"
        )
    stop = message.stop_reason
    if stop in _CUT and not allow_partial:
        raise OutputValidationError(
            f"The reply was cut short (stop_reason={stop!r}); pass allow_partial=True to decode "
            "what arrived",
            model_message=f"Your answer was cut short. {_ASK}",
            errors=[
                {"path": "", "message": f"output cut short ({stop})", "type": f"output_{stop}"}
            ],
        )
    text = message.text
    try:
        value = _parse(text, allow_partial or stop in _CUT)
    except (ValueError, RecursionError) as e:
        excerpt = text.strip()[:40]
        raise OutputValidationError(
            f"The reply is not valid JSON ({e}): {excerpt!r}",
            model_message=f"Your answer was not valid JSON. {_ASK}",
            errors=[{"path": "", "message": "not valid JSON", "type": "json_invalid"}],
        ) from None
    try:
        result, changes, _ = validate_value(value, model, schema, "output")
    except Invalid as invalid:
        raise OutputValidationError(
            f"The reply does not match {name}: {invalid.summary}",
            model_message=(
                f"Your answer does not match the required format: {invalid.summary}. {_ASK}"
            ),
            errors=invalid.errors,
        ) from None
    if diagnostics is not None:
        diagnostics.extend(coercion_diagnostics(name, changes, None, "output"))
    return result
