"""A user's code, type-checked by mypy in CI (``mypy --strict tests/typing``), never run.

It pins what a type checker sees of the public API: the options are typed (a misspelt option or
a wrong value is an error: each ``# type: ignore[...]`` below must be needed, or
``--warn-unused-ignores``, part of ``--strict``, fails), and a Tool is generic in what
``decode_tool_call`` returns.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import assert_type

import llmkit


class GetWeather(BaseModel):
    """Get a weather forecast."""

    city: str
    days: int = 1


def tools(call: llmkit.ToolCall) -> None:
    weather = llmkit.tool(GetWeather)
    assert_type(weather, llmkit.Tool[GetWeather])
    assert_type(llmkit.decode_tool_call(weather, call), GetWeather)
    assert_type(llmkit.decode_tool_call(GetWeather, call), GetWeather)
    raw = llmkit.Tool(name="lookup", parameters={"type": "object", "properties": {}})
    assert_type(llmkit.decode_tool_call(raw, call), dict[str, Any])

    def lookup(order_id: str) -> str:
        """Look an order up."""
        return order_id

    assert_type(llmkit.decode_tool_call(llmkit.tool_from_function(lookup), call), BaseModel)
    # tools of different argument types go in one list, and one Context
    both: list[llmkit.Tool[Any]] = [weather, raw]
    llmkit.Context(tools=both)
    llmkit.Context(tools=[weather, raw])
    # a list built beforehand (list[Tool[GetWeather]], list[UserMessage]) is taken as it is
    mine = [weather]
    messages = [llmkit.user("hi")]
    context = llmkit.Context(tools=mine, messages=messages)
    context.messages.append(llmkit.user("more"))  # the attributes are lists
    context.tools.append(llmkit.ProviderTool("gemini", {"google_search": {}}))


def options(model: llmkit.Model, context: llmkit.Context) -> None:
    llmkit.complete(model, context, max_tokens=100, timeout=30.0, reasoning="low", stop="END")
    llmkit.complete(model, context, timeout=llmkit.Timeouts(total=60), tool_choice={"name": "x"})
    llmkit.build_request(model, context, max_tokenz=100)  # type: ignore[call-arg]
    llmkit.complete(model, context, temperature="hot")  # type: ignore[arg-type]
    llmkit.complete(model, context, reasoning="maximum")  # type: ignore[arg-type]
    llmkit.stream(model, context, timeout="abc")  # type: ignore[arg-type]


async def async_options(model: llmkit.Model, context: llmkit.Context) -> None:
    reply = await llmkit.acomplete(model, context, max_retries=0)
    assert_type(reply, llmkit.AssistantMessage)
    await llmkit.acomplete(model, context, max_retries="2")  # type: ignore[arg-type]


def features(model: llmkit.Model, context: llmkit.Context, reply: llmkit.AssistantMessage) -> None:
    llmkit.complete(model, context, cache="long", cache_key="k", stream_tool_arguments=True)
    llmkit.complete(model, context, cache="forever")  # type: ignore[arg-type]
    assert_type(llmkit.decode_output(GetWeather, reply), GetWeather)
    assert_type(llmkit.count_tokens(model, context), int)


def errors(model: llmkit.Model, context: llmkit.Context) -> None:
    try:
        llmkit.complete(model, context)
    except llmkit.LLMError as e:
        assert_type(e.message, str)
        assert_type(e.partial, llmkit.AssistantMessage | None)


def failure_event(model: llmkit.Model, context: llmkit.Context) -> None:
    with llmkit.stream(model, context) as events:
        for event in events:
            if isinstance(event, llmkit.ErrorEvent):
                assert_type(event.error, llmkit.LLMError)
                assert_type(event.error.message, str)


class LookupOrder(BaseModel):
    """Look an order up."""

    order_id: int


def toolsets(call: llmkit.ToolCall, context: llmkit.Context) -> None:
    weather, lookup = llmkit.tool(GetWeather), llmkit.tool(LookupOrder)
    raw = llmkit.Tool(name="search", parameters={"type": "object", "properties": {}})
    assert_type(llmkit.decode_tool_call((weather, lookup), call), GetWeather | LookupOrder)
    assert_type(llmkit.decode_tool_call((GetWeather, LookupOrder), call), GetWeather | LookupOrder)
    both = llmkit.decode_tool_call((weather, LookupOrder, raw), call)
    assert_type(both, GetWeather | LookupOrder | dict[str, Any])
    match llmkit.decode_tool_call((weather, lookup), call):
        case GetWeather(city=city):
            assert_type(city, str)
        case LookupOrder(order_id=order_id):
            assert_type(order_id, int)
    llmkit.decode_tool_call(context.tools, call)  # a Context's tools, provider tools and all


def calls(model: llmkit.Model) -> None:
    llmkit.complete(model, "Hi")
    llmkit.complete(model, [llmkit.user("Hi")])
    llmkit.build_request(model, "Hi", stream=False)
    llmkit.complete(llmkit.get_model("openai/gpt-4.1-mini"), "Hi")
    llmkit.Model(provider="openai", id="gpt-4.1-mini")  # api from the provider
    llmkit.complete(model, 42)  # type: ignore[arg-type]


async def client_defaults(model: llmkit.Model, context: llmkit.Context) -> None:
    client = llmkit.Client(max_tokens=1024, timeout=30.0, headers={"x-team": "a"})
    llmkit.Client(max_tokenz=1)  # type: ignore[call-arg]
    llmkit.Client(temperature="hot")  # type: ignore[arg-type]
    assert_type(client.complete(model, context, reasoning="low"), llmkit.AssistantMessage)
    assert_type(await client.acomplete(model, "Hi", max_retries=0), llmkit.AssistantMessage)
    client.complete(model, context, max_tokenz=5)  # type: ignore[call-arg]
    client.stream(model, context, timeout="abc")  # type: ignore[arg-type]
    assert_type(client.stream(model, context), llmkit.EventStream)
    assert_type(client.astream(model, context), llmkit.AsyncEventStream)
    assert_type(client.count_tokens(model, context), int)
    assert_type(await client.acount_tokens(model, context), int)
    client.build_request(model, context, stream=False, temperature=0.2)
    assert_type(client.with_options(temperature=0.0), llmkit.Client)
