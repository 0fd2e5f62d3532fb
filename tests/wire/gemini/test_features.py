"""The production features on gemini (docs/design.md §5), every body validated strictly against
google-genai's types (they forbid unknown fields): ``responseMimeType`` + ``responseJsonSchema``,
``inlineData`` / ``fileData`` documents (in function responses too), hosted tools such as
``google_search`` next to function declarations, ``streamFunctionCallArguments`` on Vertex only,
hosted-tool parts replayed to the same model, and the caching options Gemini has no field for."""

from __future__ import annotations

import base64
import json
from typing import Any

from pydantic import BaseModel

import llmkit
from tests.support.sdk import validate_gemini

MODEL = llmkit.get_model("google", "gemini-3.8-flash")
VERTEX = MODEL.model_copy(
    update={
        "base_url": "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google"
    }
)
TEXT_ONLY = MODEL.model_copy(update={"input": ["text", "image"]})
PDF = b"%PDF-1.7\n%fake\n"
PDF_B64 = base64.b64encode(PDF).decode()
WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)
SEARCH = llmkit.ProviderTool("gemini", {"google_search": {}})


def body_of(
    model: llmkit.Model, context: llmkit.Context, **options: Any
) -> tuple[dict[str, Any], list[llmkit.Diagnostic]]:
    request = llmkit.build_request(model, context, api_key="k", **options)
    body = json.loads(request.content)
    validate_gemini(body)
    return body, request.extensions["llmkit.diagnostics"]


class Answer(BaseModel):
    city: str


def test_response_format_is_a_json_mime_type_and_schema() -> None:
    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")]), response_format=Answer)
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == Answer.model_json_schema()


def test_documents_are_inline_data_and_file_data() -> None:
    msg = llmkit.user(
        "Read", documents=[PDF, "https://example.com/a.pdf", llmkit.DocumentPart(text="notes")]
    )
    body, diags = body_of(MODEL, llmkit.Context(messages=[msg]))
    assert body["contents"][0]["parts"][1:] == [
        {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"}},
        {"text": "notes"},
    ]
    assert diags == []
    body, diags = body_of(TEXT_ONLY, llmkit.Context(messages=[msg]))
    assert [d.kind for d in diags] == ["document_omitted", "document_omitted"]


def test_documents_in_a_function_response_follow_it() -> None:
    c = llmkit.ToolCall(id="c1", name="get_weather", arguments={}, raw_arguments="{}")
    turn = llmkit.AssistantMessage(content=[c], provider="google", api="gemini", model=MODEL.id)
    result = llmkit.tool_result(c, "report", documents=[PDF, llmkit.DocumentPart(text="log")])
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn, result], tools=[WEATHER])
    body, _ = body_of(MODEL, ctx)
    parts = body["contents"][2]["parts"]
    assert parts[0]["functionResponse"]["response"] == {"output": "report\n\nlog"}
    assert parts[2] == {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}}


def test_hosted_tools_next_to_function_declarations_with_tool_choice() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER, SEARCH])
    body, diags = body_of(MODEL, ctx, tool_choice="required")
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {"name": "get_weather", "parametersJsonSchema": WEATHER.parameters}
            ]
        },
        {"google_search": {}},
    ]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert diags == []
    # a hosted tool alone is a request with tools
    body, _ = body_of(MODEL, llmkit.Context(messages=[llmkit.user("x")], tools=[SEARCH]))
    assert body["tools"] == [{"google_search": {}}]


def test_stream_function_call_arguments_only_on_vertex() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")], tools=[WEATHER])
    body, diags = body_of(VERTEX, ctx, stream_tool_arguments=True)
    assert body["toolConfig"]["functionCallingConfig"]["streamFunctionCallArguments"] is True
    assert diags == []
    body, diags = body_of(MODEL, ctx, stream_tool_arguments=True)
    assert "toolConfig" not in body
    assert [d.details["option"] for d in diags] == ["stream_tool_arguments"]


def test_hosted_tool_parts_replay_to_the_same_model() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}}
    turn = llmkit.AssistantMessage(
        content=[
            llmkit.ThinkingPart(replay={"gemini": "part", "part": code}),
            llmkit.ThinkingPart(replay={"gemini": "part", "part": result}),
            llmkit.TextPart(text="It is 4."),
        ],
        provider=MODEL.provider,
        api=MODEL.api,
        model=MODEL.id,
    )
    ctx = llmkit.Context(messages=[llmkit.user("2+2?"), turn, llmkit.user("thanks")])
    body, diags = body_of(MODEL, ctx)
    assert body["contents"][1]["parts"] == [code, result, {"text": "It is 4."}]
    assert diags == []
    other = MODEL.model_copy(update={"id": "gemini-3.7-flash"})
    body, diags = body_of(other, ctx)
    assert body["contents"][1]["parts"] == [{"text": "It is 4."}]
    assert [d.kind for d in diags] == ["thinking_dropped"]


def test_caching_options_gemini_has_no_field_for_are_reported() -> None:
    msg = llmkit.UserMessage(content=[llmkit.TextPart(text="x"), llmkit.CachePoint()])
    ctx = llmkit.Context(messages=[msg])
    body, diags = body_of(MODEL, ctx, cache="short")
    assert body["contents"][0]["parts"] == [{"text": "x"}] and diags == []  # implicit caching
    body, diags = body_of(MODEL, ctx, cache="long", cache_key="k")
    assert sorted(d.details["option"] for d in diags) == ["cache='long'", "cache_key"]
