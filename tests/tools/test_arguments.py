"""decode_tool_call: name check, recovered arguments, lax coercion (reported), safe errors."""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field, field_validator

from llmkit._diagnostics import Diagnostic
from llmkit._errors import LLMError, ToolArgumentsError, ToolDefinitionError
from llmkit._messages import Context, ToolCall
from llmkit._schema.strict import openai_strict_schema
from llmkit._tools.arguments import decode_tool_call
from llmkit._tools.definition import Tool, tool, tool_from_function


class GetWeather(BaseModel):
    """Get a weather forecast."""

    city: str = Field(description="City name", min_length=1)
    days: int = Field(ge=1, le=10)


class LineItem(BaseModel):
    sku: str
    qty: int = Field(ge=1)


class PlaceOrder(BaseModel):
    """Place an order."""

    items: list[LineItem]
    gift: Optional[LineItem] = None
    note: str = ""
    express: bool = False
    priority: int = 3
    labels: dict[str, str] = {}


class Strict(BaseModel):
    mode: Literal["fast", "slow"]
    code: str

    @field_validator("code")
    @classmethod
    def _upper(cls, v: str) -> str:
        if v != v.upper():
            raise ValueError("code must be upper case")
        return v


def call(name: str, arguments: dict[str, Any], **kw: Any) -> ToolCall:
    return ToolCall(
        id="call_1", name=name, arguments=arguments, raw_arguments=json.dumps(arguments), **kw
    )


def refused(tool_or_model: Any, c: ToolCall, **kw: Any) -> ToolArgumentsError:
    with pytest.raises(ToolArgumentsError) as info:
        decode_tool_call(tool_or_model, c, **kw)
    return info.value


WEATHER = tool(GetWeather)
ORDER = tool(PlaceOrder)

# What a model must never see in model_message: llmkit/pydantic internals.
INTERNALS = re.compile(
    r"pydantic|Traceback|errors\.pydantic\.dev|For further information|<class|"
    r"LineItem|PlaceOrder|GetWeather|ValidationError|model_type|\bFile \"",
)


# -- success paths ---------------------------------------------------------------------------


def test_valid_call_decodes_to_model_instance() -> None:
    args = decode_tool_call(WEATHER, call("get_weather", {"city": "Beijing", "days": 3}))
    assert isinstance(args, GetWeather)
    assert (args.city, args.days) == ("Beijing", 3)


def test_valid_call_reports_no_diagnostics() -> None:
    diagnostics: list[Diagnostic] = []
    decode_tool_call(
        WEATHER, call("get_weather", {"city": "Oslo", "days": 1}), diagnostics=diagnostics
    )
    assert diagnostics == []


def test_decoding_never_mutates_the_call() -> None:
    arguments = {
        "items": '[{"sku": "a", "qty": "2"}]',
        "gift": '{"sku": "g", "qty": 1}',
        "priority": None,
    }
    c = call("place_order", arguments)
    before = copy.deepcopy(c.model_dump())
    decode_tool_call(ORDER, c)
    decode_tool_call(Tool(name="place_order", parameters=ORDER.parameters), c)
    assert c.model_dump() == before


def test_numeric_string_is_coerced_and_reported() -> None:
    diagnostics: list[Diagnostic] = []
    c = call("get_weather", {"city": "Oslo", "days": "3"})
    args = decode_tool_call(WEATHER, c, diagnostics=diagnostics)
    assert args.days == 3
    (d,) = diagnostics
    assert d.kind == "arguments_coerced"
    assert d.tool_call_id == "call_1"
    assert d.details == {"tool": "get_weather", "path": "days", "change": "string_to_number"}


def test_true_string_is_coerced_and_reported() -> None:
    diagnostics: list[Diagnostic] = []
    c = call("place_order", {"items": [{"sku": "a", "qty": 1}], "express": "true"})
    assert decode_tool_call(ORDER, c, diagnostics=diagnostics).express is True
    assert [d.details["change"] for d in diagnostics] == ["string_to_boolean"]


