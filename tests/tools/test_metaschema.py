"""The meta-schema fast path (llmkit/_tools/metaschema.py) never accepts what jsonschema refuses,
and it does accept what pydantic generates (else it would save nothing)."""

from __future__ import annotations

import enum
from typing import Any, Literal, Optional

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from llmkit._tools.metaschema import surely_valid


def _jsonschema_accepts(schema: Any) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


_KEYS = [
    "type", "properties", "required", "title", "description", "default", "const", "enum",
    "examples", "format", "items", "additionalProperties", "not", "anyOf", "allOf", "oneOf",
    "prefixItems", "$defs", "$ref", "minLength", "maxLength", "minItems", "maxItems",
    "minProperties", "maxProperties", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "uniqueItems", "deprecated", "readOnly", "writeOnly", "pattern",
    "multipleOf", "$schema", "discriminator", "x-custom",
]  # fmt: skip
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-3, 3, allow_nan=False),
    st.sampled_from(["object", "string", "integer", "nope", "#", "#/$defs/A", "a(", "x"]),
)


def _values(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", *_KEYS]), children, max_size=3),
        st.tuples(children),
    )


_anything = st.recursive(_scalars, _values, max_leaves=12)
_schemas = st.recursive(
    st.dictionaries(st.sampled_from(_KEYS), _anything, max_size=3),
    lambda inner: st.dictionaries(
        st.sampled_from(_KEYS), st.one_of(inner, st.lists(inner, max_size=2), _anything), max_size=4
    ),
    max_leaves=10,
)


@settings(max_examples=600, deadline=None)
@given(_schemas)
def test_never_accepts_what_jsonschema_refuses(schema: dict[str, Any]) -> None:
    if surely_valid(schema):
        assert _jsonschema_accepts(schema), schema


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {"type": "object", "required": ["a", "a"]},
        {"type": "object", "required": "a"},
        {"type": "object", "properties": {"a": {"minLength": -1}}},
        {"type": "object", "properties": {"a": {"minLength": True}}},
        {"type": "object", "anyOf": []},
        {"type": "object", "enum": ("a",)},
        {"type": ["object", "object"]},
        {"type": "object", "properties": {"a": {"pattern": "("}}},
        {"type": "object", "$schema": "http://json-schema.org/draft-07/schema#"},
    ],
)
def test_leaves_the_doubtful_and_the_invalid_to_jsonschema(schema: dict[str, Any]) -> None:
    assert not surely_valid(schema)


class _Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class _Inner(BaseModel):
    x: float = Field(ge=0, lt=10.5, description="x")
    tags: list[str] = Field(default_factory=list, max_length=4)


class _Args(BaseModel):
    """Docstring."""

    city: str = Field(description="City name", min_length=1, max_length=80)
    days: int = Field(3, ge=1, le=10)
    mode: Literal["a", "b"] = "a"
    colour: _Colour = _Colour.RED
    inner: Optional[_Inner] = None
    pairs: dict[str, int] = {}
    point: tuple[int, int] = (0, 0)
    items: list[_Inner] = Field(default_factory=list, min_length=0)


class _Tree(BaseModel):
    value: int
    children: list[_Tree] = []


@pytest.mark.parametrize("model", [_Args, _Tree, _Inner])
def test_accepts_what_pydantic_generates(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    assert surely_valid(schema), schema
    assert _jsonschema_accepts(schema)
