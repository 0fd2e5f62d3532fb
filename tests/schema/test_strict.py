"""JSON-Schema dialects: OpenAI strict mode (QUIRKS H1) and its check-only twin."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Union

import jsonschema
import pytest
from pydantic import BaseModel, Field, HttpUrl

from llmkit._diagnostics import Diagnostic
from llmkit._errors import ToolDefinitionError
from llmkit._schema.strict import (
    is_optional_property,
    openai_strict_schema,
    strict_incompatibilities,
    subschemas_at,
)
from llmkit._tools.definition import Tool, tool


class Address(BaseModel):
    street: str
    zip_code: Optional[str] = None


class Customer(BaseModel):
    name: str
    address: Address = Field(description="Where to ship")
    billing: Optional[Address] = None
    vip: bool = False


class Order(BaseModel):
    """Place an order."""

    customer: Customer
    lines: list[Customer] = []
    when: datetime
    site: HttpUrl
    code: str = Field(min_length=3, max_length=8, pattern=r"^[A-Z]+$")
    size: Literal["s", "m"] = "s"


class Cat(BaseModel):
    kind: Literal["cat"]
    meows: int


class Dog(BaseModel):
    kind: Literal["dog"]
    barks: int


class Pet(BaseModel):
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")]


class TreeNode(BaseModel):
    label: str
    parent: TreeNode = Field(description="Recursive, with a sibling description")
    children: list[TreeNode] = []


def strict(model: type[BaseModel]) -> tuple[dict[str, Any], list[Diagnostic]]:
    return openai_strict_schema(tool(model).parameters, tool(model).name)


def objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema node anywhere in ``schema``."""
    found = []
    if isinstance(schema, dict):
        types = schema.get("type")
        if types == "object" or (isinstance(types, list) and "object" in types):
            found.append(schema)
        for value in schema.values():
            found += objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += objects(value)
    return found


def changes(diagnostics: list[Diagnostic]) -> set[tuple[str, str]]:
    return {(d.details["path"], d.details["change"]) for d in diagnostics}


# -- openai_strict_schema --------------------------------------------------------------------


def test_every_object_is_closed_and_fully_required_h1() -> None:
    schema, _ = strict(Order)
    found = objects(schema)
    assert len(found) >= 3
    for obj in found:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert set(schema["$defs"]) == {"Address", "Customer"}  # $defs kept


def test_result_is_a_valid_tool_schema_without_incompatibilities() -> None:
    schema, _ = strict(Order)
    jsonschema.Draft202012Validator.check_schema(schema)
    Tool(name="order", parameters=schema, strict=True)
    assert strict_incompatibilities(schema) == []


def test_transform_is_idempotent() -> None:
    schema, _ = strict(Order)
    again, diagnostics = openai_strict_schema(schema, "order")
    assert again == schema
    assert diagnostics == []


def test_input_schema_is_never_mutated() -> None:
    for model in (Order, Pet, TreeNode):
        params = tool(model).parameters
        before = copy.deepcopy(params)
        openai_strict_schema(params, "t")
        strict_incompatibilities(params)
        assert params == before


def test_optional_property_becomes_required_and_nullable_h1() -> None:
    schema, diagnostics = strict(Customer)
    assert schema["properties"]["vip"]["type"] == ["boolean", "null"]
    assert ("#/properties/vip", "made_required_nullable") in changes(diagnostics)
    vip = [d for d in diagnostics if d.details["path"] == "#/properties/vip"]
    assert all(d.kind == "schema_rewritten" and d.details["tool"] == "customer" for d in vip)


def test_already_nullable_optional_property_is_not_reported() -> None:
    schema, diagnostics = strict(Customer)
    assert schema["properties"]["billing"]["anyOf"] == [
        {"$ref": "#/$defs/Address"},
        {"type": "null"},
    ]
    assert "default" not in schema["properties"]["billing"]
    assert not [d for d in diagnostics if d.details["path"] == "#/properties/billing"]


def test_default_removed_reported_and_kept_in_description() -> None:
    schema, diagnostics = strict(Customer)
    vip = schema["properties"]["vip"]
    assert "default" not in vip
    assert vip["description"] == "default: false"
    assert ("#/properties/vip", "default_removed") in changes(diagnostics)


