"""Bedrock Converse request building, checked against botocore's own ``bedrock-runtime`` service
model: every body must pass botocore's ``ParamValidator`` on the ``ConverseStream`` (or
``Converse``) input shape, and botocore's rest-json serializer, given the same parameters, must
produce the same JSON body and the same URL path (the model id encoded the same way). Then the
mapping rules themselves: tool results with images inside ``toolResult``, alternation,
reasoning replay to the same model only, tool choice, inference config, reasoning per model
family, and the hooks for documents and cache points (docs/documents.md, docs/prompt-caching.md).
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

import llmkit

botocore_session = pytest.importorskip("botocore.session")
from botocore.serialize import create_serializer  # noqa: E402
from botocore.validate import ParamValidator  # noqa: E402

SERVICE = botocore_session.get_session().get_service_model("bedrock-runtime")
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
BASE = "https://bedrock-runtime.us-east-1.amazonaws.com"


def bedrock(model_id: str, **fields: Any) -> llmkit.Model:
    fields.setdefault("input", ["text", "image"])
    return llmkit.Model(
        provider="bedrock", id=model_id, api="bedrock-converse", base_url=BASE, **fields
    )


SONNET_45 = bedrock(
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    reasoning=True,
    max_output_tokens=64000,
    strict_tools=True,
)
NOVA = bedrock("us.amazon.nova-pro-v1:0")
TOOL = llmkit.Tool(
    name="get_weather",
    description="Get the weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def to_params(value: Any, shape: Any) -> Any:
    """The botocore parameters a JSON body stands for (blobs are base64 in rest-json)."""
    kind = shape.type_name
    if getattr(shape, "is_document_type", False):
        return value
    if kind == "structure" and isinstance(value, dict):
        return {
            k: to_params(v, shape.members[k]) if k in shape.members else v for k, v in value.items()
        }
    if kind == "list" and isinstance(value, list):
        return [to_params(v, shape.member) for v in value]
    if kind == "map" and isinstance(value, dict):
        return {k: to_params(v, shape.value) for k, v in value.items()}
    if kind == "blob" and isinstance(value, str):
        return base64.b64decode(value, validate=True)
    return value


def botocore_check(request: Any, model: llmkit.Model, *, stream: bool = True) -> dict[str, Any]:
    """Validate with botocore and compare with botocore's own serialization; returns the body."""
    operation = SERVICE.operation_model("ConverseStream" if stream else "Converse")
    body = json.loads(request.content)
    params = {"modelId": model.id, **to_params(body, operation.input_shape)}
    report = ParamValidator().validate(params, operation.input_shape)
    assert not report.has_errors(), report.generate_report()
    serialized = create_serializer("rest-json").serialize_to_request(params, operation)
    assert json.loads(serialized["body"]) == body
    assert urlsplit(str(request.url)).path == serialized["url_path"]
    return body


def build(model: llmkit.Model, context: llmkit.Context, **options: Any) -> tuple[Any, Any]:
    request = llmkit.build_request(model, context, api_key="k", **options)
    return botocore_check(request, model), request.extensions["llmkit.diagnostics"]


def kinds(diagnostics: Any) -> list[str]:
    return [d.kind for d in diagnostics]


def turn(*parts: Any, model: llmkit.Model = SONNET_45) -> llmkit.AssistantMessage:
    return llmkit.AssistantMessage(
        content=list(parts),
        stop_reason="tool_use",
        provider=model.provider,
        api=model.api,
        model=model.id,
    )


CALL = llmkit.ToolCall(id="tooluse_1", name="get_weather", arguments={"city": "Oslo"})


