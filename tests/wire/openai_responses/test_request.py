"""Request building for openai-responses: every body is validated against the official openai
SDK's ``ResponseCreateParams`` types, and histories decoded from real recordings are replayed
and compared with the requests the upstream projects really sent (and the API accepted)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from pydantic import BaseModel

import llmkit
from tests.support.bodies import sent_kinds
from tests.support.corpus import FIXTURES as FIXTURES_DIR
from tests.support.corpus import load_exchanges
from tests.support.helpers import consume
from tests.support.sdk import RESPONSES_PARAMS

MODEL = llmkit.Model(
    provider="openai",
    id="gpt-5",
    api="openai-responses",
    reasoning=True,
    strict_tools=True,
    input=["text", "image"],
)
CHAT_MODEL = llmkit.Model(provider="openai", id="gpt-4o", api="openai-responses")
TEXT_ONLY = llmkit.Model(
    provider="lmstudio",
    id="glm-4.7-flash",
    api="openai-responses",
    base_url="http://127.0.0.1:1234/v1",
    compat={"supports_strict": False},
)
FIXTURES = FIXTURES_DIR / "openai-responses"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


body_of = partial(sent_kinds, RESPONSES_PARAMS)


def call(id: str, name: str = "get_weather", **kw: Any) -> llmkit.ToolCall:
    return llmkit.ToolCall(
        id=id, name=name, arguments={"city": "Oslo"}, raw_arguments='{"city":"Oslo"}', **kw
    )


def turn(*parts: Any, model: llmkit.Model = MODEL, **kw: Any) -> llmkit.AssistantMessage:
    """An assistant message as llmkit would have produced it for ``model``."""
    return llmkit.AssistantMessage(
        content=list(parts), provider=model.provider, api=model.api, model=model.id, **kw
    )


def reasoning(n: int, text: str = "") -> llmkit.ThinkingPart:
    return llmkit.ThinkingPart(
        thinking=text,
        replay={
            "id": f"rs_{n}",
            "summary": [{"type": "summary_text", "text": text}] if text else [],
            "encrypted_content": f"gAAAAenc{n}",
        },
    )


# --------------------------------------------------------------------------- the oracle itself


def test_the_sdk_oracle_rejects_bad_shapes() -> None:
    """If the oracle accepted anything, the tests below would prove nothing."""
    for bad_item in (
        {"type": "reasoning", "id": "rs_1", "encrypted_content": "x"},  # summary is required
        {"type": "function_call", "name": "f", "arguments": "{}"},  # call_id is required
        {"type": "function_call_output", "call_id": "c", "output": [{"type": "image"}]},
        {"role": "user", "content": [{"type": "input_image", "image_url": "u"}]},  # no detail
    ):
        with pytest.raises(ValueError):
            consume(
                RESPONSES_PARAMS.validate_python(
                    {"model": "m", "stream": True, "input": [bad_item]}
                )
            )
    with pytest.raises(ValueError):  # a function tool needs `strict` (true, false or null)
        consume(
            RESPONSES_PARAMS.validate_python(
                {"model": "m", "stream": True, "tools": [{"type": "function", "name": "f"}]}
            )
        )


# --------------------------------------------------------------------------- the basic mapping


def test_url_headers_and_stateless_defaults() -> None:
    ctx = llmkit.Context(system="Be brief.", messages=[llmkit.user("Weather?")])
    request = llmkit.build_request(MODEL, ctx, api_key="sk-test")
    assert str(request.url) == "https://api.openai.com/v1/responses"
    assert request.headers["authorization"] == "Bearer sk-test"
    body, kinds = body_of(MODEL, ctx)
    assert body == {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "Weather?"}],
        "reasoning": {"summary": "auto"},
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "stream": True,
    }
    assert kinds == []
    body, _ = body_of(CHAT_MODEL, ctx)  # not a reasoning model: no reasoning, no include
    assert "reasoning" not in body and "include" not in body and body["store"] is False


def test_tool_loop_history_maps_to_items() -> None:
    c1, c2 = call("call_1"), call("call_2")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("Weather?"),
            turn(llmkit.TextPart(text="Checking both."), c1, c2, model=CHAT_MODEL),
            llmkit.tool_result(c1, "sunny"),
            llmkit.tool_result(c2, "rain", is_error=True),
            llmkit.user("Thanks"),
        ],
        tools=[WEATHER],
    )
    body, kinds = body_of(CHAT_MODEL, ctx)
    assert body["input"] == [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Checking both."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
        },
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_2", "output": "rain"},
        {"role": "user", "content": "Thanks"},
    ]
    assert kinds == []


def test_user_images_are_input_image_parts() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("What?", images=[PNG, "https://x.test/a.jpg"])])
    body, _ = body_of(MODEL, ctx)
    parts = body["input"][0]["content"]
    assert parts[0] == {"type": "input_text", "text": "What?"}
    assert parts[1]["type"] == "input_image" and parts[1]["detail"] == "auto"
    assert parts[1]["image_url"].startswith("data:image/png;base64,")
    assert parts[2] == {
        "type": "input_image",
        "image_url": "https://x.test/a.jpg",
        "detail": "auto",
    }


def test_tool_result_images_go_inline_in_the_output_list() -> None:
    c1 = call("call_1")
    ctx = llmkit.Context(
        messages=[
            llmkit.user("Look"),
            turn(c1),
            llmkit.tool_result(c1, "screenshot attached", images=[PNG]),
        ]
    )
    body, kinds = body_of(MODEL, ctx)
    output = body["input"][-1]["output"]
    assert output[0] == {"type": "input_text", "text": "screenshot attached"}
    assert output[1]["type"] == "input_image" and output[1]["image_url"].startswith("data:")
    assert "image_omitted" not in kinds  # nothing was degraded
    body, kinds = body_of(TEXT_ONLY, ctx)
    assert body["input"][-1]["output"][1] == {
        "type": "input_text",
        "text": "[image omitted: the model cannot see images]",
    }
    assert kinds.count("image_omitted") == 1


def test_foreign_tool_call_ids_are_normalised_for_calls_and_results_alike_B5() -> None:
    compound = "call_" + "a" * 40 + "|fc_" + "1" * 40  # an 83-character Responses compound id
    kimi = "functions.get_weather:0"
    calls = [call(compound), call(kimi)]
    ctx = llmkit.Context(
        messages=[
            llmkit.user("x"),
            turn(*calls, model=CHAT_MODEL),
            *[llmkit.tool_result(c, "r") for c in calls],
        ]
    )
    body, kinds = body_of(MODEL, ctx)
    sent = [i["call_id"] for i in body["input"] if i.get("type") == "function_call"]
    answered = [i["call_id"] for i in body["input"] if i.get("type") == "function_call_output"]
    assert sent == answered and len(set(sent)) == 2
    assert all(len(i) <= 64 and i.replace("_", "").replace("-", "").isalnum() for i in sent)
    assert kinds.count("tool_call_id_normalized") == 2
    assert body_of(MODEL, ctx)[0] == body  # deterministic


def test_orphan_tool_calls_get_a_synthetic_error_output_G1() -> None:
    c1, c2 = call("call_1"), call("call_2")
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), turn(c1, c2), llmkit.tool_result(c1, "ok"), llmkit.user("?")]
    )
    body, kinds = body_of(MODEL, ctx)
    outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_1", "call_2"]
    assert outputs[1]["output"].startswith("Error:")
    assert kinds == ["orphan_tool_call"]


# --------------------------------------------------------------------------- reasoning replay (F4)


def test_reasoning_items_are_replayed_before_the_calls_they_belong_to_F4() -> None:
    c1, c2 = call("call_1", replay={"item_id": "fc_1"}), call("call_2", replay={"item_id": "fc_2"})
    ctx = llmkit.Context(
        messages=[
            llmkit.user("x"),
            turn(reasoning(1, "Plan: look up Oslo."), c1, reasoning(2), c2),
            llmkit.tool_result(c1, "a"),
            llmkit.tool_result(c2, "b"),
        ]
    )
    body, kinds = body_of(MODEL, ctx)
    assert body["input"][1:5] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Plan: look up Oslo."}],
            "encrypted_content": "gAAAAenc1",
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
            "id": "fc_1",  # paired with its reasoning item, as the API returned them
        },
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAAenc2"},
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
            "id": "fc_2",
        },
    ]
    assert kinds == []


def test_reasoning_is_not_replayed_to_another_model_and_call_item_ids_go_with_it_F4() -> None:
    c1 = call("call_1", replay={"item_id": "fc_1"})
    other = MODEL.model_copy(update={"id": "gpt-5-mini"})
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), turn(reasoning(1), c1), llmkit.tool_result(c1, "a")]
    )
    body, kinds = body_of(other, ctx)
    assert [i.get("type", i.get("role")) for i in body["input"]] == [
        "user",
        "function_call",
        "function_call_output",
    ]
    # an fc_ id without its reasoning item is a 400 ("…without its required 'reasoning' item")
    assert "id" not in body["input"][1]
    assert kinds == ["thinking_dropped"]


def test_reasoning_without_encrypted_content_or_ending_the_turn_is_dropped_F4() -> None:
    stored_only = llmkit.ThinkingPart(replay={"id": "rs_9", "summary": []})  # store=true era
    c1 = call("call_1", replay={"item_id": "fc_1"})
    ctx = llmkit.Context(
        messages=[
            llmkit.user("x"),
            turn(stored_only, c1),
            llmkit.tool_result(c1, "a"),
            turn(llmkit.TextPart(text="Done."), reasoning(3)),  # nothing follows rs_3
            llmkit.user("y"),
        ]
    )
    request = llmkit.build_request(MODEL, ctx, api_key="k")
    body = json.loads(request.content)
    consume(RESPONSES_PARAMS.validate_python(body))
    assert not [i for i in body["input"] if i.get("type") == "reasoning"]
    assert "id" not in body["input"][1]
    reasons = [
        d.details["reasons"]
        for d in request.extensions["llmkit.diagnostics"]
        if d.kind == "thinking_dropped"
    ]
    assert reasons == [["it has no encrypted_content"], ["nothing followed it in its turn"]]


def test_anthropic_history_hands_off_to_responses() -> None:
    """A transcript made with Claude continues on the Responses API: the signed thinking is
    dropped (reported), toolu_ ids are valid call_ids as they are, results pair with them."""
    anthropic = llmkit.Model(provider="anthropic", id="claude-sonnet-4-5", api="anthropic-messages")
    c1 = llmkit.ToolCall(
        id="toolu_01A09q90qw90lq917835lq9",
        name="get_weather",
        arguments={"city": "Paris"},
        raw_arguments='{"city": "Paris"}',
    )
    c2 = llmkit.ToolCall(
        id="toolu_01A09q90qw90lq917835lq9:bad",  # a foreign id outside the grammar
        name="get_weather",
        arguments={"city": "Rome"},
        raw_arguments='{"city": "Rome"}',
    )
    claude = turn(
        llmkit.ThinkingPart(thinking="The user wants weather.", signature="EqQBCkgIBRABGAIiQL"),
        llmkit.TextPart(text="Let me check."),
        c1,
        c2,
        model=anthropic,
        stop_reason="tool_use",
    )
    ctx = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("Weather in Paris and Rome?"),
            claude,
            llmkit.tool_result(c1, "sunny"),
            llmkit.tool_result(c2, "cloudy"),
        ],
        tools=[WEATHER],
    )
    body, kinds = body_of(MODEL, ctx)
    items = body["input"]
    assert items[1] == {"role": "assistant", "content": "Let me check."}
    assert items[2]["call_id"] == "toolu_01A09q90qw90lq917835lq9" and "id" not in items[2]
    assert items[3]["call_id"] != c2.id and items[5]["call_id"] == items[3]["call_id"]
    assert [i["type"] for i in items[2:]] == ["function_call"] * 2 + ["function_call_output"] * 2
    assert json.loads(items[2]["arguments"]) == {"city": "Paris"}
    assert sorted(kinds) == ["thinking_dropped", "tool_call_id_normalized"]


def _recorded_inputs(name: str) -> list[list[dict[str, Any]]]:
    out = []
    for ex in load_exchanges(FIXTURES / name):
        body = ex.request["body"]  # type: ignore[index]
        out.append((json.loads(body) if isinstance(body, str) else body)["input"])
    return out


def test_replayed_interleaved_reasoning_matches_what_simonw_llm_sent_F4() -> None:
    """Four non-streamed gpt-5.5 turns whose reasoning sits between tool calls: rebuilding
    each next request from llmkit's decoded messages gives the items the API accepted."""
    name = "simonw-llm__test_responses_interleaved_reasoning_between_tool_calls.yaml"
    exchanges = load_exchanges(FIXTURES / name)
    inputs = _recorded_inputs(name)
    model = MODEL.model_copy(update={"id": "gpt-5.5"})
    ctx = llmkit.Context(messages=[llmkit.user(inputs[0][0]["content"])])
    for n in range(1, 4):
        reply = llmkit.parse_response(model, exchanges[n - 1].body)
        ctx.messages.append(reply)
        results = {
            i["call_id"]: i["output"] for i in inputs[n] if i.get("type") == "function_call_output"
        }
        ctx.messages.extend(llmkit.tool_result(c, results[c.id]) for c in reply.tool_calls)
        body, kinds = body_of(model, ctx)
        assert kinds == []
        ours, theirs = body["input"], inputs[n]
        assert len(ours) == len(theirs)
        for mine, recorded in zip(ours, theirs, strict=True):
            if recorded.get("type") == "function_call":
                # simonw/llm re-serialised the arguments and left out the fc_ id and status;
                # llmkit sends the exact text, the id beside its reasoning item and the status
                # the response gave (all accepted).
                assert json.loads(mine.pop("arguments")) == json.loads(recorded.pop("arguments"))
                assert mine.pop("id").startswith("fc_")
                assert mine.pop("status") == "completed"
            assert mine == recorded