def test_enum_and_ref_properties_are_made_nullable_with_anyof() -> None:
    params = {
        "type": "object",
        "properties": {
            "size": {"enum": ["s", "m"], "description": "Size"},
            "addr": {"$ref": "#/$defs/A"},
            "n": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
        "$defs": {
            "A": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
        },
    }
    schema, _ = openai_strict_schema(params, "t")
    props = schema["properties"]
    assert props["size"] == {
        "anyOf": [{"enum": ["s", "m"]}, {"type": "null"}],
        "description": "Size",
    }
    assert props["addr"] == {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}
    assert props["n"]["anyOf"][-1] == {"type": "null"}
    jsonschema.validate({"size": None, "addr": None, "n": None}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"size": "xl", "addr": None, "n": None}, schema)


def test_ref_with_sibling_keywords_is_unravelled() -> None:
    schema, _ = strict(Customer)
    address = schema["properties"]["address"]
    assert "$ref" not in address
    assert address["description"] == "Where to ship"
    assert address["type"] == "object"
    assert address["additionalProperties"] is False
    assert address["required"] == ["street", "zip_code"]


def test_recursive_ref_with_siblings_terminates() -> None:
    schema, _ = strict(TreeNode)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert strict_incompatibilities(schema) == []
    node = {"label": "a", "parent": {"label": "b", "parent": None, "children": []}, "children": []}
    with pytest.raises(jsonschema.ValidationError):  # parent is required and not nullable
        jsonschema.validate(node, schema)


def test_bare_root_ref_of_a_recursive_model_is_inlined() -> None:
    # model_json_schema() of a recursive model (a response_format, say) is a bare $ref.
    raw = TreeNode.model_json_schema()
    assert set(raw) == {"$ref", "$defs"}
    assert strict_incompatibilities(raw)[0] == "#: the root is a $ref, not an object"
    schema, _ = openai_strict_schema(raw, "tree")
    assert schema["type"] == "object" and "$ref" not in schema
    assert schema["required"] == ["label", "parent", "children"]
    assert "TreeNode" in schema["$defs"]
    assert strict_incompatibilities(schema) == []


def test_unsupported_keywords_removed_reported_and_described() -> None:
    schema, diagnostics = strict(Order)
    code = schema["properties"]["code"]
    assert "minLength" not in code and "maxLength" not in code
    assert code["pattern"] == "^[A-Z]+$"  # supported: kept
    assert "minLength: 3" in code["description"] and "maxLength: 8" in code["description"]
    removed = {
        d.details.get("keyword") for d in diagnostics if d.details["change"] == "keyword_removed"
    }
    assert {"minLength", "maxLength", "format"} <= removed
    site = schema["properties"]["site"]
    assert "format" not in site and "format: uri" in site["description"]
    assert schema["properties"]["when"]["format"] == "date-time"  # supported: kept


def test_pattern_with_lookaround_is_removed() -> None:
    params = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^(?!x).*"}}}
    schema, diagnostics = openai_strict_schema(params, "t")
    assert "pattern" not in schema["properties"]["p"]
    assert ("#/properties/p", "keyword_removed") in changes(diagnostics)


def test_oneof_becomes_anyof_and_discriminator_is_removed() -> None:
    schema, diagnostics = strict(Pet)
    pet = schema["properties"]["pet"]
    assert "oneOf" not in pet and "discriminator" not in pet
    assert len(pet["anyOf"]) == 2
    assert ("#/properties/pet", "oneof_to_anyof") in changes(diagnostics)
    jsonschema.validate({"pet": {"kind": "dog", "barks": 2}}, schema)


def test_additional_properties_true_with_properties_is_closed_and_reported() -> None:
    params = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": True,
    }
    schema, diagnostics = openai_strict_schema(params, "t")
    assert schema["additionalProperties"] is False
    assert changes(diagnostics) == {("#", "additional_properties_disallowed")}


def test_nested_object_without_properties_is_emptied_and_reported() -> None:
    params = {"type": "object", "properties": {"o": {"type": "object"}}, "required": ["o"]}
    schema, diagnostics = openai_strict_schema(params, "t")
    assert schema["properties"]["o"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
        "required": [],
    }
    assert changes(diagnostics) == {("#/properties/o", "object_emptied")}


