"""Citations: a text part's sources, from every wire, whole and streamed, and sent back verbatim.

(``tests/test_citations.py`` is about something else: the quirk ids the repository cites.)

Bodies are shaped as the providers document them and, where the SDK has a response model, are
validated against it first; streams are re-split at random byte offsets
(:func:`tests.support.helpers.replay`); a message built from them goes back through
``build_request`` to the same model, whose body the SDK's request type accepts with the
citations as that type takes them.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic.types as at
from botocore.validate import ParamValidator
from pydantic import TypeAdapter

import llmkit
from tests.support.helpers import chunk, consume, replay, sse
from tests.support.sdk import ANTHROPIC_PARAMS, CHAT_PARAMS, RESPONSES_PARAMS

# -- Anthropic Messages ------------------------------------------------------------------------

CLAUDE = llmkit.Model(
    provider="anthropic", id="claude-sonnet-4-5", api="anthropic-messages", max_output_tokens=8192
)

# One citation of every location type, as the Messages API sends them in a response.
ANTHROPIC_CITATIONS: list[dict[str, Any]] = [
    {
        "type": "char_location",
        "cited_text": "The grass is green.",
        "document_index": 0,
        "document_title": "Nature facts",
        "start_char_index": 0,
        "end_char_index": 20,
        "file_id": None,
    },
    {
        "type": "page_location",
        "cited_text": "Revenue grew 12%.",
        "document_index": 1,
        "document_title": "Annual report",
        "start_page_number": 3,
        "end_page_number": 4,
        "file_id": "file_011CNha8iCJcU1wXNR6q4V8w",
    },
    {
        "type": "content_block_location",
        "cited_text": "Water boils at 100 C.",
        "document_index": 2,
        "document_title": None,
        "start_block_index": 1,
        "end_block_index": 2,
    },
    {
        "type": "search_result_location",
        "cited_text": "Claude can cite search results.",
        "search_result_index": 0,
        "source": "https://docs.example.com/search-results",
        "title": "Search results",
        "start_block_index": 0,
        "end_block_index": 1,
    },
    {
        "type": "web_search_result_location",
        "cited_text": "Python 3.14 was released in October 2025.",
        "encrypted_index": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNy1jNjNjNzYwZDMxNmM=",
        "title": "What's new in Python 3.14",
        "url": "https://docs.python.org/3/whatsnew/3.14.html",
    },
]
RESPONSE_ONLY = {"file_id"}  # in the response types, not in TextCitationParam


def anthropic_body() -> dict[str, Any]:
    return {
        "id": "msg_01Cite",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "According to the sources, ", "citations": None},
            {"type": "text", "text": "several facts hold.", "citations": ANTHROPIC_CITATIONS},
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }


def anthropic_stream() -> tuple[bytes, list[dict[str, Any]]]:
    def ev(payload: dict[str, Any]) -> str:
        return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n"

    message = {**anthropic_body(), "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": "", "citations": []},
        },
    ]
    for n, cited in enumerate(ANTHROPIC_CITATIONS):
        events.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "citations_delta", "citation": cited},
            }
        )
        events.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": f"fact {n}. "},
            }
        )
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 30},
        },
        {"type": "message_stop"},
    ]
    return "".join(map(ev, events)).encode(), events


def check_anthropic_citations(citations: list[llmkit.Citation]) -> None:
    assert [c.provider_data for c in citations] == ANTHROPIC_CITATIONS  # verbatim
    char, page, block, search, web = citations
    assert (char.cited_text, char.title, char.source) == ("The grass is green.", "Nature facts", 0)
    assert (page.title, page.source) == ("Annual report", 1)
    assert (block.title, block.source) == (None, 2)
    assert (search.title, search.source, search.url) == ("Search results", 0, None)
    assert web.url == "https://docs.python.org/3/whatsnew/3.14.html"
    assert web.title == "What's new in Python 3.14" and web.source is None
    # Anthropic gives no offsets in the answer's own text; document positions stay verbatim.
    assert all(c.start is None and c.end is None for c in citations)


def sent_citations(model: llmkit.Model, message: llmkit.AssistantMessage) -> list[Any]:
    context = llmkit.Context(messages=[llmkit.user("Cite."), message, llmkit.user("More?")])
    body = json.loads(llmkit.build_request(model, context, api_key="k").content)
    consume(ANTHROPIC_PARAMS.validate_python(body))
    return [
        block.get("citations")
        for m in body["messages"]
        if m["role"] == "assistant"
        for block in m["content"]
        if block["type"] == "text"
    ]


def test_anthropic_whole_body_citations_of_every_location_type() -> None:
    body = anthropic_body()
    at.Message.model_validate(body)  # the SDK's own response model accepts the body
    message = llmkit.parse_response(CLAUDE, body)
    first, second = message.content
    assert isinstance(first, llmkit.TextPart) and first.citations == []
    assert isinstance(second, llmkit.TextPart) and second.text == "several facts hold."
    check_anthropic_citations(second.citations)
    assert message.diagnostics == []
    # The transcript keeps them; a part without citations serialises as before.
    again = llmkit.AssistantMessage.model_validate_json(message.model_dump_json())
    assert again == message
    assert "citations" not in first.model_dump_json()


def test_anthropic_streamed_citations_deltas_reach_text_end_and_the_part() -> None:
    body, events = anthropic_stream()
    stream_event: TypeAdapter[Any] = TypeAdapter(at.RawMessageStreamEvent)
    for payload in events:
        stream_event.validate_python(payload)
    out = replay(body, CLAUDE)
    (end,) = [e for e in out if isinstance(e, llmkit.TextEnd)]
    check_anthropic_citations(end.citations)
    message = out[-1].message  # type: ignore[union-attr]
    (part,) = message.content
    assert isinstance(part, llmkit.TextPart) and part.citations == end.citations
    assert part.text == "fact 0. fact 1. fact 2. fact 3. fact 4. "
    assert message.diagnostics == []  # no longer an ignored delta type


def test_anthropic_citations_go_back_to_the_same_model_as_the_request_takes_them() -> None:
    message = llmkit.parse_response(CLAUDE, anthropic_body())
    expected = [{k: v for k, v in c.items() if k not in RESPONSE_ONLY} for c in ANTHROPIC_CITATIONS]
    assert sent_citations(CLAUDE, message) == [None, expected]
    # Each one is a TextCitationParam as the SDK defines it (and nothing more).
    param: TypeAdapter[Any] = TypeAdapter(at.TextCitationParam)
    for cited in expected:
        assert param.validate_python(cited) == cited
    # Another model gets the text alone: the citations point into documents it never saw.
    other = CLAUDE.model_copy(update={"id": "claude-opus-4-1"})
    assert sent_citations(other, message) == [None, None]


def test_a_citations_delta_outside_a_text_block_is_not_a_citation() -> None:
    body = (
        "event: message_start\ndata: "
        + json.dumps({"type": "message_start", "message": {**anthropic_body(), "content": []}})
        + "\n\nevent: content_block_delta\ndata: "
        + json.dumps(
            {
                "type": "content_block_delta",
                "index": 3,
                "delta": {"type": "citations_delta", "citation": ANTHROPIC_CITATIONS[0]},
            }
        )
        + '\n\nevent: message_stop\ndata: {"type": "message_stop"}\n\n'
    ).encode()
    message = replay(body, CLAUDE)[-1].message  # type: ignore[union-attr]
    assert message.content == []
    assert [d.kind for d in message.diagnostics] == ["event_unknown"]


# -- OpenAI Responses --------------------------------------------------------------------------

GPT = llmkit.Model(provider="openai", id="gpt-5", api="openai-responses")
RESPONSES_TEXT = "Python 3.14 is out. See the report and chart."
RESPONSES_ANNOTATIONS: list[dict[str, Any]] = [
    {
        "type": "url_citation",
        "url": "https://docs.python.org/3/whatsnew/3.14.html",
        "title": "What's new in Python 3.14",
        "start_index": 0,
        "end_index": 19,
    },
    {
        "type": "file_citation",
        "file_id": "file-2dtbBZdjtDKS8eqWxqbgDi",
        "filename": "report.pdf",
        "index": 28,
    },
    {
        "type": "container_file_citation",
        "container_id": "cntr_682d0e7318108198aa783fd921ff305e",
        "file_id": "cfile_682d0e8a0ef081988e7b29c7ac5fbe4c",
        "filename": "chart.png",
        "start_index": 39,
        "end_index": 44,
    },
    {"type": "file_path", "file_id": "file-9GaNU8VqLvjXk2FsG9rP4h", "index": 44},
]


def responses_body(first: str = "") -> dict[str, Any]:
    """A response whose message has two output_text parts: ``first`` (uncited) then the cited
    text, so that the citations' offsets move by ``len(first)`` into the whole part."""
    content = [{"type": "output_text", "text": first, "annotations": []}] if first else []
    content.append(
        {"type": "output_text", "text": RESPONSES_TEXT, "annotations": RESPONSES_ANNOTATIONS}
    )
    return {
        "id": "resp_68af",
        "object": "response",
        "created_at": 1756000000,
        "status": "completed",
        "model": "gpt-5",
        "output": [
            {
                "type": "message",
                "id": "msg_68af01",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 50,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 70,
        },
    }


def check_responses_citations(citations: list[llmkit.Citation], text: str, shift: int = 0) -> None:
    assert [c.provider_data for c in citations] == RESPONSES_ANNOTATIONS  # verbatim
    url, file, container, path = citations
    assert url.url == "https://docs.python.org/3/whatsnew/3.14.html"
    assert (url.start, url.end) == (shift, shift + 19)
    assert text[url.start : url.end] == "Python 3.14 is out."
    assert (file.source, file.title, file.start) == (
        "file-2dtbBZdjtDKS8eqWxqbgDi",
        "report.pdf",
        None,
    )
    assert (container.source, container.title) == (
        "cfile_682d0e8a0ef081988e7b29c7ac5fbe4c",
        "chart.png",
    )
    assert text[container.start : container.end] == "chart"  # type: ignore[misc]
    assert (path.source, path.start) == ("file-9GaNU8VqLvjXk2FsG9rP4h", None)


def responses_sent(model: llmkit.Model, message: llmkit.AssistantMessage) -> list[Any]:
    from openai.types.responses import ResponseOutputMessageParam

    context = llmkit.Context(messages=[llmkit.user("Cite."), message, llmkit.user("More?")])
    body = json.loads(llmkit.build_request(model, context, api_key="k").content)
    consume(RESPONSES_PARAMS.validate_python(body))
    items = [i for i in body["input"] if i.get("role") == "assistant"]
    for item in items:
        if item.get("type") == "message":
            TypeAdapter(ResponseOutputMessageParam).validate_python(item)
    return items


def test_responses_whole_body_annotations_of_every_type() -> None:
    from openai.types.responses import Response

    for first in ("", "Short answer: "):
        body = responses_body(first)
        Response.model_validate(body)
        message = llmkit.parse_response(GPT, body)
        (part,) = message.content
        assert isinstance(part, llmkit.TextPart) and part.text == first + RESPONSES_TEXT
        check_responses_citations(part.citations, part.text, len(first))
        assert message.diagnostics == []
        assert (message.provider_data or {}).get("message_ids") == ["msg_68af01"]


def responses_stream(first: str = "") -> bytes:
    from openai.types.responses import ResponseStreamEvent

    body = responses_body(first)
    item = body["output"][0]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**body, "status": "in_progress", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
    ]
    for ci, part in enumerate(item["content"]):
        events.append(
            {
                "type": "response.content_part.added",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": ci,
                "part": {"type": "output_text", "text": "", "annotations": []},
            }
        )
        text = part["text"]
        for n, annotation in enumerate(part["annotations"]):
            piece, text = text[: len(text) // 2 or len(text)], text[len(text) // 2 or len(text) :]
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": ci,
                    "delta": piece,
                    "logprobs": [],
                }
            )
            events.append(
                {
                    "type": "response.output_text.annotation.added",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": ci,
                    "annotation_index": n,
                    "annotation": annotation,
                }
            )
        if text:
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": ci,
                    "delta": text,
                    "logprobs": [],
                }
            )
        events.append(
            {
                "type": "response.output_text.done",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": ci,
                "text": part["text"],
                "logprobs": [],
            }
        )
        events.append(
            {
                "type": "response.content_part.done",
                "item_id": item["id"],
                "output_index": 0,
                "content_index": ci,
                "part": part,
            }
        )
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": body},
    ]
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    out = []
    for seq, event in enumerate(events):
        event["sequence_number"] = seq
        adapter.validate_python(event)
        out.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
    return "".join(out).encode()