def test_replayed_commentary_turn_matches_what_pydantic_ai_sent_with_its_phase() -> None:
    """gpt-5.5 narrated ("commentary") before calling a tool; the replay keeps the reasoning,
    the fc_ id beside it, and the message's phase (dropping it degrades later turns)."""
    name = "pydantic-ai__test_openai_responses_phase_streamed_on_part_start.yaml"
    exchanges = load_exchanges(FIXTURES / name)
    recorded = _recorded_inputs(name)[1]
    model = MODEL.model_copy(update={"id": "gpt-5.5"})
    reply = list(llmkit.parse_stream(model, [exchanges[0].body]))[-1].message
    assert (reply.provider_data or {})["message_phases"] == ["commentary"]
    (c1,) = reply.tool_calls
    ctx = llmkit.Context(
        system="Briefly narrate what you are about to do before calling each tool.",
        messages=[
            llmkit.user(recorded[0]["content"]),
            reply,
            llmkit.tool_result(c1, "Potato City"),
        ],
    )
    body, kinds = body_of(model, ctx)
    assert kinds == []
    ours = body["input"]
    assert ours[0] == recorded[0] and ours[1] == recorded[1]  # user, reasoning (encrypted)
    assert ours[2] == {"role": "assistant", "content": reply.text, "phase": "commentary"}
    # pydantic-ai's cassette serializer turned curly quotes into ASCII (format F5)
    ascii_text = reply.text.translate(str.maketrans({"\u2019": "'", "\u201c": '"', "\u201d": '"'}))
    assert ascii_text == recorded[2]["content"][0]["text"]
    # function_call with its fc_ id (and the status the response gave it, which pydantic-ai
    # did not send back), function_call_output
    assert ours[3:] == [{**recorded[3], "status": "completed"}, *recorded[4:]]
    other = model.model_copy(update={"id": "gpt-4.1"})
    assert "phase" not in body_of(other, ctx)[0]["input"][1]  # replay data is model-bound