def test_tool_without_arguments_needs_no_report() -> None:
    schema, diagnostics = openai_strict_schema({"type": "object"}, "now")
    assert schema == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
        "required": [],
    }
    assert diagnostics == []


def test_single_allof_is_merged() -> None:
    params = {
        "type": "object",
        "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "An A"}},
        "required": ["a"],
        "$defs": {"A": {"type": "string"}},
    }
    schema, diagnostics = openai_strict_schema(params, "t")
    assert schema["properties"]["a"] == {"type": "string", "description": "An A"}
    assert diagnostics == []


@pytest.mark.parametrize(
    ("properties", "problem"),
    [
        (
            {"d": {"type": "object", "additionalProperties": {"type": "integer"}}},
            "free-form object",
        ),
        ({"d": {"type": "object", "additionalProperties": True}}, "free-form object"),
        ({"l": {"type": "array"}}, "array without an item type"),
        ({"l": {"type": "array", "items": {}}}, "array without an item type"),
        ({"x": {"description": "anything"}}, "no type"),
        ({"x": True}, "boolean schema"),
    ],
)
def test_what_strict_mode_cannot_express_is_refused(
    properties: dict[str, Any], problem: str
) -> None:
    params = {"type": "object", "properties": properties}
    with pytest.raises(ToolDefinitionError, match=problem) as info:
        openai_strict_schema(params, "bad_tool")
    assert "bad_tool" in str(info.value)
    assert any(problem in p for p in strict_incompatibilities(params))


def test_diagnostics_carry_tool_path_and_change() -> None:
    _, diagnostics = strict(Order)
    assert diagnostics
    for d in diagnostics:
        assert d.kind == "schema_rewritten"
        assert d.details["tool"] == "order"
        assert d.details["path"].startswith("#")
        assert d.details["change"] in {
            "made_required_nullable",
            "default_removed",
            "keyword_removed",
            "oneof_to_anyof",
            "additional_properties_disallowed",
            "object_emptied",
        }
        assert d.message.startswith("order: #")


def test_defaults_in_defs_are_reported_at_their_def_path() -> None:
    _, diagnostics = strict(Customer)
    assert ("#/$defs/Address/properties/zip_code", "made_required_nullable") not in changes(
        diagnostics
    )
    _, diagnostics = strict(Order)
    assert ("#/$defs/Customer/properties/vip", "made_required_nullable") in changes(diagnostics)


# -- strict_incompatibilities ----------------------------------------------------------------


def test_compatible_schema_has_no_incompatibilities() -> None:
    params = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert strict_incompatibilities(params) == []


def test_incompatibilities_are_listed_with_pointers() -> None:
    problems = strict_incompatibilities(tool(Customer).parameters)
    assert "#: additionalProperties is not false" in problems
    assert "#/properties/vip: not required" in problems
    assert "#/properties/vip: has a default" in problems
    assert "#/properties/address: $ref has sibling keywords ['description']" in problems
    assert "#/$defs/Address: additionalProperties is not false" in problems


def test_incompatibilities_include_keywords_and_oneof() -> None:
    problems = strict_incompatibilities(tool(Pet).parameters)
    assert "#/properties/pet: oneOf" in problems
    assert "#/properties/pet: unsupported keyword discriminator" in problems


# -- lookups used by decode_tool_call --------------------------------------------------------


def test_subschemas_at_follows_refs_unions_and_items() -> None:
    params = tool(Order).parameters
    found = subschemas_at(params, ("lines", 0, "address", "street"))
    assert {"type": "string", "title": "Street"} in found
    assert subschemas_at(params, ("nope",)) == []


def test_is_optional_property() -> None:
    params = tool(Order).parameters
    assert is_optional_property(params, ("customer", "vip"))
    assert is_optional_property(params, ("lines", 3, "billing"))
    assert not is_optional_property(params, ("customer", "name"))
    assert not is_optional_property(params, ("customer",))
    assert not is_optional_property(params, ())
    assert not is_optional_property(params, ("lines", 0))
