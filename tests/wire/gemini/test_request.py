"""Gemini request bodies, validated against the official ``google-genai`` SDK's types.

Every body built here is checked with :func:`validate`: each ``contents`` entry and the
``systemInstruction`` as ``types.Content``, each tool as ``types.Tool``, ``toolConfig`` as
``types.ToolConfig`` and ``generationConfig`` as ``types.GenerationConfig``, through
``model_validate_json`` (the SDK's models forbid unknown fields and decode ``thoughtSignature``
as base64, so a misspelt key or a broken signature fails). Histories come from real recordings
decoded by llmkit — Gemini's own, OpenAI Chat's — and from an Anthropic-shaped turn (handoff).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel, Field

import llmkit
from llmkit._wire import gemini
from llmkit._wire.contract import Options
from llmkit._wire.gemini.request import SKIP_SIGNATURE
from tests.support.corpus import FIXTURES as FIXTURES_DIR
from tests.support.corpus import load_exchanges
from tests.support.sdk import validate_gemini

FIXTURES = FIXTURES_DIR
FLASH = llmkit.Model(
    provider="google", id="gemini-2.5-flash", api="gemini", reasoning=True, input=["text", "image"]
)
PRO3 = llmkit.Model(
    provider="google",
    id="gemini-3-pro-preview",
    api="gemini",
    reasoning=True,
    input=["text", "image"],
)
WEATHER = llmkit.Tool(
    name="get_weather",
    description="Get the weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde"
)


def build(
    model: llmkit.Model, context: llmkit.Context, **options: Any
) -> tuple[dict[str, Any], list[llmkit.Diagnostic]]:
    body, diags = gemini.build(model, context, Options(**options), stream=True)
    validate_gemini(body)
    return body, diags


def kinds(diags: list[llmkit.Diagnostic]) -> list[str]:
    return [d.kind for d in diags]


def decoded(path: str, n: int, model: llmkit.Model) -> llmkit.AssistantMessage:
    """Exchange ``n`` of a recording, decoded by llmkit as ``model``."""
    exchange = load_exchanges(FIXTURES / path)[n]
    events = list(llmkit.parse_stream(model, [exchange.body]))
    last = events[-1]
    assert isinstance(last, llmkit.Done)
    return last.message


def recorded_request(path: str, n: int) -> dict[str, Any]:
    request = load_exchanges(FIXTURES / path)[n].request
    assert request is not None
    body = request["body"]
    assert isinstance(body, dict)
    return body


def with_results(
    reply: llmkit.AssistantMessage, *texts: str, reverse: bool = False
) -> llmkit.Context:
    calls = list(reversed(reply.tool_calls)) if reverse else reply.tool_calls
    results = [llmkit.tool_result(c, t) for c, t in zip(calls, texts, strict=True)]
    return llmkit.Context(
        system="Be brief.",
        messages=[llmkit.user("Add and multiply 2 and 3"), reply, *results],
        tools=[WEATHER],
    )


# --------------------------------------------------------------------------- endpoints


def test_url_always_asks_for_sse_A10() -> None:
    base = "https://generativelanguage.googleapis.com/v1beta/"
    assert gemini.url(FLASH, base, stream=True) == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
        ":streamGenerateContent?alt=sse"
    )
    assert gemini.url(FLASH, base, stream=False).endswith(
        "/models/gemini-2.5-flash:generateContent"
    )
    assert gemini.headers(FLASH, "k") == {"x-goog-api-key": "k"}
    assert gemini.headers(FLASH, None) == {}


def test_build_request_uses_the_key_header_and_gemini_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = llmkit.Context(messages=[llmkit.user("hi")])
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(llmkit.MissingAPIKeyError, match="GEMINI_API_KEY"):
        llmkit.build_request(FLASH, context)
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-from-env")
    request = llmkit.build_request(FLASH, context)
    assert request.headers["x-goog-api-key"] == "AIza-from-env"
    assert "authorization" not in request.headers
    assert str(request.url).endswith(":streamGenerateContent?alt=sse")
    validate_gemini(json.loads(request.content))


# --------------------------------------------------------------------------- user turns


def test_system_text_and_images() -> None:
    context = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("What is this?", images=[PNG, "https://example.com/cat.jpg"]),
        ],
    )
    body, diags = build(FLASH, context)
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    parts = body["contents"][0]["parts"]
    assert parts[0] == {"text": "What is this?"}
    assert parts[1]["inlineData"]["mimeType"] == "image/png"
    assert parts[2] == {
        "fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}
    }
    assert not diags


def test_images_to_a_text_only_model_become_a_placeholder() -> None:
    text_only = FLASH.model_copy(update={"input": ["text"]})
    body, diags = build(text_only, llmkit.Context(messages=[llmkit.user("see", images=[PNG])]))
    assert body["contents"][0]["parts"][1] == {
        "text": "[image omitted: the model cannot see images]"
    }
    assert kinds(diags) == ["image_omitted"]


# --------------------------------------------------------------------------- replay, same model


_FANTASY = "gemini/charmbracelet-fantasy__TestGoogleCommon--{}--multi_tool_streaming.yaml"
GEMINI3 = _FANTASY.format("gemini-3-pro-preview")
GEMINI25 = _FANTASY.format("gemini-2.5-pro")
VERTEX25 = _FANTASY.format("vertex-gemini-2-5-pro")


def test_gemini3_turn_replays_like_the_recorded_request_F2_B4_G4() -> None:
    """The turn llmkit decoded from Gemini 3 goes back as the Go SDK sent it in the recording:
    ids verbatim, the signature on the first call only, both responses in one content in call
    order with their names and ids."""
    model = PRO3.model_copy(update={"id": "gemini-3-pro-preview"})
    reply = decoded(GEMINI3, 0, model)
    body, diags = build(model, with_results(reply, "5", "6"))
    sent = body["contents"]
    recorded = recorded_request(GEMINI3, 1)["contents"]
    assert sent[1] == recorded[1]  # the model turn, signature included, byte for byte in JSON
    assert [p["functionResponse"]["name"] for p in sent[2]["parts"]] == ["add", "multiply"]
    assert [p["functionResponse"]["id"] for p in sent[2]["parts"]] == ["8hd01vsf", "k0srpqrc"]
    assert sent[2]["parts"][0]["functionResponse"]["response"] == {"output": "5"}
    assert (
        "thoughtSignature" in sent[1]["parts"][0] and "thoughtSignature" not in sent[1]["parts"][1]
    )
    assert not diags


def test_results_out_of_order_are_sent_in_call_order_G4() -> None:
    model = PRO3
    reply = decoded(GEMINI3, 0, model)
    body, _ = build(model, with_results(reply, "6", "5", reverse=True))
    parts = body["contents"][2]["parts"]
    assert [(p["functionResponse"]["name"], p["functionResponse"]["response"]) for p in parts] == [
        ("add", {"output": "5"}),
        ("multiply", {"output": "6"}),
    ]


def test_synthesised_ids_are_never_shown_to_gemini_B4() -> None:
    """Gemini 2.5 sent no ids: llmkit's synthesised ids stay llmkit's; calls and responses
    are paired by order and name, as the model expects."""
    model = FLASH.model_copy(update={"id": "gemini-2.5-pro"})
    reply = decoded(GEMINI25, 0, model)
    assert all(c.provider_id == "" for c in reply.tool_calls)
    body, diags = build(model, with_results(reply, "5", "6"))
    calls = [p["functionCall"] for p in body["contents"][1]["parts"]]
    responses = [p["functionResponse"] for p in body["contents"][2]["parts"]]
    assert all("id" not in c for c in calls + responses)
    assert [c["name"] for c in calls] == [r["name"] for r in responses] == ["add", "multiply"]
    assert (
        body["contents"][1]["parts"][0]["thoughtSignature"]
        == (recorded_request(GEMINI25, 1)["contents"][1]["parts"][0]["thoughtSignature"])
    )
    assert not diags


def test_trailing_signature_goes_back_on_an_empty_text_part_F2() -> None:
    model = PRO3
    reply = decoded(GEMINI3, 1, model)  # text, then "" + thoughtSignature on the last chunk
    context = llmkit.Context(messages=[llmkit.user("q"), reply, llmkit.user("and then?")])
    body, _ = build(model, context)
    parts = body["contents"][1]["parts"]
    raw = load_exchanges(FIXTURES / GEMINI3)[1].body.decode()
    last = json.loads(raw.strip().split("\r\n\r\n")[-1].removeprefix("data: "))
    signature = last["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    assert parts == [
        {"text": "The sum of 2 and 3 is 5, and their product is 6."},
        {"text": "", "thoughtSignature": signature},
    ]


def test_signature_on_a_text_part_goes_back_on_that_text_F2() -> None:
    model = FLASH.model_copy(update={"id": "gemini-2.5-pro"})
    reply = decoded(VERTEX25, 1, model)  # Vertex: the first text chunk carries the signature
    body, _ = build(model, llmkit.Context(messages=[llmkit.user("q"), reply]))
    (part,) = body["contents"][1]["parts"]
    assert part["text"] == reply.text and part["thoughtSignature"] == reply.content[0].signature  # type: ignore[union-attr]


def test_thought_parts_go_back_to_the_same_model_only() -> None:
    reply = llmkit.AssistantMessage(
        content=[
            llmkit.ThinkingPart(thinking="Hmm.", signature="c2lnbmF0dXJl"),
            llmkit.TextPart(text="Hi"),
        ],
        provider="google",
        api="gemini",
        model="gemini-2.5-flash",
    )
    context = llmkit.Context(messages=[llmkit.user("q"), reply, llmkit.user("more")])
    body, diags = build(FLASH, context)
    assert body["contents"][1]["parts"] == [
        {"text": "Hmm.", "thought": True, "thoughtSignature": "c2lnbmF0dXJl"},
        {"text": "Hi"},
    ]
    assert not diags
    other = FLASH.model_copy(update={"id": "gemini-2.5-pro"})
    body, diags = build(other, context)
    assert body["contents"][1]["parts"] == [{"text": "Hi"}]
    assert kinds(diags) == ["thinking_dropped"]


# --------------------------------------------------------------------------- handoff


OPENAI = (
    "openai-chat/"
    "charmbracelet-fantasy__TestOpenAICommon--openai-gpt-4o-mini--multi_tool_streaming.yaml"
)


def test_openai_history_to_gemini3_is_valid_with_the_placeholder_F2() -> None:
    """A turn decoded from OpenAI Chat (ids ``call_…``, no signature) sent to Gemini 3: no ids
    (they are OpenAI's), names on the responses, and the documented placeholder signature on
    the first call, reported."""
    source = llmkit.Model(provider="openai", id="gpt-4o-mini", api="openai-chat")
    reply = decoded(OPENAI, 0, source)
    assert len(reply.tool_calls) == 2
    body, diags = build(PRO3, with_results(reply, "5", "6"))
    model_parts = body["contents"][1]["parts"]
    assert model_parts[0]["thoughtSignature"] == SKIP_SIGNATURE
    assert "thoughtSignature" not in model_parts[1]
    responses = [p["functionResponse"] for p in body["contents"][2]["parts"]]
    assert [r["name"] for r in responses] == [c.name for c in reply.tool_calls]
    assert all("id" not in p["functionCall"] for p in model_parts) and all(
        "id" not in r for r in responses
    )
    placeholder = [d for d in diags if d.details.get("placeholder")]
    assert [d.tool_call_id for d in placeholder] == [reply.tool_calls[0].id]
    assert placeholder[0].kind == "thinking_dropped"
    # Gemini 2.5 does not validate signatures: no placeholder there.
    body, diags = build(FLASH, with_results(reply, "5", "6"))
    assert all("thoughtSignature" not in p for p in body["contents"][1]["parts"])
    assert not diags


def test_anthropic_history_to_gemini_drops_thinking_and_keeps_calls_paired() -> None:
    """Anthropic's signed thinking is meaningless to Gemini (dropped, reported); a call whose id
    Gemini's grammar would not mind is still not sent as an id; a missing result is answered."""
    reply = llmkit.AssistantMessage(
        content=[
            llmkit.ThinkingPart(thinking="Let me check.", signature="EqQBCkYIBxgCKkDanthropic"),
            llmkit.TextPart(text="Checking both."),
            llmkit.ToolCall(id="toolu_01A", name="get_weather", arguments={"city": "Paris"}),
            llmkit.ToolCall(id="toolu_01B", name="get_weather", arguments={"city": "Oslo"}),
        ],
        stop_reason="tool_use",
        provider="anthropic",
        api="anthropic-messages",
        model="claude-sonnet-4-5",
    )
    context = llmkit.Context(
        messages=[
            llmkit.user("Weather?"),
            reply,
            llmkit.tool_result(reply.tool_calls[0], "sunny", images=[PNG]),
        ],
        tools=[WEATHER],
    )
    body, diags = build(PRO3, context)
    model_parts = body["contents"][1]["parts"]
    assert model_parts[0] == {"text": "Checking both."}
    assert model_parts[1]["thoughtSignature"] == SKIP_SIGNATURE
    parts = body["contents"][2]["parts"]
    assert parts[0] == {
        "functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}
    }
    assert parts[1]["functionResponse"]["response"]["error"].startswith("Error: this tool call")
    assert parts[2]["text"].startswith("Images returned by get_weather")
    assert parts[3]["inlineData"]["mimeType"] == "image/png"  # images after the responses
    assert sorted(kinds(diags)) == ["orphan_tool_call", "thinking_dropped", "thinking_dropped"]


def test_ids_outside_the_safe_grammar_are_normalised_for_calls_and_results_B5() -> None:
    reply = llmkit.AssistantMessage(
        content=[llmkit.ToolCall(id="functions.get_weather:0", name="get_weather", arguments={})],
        provider="google",
        api="gemini",
        model="gemini-2.5-flash",
    )
    context = llmkit.Context(
        messages=[llmkit.user("q"), reply, llmkit.tool_result(reply.tool_calls[0], "ok")]
    )
    body, diags = build(FLASH, context)
    call = body["contents"][1]["parts"][0]["functionCall"]
    response = body["contents"][2]["parts"][0]["functionResponse"]
    assert call["id"] == response["id"] != "functions.get_weather:0"
    assert "tool_call_id_normalized" in kinds(diags)


# --------------------------------------------------------------------------- tools and options


def test_tools_use_parameters_json_schema_and_tool_config_modes() -> None:
    context = llmkit.Context(messages=[llmkit.user("q")], tools=[WEATHER])
    body, _ = build(FLASH, context)
    (decl,) = body["tools"][0]["functionDeclarations"]
    assert decl == {
        "name": "get_weather",
        "description": "Get the weather.",
        "parametersJsonSchema": WEATHER.parameters,
    }
    assert "toolConfig" not in body
    for choice, config in [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ({"name": "get_weather"}, {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}),
    ]:
        body, _ = build(FLASH, context, tool_choice=choice)
        assert body["toolConfig"] == {"functionCallingConfig": config}


def test_options_that_cannot_be_sent_are_reported() -> None:
    context = llmkit.Context(messages=[llmkit.user("q")])
    body, diags = build(FLASH, context, tool_choice="auto", parallel_tool_calls=False)
    assert "toolConfig" not in body
    assert [d.details["option"] for d in diags] == ["tool_choice", "parallel_tool_calls"]
    body, diags = build(FLASH, context, stop=["a", "b", "c", "d", "e", "f"])
    assert body["generationConfig"]["stopSequences"] == ["a", "b", "c", "d", "e"]
    assert kinds(diags) == ["option_unsupported"]


def test_generation_config() -> None:
    context = llmkit.Context(messages=[llmkit.user("q")])
    body, diags = build(FLASH, context, max_tokens=300, temperature=0.2, top_p=0.9, stop=["END"])
    assert body["generationConfig"] == {
        "maxOutputTokens": 300,
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["END"],
        "thinkingConfig": {"includeThoughts": True},
    }
    assert not diags


@pytest.mark.parametrize(
    ("model_id", "level", "config", "reported"),
    [
        ("gemini-2.5-flash", "off", {"thinkingBudget": 0}, False),
        ("gemini-2.5-flash", "low", {"thinkingBudget": 1024, "includeThoughts": True}, False),
        ("gemini-2.5-flash", "high", {"thinkingBudget": 24576, "includeThoughts": True}, False),
        ("gemini-2.5-pro", "off", {"thinkingBudget": 128, "includeThoughts": True}, True),
        ("gemini-3-pro-preview", "low", {"thinkingLevel": "low", "includeThoughts": True}, False),
        (  # a level the model lacks goes to the nearest lower one it has
            "gemini-3-pro-preview",
            "medium",
            {"thinkingLevel": "low", "includeThoughts": True},
            True,
        ),
        ("gemini-3-pro-preview", "off", {"thinkingLevel": "low", "includeThoughts": True}, True),
        (
            "gemini-3-flash-preview",
            "minimal",
            {"thinkingLevel": "minimal", "includeThoughts": True},
            False,
        ),
        (
            "gemini-3-flash-preview",
            "off",
            {"thinkingLevel": "minimal", "includeThoughts": True},
            True,
        ),
    ],
)
def test_reasoning_becomes_thinking_config(
    model_id: str, level: str, config: dict[str, Any], reported: bool
) -> None:
    model = FLASH.model_copy(update={"id": model_id})
    body, diags = build(model, llmkit.Context(messages=[llmkit.user("q")]), reasoning=level)
    assert body["generationConfig"]["thinkingConfig"] == config
    assert kinds(diags) == (["option_unsupported"] if reported else [])


def test_reasoning_on_a_model_without_it_is_reported() -> None:
    plain = FLASH.model_copy(update={"reasoning": False, "id": "gemini-2.0-flash"})
    body, diags = build(plain, llmkit.Context(messages=[llmkit.user("q")]), reasoning="high")
    assert "generationConfig" not in body
    assert kinds(diags) == ["option_unsupported"]
    with pytest.raises(llmkit.InvalidRequestError):
        build(FLASH, llmkit.Context(messages=[llmkit.user("q")]), reasoning="maximum")


class Answer(BaseModel):
    """A structured answer."""

    city: str = Field(description="City")
    temperature: float


def test_response_format_uses_response_json_schema() -> None:
    body, _ = build(FLASH, llmkit.Context(messages=[llmkit.user("q")]), response_format=Answer)
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == Answer.model_json_schema()


class Inner(BaseModel):
    kind: str = Field(json_schema_extra={"const": "box"})
    tags: list[str] = []


class Outer(BaseModel):
    """Use the OpenAPI subset."""

    inner: Inner
    size: int = Field(gt=0)
    email: str | None = Field(default=None, json_schema_extra={"format": "email"})


def test_openapi_subset_for_models_before_json_schema_H3() -> None:
    old = FLASH.model_copy(update={"id": "gemini-2.0-flash", "reasoning": False})
    tool = llmkit.tool(Outer)
    body, diags = build(
        old, llmkit.Context(messages=[llmkit.user("q")], tools=[tool]), response_format=Outer
    )
    (decl,) = body["tools"][0]["functionDeclarations"]
    assert "parametersJsonSchema" not in decl
    params = decl["parameters"]
    types.Schema.model_validate_json(json.dumps(params))
    assert params["type"] == "OBJECT"
    assert params["properties"]["inner"]["properties"]["kind"]["enum"] == ["box"]
    assert params["properties"]["size"]["minimum"] == 0
    assert params["properties"]["email"]["nullable"] is True
    assert "$defs" not in json.dumps(params) and "$ref" not in json.dumps(params)
    changes = {
        (d.details["tool"], d.details["change"]) for d in diags if d.kind == "schema_rewritten"
    }
    assert ("outer", "const_to_enum") in changes
    assert ("outer", "keyword_converted") in changes  # exclusiveMinimum
    assert ("outer", "keyword_removed") in changes  # format: email
    assert "responseSchema" in body["generationConfig"]


def test_tool_definition_errors_are_refused_before_sending() -> None:
    strict = llmkit.Tool(name="s", parameters={"type": "object", "properties": {}}, strict=True)
    with pytest.raises(llmkit.InvalidRequestError, match="strict"):
        build(FLASH, llmkit.Context(messages=[llmkit.user("q")], tools=[strict]))
    with pytest.raises(llmkit.InvalidRequestError, match="nope"):
        build(
            FLASH,
            llmkit.Context(messages=[llmkit.user("q")], tools=[WEATHER]),
            tool_choice={"name": "nope"},
        )
    context = llmkit.Context(messages=[llmkit.user("q")], tools=[WEATHER])
    context.tools.append(WEATHER)  # a list mutated after construction
    with pytest.raises(llmkit.InvalidRequestError, match="Duplicate"):
        build(FLASH, context)


def test_strict_tools_use_validated_mode_where_supported() -> None:
    strict_model = FLASH.model_copy(update={"strict_tools": True})
    strict = llmkit.Tool(name="s", parameters={"type": "object", "properties": {}}, strict=True)
    body, _ = build(strict_model, llmkit.Context(messages=[llmkit.user("q")], tools=[strict]))
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}


def test_provider_options_are_merged_last() -> None:
    extra = {
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}]
    }
    body, _ = gemini.build(
        FLASH,
        llmkit.Context(messages=[llmkit.user("q")]),
        Options(provider_options=extra),
        stream=True,
    )
    assert body["safetySettings"] == extra["safetySettings"]


def test_context_is_not_modified() -> None:
    reply = decoded(GEMINI3, 0, PRO3)
    context = with_results(reply, "5", "6")
    before = context.model_dump_json()
    build(PRO3, context)
    build(FLASH, context)
    assert context.model_dump_json() == before
