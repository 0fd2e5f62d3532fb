"""Request building for openai-chat: the body llmkit sends, validated against the official
openai SDK's request types (an independent oracle for the wire shape)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from pydantic import BaseModel

import llmkit
from tests.support.bodies import sent_kinds
from tests.support.helpers import consume
from tests.support.sdk import CHAT_PARAMS

MODEL = llmkit.Model(
    provider="openai", id="gpt-4o", api="openai-chat", input=["text", "image"], strict_tools=True
)
TEXT_ONLY = llmkit.Model(
    provider="vllm", id="qwen3", api="openai-chat", base_url="http://127.0.0.1:8000/v1"
)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


body_of = partial(sent_kinds, CHAT_PARAMS)


def test_the_sdk_oracle_rejects_bad_shapes() -> None:
    bad = {
        "model": "m",
        "stream": True,
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}
                ],
            }
        ],
    }
    with pytest.raises(ValueError):
        consume(CHAT_PARAMS.validate_python(bad))


def call(id: str, name: str = "get_weather", **kw: Any) -> llmkit.ToolCall:
    return llmkit.ToolCall(
        id=id, name=name, arguments={"city": "Oslo"}, raw_arguments='{"city": "Oslo"}', **kw
    )


def history(*calls: llmkit.ToolCall, text: str = "") -> llmkit.AssistantMessage:
    content: list[Any] = [llmkit.TextPart(text=text)] if text else []
    return llmkit.AssistantMessage(content=[*content, *calls], stop_reason="tool_use")


def test_full_tool_loop_history_maps_to_the_wire() -> None:
    c1, c2 = call("call_1"), call("call_2")
    ctx = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("Weather?"),
            history(c1, c2, text="Checking both."),
            llmkit.tool_result(c1, "sunny"),
            llmkit.tool_result(c2, "rain", is_error=True),
            llmkit.user("Thanks"),
        ],
        tools=[WEATHER],
    )
    body, kinds = body_of(MODEL, ctx)
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "rain"},
        {"role": "user", "content": "Thanks"},
    ]
    assert kinds == []


def test_tool_result_images_follow_the_run_of_tool_messages() -> None:
    c1, c2 = call("call_1"), call("call_2")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("Look"),
            history(c1, c2),
            llmkit.tool_result(c1, "screenshot attached", images=[PNG]),
            llmkit.tool_result(c2, "no image"),
        ]
    )
    body, _ = body_of(MODEL, ctx)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    images = body["messages"][-1]["content"]
    assert images[0] == {"type": "text", "text": "Images from tool result call_1:"}
    assert images[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_images_to_a_text_only_model_become_placeholders() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("What is this?", images=[PNG])])
    body, kinds = body_of(TEXT_ONLY, ctx)
    assert body["messages"][0]["content"][1]["type"] == "text"
    assert kinds == ["image_omitted"]


def test_user_images_as_parts() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("What?", images=[PNG, "https://example.com/x.jpg"])])
    body, _ = body_of(MODEL, ctx)
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
    assert parts[2]["image_url"]["url"] == "https://example.com/x.jpg"


def test_foreign_tool_call_ids_are_normalised_collision_free_B5() -> None:
    long_a = "call_" + "a" * 40 + "|fc_" + "1" * 40  # a Responses compound id (> 40 chars)
    long_b = "call_" + "a" * 40 + "|fc_" + "2" * 40
    kimi = "functions.get_weather:0"  # Kimi's id: '.' and ':' are not in the safe grammar
    calls = [call(long_a), call(long_b), call(kimi)]
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), history(*calls), *[llmkit.tool_result(c, "r") for c in calls]]
    )
    body, kinds = body_of(MODEL, ctx)
    sent = [tc["id"] for tc in body["messages"][1]["tool_calls"]]
    results = [m["tool_call_id"] for m in body["messages"][2:]]
    assert sent == results  # the same mapping for calls and results
    assert len(set(sent)) == 3 and all(len(i) <= 40 for i in sent)
    assert kinds == ["tool_call_id_normalized"] * 3
    assert body_of(MODEL, ctx)[0] == body  # deterministic


def test_orphan_tool_calls_get_a_synthetic_error_result_G1() -> None:
    c1, c2 = call("call_1"), call("call_2")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("x"),
            history(c1, c2),
            llmkit.tool_result(c1, "ok"),
            llmkit.user("and?"),
        ]
    )
    body, kinds = body_of(MODEL, ctx)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "tool", "user"]
    assert body["messages"][3]["tool_call_id"] == "call_2"
    assert kinds == ["orphan_tool_call"]
    # a context ending on an assistant turn with calls is answered too
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x"), history(c1)]))
    assert body["messages"][-1]["role"] == "tool" and kinds == ["orphan_tool_call"]


def test_recovered_arguments_replay_the_recovered_value_and_empty_is_an_object_D3() -> None:
    cut = llmkit.ToolCall(
        id="c1", name="f", arguments={"a": 1}, raw_arguments='{"a": 1, "b', status="recovered"
    )
    empty = llmkit.ToolCall(id="c2", name="f", arguments={}, raw_arguments="")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("x"),
            history(cut, empty),
            llmkit.tool_result(cut, "r"),
            llmkit.tool_result(empty, "r"),
        ]
    )
    body, _ = body_of(MODEL, ctx)
    args = [tc["function"]["arguments"] for tc in body["messages"][1]["tool_calls"]]
    assert args == ['{"a": 1}', "{}"]


def test_thinking_from_another_api_is_dropped_and_reported() -> None:
    msg = llmkit.AssistantMessage(
        content=[llmkit.ThinkingPart(thinking="hmm", signature="s"), llmkit.TextPart(text="hi")]
    )
    body, kinds = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x"), msg, llmkit.user("y")]))
    assert body["messages"][1] == {"role": "assistant", "content": "hi"}
    assert kinds == ["thinking_dropped"]


def test_options_map_to_fields() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, kinds = body_of(
        MODEL,
        ctx,
        max_tokens=100,
        temperature=0.5,
        top_p=0.9,
        stop="END",
        tool_choice="required",
        parallel_tool_calls=False,
        provider_options={"seed": 7},
    )
    assert (body["max_completion_tokens"], body["temperature"], body["top_p"], body["stop"]) == (
        100,
        0.5,
        0.9,
        ["END"],
    )
    assert (body["tool_choice"], body["parallel_tool_calls"], body["seed"]) == (
        "required",
        False,
        7,
    )
    assert kinds == []
    llama = llmkit.Model(provider="llamacpp", id="m", api="openai-chat")
    body, _ = body_of(llama, ctx, max_tokens=100)
    assert body["max_tokens"] == 100 and "max_completion_tokens" not in body


def test_options_the_model_cannot_honour_are_reported_not_dropped_silently() -> None:
    no_tools = llmkit.Context(messages=[llmkit.user("x")])
    _, kinds = body_of(
        MODEL, no_tools, reasoning="high", tool_choice="auto", parallel_tool_calls=True
    )
    assert kinds == ["option_unsupported"] * 3


def test_tool_choice_naming_an_undeclared_tool_is_refused() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    with pytest.raises(llmkit.InvalidRequestError, match="nope"):
        llmkit.build_request(MODEL, ctx, api_key="k", tool_choice={"name": "nope"})


def test_strict_tools_are_transformed_or_refused_H1_H2() -> None:
    class Args(BaseModel):
        city: str
        days: int = 3

    strict_tool = llmkit.tool(Args, name="forecast", strict=True)
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[strict_tool])
    body, kinds = body_of(MODEL, ctx)
    fn = body["tools"][0]["function"]
    assert fn["strict"] is True and fn["parameters"]["additionalProperties"] is False
    assert sorted(fn["parameters"]["required"]) == ["city", "days"]
    assert "schema_rewritten" in kinds
    with pytest.raises(llmkit.InvalidRequestError, match="strict"):
        llmkit.build_request(TEXT_ONLY, ctx)


def test_response_format_from_a_pydantic_model() -> None:
    class Answer(BaseModel):
        city: str
        temperature: float

    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer)
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["additionalProperties"] is False


def test_on_request_sees_and_may_replace_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        return {**body, "user": "u-1"}

    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), on_request=hook)
    assert seen and body["user"] == "u-1"


def test_developer_role_only_for_reasoning_models_that_take_it() -> None:
    reasoning = llmkit.Model(provider="openai", id="o4-mini", api="openai-chat", reasoning=True)
    body, _ = body_of(
        reasoning, llmkit.Context(system="S", messages=[llmkit.user("x")]), reasoning="low"
    )
    assert body["messages"][0]["role"] == "developer" and body["reasoning_effort"] == "low"
    body, _ = body_of(TEXT_ONLY, llmkit.Context(system="S", messages=[llmkit.user("x")]))
    assert body["messages"][0]["role"] == "system"


def test_build_request_does_not_modify_the_context() -> None:
    c1 = call("functions.f:0")
    ctx = llmkit.Context(messages=[llmkit.user("x"), history(c1)])
    before = ctx.model_dump_json()
    body_of(MODEL, ctx)
    assert ctx.model_dump_json() == before