def test_nested_numeric_string_is_reported_with_its_path() -> None:
    diagnostics: list[Diagnostic] = []
    c = call("place_order", {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": "7"}]})
    assert decode_tool_call(ORDER, c, diagnostics=diagnostics).items[1].qty == 7
    assert [d.details["path"] for d in diagnostics] == ["items[1].qty"]


def test_json_encoded_array_string_is_decoded_and_reported() -> None:
    diagnostics: list[Diagnostic] = []
    c = call("place_order", {"items": '[{"sku": "a", "qty": 2}]'})
    args = decode_tool_call(ORDER, c, diagnostics=diagnostics)
    assert args.items == [LineItem(sku="a", qty=2)]
    (d,) = diagnostics
    assert d.kind == "arguments_coerced"
    assert d.details == {"tool": "place_order", "path": "items", "change": "json_string_decoded"}


def test_json_encoded_object_string_is_decoded_for_optional_model_and_dict() -> None:
    diagnostics: list[Diagnostic] = []
    arguments = {"items": [], "gift": '{"sku": "g", "qty": 1}', "labels": ' {"a": "b"} '}
    args = decode_tool_call(ORDER, call("place_order", arguments), diagnostics=diagnostics)
    assert args.gift == LineItem(sku="g", qty=1)
    assert args.labels == {"a": "b"}
    assert sorted(d.details["path"] for d in diagnostics) == ["gift", "labels"]


def test_json_string_inside_json_string_is_decoded_over_passes() -> None:
    inner = json.dumps({"sku": "a", "qty": 1})
    diagnostics: list[Diagnostic] = []
    c = call("place_order", {"items": json.dumps([inner])})
    assert decode_tool_call(ORDER, c, diagnostics=diagnostics).items[0].sku == "a"
    assert [d.details["path"] for d in diagnostics] == ["items", "items[0]"]


def test_json_looking_string_stays_a_string_where_a_string_is_wanted() -> None:
    c = call("place_order", {"items": [], "note": '{"not": "decoded"}'})
    assert decode_tool_call(ORDER, c).note == '{"not": "decoded"}'


def test_json_string_of_the_wrong_shape_is_refused() -> None:
    e = refused(ORDER, call("place_order", {"items": '{"sku": "a", "qty": 1}'}))
    assert e.errors == [
        {"path": "items", "message": "Input should be an array", "type": "list_type"}
    ]
    e = refused(ORDER, call("place_order", {"items": "[not json"}))
    assert e.errors[0]["path"] == "items"


def test_null_for_optional_property_means_omitted_h1() -> None:
    # OpenAI strict mode makes optional properties required and nullable (QUIRKS H1): the
    # model then sends null where it means "use the default".
    diagnostics: list[Diagnostic] = []
    c = call("place_order", {"items": [], "priority": None, "express": None, "gift": None})
    args = decode_tool_call(ORDER, c, diagnostics=diagnostics)
    assert (args.priority, args.express, args.gift) == (3, False, None)
    assert sorted(d.details["path"] for d in diagnostics) == ["express", "priority"]
    assert {d.details["change"] for d in diagnostics} == {"null_dropped"}


def test_null_for_optional_union_property_is_dropped_once() -> None:
    # Each member of the union reports the null: the value is dropped once, reported once.
    class Scale(BaseModel):
        factor: int | float = 1

    diagnostics: list[Diagnostic] = []
    args = decode_tool_call(Scale, call("scale", {"factor": None}), diagnostics=diagnostics)
    assert args.factor == 1
    assert [d.details["change"] for d in diagnostics] == ["null_dropped"]


def test_null_for_required_property_is_refused() -> None:
    e = refused(WEATHER, call("get_weather", {"city": "Oslo", "days": None}))
    assert e.errors == [
        {"path": "days", "message": "Input should be a valid integer", "type": "int_type"}
    ]
    assert "days: Input should be a valid integer (got null)" in e.model_message


def test_strict_schema_arguments_decode_to_defaults_h1() -> None:
    # What a strict-mode model sends (every property present, null for "omitted") validates
    # against the strict schema and decodes back to the model's defaults.
    import jsonschema

    class Booking(BaseModel):
        items: list[LineItem]
        gift: Optional[LineItem] = None
        note: str = ""
        priority: int = 3

    strict, _ = openai_strict_schema(tool(Booking).parameters, "booking")
    arguments = {"items": [{"sku": "a", "qty": 1}], "gift": None, "note": None, "priority": None}
    jsonschema.validate(arguments, strict)
    diagnostics: list[Diagnostic] = []
    args = decode_tool_call(Booking, call("booking", arguments), diagnostics=diagnostics)
    assert (args.gift, args.note, args.priority) == (None, "", 3)
    assert sorted(d.details["path"] for d in diagnostics) == ["note", "priority"]


def test_diagnostics_are_not_reported_when_decoding_fails() -> None:
    diagnostics: list[Diagnostic] = []
    c = call("get_weather", {"city": "", "days": "3"})
    with pytest.raises(ToolArgumentsError):
        decode_tool_call(WEATHER, c, diagnostics=diagnostics)
    assert diagnostics == []


# -- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["recovered", "invalid"])
def test_recovered_or_invalid_arguments_are_refused_by_default(status: str) -> None:
    c = call("get_weather", {"city": "Oslo", "days": 3}, status=status)
    e = refused(WEATHER, c)
    assert e.tool_call_id == "call_1"
    assert e.errors == [
        {"path": "", "message": f"arguments {status}", "type": f"arguments_{status}"}
    ]
    assert "incomplete or not valid JSON" in e.model_message
    assert "call get_weather again" in e.model_message
    assert "allow_recovered" in str(e)


def test_recovered_arguments_accepted_with_allow_recovered() -> None:
    c = call("get_weather", {"city": "Oslo", "days": 3}, status="recovered")
    assert decode_tool_call(WEATHER, c, allow_recovered=True).days == 3


def test_invalid_arguments_with_allow_recovered_still_must_validate() -> None:
    c = call("get_weather", {}, status="invalid")
    e = refused(WEATHER, c, allow_recovered=True)
    assert [err["path"] for err in e.errors] == ["city", "days"]
    assert {err["type"] for err in e.errors} == {"missing"}


def test_wrong_tool_name_is_refused() -> None:
    e = refused(WEATHER, call("get_time", {"city": "Oslo", "days": 3}))
    assert e.tool_call_id == "call_1"
    assert e.errors[0]["type"] == "tool_name"
    assert "get_time" in e.model_message
    assert "'get_time'" in str(e) and "'get_weather'" in str(e)


def test_model_class_accepts_snake_case_name_and_class_name_only() -> None:
    arguments = {"city": "Oslo", "days": 3}
    assert decode_tool_call(GetWeather, call("get_weather", arguments)).days == 3
    assert decode_tool_call(GetWeather, call("GetWeather", arguments)).days == 3
    e = refused(GetWeather, call("weather", arguments))
    assert e.errors[0]["type"] == "tool_name"
    # A renamed tool decodes through the Tool, which knows its name.
    assert decode_tool_call(tool(GetWeather, name="weather"), call("weather", arguments)).days == 3


def test_tool_arguments_error_is_an_llm_error() -> None:
    with pytest.raises(LLMError):
        decode_tool_call(WEATHER, call("get_weather", {}))


def test_neither_tool_nor_model_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError):
        decode_tool_call({"type": "object"}, call("x", {}))  # type: ignore[call-overload]


# -- error paths and model_message -----------------------------------------------------------


def test_error_paths_use_dots_and_brackets() -> None:
    arguments = {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 1}, {"sku": "c", "qty": 0}]}
    e = refused(ORDER, call("place_order", arguments))
    assert e.errors == [
        {
            "path": "items[2].qty",
            "message": "Input should be greater than or equal to 1",
            "type": "greater_than_equal",
        }
    ]
    assert e.model_message == (
        "Invalid arguments for place_order: items[2].qty: Input should be greater than or equal "
        "to 1 (got 0). Please call place_order again with corrected arguments."
    )