def test_custom_tool_calls_replay_as_custom_items_with_custom_outputs() -> None:
    (ex,) = load_exchanges(FIXTURES / "vercel-ai__openai-custom-tool.1.chunks.txt")
    reply = list(llmkit.parse_stream(MODEL, [ex.body]))[-1].message
    (c1,) = reply.tool_calls
    ctx = llmkit.Context(messages=[llmkit.user("SQL?"), reply, llmkit.tool_result(c1, "3 rows")])
    body, _ = body_of(MODEL, ctx)
    assert body["input"][1:] == [
        {
            "type": "custom_tool_call",
            "call_id": "call_custom_sql_001",
            "name": "write_sql",
            "input": "SELECT * FROM users WHERE age > 25",
        },
        {"type": "custom_tool_call_output", "call_id": "call_custom_sql_001", "output": "3 rows"},
    ]


# --------------------------------------------------------------------------- tools and options


def test_tools_say_strict_false_explicitly_because_responses_defaults_to_strict_H2() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, _ = body_of(MODEL, ctx)
    assert body["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": WEATHER.parameters,
            "strict": False,
        }
    ]
    request = llmkit.build_request(TEXT_ONLY, ctx)  # a server that rejects the key: none
    assert "strict" not in json.loads(request.content)["tools"][0]


