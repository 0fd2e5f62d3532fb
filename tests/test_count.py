"""``count_tokens`` / ``acount_tokens`` (docs/design.md §5): each counting body is the call's own
mapping without the generation-only fields, validated against the official SDKs' counting types; the
request crosses a real loopback socket to the fake provider, sync and async; a wire without a
counting endpoint is refused before anything is sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic.types.message_count_tokens_params import MessageCountTokensParams
from openai.types.responses.input_token_count_params import InputTokenCountParams
from pydantic import BaseModel, TypeAdapter

import llmkit
from llmkit._count import count_request
from llmkit._fake.counting import estimate
from llmkit.testing import FakeProvider
from tests.support.helpers import consume
from tests.support.sdk import unknown_keys, validate_gemini

ANTHROPIC_COUNT = TypeAdapter(MessageCountTokensParams)
RESPONSES_COUNT = TypeAdapter(InputTokenCountParams)
PDF = b"%PDF-1.7\n%fake\n"
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)
COUNTING = ["anthropic-messages", "openai-responses", "gemini"]


class Answer(BaseModel):
    city: str


def context() -> llmkit.Context:
    return llmkit.Context(
        system="Be brief.",
        messages=[llmkit.user("Weather in Oslo? See the attached.", documents=[PDF])],
        tools=[WEATHER],
    )


def body_of(model: llmkit.Model, **options: Any) -> tuple[dict[str, Any], list[llmkit.Diagnostic]]:
    request, _, _, _ = count_request(model, context(), api_key="k", **options)
    return json.loads(request.content), request.extensions["llmkit.diagnostics"]


def test_the_anthropic_counting_body() -> None:
    model = llmkit.get_model("anthropic", "claude-sonnet-5")
    body, diags = body_of(model, reasoning="low", response_format=Answer, cache="short")
    consume(ANTHROPIC_COUNT.validate_python(body))
    assert unknown_keys(ANTHROPIC_COUNT, body) == []
    assert set(body) == {
        "model",
        "system",
        "messages",
        "tools",
        "thinking",
        "output_config",
        "cache_control",
    }
    assert body["messages"][0]["content"][1]["type"] == "document"
    assert {d.kind for d in diags} == {"schema_rewritten"}  # the schema, as for the call


def test_the_responses_counting_body() -> None:
    model = llmkit.get_model("openai", "gpt-6.1-sol")
    body, diags = body_of(model, response_format=Answer, max_tokens=100, temperature=0.5)
    consume(RESPONSES_COUNT.validate_python(body))
    assert unknown_keys(RESPONSES_COUNT, body) == []
    assert "store" not in body and "include" not in body and "max_output_tokens" not in body
    assert body["text"]["format"]["name"] == "Answer"
    # what the caller asked for that a count does not take is said, llmkit's defaults are not
    [d] = diags
    assert d.kind == "option_unsupported" and d.details["fields"] == [
        "max_output_tokens",
        "temperature",
    ]


def test_the_gemini_counting_body_is_a_generate_content_request() -> None:
    model = llmkit.get_model("google", "gemini-3.8-flash")
    body, diags = body_of(model)
    inner = body["generateContentRequest"]
    assert inner["model"] == "models/gemini-3.8-flash"
    validate_gemini({k: v for k, v in inner.items() if k != "model"})
    assert inner["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert diags == []


@pytest.mark.parametrize("api", COUNTING)
def test_count_tokens_against_the_fake_provider(api: str) -> None:
    with FakeProvider(api=api) as fake:  # type: ignore[arg-type]
        model = fake.model(input=["text", "pdf"])
        n = llmkit.count_tokens(model, context(), api_key=fake.api_key)
        [request] = fake.requests
    assert n == estimate(request) > 10
    assert request.path.split("?")[0].endswith(
        {
            "anthropic-messages": "/messages/count_tokens",
            "openai-responses": "/responses/input_tokens",
            "gemini": ":countTokens",
        }[api]
    )
    assert "stream" not in request.body and "max_tokens" not in request.body


@pytest.mark.parametrize("api", COUNTING)
def test_acount_tokens_is_the_same_count(api: str) -> None:
    async def count(fake: FakeProvider) -> int:
        return await llmkit.acount_tokens(fake.model(), context(), api_key=fake.api_key)

    with FakeProvider(api=api, count_tokens=lambda request: 42) as fake:  # type: ignore[arg-type]
        assert asyncio.run(count(fake)) == 42
        assert llmkit.count_tokens(fake.model(), context(), api_key=fake.api_key) == 42


def test_a_wire_without_a_counting_endpoint_is_refused_before_sending() -> None:
    with FakeProvider(api="openai-chat") as fake:
        with pytest.raises(llmkit.InvalidRequestError, match="no token-counting endpoint"):
            llmkit.count_tokens(fake.model(), context(), api_key=fake.api_key)
        assert fake.requests == []


def test_count_tokens_raises_the_providers_error() -> None:
    with FakeProvider(api="anthropic-messages") as fake:
        with pytest.raises(llmkit.AuthenticationError):
            llmkit.count_tokens(fake.model(), context(), api_key="wrong", max_retries=0)


def test_counting_takes_no_scripted_reply() -> None:
    with FakeProvider([llmkit.testing.FakeReply("Sunny.")], api="gemini") as fake:
        model = fake.model()
        llmkit.count_tokens(model, context(), api_key=fake.api_key)
        reply = llmkit.complete(model, context(), api_key=fake.api_key)
    assert reply.text == "Sunny."


@pytest.mark.parametrize(
    ("api", "endpoint"),
    [
        ("gemini", "/publishers/google/models/m:countTokens"),
        ("anthropic-messages", "/publishers/anthropic/models/count-tokens:rawPredict"),
    ],
)
def test_count_tokens_on_vertex_uses_vertex_endpoints_and_bodies(api: str, endpoint: str) -> None:
    # Vertex AI counts at its own URLs, with google-genai's (Gemini) and the anthropic SDK's
    # Vertex client's (Claude) body shapes, not the vendor APIs'.
    with FakeProvider(api=api, platform="vertex", require_key=False) as fake:  # type: ignore[arg-type]
        n = llmkit.count_tokens(fake.model("m"), context(), api_key="ya29.token")
        [request] = fake.requests
    assert n == estimate(request)
    assert request.path == "/v1/projects/fake-project/locations/us-central1" + endpoint
    if api == "gemini":
        assert "generateContentRequest" not in request.body
        assert request.body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
        validate_gemini(request.body)
    else:
        assert request.body["model"] == "m"
        assert request.body["anthropic_version"] == "vertex-2023-10-16"
        assert "max_tokens" not in request.body and "stream" not in request.body