def test_missing_nested_field_and_odd_keys_have_readable_paths() -> None:
    arguments = {"items": [{"qty": 1}], "labels": {"a b": 5}}
    e = refused(ORDER, call("place_order", arguments))
    assert sorted(err["path"] for err in e.errors) == ["items[0].sku", 'labels["a b"]']


def test_model_message_matches_design_example() -> None:
    e = refused(WEATHER, call("get_weather", {"city": "Oslo", "days": 11}))
    assert e.model_message == (
        "Invalid arguments for get_weather: days: Input should be less than or equal to 10 "
        "(got 11). Please call get_weather again with corrected arguments."
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"items": [{"sku": "a", "qty": "many"}], "gift": 5},
        {"items": "nope", "gift": [1, 2]},
        {"items": [{"sku": 1, "qty": {"deep": "x" * 500}}], "priority": "x" * 500},
        {"items": [], "gift": {"sku": ["a"], "qty": None}, "express": "maybe", "labels": [1]},
    ],
)
def test_model_message_has_no_internals(arguments: dict[str, Any]) -> None:
    e = refused(ORDER, call("place_order", arguments))
    assert not INTERNALS.search(e.model_message), e.model_message
    for err in e.errors:
        assert not INTERNALS.search(err["message"]), err
    # Inputs are echoed only briefly.
    assert "x" * 61 not in e.model_message
    assert len(e.model_message) < 1000