def test_responses_streamed_annotations_are_taken_once() -> None:
    for first in ("", "Short answer: "):
        out = replay(responses_stream(first), GPT)
        (end,) = [e for e in out if isinstance(e, llmkit.TextEnd)]
        check_responses_citations(end.citations, end.text, len(first))
        message = out[-1].message  # type: ignore[union-attr]
        (part,) = message.content
        assert part.citations == end.citations  # .done events repeat them: not taken twice
        assert message.diagnostics == []


def test_responses_citations_go_back_in_the_output_message() -> None:
    message = llmkit.parse_response(GPT, responses_body("Short answer: "))
    (item,) = responses_sent(GPT, message)
    assert item["id"] == "msg_68af01" and item["type"] == "message"
    (content,) = item["content"]
    assert content["text"] == "Short answer: " + RESPONSES_TEXT
    sent = content["annotations"]
    assert [a["type"] for a in sent] == [a["type"] for a in RESPONSES_ANNOTATIONS]
    # the offsets are in the one output_text sent back
    assert content["text"][sent[0]["start_index"] : sent[0]["end_index"]] == "Python 3.14 is out."
    assert sent[1] == RESPONSES_ANNOTATIONS[1]
    # another model: plain text
    other = GPT.model_copy(update={"id": "gpt-5-mini"})
    assert responses_sent(other, message) == [{"role": "assistant", "content": content["text"]}]