def test_strict_tools_are_transformed_or_refused_H1() -> None:
    class Args(BaseModel):
        """Forecast."""

        city: str
        days: int = 3

    strict_tool = llmkit.tool(Args, name="forecast", strict=True)
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[strict_tool])
    body, kinds = body_of(MODEL, ctx)
    tool = body["tools"][0]
    assert tool["strict"] is True and tool["description"] == "Forecast."
    assert tool["parameters"]["additionalProperties"] is False
    assert sorted(tool["parameters"]["required"]) == ["city", "days"]
    assert "schema_rewritten" in kinds
    with pytest.raises(llmkit.InvalidRequestError, match="strict"):
        llmkit.build_request(TEXT_ONLY, ctx)


def test_options_map_to_responses_fields() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, kinds = body_of(
        MODEL,
        ctx,
        max_tokens=100,
        temperature=0.5,
        top_p=0.9,
        tool_choice={"name": "get_weather"},
        parallel_tool_calls=False,
        reasoning="high",
        provider_options={"service_tier": "flex"},
    )
    assert body["max_output_tokens"] == 100
    assert (body["temperature"], body["top_p"], body["service_tier"]) == (0.5, 0.9, "flex")
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert body["parallel_tool_calls"] is False
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert kinds == []
    body, _ = body_of(MODEL, ctx, tool_choice="required")
    assert body["tool_choice"] == "required"