def test_model_message_keeps_validator_and_literal_messages() -> None:
    e = refused(Strict, call("strict", {"mode": "medium", "code": "abc"}))
    assert "mode: Input should be 'fast' or 'slow'" in e.model_message
    assert "code: Value error, code must be upper case" in e.model_message


def test_model_message_lists_a_bounded_number_of_problems() -> None:
    arguments = {"items": [{"sku": i, "qty": 0} for i in range(20)]}
    e = refused(ORDER, call("place_order", arguments))
    assert len(e.errors) == 40
    assert e.model_message.count("items[") == 8
    assert "and 32 more" in e.model_message


# -- plain schema tools (jsonschema) ---------------------------------------------------------


PLAIN = Tool(
    name="book",
    parameters={
        "type": "object",
        "properties": {
            "room": {"type": "integer", "minimum": 1},
            "price": {"type": "number"},
            "confirm": {"type": "boolean"},
            "guests": {"type": "array", "items": {"type": "string"}},
            "contact": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"email": {"type": "string"}},
                        "required": ["email"],
                    },
                    {"type": "null"},
                ]
            },
            "size": {"enum": ["s", "m", "l"]},
            "nights": {"type": "integer", "default": 1},
        },
        "required": ["room"],
        "additionalProperties": False,
    },
)


def test_plain_schema_tool_returns_a_dict() -> None:
    arguments = {"room": 12, "guests": ["a"], "contact": None}
    args = decode_tool_call(PLAIN, call("book", arguments))
    assert args == arguments
    assert isinstance(args, dict)


def test_plain_schema_tool_validates_with_jsonschema() -> None:
    e = refused(PLAIN, call("book", {"room": 0, "extra": 1, "size": "xl"}))
    paths = {err["path"]: err for err in e.errors}
    assert paths["room"]["type"] == "minimum"
    assert paths[""]["type"] == "additionalProperties"
    assert paths["size"]["type"] == "enum"
    assert refused(PLAIN, call("book", {})).errors == [
        {"path": "room", "message": "Field required", "type": "missing"}
    ]


