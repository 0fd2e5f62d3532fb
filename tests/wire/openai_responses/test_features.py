"""The production features on openai-responses (docs/design.md §5), every body validated against the
official openai SDK's ``ResponseCreateParams`` types, unknown keys included: ``text.format``,
``input_file`` documents (inline and by URL, inside tool outputs too), the prompt-cache fields
and explicit breakpoints, hosted tools next to function tools, and hosted-tool items replayed
verbatim to the same model only."""

from __future__ import annotations

import base64
import json
from functools import partial

from pydantic import BaseModel

import llmkit
from tests.support.bodies import sent
from tests.support.sdk import RESPONSES_PARAMS

MODEL = llmkit.get_model("openai", "gpt-6.1-sol")  # explicit breakpoints, pdf input
OLDER = MODEL.model_copy(update={"cache_points": False})
PDF = b"%PDF-1.7\n%fake\n"
PDF_URL = f"data:application/pdf;base64,{base64.b64encode(PDF).decode()}"
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)
SEARCH = llmkit.ProviderTool("openai-responses", {"type": "web_search"})
SEARCH_ITEM = {
    "type": "web_search_call",
    "id": "ws_0a1b2c",
    "status": "completed",
    "action": {"type": "search", "query": "weather Oslo"},
}


body_of = partial(sent, RESPONSES_PARAMS)


class Answer(BaseModel):
    city: str


def test_response_format_is_text_format() -> None:
    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer)
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["name"], fmt["strict"]) == ("json_schema", "Answer", True)
    assert fmt["schema"]["additionalProperties"] is False


def test_documents_are_input_files() -> None:
    msg = llmkit.user(
        "Read",
        documents=[PDF, "https://example.com/a.pdf", llmkit.DocumentPart(text="notes")],
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    assert body["input"][0]["content"][1:] == [
        {"type": "input_file", "filename": "document.pdf", "file_data": PDF_URL},
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
        {"type": "input_text", "text": "notes"},
    ]
    assert diags == []


def test_documents_inside_tool_outputs() -> None:
    c = llmkit.ToolCall(id="call_1", name="get_weather", arguments={}, raw_arguments="{}")
    turn = llmkit.AssistantMessage(content=[c], stop_reason="tool_use")
    result = llmkit.tool_result(c, "report:", documents=[PDF])
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn, result], tools=[WEATHER])
    body, _ = body_of(MODEL, ctx)
    output = body["input"][-1]
    assert output["type"] == "function_call_output"
    assert output["output"] == [
        {"type": "input_text", "text": "report:"},
        {"type": "input_file", "filename": "document.pdf", "file_data": PDF_URL},
    ]


def test_cache_fields_and_breakpoints() -> None:
    msg = llmkit.UserMessage(
        content=[
            llmkit.TextPart(text="long prefix"),
            llmkit.CachePoint(),
            llmkit.TextPart(text="q"),
        ]
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]), cache="long", cache_key="k1")
    assert body["prompt_cache_key"] == "k1" and body["prompt_cache_retention"] == "24h"
    assert body["input"][0]["content"][0]["prompt_cache_breakpoint"] == {
        "mode": "explicit",
        "ttl": "12h",
    }
    assert diags == []
    # without explicit breakpoints the message stays a plain string
    body, diags = body_of(OLDER, llmkit.Context(messages=[msg]))
    assert body["input"][0]["content"] == "long prefixq" and diags == []


def test_a_cache_point_with_nothing_before_it_in_its_message_is_reported() -> None:
    msg = llmkit.UserMessage(content=[llmkit.CachePoint(), llmkit.TextPart(text="q")])
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    assert "prompt_cache_breakpoint" not in json.dumps(body)
    assert diags[0].details == {"option": "CachePoint", "dropped": 1}


def test_hosted_tools_next_to_function_tools_with_tool_choice() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, SEARCH])
    body, diags = body_of(MODEL, ctx, tool_choice="required")
    assert body["tools"][1] == {"type": "web_search"}
    assert body["tool_choice"] == "required" and diags == []


def test_hosted_tool_items_replay_verbatim_to_the_same_model_only() -> None:
    item = llmkit.ThinkingPart(replay={"item": SEARCH_ITEM})
    turn = llmkit.AssistantMessage(
        content=[item, llmkit.TextPart(text="Sunny.")],
        provider=MODEL.provider,
        api=MODEL.api,
        model=MODEL.id,
    )
    ctx = llmkit.Context(
        messages=[llmkit.user("weather?"), turn, llmkit.user("thanks")], tools=[SEARCH]
    )
    body, diags = body_of(MODEL, ctx)
    assert body["input"][1] == SEARCH_ITEM
    assert body["input"][2] == {"role": "assistant", "content": "Sunny."}
    assert diags == []
    other = MODEL.model_copy(update={"id": "gpt-6.2-sol"})
    body, diags = body_of(other, ctx)
    assert SEARCH_ITEM not in body["input"]
    assert [d.kind for d in diags] == ["thinking_dropped"]