# -- OpenAI Chat -------------------------------------------------------------------------------

SEARCH_PREVIEW = llmkit.Model(provider="openai", id="gpt-4o-search-preview", api="openai-chat")
CHAT_TEXT = "The 2026 Winter Olympics are in Milan and Cortina."
CHAT_ANNOTATIONS: list[dict[str, Any]] = [
    {
        "type": "url_citation",
        "url_citation": {
            "url": "https://www.olympics.com/en/milano-cortina-2026",
            "title": "Milano Cortina 2026",
            "start_index": 0,
            "end_index": 50,
        },
    },
    {
        "type": "url_citation",
        "url_citation": {
            "url": "https://en.wikipedia.org/wiki/2026_Winter_Olympics",
            "title": "2026 Winter Olympics",
            "start_index": 32,
            "end_index": 50,
        },
    },
]


def check_chat_citations(citations: list[llmkit.Citation], text: str) -> None:
    assert [c.provider_data for c in citations] == CHAT_ANNOTATIONS
    first, second = citations
    assert first.url == "https://www.olympics.com/en/milano-cortina-2026"
    assert first.title == "Milano Cortina 2026"
    assert text[second.start : second.end] == "Milan and Cortina."  # type: ignore[misc]


def test_chat_whole_body_annotations() -> None:
    from openai.types.chat import ChatCompletion

    body = {
        "id": "chatcmpl-search",
        "object": "chat.completion",
        "created": 1756000000,
        "model": "gpt-4o-search-preview",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": CHAT_TEXT,
                    "refusal": None,
                    "annotations": CHAT_ANNOTATIONS,
                },
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21},
    }
    ChatCompletion.model_validate(body)
    message = llmkit.parse_response(SEARCH_PREVIEW, body)
    (part,) = message.content
    assert isinstance(part, llmkit.TextPart) and part.text == CHAT_TEXT
    check_chat_citations(part.citations, part.text)
    assert message.diagnostics == []
    # Chat's assistant message takes no annotations: the text goes back alone.
    context = llmkit.Context(messages=[llmkit.user("Where?"), message, llmkit.user("When?")])
    sent = json.loads(llmkit.build_request(SEARCH_PREVIEW, context, api_key="k").content)
    consume(CHAT_PARAMS.validate_python(sent))
    assert sent["messages"][1] == {"role": "assistant", "content": CHAT_TEXT}