def test_plain_schema_tool_coerces_like_lax_mode_and_reports() -> None:
    diagnostics: list[Diagnostic] = []
    arguments = {
        "room": "12",
        "price": "9.5",
        "confirm": "true",
        "guests": '["a", "b"]',
        "contact": '{"email": "x@example.com"}',
        "nights": None,
    }
    args = decode_tool_call(PLAIN, call("book", arguments), diagnostics=diagnostics)
    assert args == {
        "room": 12,
        "price": 9.5,
        "confirm": True,
        "guests": ["a", "b"],
        "contact": {"email": "x@example.com"},
    }
    changes = {d.details["path"]: d.details["change"] for d in diagnostics}
    assert changes == {
        "room": "string_to_number",
        "price": "string_to_number",
        "confirm": "string_to_boolean",
        "guests": "json_string_decoded",
        "contact": "json_string_decoded",
        "nights": "null_dropped",
    }
    assert all(d.kind == "arguments_coerced" and d.tool_call_id == "call_1" for d in diagnostics)


def test_plain_schema_tool_refuses_what_cannot_be_coerced() -> None:
    e = refused(PLAIN, call("book", {"room": "twelve", "contact": 5, "guests": "[oops"}))
    messages = {err["path"]: err["message"] for err in e.errors}
    assert messages["room"] == "Input should be an integer"
    assert messages["contact"] == "Input should be an object or null"
    assert messages["guests"] == "Input should be an array"
    assert not INTERNALS.search(e.model_message)


def test_plain_schema_union_reports_the_branch_of_the_right_type() -> None:
    # Not "should be null" for a malformed object: the object branch's own problems.
    e = refused(PLAIN, call("book", {"room": 1, "contact": {"email": 5}}))
    assert e.errors == [
        {"path": "contact.email", "message": "Input should be a string", "type": "type"}
    ]
    e = refused(PLAIN, call("book", {"room": 1, "contact": {}}))
    assert e.errors == [{"path": "contact.email", "message": "Field required", "type": "missing"}]


def test_plain_schema_coerces_inside_a_union_branch() -> None:
    diagnostics: list[Diagnostic] = []
    arguments = {"room": 1, "contact": '{"email": "x@example.com"}', "guests": "[]"}
    args = decode_tool_call(PLAIN, call("book", arguments), diagnostics=diagnostics)
    assert args["contact"] == {"email": "x@example.com"} and args["guests"] == []


def test_plain_schema_long_inputs_are_truncated_in_messages() -> None:
    e = refused(PLAIN, call("book", {"room": 1, "size": "x" * 500}))
    assert "x" * 61 not in e.model_message
    assert "…" in e.model_message


def test_plain_schema_null_for_required_property_is_refused() -> None:
    e = refused(PLAIN, call("book", {"room": None}))
    assert e.errors[0]["path"] == "room"


# -- a Context JSON round trip ---------------------------------------------------------------


def test_round_tripped_tool_decodes_to_dict_and_model_class_to_instance() -> None:
    context = Context(tools=[WEATHER])
    (plain,) = Context.model_validate_json(context.model_dump_json()).tools
    c = call("get_weather", {"city": "Oslo", "days": "2"})
    assert decode_tool_call(plain, c) == {"city": "Oslo", "days": 2}
    instance = decode_tool_call(GetWeather, c)
    assert isinstance(instance, GetWeather) and instance.days == 2
    # Both paths refuse the same bad call.
    bad = call("get_weather", {"city": "", "days": 2})
    assert (
        refused(plain, bad).errors[0]["path"]
        == refused(GetWeather, bad).errors[0]["path"]
        == "city"
    )


def test_async_function_tool_decodes() -> None:
    async def forecast(city: str, days: int = 1) -> str:
        """Forecast.

        Args:
            city: Where.
            days: How long.
        """
        return city

    t = tool_from_function(forecast)
    args = decode_tool_call(t, call("forecast", {"city": "Oslo"}))
    assert args.model_dump() == {"city": "Oslo", "days": 1}


