"""The production features on anthropic-messages (docs/design.md §5), every body validated against
the official anthropic SDK's request types, unknown keys included: structured output
(``output_config.format``), prompt caching (top-level and per-block ``cache_control``, the
4-breakpoint limit, 1-hour ttl), documents (inside tool results too), eager input streaming,
provider-hosted tools next to function tools, and a model that refuses forced tool use."""

from __future__ import annotations

import base64
import json
from functools import partial
from typing import Any

import pytest
from pydantic import BaseModel, Field

import llmkit
from tests.support.bodies import sent
from tests.support.sdk import ANTHROPIC_PARAMS

MODEL = llmkit.Model(
    provider="anthropic",
    id="claude-sonnet-4-6",
    api="anthropic-messages",
    max_output_tokens=64000,
    reasoning=True,
    input=["text", "image", "pdf"],
)
TEXT_ONLY = MODEL.model_copy(update={"input": ["text"]})
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PDF = b"%PDF-1.7\n%fake\n"
PDF_B64 = base64.b64encode(PDF).decode()
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)
SEARCH = llmkit.ProviderTool(
    "anthropic-messages", {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
)


body_of = partial(sent, ANTHROPIC_PARAMS, api_key="sk-ant-test")


def kinds(diags: list[llmkit.Diagnostic]) -> list[str]:
    return [d.kind for d in diags]


def call(id: str = "toolu_1") -> llmkit.ToolCall:
    return llmkit.ToolCall(id=id, name="get_weather", arguments={}, raw_arguments="{}")


def turn(*parts: Any) -> llmkit.AssistantMessage:
    return llmkit.AssistantMessage(
        content=list(parts), provider="anthropic", api=MODEL.api, model=MODEL.id
    )


# -- structured output ------------------------------------------------------------------------


class Item(BaseModel):
    name: str = Field(min_length=1)
    qty: int = Field(ge=1)


class Order(BaseModel):
    items: list[Item]
    note: str | None = None


def test_response_format_is_output_config_format_with_the_anthropic_schema() -> None:  # QUIRKS H5
    ctx = llmkit.Context(messages=[llmkit.user("Order two pens")])
    body, diags = body_of(MODEL, ctx, response_format=Order)
    fmt = body["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["items"]
    item = schema["$defs"]["Item"]
    assert item["properties"]["qty"] == {
        "type": "integer",
        "title": "Qty",
        "description": "{minimum: 1}",
    }
    rewritten = {
        (d.details["path"], d.details["change"]) for d in diags if d.kind == "schema_rewritten"
    }
    assert ("#/$defs/Item/properties/qty/minimum", "keyword_to_description") in rewritten
    assert ("#/additionalProperties", "additional_properties_false") in rewritten


def test_response_format_merges_with_the_effort_of_adaptive_thinking() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    body, _ = body_of(MODEL, ctx, response_format=Order, reasoning="high")
    assert body["output_config"]["effort"] == "high"
    assert body["output_config"]["format"]["type"] == "json_schema"


def test_a_schema_without_a_type_is_refused_before_sending() -> None:
    schema = {"type": "object", "properties": {"anything": {}}}
    with pytest.raises(llmkit.InvalidRequestError, match="says nothing about its type"):
        llmkit.build_request(
            MODEL, llmkit.Context(messages=[llmkit.user("x")]), api_key="k", response_format=schema
        )


def test_one_of_becomes_any_of_reported() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
        "required": ["v"],
        "additionalProperties": False,
    }
    body, diags = body_of(
        MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=schema
    )
    assert body["output_config"]["format"]["schema"]["properties"]["v"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }
    assert [d.details["change"] for d in diags] == ["one_of_to_any_of"]


# -- prompt caching ---------------------------------------------------------------------------


def test_cache_short_is_the_top_level_cache_control() -> None:
    body, diags = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), cache="short")
    assert body["cache_control"] == {"type": "ephemeral"}
    assert diags == []