def test_a_tool_loop_round_trip_is_what_botocore_would_send() -> None:
    context = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("Weather in Oslo? Here is a map.", images=[PNG]),
            turn(llmkit.TextPart(text="Checking."), CALL),
            llmkit.tool_result(CALL, "sunny, see the chart", images=[PNG]),
            llmkit.user("And tomorrow?"),
        ],
        tools=[TOOL],
    )
    body, diagnostics = build(
        SONNET_45, context, max_tokens=500, temperature=0.3, stop=["END"], tool_choice="auto"
    )
    assert body["system"] == [{"text": "Be brief."}]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    image = {"image": {"format": "png", "source": {"bytes": base64.b64encode(PNG).decode()}}}
    assert body["messages"][0]["content"] == [{"text": "Weather in Oslo? Here is a map."}, image]
    assert body["messages"][1]["content"] == [
        {"text": "Checking."},
        {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Oslo"}}},
    ]
    # the result's image stays inside its toolResult (docs/design.md §5); the user turn follows it
    assert body["messages"][2]["content"] == [
        {
            "toolResult": {
                "toolUseId": "tooluse_1",
                "content": [{"text": "sunny, see the chart"}, image],
                "status": "success",
            }
        },
        {"text": "And tomorrow?"},
    ]
    assert body["toolConfig"] == {
        "tools": [
            {
                "toolSpec": {
                    "name": "get_weather",
                    "description": "Get the weather.",
                    "inputSchema": {"json": TOOL.parameters},
                }
            }
        ],
        "toolChoice": {"auto": {}},
    }
    assert body["inferenceConfig"] == {
        "maxTokens": 500,
        "temperature": 0.3,
        "stopSequences": ["END"],
    }
    assert "modelId" not in body and diagnostics == []


def test_the_model_id_is_encoded_as_botocore_encodes_the_label() -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0"
    for model in (SONNET_45, bedrock(arn)):
        request = llmkit.build_request(
            model, llmkit.Context(messages=[llmkit.user("x")]), api_key="k"
        )
        botocore_check(request, model)
    assert str(request.url).startswith(f"{BASE}/model/arn%3Aaws%3Abedrock%3Aus-east-1")


def test_error_results_orphans_and_normalised_ids() -> None:
    bad = llmkit.ToolCall(id="call.with:odd/chars", name="get_weather", arguments={})
    unanswered = llmkit.ToolCall(id="tooluse_2", name="get_weather", arguments={"city": "Rome"})
    context = llmkit.Context(
        messages=[
            llmkit.user("x"),
            turn(bad, unanswered),
            llmkit.tool_result(bad, "boom", is_error=True),
            llmkit.user("y"),
        ],
        tools=[TOOL],
    )
    body, diagnostics = build(SONNET_45, context)
    results = [b["toolResult"] for b in body["messages"][2]["content"] if "toolResult" in b]
    uses = [b["toolUse"]["toolUseId"] for b in body["messages"][1]["content"]]
    assert [r["toolUseId"] for r in results] == uses
    assert results[0]["status"] == "error" and results[1]["status"] == "error"
    assert "tool_call_id_normalized" in kinds(diagnostics)
    assert "orphan_tool_call" in kinds(diagnostics)


def test_reasoning_replays_to_the_same_model_only() -> None:
    signed = llmkit.ThinkingPart(thinking="Let me think.", signature="sig-abc")
    redacted = llmkit.ThinkingPart(
        redacted=True, replay={"redacted": base64.b64encode(b"x").decode()}
    )
    same = turn(signed, redacted, llmkit.TextPart(text="Answer."))
    other = turn(signed, redacted, llmkit.TextPart(text="Answer."), model=NOVA)
    context = llmkit.Context(messages=[llmkit.user("q"), same, llmkit.user("q2"), other])
    body, diagnostics = build(SONNET_45, context)
    assert body["messages"][1]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "Let me think.", "signature": "sig-abc"}}},
        {"reasoningContent": {"redactedContent": base64.b64encode(b"x").decode()}},
        {"text": "Answer."},
    ]
    assert body["messages"][3]["content"] == [
        {"text": "<thinking>\nLet me think.\n</thinking>"},
        {"text": "Answer."},
    ]
    assert kinds(diagnostics) == ["thinking_dropped", "thinking_dropped"]


def test_unsigned_reasoning_from_the_same_model_is_not_sent_as_reasoning() -> None:
    gpt_oss = bedrock("openai.gpt-oss-120b-1:0", reasoning=True)
    part = llmkit.ThinkingPart(thinking="The user says hi.")
    message = turn(part, llmkit.TextPart(text="Hello!"), model=gpt_oss)
    body, diagnostics = build(gpt_oss, llmkit.Context(messages=[llmkit.user("Hi"), message]))
    assert "reasoningContent" not in json.dumps(body)
    assert kinds(diagnostics) == ["thinking_dropped"]