def test_options_the_wire_or_model_cannot_honour_are_reported() -> None:
    no_tools = llmkit.Context(messages=[llmkit.user("x")])
    body, kinds = body_of(CHAT_MODEL, no_tools, stop=["END"], reasoning="low", tool_choice="auto")
    assert "stop" not in body and "reasoning" not in body and "tool_choice" not in body
    assert kinds == ["option_unsupported"] * 3
    body, kinds = body_of(MODEL, no_tools, reasoning="off")
    assert body["reasoning"] == {"effort": "minimal", "summary": "auto"}
    assert kinds == ["option_unsupported"]


def test_response_format_is_a_strict_json_schema_text_format() -> None:
    class Answer(BaseModel):
        city: str
        temperature: float

    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer)
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["name"], fmt["strict"]) == ("json_schema", "Answer", True)
    assert fmt["schema"]["additionalProperties"] is False


def test_provider_options_override_the_stateless_default() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, _ = body_of(MODEL, ctx, provider_options={"store": True})
    assert body["store"] is True


def test_build_request_does_not_modify_the_context() -> None:
    c1 = call("functions.f:0", replay={"item_id": "fc_1"})
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn(reasoning(1), c1)])
    before = ctx.model_dump_json()
    body_of(MODEL, ctx)
    assert ctx.model_dump_json() == before