# --------------------------------------------------------------------------- undeclared keys


class Forecast(BaseModel):
    """Get a forecast."""

    city: str
    days: int = 1


class ForecastForbid(BaseModel):
    """Get a forecast; no other keys."""

    model_config = {"extra": "forbid"}

    city: str
    days: int = 1


def test_a_hallucinated_key_is_ignored_and_reported_not_dropped_silently() -> None:
    diagnostics: list[Diagnostic] = []
    args = decode_tool_call(
        Forecast, call("forecast", {"city": "Oslo", "dayz": 5}), diagnostics=diagnostics
    )
    assert args == Forecast(city="Oslo", days=1)
    [d] = diagnostics
    assert d.kind == "arguments_extra_keys" and d.tool_call_id == "call_1"
    assert d.details == {"tool": "forecast", "keys": ["dayz"], "kept": False}
    assert "dayz" in d.message


def test_undeclared_keys_are_found_at_any_depth() -> None:
    diagnostics: list[Diagnostic] = []
    arguments = {
        "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2, "colour": "red"}],
        "gift": {"sku": "c", "qty": 1, "wrap": True},
        "labels": {"any": "key is declared by a dict"},
        "rush": True,
    }
    decode_tool_call(tool(PlaceOrder), call("place_order", arguments), diagnostics=diagnostics)
    [d] = [d for d in diagnostics if d.kind == "arguments_extra_keys"]
    assert d.details["keys"] == ["items[1].colour", "gift.wrap", "rush"]


def test_a_model_that_forbids_extra_keys_refuses_them_and_says_so_in_its_schema() -> None:
    forbid = tool(ForecastForbid)
    assert forbid.parameters["additionalProperties"] is False
    with pytest.raises(ToolArgumentsError) as info:
        decode_tool_call(forbid, call("forecast_forbid", {"city": "Oslo", "dayz": 5}))
    assert "dayz" in info.value.model_message
    assert info.value.errors[0]["path"] == "dayz"


def test_a_plain_schema_tool_keeps_undeclared_keys_and_reports_them() -> None:
    raw = Tool(
        name="forecast",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    )
    diagnostics: list[Diagnostic] = []
    args = decode_tool_call(
        raw, call("forecast", {"city": "Oslo", "dayz": 5}), diagnostics=diagnostics
    )
    assert args == {"city": "Oslo", "dayz": 5}
    [d] = diagnostics
    assert d.details == {"tool": "forecast", "keys": ["dayz"], "kept": True}


@pytest.mark.parametrize(
    "extra",
    [
        {"additionalProperties": True},
        {"additionalProperties": {"type": "integer"}},
        {"patternProperties": {"^x-": {}}},
    ],
)
def test_a_schema_that_declares_more_keys_reports_none(extra: dict[str, Any]) -> None:
    raw = Tool(
        name="forecast",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, **extra},
    )
    diagnostics: list[Diagnostic] = []
    decode_tool_call(raw, call("forecast", {"city": "Oslo", "x-days": 5}), diagnostics=diagnostics)
    assert diagnostics == []


def test_a_model_that_keeps_extras_reports_none() -> None:
    class Open(BaseModel):
        model_config = {"extra": "allow"}
        city: str

    diagnostics: list[Diagnostic] = []
    args = decode_tool_call(
        tool(Open), call("open", {"city": "Oslo", "days": 2}), diagnostics=diagnostics
    )
    assert args.model_extra == {"days": 2} and diagnostics == []


def test_an_alias_is_a_declared_key() -> None:
    class Aliased(BaseModel):
        city_name: str = Field(alias="cityName")

    diagnostics: list[Diagnostic] = []
    decode_tool_call(tool(Aliased), call("aliased", {"cityName": "Oslo"}), diagnostics=diagnostics)
    assert diagnostics == []