def test_server_tool_blocks_go_back_verbatim_to_the_same_model() -> None:
    nova2 = bedrock("us.amazon.nova-2-lite-v1:0")
    use = {
        "toolUse": {
            "toolUseId": "tooluse_s",
            "name": "nova_code_interpreter",
            "type": "server_tool_use",
            "input": {"snippet": "1+1"},
        }
    }
    result = {
        "toolResult": {
            "toolUseId": "tooluse_s",
            "type": "nova_code_interpreter_result",
            "status": "success",
            "content": [{"json": {"stdOut": "2"}}],
        }
    }
    parts = [
        llmkit.ThinkingPart(replay={"bedrock": use}),
        llmkit.ThinkingPart(replay={"bedrock": result}),
    ]
    context = llmkit.Context(
        messages=[llmkit.user("1+1?"), turn(*parts, llmkit.TextPart(text="2"), model=nova2)],
        tools=[TOOL],
    )
    body, _ = build(nova2, context)
    assert body["messages"][1]["content"] == [use, result, {"text": "2"}]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("required", {"any": {}}),
        ({"name": "get_weather"}, {"tool": {"name": "get_weather"}}),
        ("auto", {"auto": {}}),
    ],
)
def test_tool_choice(choice: Any, expected: dict[str, Any]) -> None:
    context = llmkit.Context(messages=[llmkit.user("x")], tools=[TOOL])
    body, _ = build(NOVA, context, tool_choice=choice)
    assert body["toolConfig"]["toolChoice"] == expected


def test_tool_choice_none_leaves_the_tools_out_unless_the_history_needs_them() -> None:
    context = llmkit.Context(messages=[llmkit.user("x")], tools=[TOOL])
    body, diagnostics = build(NOVA, context, tool_choice="none")
    assert "toolConfig" not in body and diagnostics == []
    history = llmkit.Context(
        messages=[llmkit.user("x"), turn(CALL), llmkit.tool_result(CALL, "ok")], tools=[TOOL]
    )
    body, diagnostics = build(NOVA, history, tool_choice="none")
    assert "toolChoice" not in body["toolConfig"]
    assert kinds(diagnostics) == ["option_unsupported"]


def test_strict_tools_need_a_model_with_strict_support() -> None:
    strict = llmkit.Tool(name="f", parameters={"type": "object", "properties": {}}, strict=True)
    context = llmkit.Context(messages=[llmkit.user("x")], tools=[strict])
    body, _ = build(SONNET_45, context)
    assert body["toolConfig"]["tools"][0]["toolSpec"]["strict"] is True
    with pytest.raises(llmkit.InvalidRequestError, match="is strict, but"):
        llmkit.build_request(NOVA, context, api_key="k")


@pytest.mark.parametrize(
    ("model", "level", "fields"),
    [
        (SONNET_45, "high", {"thinking": {"type": "enabled", "budget_tokens": 16384}}),
        (SONNET_45, "off", {"thinking": {"type": "disabled"}}),
        (
            bedrock("global.anthropic.claude-sonnet-4-6", reasoning=True),
            "medium",
            {"thinking": {"type": "adaptive"}, "output_config": {"effort": "medium"}},
        ),
        (
            bedrock("us.amazon.nova-2-lite-v1:0", reasoning=True),
            "low",
            {"reasoningConfig": {"type": "enabled", "maxReasoningEffort": "low"}},
        ),
        (bedrock("openai.gpt-oss-120b-1:0", reasoning=True), "high", {"reasoning_effort": "high"}),
    ],
    ids=["claude-budget", "claude-off", "claude-adaptive", "nova-2", "gpt-oss"],
)
def test_reasoning_per_model_family(model: llmkit.Model, level: str, fields: Any) -> None:
    body, _ = build(model, llmkit.Context(messages=[llmkit.user("x")]), reasoning=level)
    assert body["additionalModelRequestFields"] == fields
    if "budget_tokens" in json.dumps(fields):  # maxTokens must exceed the budget
        assert body["inferenceConfig"]["maxTokens"] > 16384


def test_reasoning_the_family_has_no_setting_for_is_reported() -> None:
    r1 = bedrock("us.deepseek.r1-v1:0", reasoning=True)
    body, diagnostics = build(r1, llmkit.Context(messages=[llmkit.user("x")]), reasoning="high")
    assert "additionalModelRequestFields" not in body
    assert kinds(diagnostics) == ["option_unsupported"]


def test_claude_thinking_drops_temperature_and_a_forced_choice_drops_thinking() -> None:
    context = llmkit.Context(messages=[llmkit.user("x")], tools=[TOOL])
    body, diagnostics = build(SONNET_45, context, reasoning="low", temperature=0.5)
    assert (
        "temperature" not in body["inferenceConfig"]
        and "thinking" in body["additionalModelRequestFields"]
    )
    body, diagnostics = build(SONNET_45, context, reasoning="low", tool_choice="required")
    assert "additionalModelRequestFields" not in body
    assert kinds(diagnostics) == ["option_unsupported"]