def test_chat_streamed_annotations_taken_once() -> None:
    body = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": CHAT_TEXT[:20]}),
        chunk({"content": CHAT_TEXT[20:]}),
        chunk({"annotations": CHAT_ANNOTATIONS[:1]}),
        chunk({"annotations": CHAT_ANNOTATIONS}),  # OpenRouter repeats what it sent
        chunk(finish="stop"),
        chunk(choices=[], usage={"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}),
    )
    out = replay(body, SEARCH_PREVIEW)
    (end,) = [e for e in out if isinstance(e, llmkit.TextEnd)]
    check_chat_citations(end.citations, end.text)
    message = out[-1].message  # type: ignore[union-attr]
    assert message.content[0].citations == end.citations
    assert message.diagnostics == []


# -- Gemini ------------------------------------------------------------------------------------

GEMINI = llmkit.Model(provider="google", id="gemini-2.5-flash", api="gemini")
# Multi-byte characters before the cited spans: Gemini's offsets count UTF-8 bytes.
GEMINI_TEXT = "Spain won Euro 2024 — beating England 2\u20131. Mikel Oyarzabal scored."
GEMINI_SPANS = ("Spain won Euro 2024 — beating England 2\u20131.", "Mikel Oyarzabal scored.")


def _bytes(text: str, span: str) -> tuple[int, int]:
    start = len(GEMINI_TEXT[: GEMINI_TEXT.index(span)].encode())
    return start, start + len(span.encode())


def grounding() -> dict[str, Any]:
    first, second = (_bytes(GEMINI_TEXT, s) for s in GEMINI_SPANS)
    return {
        "webSearchQueries": ["UEFA Euro 2024 winner"],
        "searchEntryPoint": {"renderedContent": "<style>...</style>"},
        "groundingChunks": [
            {
                "web": {
                    "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/1",
                    "title": "uefa.com",
                }
            },
            {
                "web": {
                    "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/2",
                    "title": "aljazeera.com",
                }
            },
        ],
        "groundingSupports": [
            {
                # startIndex 0 is left out, as proto3 JSON leaves out zero values
                "segment": {"endIndex": first[1], "text": GEMINI_SPANS[0]},
                "groundingChunkIndices": [0, 1],
                "confidenceScores": [0.97, 0.9],
            },
            {
                "segment": {
                    "startIndex": second[0],
                    "endIndex": second[1],
                    "text": GEMINI_SPANS[1],
                },
                "groundingChunkIndices": [1],
            },
        ],
    }


def citation_metadata() -> dict[str, Any]:
    start, end = _bytes(GEMINI_TEXT, "Mikel Oyarzabal")
    return {
        "citationSources": [
            {
                "startIndex": start,
                "endIndex": end,
                "uri": "https://en.wikipedia.org/wiki/Mikel_Oyarzabal",
                "license": "",
            }
        ]
    }


def gemini_chunk(text: str, **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0, **candidate}
        ],
        "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 20, "totalTokenCount": 28},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "gem-1",
    }