def test_cache_points_mark_the_block_before_them_after_an_image() -> None:
    msg = llmkit.UserMessage(
        content=[
            llmkit.TextPart(text="Look:"),
            llmkit.user("", images=[PNG]).content[1],
            llmkit.CachePoint(),
            llmkit.TextPart(text="What is it?"),
        ]
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    blocks = body["messages"][0]["content"]
    assert [b["type"] for b in blocks] == ["text", "image", "text"]
    assert blocks[1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in blocks[0] and "cache_control" not in blocks[2]
    assert "cache_control" not in body and diags == []


def test_cache_long_puts_the_1h_ttl_on_every_breakpoint() -> None:
    msg = llmkit.UserMessage(content=[llmkit.TextPart(text="big prefix"), llmkit.CachePoint()])
    body, _ = body_of(MODEL, llmkit.Context(system="S", messages=[msg]), cache="long")
    one_hour = {"type": "ephemeral", "ttl": "1h"}
    assert body["cache_control"] == one_hour
    assert body["messages"][0]["content"][0]["cache_control"] == one_hour


def test_a_cache_point_first_in_the_conversation_caches_the_system_prompt() -> None:
    msg = llmkit.UserMessage(content=[llmkit.CachePoint(), llmkit.TextPart(text="hi")])
    body, _ = body_of(MODEL, llmkit.Context(system="Long rules", messages=[msg]))
    assert body["system"] == [
        {"type": "text", "text": "Long rules", "cache_control": {"type": "ephemeral"}}
    ]
    # ... and with tools but no system prompt, the last tool
    body, _ = body_of(MODEL, llmkit.Context(messages=[msg], tools=[WEATHER]))
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "system" not in body


def test_more_than_four_breakpoints_keep_the_latest_and_report_the_rest() -> None:
    messages: list[Any] = []
    for i in range(6):
        messages.append(
            llmkit.UserMessage(content=[llmkit.TextPart(text=f"q{i}"), llmkit.CachePoint()])
        )
        messages.append(llmkit.AssistantMessage(content=[llmkit.TextPart(text=f"a{i}")]))
    messages.append(llmkit.user("last"))
    body, diags = body_of(MODEL, llmkit.Context(messages=messages), cache="short")
    marked = [b["text"] for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert marked == ["q3", "q4", "q5"]  # 3 explicit + the top-level one = 4
    [report] = [d for d in diags if d.kind == "option_unsupported"]
    assert report.details == {"option": "CachePoint", "dropped": 3}


def test_cache_off_sends_no_cache_control_and_says_so() -> None:
    msg = llmkit.UserMessage(content=[llmkit.TextPart(text="x"), llmkit.CachePoint()])
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]), cache="off")
    assert "cache_control" not in json.dumps(body)
    assert kinds(diags) == ["option_unsupported"] and diags[0].details["dropped"] == 1


def test_cache_points_inside_a_tool_result_and_no_empty_block_is_marked() -> None:
    c = call()
    result = llmkit.ToolResultMessage(
        tool_call_id=c.id,
        tool_name=c.name,
        content=[llmkit.TextPart(text=""), llmkit.CachePoint()],
    )
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn(c), result], tools=[WEATHER])
    body, _ = body_of(MODEL, ctx)
    block = body["messages"][2]["content"][0]
    # The empty text is not sent (Anthropic refuses it), so the tool_result block is marked.
    assert block == {
        "type": "tool_result",
        "tool_use_id": c.id,
        "cache_control": {"type": "ephemeral"},
    }


def test_cache_key_is_reported_on_anthropic() -> None:
    body, diags = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), cache_key="user-1")
    assert "cache_key" not in json.dumps(body) and diags[0].details["option"] == "cache_key"


def test_bad_cache_values_are_refused() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    with pytest.raises(llmkit.InvalidRequestError, match=r"cache=.forever. is not valid"):
        llmkit.build_request(MODEL, ctx, api_key="k", cache="forever")
    with pytest.raises(llmkit.InvalidRequestError, match="cache_key"):
        llmkit.build_request(MODEL, ctx, api_key="k", cache_key="")
    with pytest.raises(llmkit.InvalidRequestError, match="stream_tool_arguments"):
        llmkit.build_request(MODEL, ctx, api_key="k", stream_tool_arguments="yes")


# -- documents --------------------------------------------------------------------------------


def test_documents_are_document_blocks() -> None:
    msg = llmkit.user(
        "Summarise",
        documents=[
            PDF,
            "https://example.com/paper.pdf",
            llmkit.DocumentPart(text="# Notes", media_type="text/markdown", title="notes.md"),
        ],
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    assert body["messages"][0]["content"][1:] == [
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        },
        {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "# Notes"},
            "title": "notes.md",
        },
    ]
    assert diags == []


