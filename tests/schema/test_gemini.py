"""The OpenAPI-subset schema dialect for Gemini's ``parameters`` (QUIRKS H3).

Every output is checked twice: strictly against google-genai's ``types.Schema`` (which forbids
unknown fields), and against the narrower list of keywords the Gemini API documents, since one
unknown keyword fails the whole request. Every lossy step must be reported.
"""

from __future__ import annotations

import copy
import json
from enum import Enum
from typing import Any, Literal

import pytest
from google.genai import types
from pydantic import BaseModel, Field

from llmkit import ToolDefinitionError
from llmkit._schema.gemini import gemini_openapi_schema

ALLOWED = {
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
}
TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def check_subset(schema: dict[str, Any]) -> None:
    """Only Gemini's keywords, Gemini's type names, string enums, arrays with items."""
    types.Schema.model_validate_json(json.dumps(schema))

    def walk(node: Any) -> None:
        assert isinstance(node, dict)
        assert set(node) <= ALLOWED, set(node) - ALLOWED
        if "type" in node:
            assert node["type"] in TYPES
        if "enum" in node:
            assert all(isinstance(v, str) for v in node["enum"]) and node["type"] == "STRING"
        if node.get("type") == "ARRAY":
            assert isinstance(node.get("items"), dict)
        for child in (node.get("properties") or {}).values():
            walk(child)
        for child in node.get("anyOf") or []:
            walk(child)
        if "items" in node:
            walk(node["items"])

    walk(schema)


def convert(schema: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    before = copy.deepcopy(schema)
    out, diags = gemini_openapi_schema(schema, "tool")
    assert schema == before  # never mutated
    check_subset(out)
    assert all(d.kind == "schema_rewritten" and d.details["tool"] == "tool" for d in diags)
    return out, [(d.details["path"], d.details["change"]) for d in diags]


class Color(str, Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = Field(description="City name")


class Person(BaseModel):
    name: str = Field(min_length=1, max_length=50)
    age: int = Field(ge=0, lt=150)
    email: str | None = Field(default=None, json_schema_extra={"format": "email"})
    home: Address
    work: Address | None = None
    tags: list[str] = []
    color: Color = Color.RED
    kind: Literal["person"] = "person"
    scores: dict[str, int] = {}
    level: Literal[1, 2, 3] = 1


def test_pydantic_model_becomes_the_openapi_subset() -> None:
    out, changes = convert(Person.model_json_schema())
    props = out["properties"]
    assert out["type"] == "OBJECT" and out["required"] == ["name", "age", "home"]
    assert props["name"] == {"maxLength": 50, "minLength": 1, "title": "Name", "type": "STRING"}
    assert props["age"]["minimum"] == 0 and props["age"]["maximum"] == 150
    assert props["email"]["nullable"] is True and "format" not in props["email"]
    assert props["home"]["properties"]["city"]["description"] == "City name"  # $ref inlined
    assert props["work"]["nullable"] is True and props["work"]["type"] == "OBJECT"
    assert props["tags"] == {
        "default": [],
        "items": {"type": "STRING"},
        "title": "Tags",
        "type": "ARRAY",
    }
    assert props["color"]["enum"] == ["red", "blue"]
    assert props["kind"]["enum"] == ["person"]
    assert "enum" not in props["level"] and "[1, 2, 3]" in props["level"]["description"]
    assert changes == sorted(set(changes), key=changes.index)  # each step reported once
    assert ("#/properties/age", "keyword_converted") in changes  # exclusiveMaximum
    assert ("#/properties/email", "keyword_removed") in changes  # format: email
    assert ("#/properties/kind", "const_to_enum") in changes
    assert ("#/properties/scores", "keyword_removed") in changes  # additionalProperties
    assert ("#/properties/level", "enum_removed") in changes


def test_lossless_steps_are_not_reported() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": ["integer", "null"]},
        },
        "$defs": {"A": {"type": "string", "description": "an A"}},
    }
    out, changes = convert(schema)
    assert out == {
        "type": "OBJECT",
        "properties": {
            "a": {"type": "STRING", "description": "an A"},
            "b": {"type": "STRING", "nullable": True},
            "c": {"type": "INTEGER", "nullable": True},
        },
    }
    assert changes == []


def test_unions_and_combinators() -> None:
    schema = {
        "type": "object",
        "properties": {
            "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "many": {"type": ["string", "number"]},
            "all": {
                "allOf": [
                    {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                    {"properties": {"y": {"type": "integer"}}, "required": ["y"]},
                ]
            },
        },
    }
    out, changes = convert(schema)
    props = out["properties"]
    assert props["one"]["anyOf"] == [{"type": "STRING"}, {"type": "INTEGER"}]
    assert props["many"]["anyOf"] == [{"type": "STRING"}, {"type": "NUMBER"}]
    assert set(props["all"]["properties"]) == {"x", "y"} and props["all"]["required"] == ["x", "y"]
    assert {c for _, c in changes} == {"oneof_to_anyof", "type_union_to_anyof", "allof_merged"}


def test_unsupported_keywords_are_removed_and_restated() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
            "s": {"type": "string", "format": "uri", "examples": ["a", "b"]},
            "when": {"type": "string", "format": "date-time"},
            "list": {"type": "array"},
            "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
            "const_num": {"const": 3},
            "free": {"type": "object", "propertyNames": {"pattern": "^a"}},
        },
        "required": ["n", "missing"],
    }
    out, changes = convert(schema)
    props = out["properties"]
    assert props["n"]["minimum"] == 0 and "multipleOf: 0.5" in props["n"]["description"]
    assert props["s"]["example"] == "a" and "format: uri" in props["s"]["description"]
    assert props["when"]["format"] == "date-time"  # a format Gemini knows is kept
    assert props["list"]["items"] == {"type": "STRING"}  # never an array without items
    assert props["tuple"]["items"]["anyOf"] == [{"type": "STRING"}, {"type": "INTEGER"}]
    assert "must be 3" in props["const_num"]["description"]
    assert out["required"] == ["n"]
    assert {c for _, c in changes} >= {
        "keyword_removed",
        "keyword_converted",
        "items_added",
        "required_pruned",
    }


class Node(BaseModel):
    value: int
    children: list[Node] = []


def test_recursive_reference_is_cut_and_reported() -> None:
    out, changes = convert(Node.model_json_schema())
    child = out["properties"]["children"]["items"]
    assert child["type"] == "OBJECT" and "properties" not in child
    assert any(c == "ref_cut" for _, c in changes)


def test_non_local_reference_is_refused() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
    with pytest.raises(ToolDefinitionError, match="local"):
        gemini_openapi_schema(schema, "tool")


@pytest.mark.parametrize("schema", [{"type": "object"}, {"type": "object", "properties": {}}])
def test_empty_object_schemas(schema: dict[str, Any]) -> None:
    out, changes = convert(schema)
    assert out["type"] == "OBJECT" and not changes