def check_gemini_citations(citations: list[llmkit.Citation], text: str) -> None:
    a, b, c, d = citations
    assert [x.source for x in (a, b, c)] == [0, 1, 1]
    assert (a.url, a.title) == (
        "https://vertexaisearch.cloud.google.com/grounding-api-redirect/1",
        "uefa.com",
    )
    assert text[a.start : a.end] == text[b.start : b.end] == GEMINI_SPANS[0]  # type: ignore[misc]
    assert text[c.start : c.end] == c.cited_text == GEMINI_SPANS[1]  # type: ignore[misc]
    assert a.provider_data == {
        "groundingSupport": grounding()["groundingSupports"][0],
        "groundingChunk": grounding()["groundingChunks"][0],
    }
    assert d.url == "https://en.wikipedia.org/wiki/Mikel_Oyarzabal"
    assert text[d.start : d.end] == "Mikel Oyarzabal"  # type: ignore[misc]
    assert d.provider_data == citation_metadata()["citationSources"][0]


def test_gemini_whole_body_grounding_and_citation_metadata() -> None:
    from google.genai import types

    body = gemini_chunk(
        GEMINI_TEXT,
        finishReason="STOP",
        groundingMetadata=grounding(),
        citationMetadata=citation_metadata(),
    )
    types.GenerateContentResponse.model_validate_json(json.dumps(body))
    message = llmkit.parse_response(GEMINI, body)
    (part,) = message.content
    assert isinstance(part, llmkit.TextPart) and part.text == GEMINI_TEXT
    check_gemini_citations(part.citations, part.text)
    assert message.provider_data and message.provider_data["grounding_metadata"] == grounding()
    assert message.diagnostics == []


