"""Round trips of the production features (docs/design.md §5): a Context holding documents, cache
points, provider tools and hosted-tool output (decoded from real recordings where the corpus has
them) survives ``model_dump_json`` / ``model_validate_json`` and replays to the same model
byte-for-byte equal, with the hosted-tool blocks and items sent back verbatim and in order."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import llmkit
from tests.support.corpus import FIXTURES, load_exchanges
from tests.support.helpers import consume
from tests.support.sdk import ANTHROPIC_PARAMS, CHAT_PARAMS, RESPONSES_PARAMS, validate_gemini

PDF = b"%PDF-1.7\n%fake\n"


def decoded(path: str, model: llmkit.Model, index: int = 0) -> llmkit.AssistantMessage:
    """The message llmkit decodes from one recorded response."""
    exchange = [e for e in load_exchanges(FIXTURES / path) if e.is_sse][index]
    events = list(llmkit.parse_stream(model, [exchange.body]))
    assert isinstance(events[-1], llmkit.Done), events[-1]
    return events[-1].message


def conversation(reply: llmkit.AssistantMessage, tools: list[Any]) -> llmkit.Context:
    first = llmkit.user("Read this and search.", documents=[PDF, llmkit.DocumentPart(text="notes")])
    first.content.append(llmkit.CachePoint())
    return llmkit.Context(
        system="Be brief.",
        messages=[first, reply, llmkit.user("Go on.")],
        tools=tools,
    )


def validate(model: llmkit.Model, body: dict[str, Any]) -> None:
    if model.api == "anthropic-messages":
        consume(ANTHROPIC_PARAMS.validate_python(body))
    elif model.api == "openai-responses":
        consume(RESPONSES_PARAMS.validate_python(body))
    elif model.api == "openai-chat":
        consume(CHAT_PARAMS.validate_python(body))
    else:
        validate_gemini(body)


def round_trip(model: llmkit.Model, context: llmkit.Context) -> dict[str, Any]:
    """The request body, after checking it is the same from the JSON copy of the Context."""
    text = context.model_dump_json()
    again = llmkit.Context.model_validate_json(text)
    assert again == context and again.model_dump_json() == text
    a = llmkit.build_request(model, context, api_key="k", cache="short")
    b = llmkit.build_request(model, again, api_key="k", cache="short")
    assert a.content == b.content  # byte for byte
    assert a.extensions["llmkit.diagnostics"] == b.extensions["llmkit.diagnostics"]
    body: dict[str, Any] = json.loads(a.content)
    validate(model, body)
    return body


ANTHROPIC = llmkit.Model(
    provider="anthropic",
    id="claude-sonnet-4-5",
    api="anthropic-messages",
    max_output_tokens=64000,
    input=["text", "image", "pdf"],
)


@pytest.mark.parametrize(
    "path",
    [
        "anthropic-messages/pydantic-ai__test_anthropic_code_execution_tool_stream.yaml",
        "anthropic-messages/vercel-ai__anthropic-code-execution-20250825.2.chunks.txt",
    ],
)
def test_anthropic_server_tool_blocks_replay_verbatim(path: str) -> None:
    reply = decoded(path, ANTHROPIC)
    blocks = [
        p.replay["block"]
        for p in reply.content
        if isinstance(p, llmkit.ThinkingPart) and p.replay and "block" in p.replay
    ]
    assert blocks, "the recording has server-tool blocks"
    code = llmkit.ProviderTool(
        "anthropic-messages", {"type": "code_execution_20250825", "name": "code_execution"}
    )
    body = round_trip(ANTHROPIC, conversation(reply, [code]))
    sent = [
        b
        for b in body["messages"][1]["content"]
        if b["type"] not in ("text", "tool_use", "thinking")
    ]
    assert sent == blocks  # verbatim, in order
    assert body["tools"] == [code.spec]
    first = body["messages"][0]["content"]
    assert [b["type"] for b in first] == ["text", "document", "document"]
    assert first[-1]["cache_control"] == {"type": "ephemeral"}


RESPONSES = llmkit.Model(
    provider="openai",
    id="gpt-5",
    api="openai-responses",
    input=["text", "image", "pdf"],
    reasoning=True,
)


def test_responses_hosted_items_replay_verbatim() -> None:
    path = "openai-responses/vercel-ai__openai-image-generation-tool.1.chunks.txt"
    model = RESPONSES.model_copy(update={"id": _recorded_model(path)})
    reply = decoded(path, model)
    items = [
        p.replay["item"]
        for p in reply.content
        if isinstance(p, llmkit.ThinkingPart) and p.replay and "item" in p.replay
    ]
    assert [i["type"] for i in items] == ["image_generation_call"]
    assert items[0]["status"] == "completed" and items[0]["result"]
    image = llmkit.ProviderTool("openai-responses", {"type": "image_generation"})
    body = round_trip(model, conversation(reply, [image]))
    assert [i for i in body["input"] if i.get("type") == "image_generation_call"] == items
    assert body["input"][0]["content"][1]["type"] == "input_file"
    assert body["tools"] == [image.spec]


def _recorded_model(path: str) -> str:
    for line in (FIXTURES / path).read_text("utf-8").splitlines():
        event = json.loads(line)
        model = (event.get("response") or {}).get("model")
        if model:
            return str(model)
    raise AssertionError("no model in the recording")


GEMINI = llmkit.get_model("google", "gemini-3.8-flash")


def test_gemini_hosted_parts_and_grounding_are_kept() -> None:
    signature = base64.b64encode(b"sig").decode()
    chunks = [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "executableCode": {"language": "PYTHON", "code": "print(6*7)"},
                                "thoughtSignature": signature,
                            }
                        ],
                    }
                }
            ],
            "responseId": "r1",
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}}
                        ],
                    }
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "It is 42."}]},
                    "finishReason": "STOP",
                    "groundingMetadata": {
                        "webSearchQueries": ["six times seven"],
                        "groundingChunks": [{"web": {"uri": "https://example.com", "title": "ex"}}],
                    },
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 5,
                "candidatesTokenCount": 7,
                "totalTokenCount": 12,
            },
        },
    ]
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
    events = list(llmkit.parse_stream(GEMINI, [raw]))
    reply = events[-1].message
    assert reply.provider_data == {
        "grounding_metadata": chunks[2]["candidates"][0]["groundingMetadata"]
    }
    assert [d.kind for d in reply.diagnostics] == []
    search = llmkit.ProviderTool("gemini", {"code_execution": {}})
    body = round_trip(GEMINI, conversation(reply, [search]))
    assert body["contents"][1]["parts"] == [
        chunks[0]["candidates"][0]["content"]["parts"][0],
        chunks[1]["candidates"][0]["content"]["parts"][0],
        {"text": "It is 42."},
    ]
    assert body["tools"] == [{"code_execution": {}}]


def test_a_context_of_every_new_part_round_trips_exactly() -> None:
    call = llmkit.ToolCall(
        id="call_1", name="lookup", arguments={"q": "x"}, raw_arguments='{"q": "x"}'
    )
    result = llmkit.tool_result(call, "found", documents=[PDF, "https://example.com/a.pdf"])
    result.content.append(llmkit.CachePoint())
    context = llmkit.Context(
        messages=[
            llmkit.user(
                "q",
                documents=[llmkit.DocumentPart(text="t", media_type="text/markdown", title="t.md")],
            ),
            llmkit.AssistantMessage(content=[call], stop_reason="tool_use"),
            result,
        ],
        tools=[
            llmkit.Tool(
                name="lookup",
                parameters={"type": "object", "properties": {"q": {"type": "string"}}},
            ),
            llmkit.ProviderTool("gemini", {"google_search": {}}),
            llmkit.ProviderTool(
                api="anthropic-messages", spec={"type": "web_search_20250305", "name": "web_search"}
            ),
        ],
    )
    again = llmkit.Context.model_validate_json(context.model_dump_json())
    assert again == context
    assert [type(t).__name__ for t in again.tools] == ["Tool", "ProviderTool", "ProviderTool"]
    assert isinstance(again.messages[2].content[-1], llmkit.CachePoint)
    for model in (ANTHROPIC, RESPONSES, GEMINI, llmkit.get_model("openai", "gpt-4.1")):
        round_trip(model, context)
