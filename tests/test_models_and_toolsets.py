"""The obvious ways to name a model and to decode a call among several tools.

``get_model("provider/id")``; ``Model(provider=..., id=...)`` taking the provider's wire, base
URL, key variable and compat flags (an unknown provider without ``api`` is a clear error
listing the known ones); ``decode_tool_call`` over a sequence of tools or argument models.
Each model made this way is used for a real call over a loopback server, on every wire.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")


def test_get_model_takes_provider_slash_id() -> None:
    assert llmkit.get_model("openai/gpt-4.1-mini") is llmkit.get_model("openai", "gpt-4.1-mini")
    claude = llmkit.models("anthropic")[0]
    assert llmkit.get_model(f"anthropic/{claude.id}") is claude
    for model in llmkit.models():  # split at the first "/": ids may hold one (OpenRouter)
        assert llmkit.get_model(f"{model.provider}/{model.id}") is llmkit.get_model(
            model.provider, model.id
        )


def test_get_model_without_a_provider_suggests_one() -> None:
    with pytest.raises(llmkit.UnknownModelError) as info:
        llmkit.get_model("gpt-4.1-mini")
    assert "openai/gpt-4.1-mini" in info.value.suggestions
    assert "provider/id" in str(info.value)
    with pytest.raises(llmkit.UnknownModelError):
        llmkit.get_model("openai/no-such-model")


@pytest.mark.parametrize(
    ("provider", "api", "env"),
    [
        ("openai", "openai-responses", "OPENAI_API_KEY"),  # OpenAI's documented default
        ("anthropic", "anthropic-messages", "ANTHROPIC_API_KEY"),
        ("google", "gemini", "GEMINI_API_KEY"),
        ("groq", "openai-chat", "GROQ_API_KEY"),
        ("ollama", "openai-chat", "OLLAMA_API_KEY"),
        ("bedrock", "bedrock-converse", "AWS_BEARER_TOKEN_BEDROCK"),
    ],
)
def test_a_known_provider_fills_in_the_model(provider: str, api: str, env: str) -> None:
    model = llmkit.Model(provider=provider, id="some-model")
    assert (model.api, model.api_key_env) == (api, env)
    assert model.base_url
    catalogued = next(m for m in llmkit.models(provider) if m.api == api)
    assert model.platform == catalogued.platform
    assert type(model.compat) is type(catalogued.compat)  # the flags type of the wire
    if not isinstance(model.compat, llmkit.AnthropicCompat):  # Claude's flags are per model
        assert model.compat == catalogued.compat  # the provider profile's flags
    assert llmkit.Model.model_validate_json(model.model_dump_json()) == model


def test_an_explicit_api_wins() -> None:
    model = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")
    assert model.api == "openai-chat" and model.base_url == "https://api.openai.com/v1"


def test_an_unknown_provider_without_api_lists_the_known_ones() -> None:
    with pytest.raises(llmkit.InvalidRequestError) as info:
        llmkit.Model(provider="my-server", id="qwen3")
    message = str(info.value)
    assert "api=" in message and "my-server" in message
    for known in ("openai", "anthropic", "google", "groq", "vllm"):
        assert known in message
    custom = llmkit.Model(provider="my-server", id="q", api="openai-chat", base_url="http://h/v1")
    assert custom.api == "openai-chat"


@pytest.mark.parametrize("api", WIRES)
def test_a_model_named_by_its_provider_makes_real_calls(api: str) -> None:
    provider = {
        "openai-chat": "groq",
        "openai-responses": "openai",
        "anthropic-messages": "anthropic",
        "gemini": "google",
        "bedrock-converse": "bedrock",
    }[api]
    with FakeProvider([FakeReply("Hello")], api=api) as fake:  # type: ignore[arg-type]
        model = llmkit.Model(provider=provider, id="fake-model", base_url=fake.base_url)
        assert model.api == api
        options: dict[str, Any] = {"api_key": fake.api_key}
        if api == "bedrock-converse":
            options["region"] = "us-east-1"
        assert llmkit.complete(model, "Hi", **options).text == "Hello"
        assert len(fake.requests) == 1


class GetWeather(BaseModel):
    """Get the weather."""

    city: str


class LookupOrder(BaseModel):
    """Look an order up."""

    order_id: int


RAW = llmkit.Tool(
    name="search", parameters={"type": "object", "properties": {"q": {"type": "string"}}}
)
CALLS = [
    FakeToolCall("get_weather", {"city": "Paris"}),
    FakeToolCall("lookup_order", {"order_id": "42"}),
    FakeToolCall("search", {"q": "shoes"}),
]


@pytest.mark.parametrize("api", WIRES)
def test_decode_tool_call_over_the_tools_offered(api: str) -> None:
    weather, lookup = llmkit.tool(GetWeather), llmkit.tool(LookupOrder)
    search = llmkit.ProviderTool(api, {"type": "web_search"})  # skipped: the provider runs it
    context = llmkit.Context(messages=[llmkit.user("Go")], tools=[weather, lookup, RAW])
    with FakeProvider([FakeReply(tool_calls=CALLS)], api=api) as fake:  # type: ignore[arg-type]
        reply = llmkit.complete(fake.model(), context, api_key=fake.api_key)
    decoded = []
    for call in reply.tool_calls:
        for tools in ((weather, lookup, RAW), [GetWeather, LookupOrder, RAW], [*context.tools]):
            value = llmkit.decode_tool_call(tools, call)
            match value:
                case GetWeather(city=city):
                    decoded.append(("weather", city))
                case LookupOrder(order_id=order_id):
                    decoded.append(("order", order_id))
                case {"q": q}:
                    decoded.append(("search", q))
        assert llmkit.decode_tool_call([search, *context.tools], call) is not None
    assert decoded == [("weather", "Paris")] * 3 + [("order", 42)] * 3 + [("search", "shoes")] * 3


def test_a_call_naming_none_of_the_tools_lists_them() -> None:
    call = llmkit.ToolCall(id="c1", name="get_time", arguments={}, raw_arguments="{}")
    with pytest.raises(llmkit.ToolArgumentsError) as info:
        llmkit.decode_tool_call((llmkit.tool(GetWeather), LookupOrder, RAW), call)
    error = info.value
    assert "get_weather, lookup_order, search" in error.model_message
    assert "get_time" in error.model_message and error.tool_call_id == "c1"
    assert error.errors[0]["type"] == "tool_name"
    with pytest.raises(llmkit.ToolArgumentsError, match="none"):
        llmkit.decode_tool_call([], call)


def test_the_chosen_tool_still_refuses_bad_arguments() -> None:
    call = llmkit.ToolCall(
        id="c1", name="lookup_order", arguments={"order_id": "x"}, raw_arguments='{"order_id":"x"}'
    )
    with pytest.raises(llmkit.ToolArgumentsError) as info:
        llmkit.decode_tool_call((GetWeather, LookupOrder), call)
    assert info.value.errors[0]["path"] == "order_id"
