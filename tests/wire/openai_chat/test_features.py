"""The production features on openai-chat (docs/design.md §5), every body validated against the
official openai SDK's ``CompletionCreateParams`` types, unknown keys included: structured
output, ``prompt_cache_key`` / ``prompt_cache_retention`` / ``prompt_cache_options``, explicit
breakpoints, ``file`` parts (a URL document is ``document_omitted``), documents in tool
results, provider tools, and what a compatible server cannot take."""

from __future__ import annotations

import base64
import json
from functools import partial

from pydantic import BaseModel

import llmkit
from tests.support.bodies import sent
from tests.support.sdk import CHAT_PARAMS

MODEL = llmkit.get_model("openai", "gpt-4.1")  # pdf input, prompt-cache fields, no breakpoints
EXPLICIT = llmkit.get_model("openai", "gpt-6.1-terra")  # explicit breakpoints (gpt-5.6+)
VLLM = llmkit.Model(provider="vllm", id="qwen3", api="openai-chat")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PDF = b"%PDF-1.7\n%fake\n"
PDF_URL = f"data:application/pdf;base64,{base64.b64encode(PDF).decode()}"
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


body_of = partial(sent, CHAT_PARAMS)


def call(id: str = "call_1") -> llmkit.ToolCall:
    return llmkit.ToolCall(id=id, name="get_weather", arguments={}, raw_arguments="{}")


class Answer(BaseModel):
    city: str
    days: int | None = None


def test_response_format_is_a_strict_json_schema() -> None:
    body, diags = body_of(
        MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer
    )
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Answer"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["required"] == ["city", "days"]  # strict: all required
    assert {d.kind for d in diags} <= {"schema_rewritten"}


def test_a_schema_title_that_is_not_a_name_is_sanitised_reported() -> None:
    schema = {"title": "My answer!", "type": "object", "properties": {}}
    body, diags = body_of(
        MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=schema
    )
    assert body["response_format"]["json_schema"]["name"] == "My_answer_"
    assert any(d.details.get("change") == "name_sanitized" for d in diags)


def test_a_model_without_structured_output_reports_it() -> None:
    model = VLLM.model_copy(update={"structured_output": False})
    body, diags = body_of(
        model, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer
    )
    assert "response_format" not in body
    assert [d.details["option"] for d in diags] == ["response_format"]


def test_cache_key_and_long_retention_on_openai() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, diags = body_of(MODEL, ctx, cache="long", cache_key="tenant-7")
    assert body["prompt_cache_key"] == "tenant-7"
    assert body["prompt_cache_retention"] == "24h"
    assert diags == []
    body, diags = body_of(MODEL, ctx, cache="short")  # automatic prefix caching: nothing to send
    assert "prompt_cache" not in json.dumps(body) and diags == []


def test_cache_options_a_compatible_server_cannot_take_are_reported() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, diags = body_of(VLLM, ctx, cache="long", cache_key="k")
    assert "prompt_cache" not in json.dumps(body)
    assert sorted(d.details["option"] for d in diags) == ["cache='long'", "cache_key"]
    body, diags = body_of(MODEL, ctx, cache="off")  # no breakpoints on gpt-4.1: cannot turn off
    assert [d.details["option"] for d in diags] == ["cache='off'"]


def test_cache_points_are_explicit_breakpoints_on_models_that_have_them() -> None:
    msg = llmkit.UserMessage(
        content=[
            llmkit.TextPart(text="Look:"),
            llmkit.user("", images=[PNG]).content[1],
            llmkit.CachePoint(),
            llmkit.TextPart(text="What is it?"),
        ]
    )
    ctx = llmkit.Context(messages=[msg])
    body, diags = body_of(EXPLICIT, ctx, cache="long")
    parts = body["messages"][0]["content"]
    assert parts[1]["type"] == "image_url"
    assert parts[1]["prompt_cache_breakpoint"] == {"mode": "explicit", "ttl": "12h"}
    assert diags == []
    # a model with only automatic caching ignores them: the body is exactly the one without
    plain = llmkit.Context(
        messages=[llmkit.UserMessage(content=[p for p in msg.content if p.type != "cache_point"])]
    )
    assert body_of(MODEL, ctx)[0] == body_of(MODEL, plain)[0]


def test_cache_off_on_a_model_with_breakpoints_is_explicit_mode_with_none() -> None:
    msg = llmkit.UserMessage(content=[llmkit.TextPart(text="x"), llmkit.CachePoint()])
    body, diags = body_of(EXPLICIT, llmkit.Context(messages=[msg]), cache="off")
    assert body["prompt_cache_options"] == {"mode": "explicit"}
    assert "prompt_cache_breakpoint" not in json.dumps(body)
    assert diags[0].details == {"option": "CachePoint", "dropped": 1}


def test_documents_are_file_parts_a_url_is_omitted() -> None:
    msg = llmkit.user(
        "Read",
        documents=[
            llmkit.DocumentPart(data=base64.b64encode(PDF).decode(), title="report.pdf"),
            PDF,
            "https://example.com/a.pdf",
            llmkit.DocumentPart(text="some notes", title="notes.txt"),
        ],
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    parts = body["messages"][0]["content"]
    assert parts[1] == {"type": "file", "file": {"filename": "report.pdf", "file_data": PDF_URL}}
    assert parts[2]["file"]["filename"] == "document.pdf"  # OpenAI needs one with file_data
    assert parts[3]["type"] == "text" and "document omitted" in parts[3]["text"]
    assert parts[4] == {"type": "text", "text": "notes.txt\n\nsome notes"}
    assert [d.kind for d in diags] == ["document_omitted"]


def test_documents_in_tool_results_follow_the_tool_messages() -> None:
    c = call()
    result = llmkit.tool_result(c, "see attached", documents=[PDF, llmkit.DocumentPart(text="log")])
    turn = llmkit.AssistantMessage(content=[c], stop_reason="tool_use")
    body, _ = body_of(
        MODEL, llmkit.Context(messages=[llmkit.user("x"), turn, result], tools=[WEATHER])
    )
    tool, attachments = body["messages"][2], body["messages"][3]
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": "see attached\n\nlog"}
    assert attachments["role"] == "user"
    assert [p["type"] for p in attachments["content"]] == ["text", "file"]


def test_provider_tools_for_chat_are_appended_others_reported() -> None:
    custom = llmkit.ProviderTool("openai-chat", {"type": "custom", "custom": {"name": "grammar"}})
    other = llmkit.ProviderTool("gemini", {"google_search": {}})
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, custom, other])
    body, diags = body_of(MODEL, ctx, tool_choice="required")
    assert body["tools"][1] == custom.spec and len(body["tools"]) == 2
    assert body["tool_choice"] == "required"
    assert [d.details.get("api") for d in diags] == ["gemini"]


def test_stream_tool_arguments_needs_nothing_on_chat() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, diags = body_of(MODEL, ctx, stream_tool_arguments=True)
    assert "eager" not in json.dumps(body) and diags == []  # Chat always streams arguments


def test_forced_tool_choice_downgraded_on_a_model_that_refuses_it() -> None:
    model = MODEL.model_copy(update={"forced_tool_choice": False})
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, diags = body_of(model, ctx, tool_choice={"name": "get_weather"})
    assert body["tool_choice"] == "auto" and diags[0].details["sent"] == "auto"