def test_gemini_streamed_grounding_on_the_last_chunk() -> None:
    half = len(GEMINI_TEXT) // 2
    chunks = [
        gemini_chunk(GEMINI_TEXT[:half]),
        gemini_chunk(GEMINI_TEXT[half:], groundingMetadata=grounding()),
        gemini_chunk(
            "",
            finishReason="STOP",
            groundingMetadata=grounding(),
            citationMetadata=citation_metadata(),
        ),
    ]
    chunks[-1]["candidates"][0]["content"]["parts"] = []
    body = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode()
    out = replay(body, GEMINI)
    (end,) = [e for e in out if isinstance(e, llmkit.TextEnd)]
    assert end.text == GEMINI_TEXT
    check_gemini_citations(end.citations, end.text)  # the repeated grounding is taken once
    assert out[-1].message.content[0].citations == end.citations  # type: ignore[union-attr]


# -- Bedrock Converse --------------------------------------------------------------------------

BEDROCK = llmkit.Model(
    provider="bedrock",
    id="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    api="bedrock-converse",
    base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
)
BEDROCK_TEXT = "The warranty lasts two years."
BEDROCK_CITATIONS: list[dict[str, Any]] = [
    {
        "title": "warranty.pdf",
        "sourceContent": [{"text": "All products carry a two-year warranty."}],
        "location": {"documentPage": {"documentIndex": 0, "start": 3, "end": 4}},
    },
    {
        "title": "Warranty FAQ",
        "source": "https://example.com/faq",
        "sourceContent": [{"text": "Two years, parts and labour."}],
        "location": {"web": {"url": "https://example.com/faq", "domain": "example.com"}},
    },
]


def check_bedrock_citations(citations: list[llmkit.Citation]) -> None:
    assert [c.provider_data for c in citations] == BEDROCK_CITATIONS
    page, web = citations
    assert (page.title, page.source, page.url) == ("warranty.pdf", 0, None)
    assert page.cited_text == "All products carry a two-year warranty."
    assert (web.url, web.title, web.source) == ("https://example.com/faq", "Warranty FAQ", None)
    assert all(c.start is None for c in citations)


def test_bedrock_whole_body_keeps_the_generated_text_and_its_citations() -> None:
    from tests.wire.bedrock_converse.test_request import SERVICE, build

    body = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "citationsContent": {
                            "content": [{"text": BEDROCK_TEXT}],
                            "citations": BEDROCK_CITATIONS,
                        }
                    }
                ],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 30, "outputTokens": 8, "totalTokens": 38},
        "metrics": {"latencyMs": 900},
    }
    # The body is a ConverseResponse as botocore's service model defines it.
    shape = SERVICE.operation_model("Converse").output_shape
    report = ParamValidator().validate(body, shape)
    assert not report.has_errors(), report.generate_report()
    message = llmkit.parse_response(BEDROCK, body)
    (part,) = message.content
    assert isinstance(part, llmkit.TextPart) and part.text == BEDROCK_TEXT  # was ''
    check_bedrock_citations(part.citations)
    assert message.diagnostics == []
    # Back to the same model as a citationsContent block, which botocore validates.
    context = llmkit.Context(messages=[llmkit.user("How long?"), message, llmkit.user("Sure?")])
    sent, _ = build(BEDROCK, context)
    assert sent["messages"][1]["content"] == body["output"]["message"]["content"]  # type: ignore[index]
    other = BEDROCK.model_copy(update={"id": "us.anthropic.claude-opus-4-1-20250805-v1:0"})
    sent, _ = build(other, context)
    assert sent["messages"][1]["content"] == [{"text": BEDROCK_TEXT}]


def test_bedrock_streamed_citation_deltas() -> None:
    from tests.support.eventstream import bedrock_event

    def delta(d: dict[str, Any]) -> bytes:
        return bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": d})

    stream = b"".join(
        [
            bedrock_event("messageStart", {"role": "assistant"}),
            delta({"text": BEDROCK_TEXT[:10]}),
            delta({"citation": BEDROCK_CITATIONS[0]}),
            delta({"text": BEDROCK_TEXT[10:]}),
            delta({"citation": BEDROCK_CITATIONS[1]}),
            bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
            bedrock_event("messageStop", {"stopReason": "end_turn"}),
            bedrock_event(
                "metadata",
                {
                    "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7},
                    "metrics": {"latencyMs": 3},
                },
            ),
        ]
    )
    out = replay(stream, BEDROCK)
    (end,) = [e for e in out if isinstance(e, llmkit.TextEnd)]
    assert end.text == BEDROCK_TEXT
    check_bedrock_citations(end.citations)
    message = out[-1].message  # type: ignore[union-attr]
    assert message.content[0].citations == end.citations and message.diagnostics == []
