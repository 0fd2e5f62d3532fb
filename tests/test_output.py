"""``decode_output``: a structured-output reply validated like a tool call's arguments (the same
machinery, the same coercions reported), refused when cut short unless ``allow_partial``, with
``OutputValidationError.errors`` / ``.model_message`` like ``ToolArgumentsError``'s."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

import llmkit


class Item(BaseModel):
    name: str
    qty: int = Field(ge=1)


class Order(BaseModel):
    items: list[Item]
    note: str | None = None


SCHEMA: dict[str, Any] = {
    "title": "Order",
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
    "required": ["items"],
}


def reply(text: str, stop: Any = "stop") -> llmkit.AssistantMessage:
    return llmkit.AssistantMessage(content=[llmkit.TextPart(text=text)], stop_reason=stop)


def test_a_model_class_gives_an_instance() -> None:
    order = llmkit.decode_output(Order, reply('{"items": [{"name": "pen", "qty": 2}]}'))
    assert order == Order(items=[Item(name="pen", qty=2)])


def test_a_schema_gives_the_validated_value() -> None:
    assert llmkit.decode_output(SCHEMA, reply('{"items": [1, 2]}')) == {"items": [1, 2]}


def test_text_split_over_several_parts_is_one_json_value() -> None:
    message = llmkit.AssistantMessage(
        content=[llmkit.TextPart(text='{"items": '), llmkit.TextPart(text="[3]}")]
    )
    assert llmkit.decode_output(SCHEMA, message) == {"items": [3]}


def test_problems_have_paths_and_a_message_safe_for_the_model() -> None:
    with pytest.raises(llmkit.OutputValidationError) as info:
        llmkit.decode_output(Order, reply('{"items": [{"name": "pen", "qty": 0}]}'))
    error = info.value
    assert isinstance(error, llmkit.LLMError)
    assert error.errors[0]["path"] == "items[0].qty"
    assert "items[0].qty" in error.model_message and "Please answer again" in error.model_message
    assert "Traceback" not in error.model_message and "pydantic" not in error.model_message


def test_coercions_are_reported_like_tool_arguments() -> None:
    diagnostics: list[llmkit.Diagnostic] = []
    value = llmkit.decode_output(SCHEMA, reply('{"items": "[1, 2]"}'), diagnostics=diagnostics)
    assert value == {"items": [1, 2]}
    [d] = diagnostics
    assert d.kind == "arguments_coerced" and d.details["change"] == "json_string_decoded"
    assert d.details["tool"] == "Order" and d.details["path"] == "items"


def test_strict_mode_nulls_for_optional_fields_are_accepted() -> None:
    # OpenAI strict mode makes every field required and nullable (QUIRKS H1).
    class Strict(BaseModel):
        city: str
        days: int = 3

    assert llmkit.decode_output(Strict, reply('{"city": "Oslo", "days": null}')).days == 3


def test_extra_keys_are_refused_when_the_model_forbids_them() -> None:
    class Closed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        city: str

    with pytest.raises(llmkit.OutputValidationError):
        llmkit.decode_output(Closed, reply('{"city": "Oslo", "x": 1}'))


def test_text_that_is_not_json_is_refused() -> None:
    for text in ("Sure! Here it is: {", "", "NaN", '{"items": [1]} trailing'):
        with pytest.raises(llmkit.OutputValidationError) as info:
            llmkit.decode_output(SCHEMA, reply(text))
        assert info.value.errors[0]["type"] == "json_invalid"


@pytest.mark.parametrize("stop", ["length", "error", "aborted"])
def test_a_cut_reply_is_refused_unless_allow_partial(stop: str) -> None:
    message = reply('{"items": [1, 2, 3', stop=stop)
    with pytest.raises(llmkit.OutputValidationError) as info:
        llmkit.decode_output(SCHEMA, message)
    assert info.value.errors[0]["type"] == f"output_{stop}"
    # what arrived, as partial_output has it: the open array closed, the last number left out
    assert llmkit.decode_output(SCHEMA, message, allow_partial=True) == {"items": [1, 2]}


def test_allow_partial_still_validates() -> None:
    with pytest.raises(llmkit.OutputValidationError) as info:
        llmkit.decode_output(
            Order, reply('{"items": [{"name": "pe', stop="length"), allow_partial=True
        )
    assert info.value.errors[0]["path"] == "items[0].qty"


def test_a_complete_reply_is_never_partial_parsed() -> None:
    with pytest.raises(llmkit.OutputValidationError):
        llmkit.decode_output(SCHEMA, reply('{"items": [1, 2'), allow_partial=False)