def test_temperature_above_one_is_sent_as_one_and_reported() -> None:
    body, diagnostics = build(NOVA, llmkit.Context(messages=[llmkit.user("x")]), temperature=1.7)
    assert body["inferenceConfig"]["temperature"] == 1.0
    assert diagnostics[0].details["sent"] == 1.0


def test_images_bedrock_cannot_fetch_are_placeholders() -> None:
    context = llmkit.Context(
        messages=[
            llmkit.user(
                "look",
                images=[
                    "https://example.com/cat.png",
                    llmkit.ImagePart(url="s3://my-bucket/cat.jpg", media_type="image/jpeg"),
                ],
            )
        ]
    )
    body, diagnostics = build(NOVA, context)
    content = body["messages"][0]["content"]
    assert content[1]["text"].startswith("[image omitted")
    assert content[2] == {
        "image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://my-bucket/cat.jpg"}}}
    }
    assert kinds(diagnostics) == ["image_omitted"]
    text_only = bedrock("meta.llama3-3-70b-instruct-v1:0", input=["text"])
    body, diagnostics = build(text_only, llmkit.Context(messages=[llmkit.user("x", images=[PNG])]))
    assert kinds(diagnostics) == ["image_omitted"] and "bytes" not in json.dumps(body)


def test_provider_options_are_merged_last() -> None:
    body, _ = build(
        NOVA,
        llmkit.Context(messages=[llmkit.user("x")]),
        provider_options={
            "guardrailConfig": {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"}
        },
    )
    assert body["guardrailConfig"]["guardrailIdentifier"] == "gr-1"


# -- documents and cache points ----------------------------------------------------------------


def _with_parts(*parts: Any) -> llmkit.Context:
    return llmkit.Context(
        messages=[llmkit.UserMessage(content=[llmkit.TextPart(text="Read this."), *parts])]
    )


def test_a_cache_point_after_content_becomes_a_cache_point_block() -> None:
    body, _ = build(NOVA, _with_parts(llmkit.CachePoint()))
    assert body["messages"][0]["content"] == [
        {"text": "Read this."},
        {"cachePoint": {"type": "default"}},
    ]


def test_a_cache_point_in_a_tool_result_caches_up_to_the_result() -> None:
    # Bedrock takes no cachePoint inside toolResult.content (botocore's model refuses it).
    call = llmkit.ToolCall(
        id="t1", name="get_weather", arguments={"city": "Oslo"}, raw_arguments='{"city": "Oslo"}'
    )
    reply = llmkit.AssistantMessage(
        content=[call], provider="bedrock", api="bedrock-converse", model=NOVA.id
    )
    result = llmkit.ToolResultMessage(
        tool_call_id="t1",
        tool_name="get_weather",
        content=[llmkit.TextPart(text="42"), llmkit.CachePoint()],
    )
    context = llmkit.Context(messages=[llmkit.user("go"), reply, result], tools=[TOOL])
    body, _ = build(NOVA, context)  # validated by botocore
    last = body["messages"][-1]["content"]
    assert last == [
        {"toolResult": {"toolUseId": "t1", "content": [{"text": "42"}], "status": "success"}},
        {"cachePoint": {"type": "default"}},
    ]


def test_a_pdf_document_becomes_a_document_block_on_a_pdf_model() -> None:
    pdf = base64.b64encode(b"%PDF-1.4 minimal").decode()
    document = llmkit.DocumentPart(data=pdf, title="Q3 report: final!")
    model = NOVA.model_copy(update={"input": ["text", "image", "pdf"]})
    body, _ = build(model, _with_parts(document))
    assert body["messages"][0]["content"][1] == {
        "document": {"format": "pdf", "name": "Q3 report final", "source": {"bytes": pdf}}
    }
    text = llmkit.DocumentPart(text="plain words", title="notes")
    body, _ = build(NOVA, _with_parts(text))
    assert body["messages"][0]["content"][1] == {"text": "[notes]\nplain words"}


def test_a_pdf_to_a_model_without_pdf_input_is_omitted_and_reported() -> None:
    document = llmkit.DocumentPart(data="JVBERi0=")
    body, diagnostics = build(NOVA, _with_parts(document))
    assert kinds(diagnostics) == ["document_omitted"]
    assert body["messages"][0]["content"][1]["text"].startswith("[document omitted")


def test_tool_blocks_without_tools_are_sent_as_text() -> None:
    # QUIRKS G5: Bedrock refuses toolUse/toolResult blocks in a request without toolConfig, which
    # is what a turn without tools after a tool loop sends; declaring tools nobody offered would
    # let the model call them, so the history's calls and results become text.
    failed = llmkit.ToolCall(id="tooluse_2", name="get_weather", arguments={"city": "Røros"})
    context = llmkit.Context(
        messages=[
            llmkit.user("Weather in Oslo and Røros?"),
            turn(llmkit.TextPart(text="Checking."), CALL, failed),
            llmkit.tool_result(CALL, "sunny", images=[PNG]),
            llmkit.tool_result(failed, "timeout", is_error=True),
            llmkit.user("Summarise."),
        ]
    )
    body, diagnostics = build(NOVA, context)
    assert "toolConfig" not in body and "toolUse" not in json.dumps(body)
    assert "toolResult" not in json.dumps(body)
    assert body["messages"][1]["content"] == [
        {"text": "Checking."},
        {"text": '[tool call tooluse_1 (get_weather): {"city":"Oslo"}]'},
        {"text": '[tool call tooluse_2 (get_weather): {"city":"Røros"}]'},
    ]
    results = body["messages"][2]["content"]
    assert results[0] == {"text": "[result of tool call tooluse_1 (get_weather)]"}
    assert results[1] == {"text": "sunny"} and "image" in results[2]
    assert results[3:] == [
        {"text": "[result of tool call tooluse_2 (get_weather) (error)]"},
        {"text": "timeout"},
        {"text": "Summarise."},
    ]
    [flattened] = [d for d in diagnostics if d.kind == "tool_history_flattened"]
    assert flattened.details == {
        "calls": ["tooluse_1", "tooluse_2"],
        "results": ["tooluse_1", "tooluse_2"],
    }
    # With the tools declared, the same history keeps its tool blocks and nothing is reported.
    body, diagnostics = build(NOVA, llmkit.Context(messages=context.messages, tools=[TOOL]))
    assert "toolUse" in body["messages"][1]["content"][1]
    assert "tool_history_flattened" not in kinds(diagnostics)


def test_a_turn_without_tools_after_a_tool_loop_goes_through_the_fake() -> None:
    from llmkit.testing import FakeProvider, FakeReply

    with FakeProvider([FakeReply("Oslo: sunny.")], api="bedrock-converse") as fake:
        history = [llmkit.user("Weather?"), turn(CALL), llmkit.tool_result(CALL, "sunny")]
        message = llmkit.complete(
            fake.model(),
            llmkit.Context(messages=[*history, llmkit.user("Summarise.")]),
            api_key=fake.api_key,
        )
    assert message.text == "Oslo: sunny."
    assert "tool_history_flattened" in kinds(message.diagnostics)


def test_server_tool_blocks_missing_fields_are_flattened_too() -> None:
    # QUIRKS G5 with a server tool's blocks kept whole for replay, missing fields (found by
    # tests/test_fuzz_streams.py: build_request raised KeyError 'content', then 'input').
    nova2 = NOVA.model_copy(update={"id": "us.amazon.nova-2-lite-v1:0"})
    result = {
        "toolResult": {
            "toolUseId": "tooluse_s",
            "type": "nova_code_interpreter_result",
            "status": "success",
        }
    }
    use = {"toolUse": {"toolUseId": "tooluse_s", "type": "server_tool_use"}}  # no name, no input
    parts = [
        llmkit.ThinkingPart(replay={"bedrock": use}),
        llmkit.ThinkingPart(replay={"bedrock": result}),
        llmkit.TextPart(text="2"),
        CALL,
    ]
    context = llmkit.Context(
        messages=[
            llmkit.user("1+1?"),
            turn(*parts, model=nova2),
            llmkit.tool_result(CALL, "sunny"),
        ]
    )
    body, diagnostics = build(nova2, context)
    assert body["messages"][1]["content"] == [
        {"text": "[tool call tooluse_s (): null]"},
        {"text": "[result of tool call tooluse_s ()]"},
        {"text": "2"},
        {"text": '[tool call tooluse_1 (get_weather): {"city":"Oslo"}]'},
    ]
    assert "tool_history_flattened" in kinds(diagnostics)
