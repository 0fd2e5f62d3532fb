"""Request building for anthropic-messages: the body llmkit sends, validated against the official
anthropic SDK's request types (``MessageCreateParamsStreaming``, an independent oracle for the
wire shape), including histories handed over from OpenAI Chat and from Gemini."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

import llmkit
from tests.support.bodies import sent_kinds
from tests.support.helpers import consume
from tests.support.sdk import ANTHROPIC_PARAMS

MODEL = llmkit.Model(
    provider="anthropic",
    id="claude-sonnet-4-5",
    api="anthropic-messages",
    max_output_tokens=64000,
    reasoning=True,
    input=["text", "image"],
)
ADAPTIVE = MODEL.model_copy(update={"id": "claude-sonnet-4-6"})
TEXT_ONLY = llmkit.Model(
    provider="proxy", id="claude-x", api="anthropic-messages", base_url="http://127.0.0.1:9/v1"
)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


# Not known_keys: the SDK's request type (anthropic 2.17) has no temperature, top_p or top_k,
# which the models before Claude 5 take (test_sampling_options_stop_sequences_and_provider_options).
body_of = partial(sent_kinds, ANTHROPIC_PARAMS, api_key="sk-ant-test", known_keys=False)


def call(id: str, name: str = "get_weather", **kw: Any) -> llmkit.ToolCall:
    return llmkit.ToolCall(
        id=id, name=name, arguments={"city": "Oslo"}, raw_arguments='{"city": "Oslo"}', **kw
    )


def use(id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "get_weather", "input": {"city": "Oslo"}}


def result(id: str, content: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": id, "content": content}


def claude(*parts: Any, model: llmkit.Model = MODEL) -> llmkit.AssistantMessage:
    """An assistant turn as llmkit would have decoded it from ``model``."""
    return llmkit.AssistantMessage(
        content=list(parts),
        stop_reason="tool_use",
        provider=model.provider,
        api=model.api,
        model=model.id,
    )


def test_the_sdk_oracle_rejects_bad_shapes() -> None:
    bad_input = {"type": "tool_use", "id": "a", "name": "f", "input": "{}"}  # input must be a dict
    no_signature = {"type": "thinking", "thinking": "hmm"}  # signature is required
    for block in (bad_input, no_signature):
        body = {"model": "m", "max_tokens": 1, "stream": True, "messages": []}
        body["messages"] = [{"role": "assistant", "content": [block]}]
        with pytest.raises(ValueError):
            consume(ANTHROPIC_PARAMS.validate_python(body))


def test_url_and_headers() -> None:
    request = llmkit.build_request(MODEL, llmkit.Context(messages=[llmkit.user("x")]), api_key="k")
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == "k"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers


def test_missing_key_names_ANTHROPIC_API_KEY(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(llmkit.MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        llmkit.build_request(MODEL, llmkit.Context(messages=[llmkit.user("x")]))


def test_full_tool_loop_history_maps_to_the_wire_G1() -> None:
    c1, c2 = call("toolu_1"), call("toolu_2")
    ctx = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("Weather?"),
            claude(llmkit.TextPart(text="Checking both."), c1, c2),
            llmkit.tool_result(c1, "sunny"),
            llmkit.tool_result(c2, "rain", is_error=True),
            llmkit.user("Thanks"),
        ],
        tools=[WEATHER],
    )
    body, kinds = body_of(MODEL, ctx)
    assert body["system"] == "Be brief."
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                use("toolu_1"),
                use("toolu_2"),
            ],
        },
        {  # consecutive results (and the user turn after them) in one user message, results first
            "role": "user",
            "content": [
                result("toolu_1", "sunny"),
                {**result("toolu_2", "rain"), "is_error": True},
                {"type": "text", "text": "Thanks"},
            ],
        },
    ]
    assert body["tools"] == [
        {"name": "get_weather", "input_schema": WEATHER.parameters},
    ]
    assert body["stream"] is True and body["max_tokens"] == 64000
    assert kinds == []


def test_tool_result_images_stay_inside_the_tool_result_block() -> None:
    c1 = call("toolu_1")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("Look"),
            claude(c1),
            llmkit.tool_result(c1, "screenshot", images=[PNG, "https://example.com/a.png"]),
        ]
    )
    body, kinds = body_of(MODEL, ctx)
    (result,) = body["messages"][2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_1"
    assert [b["type"] for b in result["content"]] == ["text", "image", "image"]
    assert result["content"][1]["source"]["type"] == "base64"
    assert result["content"][1]["source"]["media_type"] == "image/png"
    assert result["content"][2]["source"] == {"type": "url", "url": "https://example.com/a.png"}
    assert kinds == []


def test_user_images_base64_and_url_and_placeholders_for_a_text_only_model() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("What?", images=[PNG, "https://example.com/x.jpg"])])
    body, _ = body_of(MODEL, ctx)
    content = body["messages"][0]["content"]
    assert [b["type"] for b in content] == ["text", "image", "image"]
    assert content[1]["source"]["data"] == "iVBORw0KGgoAAAAAAAAAAA=="
    assert content[2]["source"] == {"type": "url", "url": "https://example.com/x.jpg"}
    body, kinds = body_of(TEXT_ONLY, ctx)
    assert [b["type"] for b in body["messages"][0]["content"]] == ["text", "text", "text"]
    assert kinds == ["image_omitted", "image_omitted", "option_unsupported"]  # + max_tokens


def test_full_schema_is_sent_with_defs_and_nested_objects() -> None:
    class Address(BaseModel):
        street: str
        city: str

    class Order(BaseModel):
        """Place an order."""

        items: list[str]
        ship_to: Address
        notes: str | None = None

    tool = llmkit.tool(Order)
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")], tools=[tool]))
    (sent,) = body["tools"]
    assert sent["input_schema"] == tool.parameters  # unchanged: $defs, $ref, anyOf kept
    assert "$defs" in sent["input_schema"] and sent["description"] == "Place an order."
    assert kinds == []


def test_tool_choice_and_parallel_calls() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"tool_choice": "auto"}, {"type": "auto"}),
        ({"tool_choice": "required"}, {"type": "any"}),
        ({"tool_choice": "none"}, {"type": "none"}),
        ({"tool_choice": {"name": "get_weather"}}, {"type": "tool", "name": "get_weather"}),
        ({"parallel_tool_calls": False}, {"type": "auto", "disable_parallel_tool_use": True}),
        (
            {"tool_choice": "required", "parallel_tool_calls": False},
            {"type": "any", "disable_parallel_tool_use": True},
        ),
    ]
    for options, expected in cases:
        body, kinds = body_of(MODEL, ctx, **options)
        assert body["tool_choice"] == expected, options
        assert kinds == []
    body, kinds = body_of(MODEL, ctx, parallel_tool_calls=True)  # the default: nothing sent
    assert "tool_choice" not in body and kinds == []
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), tool_choice="auto")
    assert "tool_choice" not in body and kinds == ["option_unsupported"]
    with pytest.raises(llmkit.InvalidRequestError, match="nope"):
        llmkit.build_request(MODEL, ctx, api_key="k", tool_choice={"name": "nope"})


def test_max_tokens_is_always_set() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    assert body_of(MODEL, ctx, max_tokens=100)[0]["max_tokens"] == 100
    assert body_of(MODEL, ctx)[0]["max_tokens"] == 64000  # the model's output limit
    body, kinds = body_of(TEXT_ONLY, ctx)  # no limit known: the documented default, reported
    assert body["max_tokens"] == 4096 and kinds == ["option_unsupported"]


def test_sampling_options_stop_sequences_and_provider_options() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, kinds = body_of(
        MODEL, ctx, temperature=0.3, top_p=0.5, stop="END", provider_options={"metadata": {}}
    )
    assert (body["temperature"], body["top_p"], body["stop_sequences"]) == (0.3, 0.5, ["END"])
    assert body["metadata"] == {} and kinds == []


def test_reasoning_maps_to_a_thinking_budget_and_drops_temperature() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, kinds = body_of(MODEL, ctx, reasoning="high", temperature=0.2, top_p=0.5)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert "temperature" not in body and "top_p" not in body
    assert kinds == ["option_unsupported", "option_unsupported"]
    body, kinds = body_of(MODEL, ctx, reasoning="low", top_p=0.97)
    assert body["thinking"]["budget_tokens"] == 2048 and body["top_p"] == 0.97 and kinds == []
    body, kinds = body_of(MODEL, ctx, reasoning="high", max_tokens=5000)
    assert body["thinking"]["budget_tokens"] == 4999  # must stay below max_tokens
    assert kinds == ["option_unsupported"]
    body, kinds = body_of(MODEL, ctx, reasoning="medium", max_tokens=1000)
    assert "thinking" not in body and kinds == ["option_unsupported"]  # below the 1024 minimum
    body, kinds = body_of(MODEL, ctx, reasoning="off", temperature=0.2)
    assert body["thinking"] == {"type": "disabled"} and body["temperature"] == 0.2 and not kinds


def test_reasoning_on_adaptive_models_sends_an_effort() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, kinds = body_of(ADAPTIVE, ctx, reasoning="medium")
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"} and kinds == []
    body, kinds = body_of(ADAPTIVE, ctx, reasoning="minimal")
    assert body["output_config"] == {"effort": "low"} and kinds == ["option_unsupported"]


def test_reasoning_is_not_combined_with_a_forced_tool_choice() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, kinds = body_of(MODEL, ctx, reasoning="high", tool_choice="required")
    assert "thinking" not in body and body["tool_choice"] == {"type": "any"}
    assert kinds == ["option_unsupported"]
    _, kinds = body_of(TEXT_ONLY, ctx, reasoning="high")  # not a reasoning model
    assert kinds == ["option_unsupported", "option_unsupported"]


def test_thinking_is_replayed_verbatim_and_in_order_to_the_same_model_F1() -> None:
    c1 = call("toolu_1")
    server = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "x"},
    }
    turn = claude(
        llmkit.ThinkingPart(thinking="Let me think.", signature="sig-1"),
        llmkit.ThinkingPart(redacted=True, replay={"data": "opaque"}),
        llmkit.ThinkingPart(replay={"block": server}),
        llmkit.TextPart(text="Checking."),
        c1,
    )
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn, llmkit.tool_result(c1, "ok")])
    body, kinds = body_of(MODEL, ctx)
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque"},
        server,
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
    ]
    assert kinds == []


def test_an_empty_signature_is_never_sent_F1() -> None:
    # An interrupted stream leaves thinking without a signature: sent as text, reported.
    turn = claude(llmkit.ThinkingPart(thinking="half a thought"), llmkit.TextPart(text="Hi"))
    turn = turn.model_copy(update={"stop_reason": "error"})
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x"), turn]))
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "<thinking>\nhalf a thought\n</thinking>"},
        {"type": "text", "text": "Hi"},
    ]
    assert kinds == ["thinking_dropped"]


def test_thinking_from_another_claude_model_is_not_replayed() -> None:
    other = MODEL.model_copy(update={"id": "claude-opus-4-5"})
    turn = claude(
        llmkit.ThinkingPart(thinking="hmm", signature="sig"),
        llmkit.ThinkingPart(redacted=True, replay={"data": "opaque"}),
        llmkit.TextPart(text="Hi"),
        model=other,
    )
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x"), turn]))
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "<thinking>\nhmm\n</thinking>"},
        {"type": "text", "text": "Hi"},
    ]
    assert kinds == ["thinking_dropped", "thinking_dropped"]


def test_handoff_from_openai_chat_B5_F1() -> None:
    gpt = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")
    compound = "call_" + "a" * 30 + "|fc_" + "1" * 40  # a Responses-style id: '|' and 75 chars
    kimi = "functions.get_weather:0"
    c1, c2 = call(compound), call(kimi, replay={"extra_content": {"google": {"sig": "x"}}})
    turn = claude(
        llmkit.ThinkingPart(thinking="The user wants weather.", replay={"field": "reasoning"}),
        llmkit.TextPart(text="On it."),
        c1,
        c2,
        model=gpt,
    )
    ctx = llmkit.Context(
        messages=[
            llmkit.user("Weather in Oslo, twice?"),
            turn,
            llmkit.tool_result(c1, "sunny"),
            llmkit.tool_result(c2, "sunny"),
            llmkit.user("Thanks"),
        ],
        tools=[WEATHER],
    )
    body, kinds = body_of(MODEL, ctx)
    content = body["messages"][1]["content"]
    assert content[0] == {
        "type": "text",
        "text": "<thinking>\nThe user wants weather.\n</thinking>",
    }
    ids = [b["id"] for b in content if b["type"] == "tool_use"]
    results = [
        b["tool_use_id"] for b in body["messages"][2]["content"] if b["type"] == "tool_result"
    ]
    assert ids == results and len(set(ids)) == 2
    assert all(len(i) <= 64 and i.replace("_", "").replace("-", "").isalnum() for i in ids)
    assert all("caller" not in b for b in content)
    assert sorted(kinds) == sorted(
        [
            "tool_call_id_normalized",
            "tool_call_id_normalized",
            "thinking_dropped",
            "thinking_dropped",
        ]
    )
    assert body_of(MODEL, ctx)[0] == body  # the mapping is deterministic


def test_handoff_from_gemini_F2() -> None:
    gemini = llmkit.Model(provider="google", id="gemini-2.5-pro", api="gemini")
    c1 = call("call_6f1c2d", replay={"thought_signature": "CpUBAb4+9vv"})
    turn = claude(
        llmkit.ThinkingPart(thinking="", signature="CpUBAb4+9vv", redacted=True),
        llmkit.ThinkingPart(thinking="**Planning** the lookup"),
        c1,
        model=gemini,
    )
    ctx = llmkit.Context(messages=[llmkit.user("Weather?"), turn], tools=[WEATHER])
    body, kinds = body_of(MODEL, ctx)
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "<thinking>\n**Planning** the lookup\n</thinking>"},
        {"type": "tool_use", "id": "call_6f1c2d", "name": "get_weather", "input": {"city": "Oslo"}},
    ]
    # The call was never answered: a synthetic error result keeps the request valid (G1).
    (result,) = body["messages"][2]["content"]
    assert result["tool_use_id"] == "call_6f1c2d" and result["is_error"] is True
    assert sorted(kinds) == sorted(
        ["orphan_tool_call", "thinking_dropped", "thinking_dropped", "thinking_dropped"]
    )


def test_a_result_without_its_call_is_sent_as_text_G1() -> None:
    c1 = call("toolu_1")
    stray = llmkit.ToolResultMessage(
        tool_call_id="toolu_404", tool_name="get_weather", content="late", is_error=True
    )
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), claude(c1), llmkit.tool_result(c1, "ok"), stray]
    )
    body, kinds = body_of(MODEL, ctx)
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
        {"type": "text", "text": "[result of tool call toolu_404 (get_weather) (error)]"},
        {"type": "text", "text": "late"},
    ]
    assert kinds == ["orphan_tool_call"]


def test_programmatic_caller_is_replayed_only_to_the_same_model() -> None:
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    c1 = call("toolu_1", replay={"caller": caller})
    ctx = llmkit.Context(messages=[llmkit.user("x"), claude(c1), llmkit.tool_result(c1, "4")])
    body, kinds = body_of(MODEL, ctx)
    assert body["messages"][1]["content"][0]["caller"] == caller and kinds == []
    other = MODEL.model_copy(update={"id": "claude-opus-4-5"})
    body, kinds = body_of(other, ctx)
    assert "caller" not in body["messages"][1]["content"][0] and kinds == ["thinking_dropped"]


def test_an_empty_assistant_turn_is_left_out() -> None:
    aborted = llmkit.AssistantMessage(stop_reason="aborted", provider="anthropic")
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x"), aborted]))
    assert [m["role"] for m in body["messages"]] == ["user"] and kinds == []


def test_strict_tools_and_response_format() -> None:
    strict = llmkit.Tool(name="f", parameters={"type": "object"}, strict=True)
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[strict])
    with pytest.raises(llmkit.InvalidRequestError, match="strict"):
        llmkit.build_request(MODEL, ctx, api_key="k")
    body, _ = body_of(MODEL.model_copy(update={"strict_tools": True}), ctx)
    assert body["tools"][0]["strict"] is True

    class Answer(BaseModel):
        city: str

    # Claude 4.5 takes output_config.format (tests/wire/anthropic_messages/test_features.py);
    # a model the catalogue does not know to take it gets it reported, never silently dropped.
    old = MODEL.model_copy(update={"id": "claude-sonnet-4-0"})
    body, kinds = body_of(old, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer)
    assert "output_config" not in body and kinds == ["option_unsupported"]


def test_build_request_does_not_modify_the_context() -> None:
    c1 = call("functions.f:0")
    ctx = llmkit.Context(messages=[llmkit.user("x"), claude(c1)])
    before = ctx.model_dump_json()
    body_of(MODEL, ctx)
    assert ctx.model_dump_json() == before


def test_a_strict_tool_gets_the_structured_output_schema_transform() -> None:  # QUIRKS H5
    class Pick(BaseModel):
        count: int = Field(ge=1, description="How many.")
        kind: Literal["pen", "pad"] | None = None

    strict = llmkit.tool(Pick, name="pick", strict=True)
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[strict])
    request = llmkit.build_request(
        MODEL.model_copy(update={"strict_tools": True}), ctx, api_key="k"
    )
    [sent] = json.loads(request.content)["tools"]
    schema = sent["input_schema"]
    assert sent["strict"] is True and schema["additionalProperties"] is False
    assert "minimum" not in schema["properties"]["count"]  # moved into the description
    assert "1" in schema["properties"]["count"]["description"]
    assert schema["required"] == ["count"]  # optional properties stay optional (unlike OpenAI)
    rewrites = [d for d in request.extensions["llmkit.diagnostics"] if d.kind == "schema_rewritten"]
    assert rewrites and {d.details["tool"] for d in rewrites} == {"pick"}
    assert strict.parameters["properties"]["count"]["minimum"] == 1  # the tool is not modified


def test_a_toolset_members_call_keeps_its_toolset_name_for_the_same_model() -> None:
    # decoded from a response's tool_use block, then sent back in the next request
    block = {
        "type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"},
        "caller": {"type": "direct"}, "toolset_name": "weather",
    }  # fmt: skip
    message = llmkit.parse_response(
        MODEL,
        {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
         "content": [block], "stop_reason": "tool_use",
         "usage": {"input_tokens": 3, "output_tokens": 9}},
    )  # fmt: skip
    (c1,) = message.tool_calls
    assert c1.replay == {"toolset_name": "weather"}  # a "direct" caller is the default: not kept
    ctx = llmkit.Context(messages=[llmkit.user("x"), message, llmkit.tool_result(c1, "4")])
    sent, kinds = body_of(MODEL, ctx)
    assert sent["messages"][1]["content"][0]["toolset_name"] == "weather" and kinds == []
    assert "caller" not in sent["messages"][1]["content"][0]
    other = MODEL.model_copy(update={"id": "claude-opus-4-5"})
    sent, kinds = body_of(other, ctx)
    assert "toolset_name" not in sent["messages"][1]["content"][0]
    assert kinds == ["thinking_dropped"]  # the replay data of another model's call, reported