def test_documents_inside_tool_results_with_a_cache_point() -> None:
    c = call()
    result = llmkit.tool_result(c, "the report", documents=[PDF])
    result.content.append(llmkit.CachePoint())
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn(c), result], tools=[WEATHER])
    body, _ = body_of(MODEL, ctx)
    block = body["messages"][2]["content"][0]
    assert block["type"] == "tool_result"
    assert [b["type"] for b in block["content"]] == ["text", "document"]
    assert block["content"][1]["cache_control"] == {"type": "ephemeral"}


def test_a_pdf_to_a_text_only_model_is_a_placeholder_reported() -> None:
    body, diags = body_of(TEXT_ONLY, llmkit.Context(messages=[llmkit.user("x", documents=[PDF])]))
    assert body["messages"][0]["content"][1]["type"] == "text"
    assert "document omitted" in body["messages"][0]["content"][1]["text"]
    assert kinds(diags) == ["document_omitted"]
    # a text document is text: every model reads it
    text = llmkit.DocumentPart(text="plain")
    _, diags = body_of(TEXT_ONLY, llmkit.Context(messages=[llmkit.user("x", documents=[text])]))
    assert diags == []


# -- tools ------------------------------------------------------------------------------------


def test_stream_tool_arguments_is_eager_input_streaming_per_tool() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, SEARCH])
    body, diags = body_of(MODEL, ctx, stream_tool_arguments=True)
    assert body["tools"][0]["eager_input_streaming"] is True
    assert "eager_input_streaming" not in body["tools"][1]  # a server tool's spec is verbatim
    assert diags == []
    old = MODEL.model_copy(update={"id": "claude-3-7-sonnet"})
    body, diags = body_of(old, ctx, stream_tool_arguments=True)
    assert "eager_input_streaming" not in json.dumps(body)
    assert diags[0].details["option"] == "stream_tool_arguments"


def test_provider_tools_next_to_function_tools_with_tool_choice() -> None:
    other = llmkit.ProviderTool("openai-responses", {"type": "web_search"})
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, SEARCH, other])
    body, diags = body_of(MODEL, ctx, tool_choice="required")
    assert body["tools"][1] == SEARCH.spec and len(body["tools"]) == 2
    assert body["tool_choice"] == {"type": "any"}
    [left_out] = diags
    assert left_out.kind == "option_unsupported" and left_out.details["api"] == "openai-responses"
    body, _ = body_of(MODEL, ctx, tool_choice={"name": "web_search"})  # a named server tool
    assert body["tool_choice"] == {"type": "tool", "name": "web_search"}
    assert SEARCH.spec == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}


def test_a_provider_tool_may_not_share_a_function_tools_name() -> None:
    clash = llmkit.ProviderTool(
        "anthropic-messages", {"type": "web_search_20250305", "name": "get_weather"}
    )
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, clash])
    with pytest.raises(llmkit.InvalidRequestError, match="share"):
        llmkit.build_request(MODEL, ctx, api_key="k")


def test_forced_tool_use_on_a_model_that_refuses_it_is_sent_as_auto() -> None:
    sonnet = llmkit.get_model("anthropic", "claude-sonnet-5-5")
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    for choice in ("required", {"name": "get_weather"}):
        body, diags = body_of(sonnet, ctx, tool_choice=choice)
        assert body["tool_choice"] == {"type": "auto"}
        assert [d.details.get("sent") for d in diags] == ["auto"]


def test_a_whitespace_only_text_block_never_carries_a_breakpoint() -> None:
    # Found by the request fuzzer: "\x0c" is sent (it is not empty), but Anthropic takes a
    # whitespace-only block as empty and refuses cache_control on it; the block before is used.
    msg = llmkit.UserMessage(
        content=[llmkit.TextPart(text="real"), llmkit.TextPart(text="\x0c"), llmkit.CachePoint()]
    )
    body, _ = body_of(MODEL, llmkit.Context(messages=[msg]))
    blocks = body["messages"][0]["content"]
    assert blocks[0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in blocks[1]
