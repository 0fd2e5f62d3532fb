"""Tool definitions: validation at construction, tool() from a model, tool_from_function()."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, Optional, TypeVar

import pytest
from pydantic import BaseModel, Field

from llmkit._errors import LLMError, ToolDefinitionError
from llmkit._messages import Context, ToolCall
from llmkit._tools.arguments import decode_tool_call
from llmkit._tools.definition import Injected, Tool, tool, tool_from_function

if TYPE_CHECKING:
    from decimal import Context as OnlyForTypeCheckers  # never importable at run time


# -- Tool construction ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "a" * 65, "get weather", "get.weather", "wetter/heute", "é"])
def test_tool_rejects_bad_names(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="must match"):
        Tool(name=name)


@pytest.mark.parametrize("name", ["a", "a" * 64, "get_weather", "get-weather", "GetWeather2"])
def test_tool_accepts_good_names(name: str) -> None:
    assert Tool(name=name).name == name


@pytest.mark.parametrize(
    "parameters",
    [{"type": "array", "items": {"type": "string"}}, {"properties": {}}, {"type": ["object"]}],
)
def test_tool_parameters_must_be_an_object_schema(parameters: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError, match="type 'object'"):
        Tool(name="t", parameters=parameters)


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "object", "properties": {"a": {"type": "nope"}}},
        {"type": "object", "required": "a"},
        {"type": "object", "properties": {"a": {"minimum": "zero"}}},
    ],
)
def test_tool_parameters_must_pass_the_metaschema(parameters: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError, match="not a valid JSON Schema"):
        Tool(name="t", parameters=parameters)


def test_tool_definition_error_is_an_llm_error() -> None:
    with pytest.raises(LLMError):
        Tool(name="bad name")


def test_tool_defaults_to_no_arguments() -> None:
    t = Tool(name="now")
    assert t.parameters == {"type": "object", "properties": {}}
    assert t.description == ""
    assert t.strict is False
    assert t.args_model is None


def test_tool_is_frozen() -> None:
    t = Tool(name="now")
    with pytest.raises(Exception, match="frozen"):
        t.name = "later"


def test_importing_the_tool_modules_does_not_import_jsonschema() -> None:
    code = (
        "import sys, llmkit._tools.definition, llmkit._schema.strict, llmkit._tools.arguments\n"
        "assert 'jsonschema' not in sys.modules, 'jsonschema imported eagerly'\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


# -- tool() from a pydantic model ------------------------------------------------------------


class GetWeather(BaseModel):
    """Get a weather forecast.

    Covers the next ten days.
    """

    city: str = Field(description="City name", min_length=1)
    days: int = Field(ge=1, le=10)


class HTTPRequest(BaseModel):
    url: str


class GetWeatherV2(BaseModel):
    pass


class already_snake(BaseModel):  # the lower-case name is the point of the test
    pass


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]


class Item(BaseModel):
    """A line of an order."""

    sku: str = Field(description="Stock keeping unit")
    qty: int = Field(ge=1)


class PlaceOrder(BaseModel):
    """Place an order."""

    items: list[Item] = Field(description="What to order")
    gift: Optional[Item] = None


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Documented(BaseModel):
    """Documented base."""

    x: int


class Undocumented(Documented):
    pass


@pytest.mark.parametrize(
    ("model", "name"),
    [
        (GetWeather, "get_weather"),
        (HTTPRequest, "http_request"),
        (GetWeatherV2, "get_weather_v2"),
        (already_snake, "already_snake"),
        (Page[Item], "page_item"),
    ],
)
def test_tool_name_defaults_to_snake_case_class_name(model: type[BaseModel], name: str) -> None:
    assert tool(model).name == name


def test_tool_from_model_matches_the_design_example() -> None:
    t = tool(GetWeather)
    assert t.name == "get_weather"
    assert t.description == "Get a weather forecast.\n\nCovers the next ten days."
    props = t.parameters["properties"]
    assert props["city"]["description"] == "City name"
    assert props["city"]["minLength"] == 1
    assert props["days"]["minimum"] == 1
    assert props["days"]["maximum"] == 10
    assert t.parameters["required"] == ["city", "days"]
    assert t.args_model is GetWeather


def test_tool_schema_drops_top_level_title_and_docstring_only() -> None:
    params = tool(GetWeather).parameters
    assert "title" not in params
    assert "description" not in params  # it is the tool's description already
    assert params["properties"]["city"]["title"] == "City"  # the rest stays faithful


def test_tool_name_description_and_strict_overrides() -> None:
    t = tool(GetWeather, name="weather", description="Forecast.", strict=True)
    assert (t.name, t.description, t.strict) == ("weather", "Forecast.", True)
    assert tool(GetWeather, description="").description == ""


def test_tool_without_docstring_has_empty_description() -> None:
    assert tool(HTTPRequest).description == ""
    # Docstrings are not inherited: neither the user's base class's nor BaseModel's.
    assert tool(Undocumented).description == ""


def test_tool_keeps_nested_models_in_defs() -> None:
    params = tool(PlaceOrder).parameters
    assert params["properties"]["items"]["items"] == {"$ref": "#/$defs/Item"}
    item = params["$defs"]["Item"]
    assert item["properties"]["sku"]["description"] == "Stock keeping unit"
    assert item["required"] == ["sku", "qty"]


def test_tool_of_recursive_model_has_an_object_root() -> None:
    params = tool(Node).parameters
    assert params["type"] == "object"
    assert params["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert "Node" in params["$defs"]


@pytest.mark.parametrize("not_a_model", [dict, GetWeather(city="x", days=1), "GetWeather"])
def test_tool_refuses_what_is_not_a_model_class(not_a_model: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="pydantic model class"):
        tool(not_a_model)


def test_tool_refuses_invalid_explicit_name() -> None:
    with pytest.raises(ToolDefinitionError):
        tool(GetWeather, name="get weather")


def test_tools_are_equal_by_public_fields_across_a_context_round_trip() -> None:
    t = tool(GetWeather)
    context = Context(tools=[t])
    again = Context.model_validate_json(context.model_dump_json())
    (copy,) = again.tools
    assert copy.args_model is None  # the class does not survive JSON
    assert copy == t
    assert again == context
    assert tool(GetWeather, strict=True) != t


# -- tool_from_function() --------------------------------------------------------------------


class Address(BaseModel):
    street: str
    city: str


class Database:
    """Stands for caller-owned state that must never reach the schema."""


def ship(
    order_id: str,
    address: Address,
    qty: Annotated[int, Field(ge=1, description="How many parcels")] = 1,
    tags: Optional[list[str]] = None,
    weights: dict[str, float] | None = None,
    express: bool = False,
) -> str:
    """Ship an order.

    Picks the fastest carrier.

    Args:
        order_id (str): The order id, as printed
            on the invoice.
        address: Where to ship.
        qty: Quantity from the docstring (Field wins).
        tags: Labels for the parcel.
        weights (dict, optional): Weight per parcel.
        express: Pay for overnight.

    Returns:
        The tracking number.

    Raises:
        KeyError: Unknown order.
    """
    return order_id


async def lookup(order_id: str, db: Annotated[Database, Injected], user_id: str) -> str:
    """Look up an order.

    Args:
        order_id: The order.
        db: The database.
        user_id: Who is asking.
    """
    return order_id


def with_unresolvable(order_id: str, ctx: OnlyForTypeCheckers) -> str:
    """Find an order."""
    return order_id


def test_tool_from_function_reads_google_docstring() -> None:
    t = tool_from_function(ship)
    assert t.name == "ship"
    assert t.description == "Ship an order.\n\nPicks the fastest carrier."
    props = t.parameters["properties"]
    assert props["order_id"]["description"] == "The order id, as printed on the invoice."
    assert props["address"]["description"] == "Where to ship."
    assert props["weights"]["description"] == "Weight per parcel."
    assert "Returns" not in t.description and "KeyError" not in str(t.parameters)


def test_tool_from_function_types_defaults_and_requiredness() -> None:
    params = tool_from_function(ship).parameters
    props = params["properties"]
    assert params["required"] == ["order_id", "address"]
    assert props["qty"]["default"] == 1
    assert props["qty"]["minimum"] == 1
    assert props["tags"]["anyOf"] == [
        {"type": "array", "items": {"type": "string"}},
        {"type": "null"},
    ]
    assert props["weights"]["anyOf"][0] == {
        "type": "object",
        "additionalProperties": {"type": "number"},
    }
    assert props["express"] == {
        "type": "boolean",
        "default": False,
        "title": "Express",
        "description": "Pay for overnight.",
    }
    assert params["$defs"]["Address"]["required"] == ["street", "city"]


def test_tool_from_function_explicit_field_description_wins_over_docstring() -> None:
    props = tool_from_function(ship).parameters["properties"]
    assert props["qty"]["description"] == "How many parcels"


def test_tool_from_function_decodes_to_its_generated_model() -> None:
    t = tool_from_function(ship)
    call = ToolCall(
        id="c1",
        name="ship",
        arguments={"order_id": "A1", "address": {"street": "1 Main St", "city": "Oslo"}},
    )
    args = decode_tool_call(t, call)
    assert type(args) is t.args_model
    dumped = args.model_dump()
    assert dumped["qty"] == 1 and dumped["address"]["city"] == "Oslo"
    assert ship(**dict(args)) == "A1"


def test_tool_from_async_function_with_injected_parameter() -> None:
    t = tool_from_function(lookup)
    assert t.description == "Look up an order."
    assert set(t.parameters["properties"]) == {"order_id", "user_id"}
    assert "db" not in str(t.parameters) and "Database" not in str(t.parameters)
    assert t.parameters["required"] == ["order_id", "user_id"]


def test_tool_from_function_exclude_removes_parameters_from_schema() -> None:
    t = tool_from_function(lookup, exclude=("user_id",))
    assert set(t.parameters["properties"]) == {"order_id"}
    assert t.parameters["required"] == ["order_id"]
    call = ToolCall(id="c", name="lookup", arguments={"order_id": "A", "user_id": "ignored"})
    assert decode_tool_call(t, call).model_dump() == {"order_id": "A"}


def test_tool_from_function_exclude_accepts_a_single_string() -> None:
    t = tool_from_function(lookup, exclude="user_id")
    assert set(t.parameters["properties"]) == {"order_id"}


def test_tool_from_function_excluded_parameter_may_have_an_unresolvable_type() -> None:
    # A type imported only under TYPE_CHECKING must not break an excluded parameter.
    t = tool_from_function(with_unresolvable, exclude=["ctx"])
    assert set(t.parameters["properties"]) == {"order_id"}
    with pytest.raises(ToolDefinitionError, match="cannot resolve"):
        tool_from_function(with_unresolvable)


def test_injected_marker_works_as_an_instance_too() -> None:
    def f(a: int, db: Annotated[Database, Injected()]) -> None: ...

    assert set(tool_from_function(f).parameters["properties"]) == {"a"}


def test_tool_from_function_refuses_star_args() -> None:
    def f(a: int, *rest: int) -> None: ...

    def g(a: int, **options: Any) -> None: ...

    for fn in (f, g):
        with pytest.raises(ToolDefinitionError, match=r"\*args/\*\*kwargs"):
            tool_from_function(fn)


def test_tool_from_function_refuses_missing_annotation_naming_the_parameter() -> None:
    def f(a: int, b) -> None:  # type: ignore[no-untyped-def]
        ...

    with pytest.raises(ToolDefinitionError, match="parameter 'b' has no type annotation"):
        tool_from_function(f)


def test_tool_from_function_refuses_unknown_exclude() -> None:
    with pytest.raises(ToolDefinitionError, match="exclude names no parameter: nope"):
        tool_from_function(lookup, exclude=["nope"])


def test_tool_from_function_refuses_a_lambda_without_a_name() -> None:
    with pytest.raises(ToolDefinitionError, match="must match"):
        tool_from_function(lambda x: x)


def test_tool_from_function_refuses_underscore_parameters() -> None:
    def f(_secret: int) -> None: ...

    with pytest.raises(ToolDefinitionError, match="parameter '_secret' starts with '_'"):
        tool_from_function(f)


def test_tool_from_function_overrides_and_no_docstring() -> None:
    def f(a: int) -> None: ...

    t = tool_from_function(f, name="renamed", description="Does f.", strict=True)
    assert (t.name, t.description, t.strict) == ("renamed", "Does f.", True)
    assert tool_from_function(f).description == ""


def test_tool_from_function_parameter_named_like_a_basemodel_method_does_not_warn() -> None:
    # pytest runs with filterwarnings=error: a shadowing warning would fail this test.
    def search(json: str, copy: bool = False, model_name: str = "x") -> None: ...

    t = tool_from_function(search)
    assert set(t.parameters["properties"]) == {"json", "copy", "model_name"}


def test_tool_from_function_accepts_methods_partials_and_callables() -> None:
    class Service:
        def find(self, order_id: str, limit: int = 5) -> None:
            """Find orders.

            Args:
                order_id: The order.
                limit: At most this many.
            """

        def __call__(self, query: str) -> None:
            """Search."""

    bound = tool_from_function(Service().find)
    assert set(bound.parameters["properties"]) == {"order_id", "limit"}
    assert bound.parameters["properties"]["limit"]["description"] == "At most this many."

    partial = tool_from_function(functools.partial(ship, express=True), name="ship_express")
    assert "express" in partial.parameters["properties"]  # still a keyword the model may set
    assert partial.parameters["properties"]["express"]["default"] is True

    obj = tool_from_function(Service(), name="search")
    assert set(obj.parameters["properties"]) == {"query"}


def test_tool_from_function_any_annotation_is_an_untyped_property() -> None:
    def f(value: Any) -> None: ...

    assert tool_from_function(f).parameters["properties"]["value"] == {"title": "Value"}


def test_docstring_sections_and_odd_layouts() -> None:
    def f(a: int, b: str = "") -> None:
        """Summary line.

        Args:
            a:
                Described on the next line.
            b: First part,
                second part.

                After a blank line.

        Note:
            Not an argument: x: y.
        """

    props = tool_from_function(f).parameters["properties"]
    assert props["a"]["description"] == "Described on the next line."
    assert props["b"]["description"] == "First part, second part. After a blank line."
    assert tool_from_function(f).description == "Summary line."
