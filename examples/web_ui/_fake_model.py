"""The model the web UI example talks to without a key: llmkit's fake provider, scripted.

The script reads the conversation as the server holds it (an ``llmkit.Context``, so the same
on every wire) and answers the way a model would at that point:

1. the first question: two weather calls at once (one asks for 30 days, more than the tool
   allows), a corrected call, then an answer with its reasoning;
2. the second: two hotel bookings, which the page asks the person to approve; once answered,
   an answer that says which were booked and which the person declined (and why);
3. the third: an answer that cites two web pages, which the page shows as its sources;

and after that, a short note that the script is over. The citations travel in each wire's own
shape (Chat ``annotations``, Responses ``url_citation`` annotations, Anthropic
``web_search_result_location`` citations, Gemini ``groundingMetadata``, Bedrock ``citation``
deltas), written out here as raw events because the fake's scripted replies have no field for
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

import llmkit
from llmkit.testing import FakeReply, FakeToolCall

RawEvent = Union[str, Mapping[str, Any], bytes]  # one of FakeReply.raw_events

PROMPTS = (
    "Pack for 3 days in Beijing and Shanghai?",
    "Book me 3 nights in each city.",
    "What should I see there?",
)
"""What the page suggests typing, turn by turn (any text gets the scripted answer)."""

SIGHTS = (
    (
        "The Forbidden City was the palace of China's emperors for five centuries.",
        "Forbidden City - Wikipedia",
        "https://en.wikipedia.org/wiki/Forbidden_City",
    ),
    (
        "The Bund is Shanghai's riverside promenade of colonial-era buildings.",
        "The Bund - Wikipedia",
        "https://en.wikipedia.org/wiki/The_Bund",
    ),
)
"""The third answer: each sentence with the page it cites."""


def reply(api: str, context: llmkit.Context, *, delay: float) -> FakeReply:
    """The scripted model's next reply to ``context``, on ``api``'s wire."""
    pace: dict[str, Any] = {"delta_size": 3, "delay": delay}
    turn = sum(isinstance(m, llmkit.UserMessage) for m in context.messages)
    last_user = max(i for i, m in enumerate(context.messages) if isinstance(m, llmkit.UserMessage))
    since = context.messages[last_user + 1 :]
    step = sum(isinstance(m, llmkit.AssistantMessage) for m in since)
    if turn == 1 and step == 0:
        return FakeReply(
            "Let me check both forecasts.",
            tool_calls=[
                FakeToolCall("get_weather", {"city": "Beijing", "days": 30}),
                FakeToolCall("get_weather", {"city": "Shanghai", "days": 3}),
            ],
            **pace,
        )
    if turn == 1 and step == 1:
        return FakeReply(
            "The tool forecasts 10 days at most; asking for 3 days in Beijing.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
            **pace,
        )
    if turn == 1:
        return FakeReply(
            "Beijing will be sunny and windy in the evening (12-19 °C); Shanghai brings "
            "showers (17-22 °C). Pack light layers, a windbreaker and an umbrella.",
            thinking="Both forecasts are in; combine them into one packing list.",
            **pace,
        )
    if turn == 2 and step == 0:
        return FakeReply(
            "I'll book a hotel in each city; each booking needs your approval.",
            tool_calls=[
                FakeToolCall("book_hotel", {"city": "Beijing", "nights": 3}),
                FakeToolCall("book_hotel", {"city": "Shanghai", "nights": 3}),
            ],
            **pace,
        )
    if turn == 2:
        return FakeReply(_booking_summary(since), **pace)
    if turn == 3:
        return cited_reply(api, SIGHTS, delay=delay)
    return FakeReply(
        "That is all this scripted model knows. Set a key (say OPENAI_API_KEY) and start the "
        "server with --provider/--model to talk to a real one.",
        **pace,
    )


def _booking_summary(since: Sequence[llmkit.Message]) -> str:
    """What the model says once each booking ran or was refused: it reads the results."""
    lines = []
    for message in since:
        if isinstance(message, llmkit.ToolResultMessage) and message.tool_name == "book_hotel":
            text = "".join(p.text for p in message.content if isinstance(p, llmkit.TextPart))
            if message.is_error:
                lines.append(f"I did not book that hotel: {text.rstrip('.')}.")
            else:
                lines.append(f"Done: {text}.")
    return " ".join(lines) or "Nothing was booked."


def cited_reply(api: str, sentences: Sequence[tuple[str, str, str]], *, delay: float) -> FakeReply:
    """A text reply whose sentences each cite a web page ``(sentence, title, url)``, as
    ``api``'s wire sends citations."""
    text = " ".join(s for s, _, _ in sentences)
    spans = []
    at = 0
    for sentence, title, url in sentences:
        start = text.index(sentence, at)
        at = start + len(sentence)
        spans.append((start, at, title, url))
    pieces = [text[i : i + 12] for i in range(0, len(text), 12)]
    events = _EVENTS[api](text, pieces, spans)
    return FakeReply(text, raw_events=events, delay=delay)


Span = tuple[int, int, str, str]  # start, end (characters of the text), title, url


def _openai_chat(text: str, pieces: list[str], spans: list[Span]) -> list[RawEvent]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-sights",
            "object": "chat.completion.chunk",
            "created": 1767225600,
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    annotations = [
        {
            "type": "url_citation",
            "url_citation": {"url": url, "title": title, "start_index": s, "end_index": e},
        }
        for s, e, title, url in spans
    ]
    events: list[RawEvent] = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in pieces]
    usage = {"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240}
    events += [chunk({"annotations": annotations}), chunk({}, "stop")]
    events += [{**chunk({}), "choices": [], "usage": usage}, "[DONE]"]
    return events


def _openai_responses(text: str, pieces: list[str], spans: list[Span]) -> list[RawEvent]:
    annotations = [
        {"type": "url_citation", "url": url, "title": title, "start_index": s, "end_index": e}
        for s, e, title, url in spans
    ]
    part = {"type": "output_text", "text": text, "annotations": annotations}
    item = {"type": "message", "id": "msg_sights", "role": "assistant", "status": "completed"}
    response = {
        "id": "resp_sights",
        "object": "response",
        "created_at": 1767225600,
        "model": "fake-model",
        "status": "in_progress",
        "output": [],
    }
    where = {"item_id": "msg_sights", "output_index": 0, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            **where,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    events += [{"type": "response.output_text.delta", **where, "delta": p} for p in pieces]
    events += [
        {
            "type": "response.output_text.annotation.added",
            **where,
            "annotation_index": n,
            "annotation": annotation,
        }
        for n, annotation in enumerate(annotations)
    ]
    events += [
        {"type": "response.output_text.done", **where, "text": text},
        {"type": "response.content_part.done", **where, "part": part},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "content": [part]},
        },
        {
            "type": "response.completed",
            "response": {
                **response,
                "status": "completed",
                "output": [{**item, "content": [part]}],
                "usage": {"input_tokens": 200, "output_tokens": 40, "total_tokens": 240},
            },
        },
    ]
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def _anthropic_messages(text: str, pieces: list[str], spans: list[Span]) -> list[RawEvent]:
    message: dict[str, Any] = {
        "id": "msg_sights",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 200, "output_tokens": 1},
    }
    events: list[RawEvent] = [
        {"type": "message_start", "message": message},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": "", "citations": []},
        },
    ]
    # Claude sends a citation just before the text it supports.
    at = 0
    for start, end, title, url in spans:
        citation = {
            "type": "web_search_result_location",
            "cited_text": text[start:end],
            "encrypted_index": "ZmFrZQ==",
            "title": title,
            "url": url,
        }
        events += _text_delta(text[at:start])
        events.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "citations_delta", "citation": citation},
            }
        )
        for i in range(start, end, 12):
            events += _text_delta(text[i : min(i + 12, end)])
        at = end
    events += _text_delta(text[at:])
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]
    return events


def _text_delta(text: str) -> list[RawEvent]:
    if not text:
        return []
    return [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
    ]


def _gemini(text: str, pieces: list[str], spans: list[Span]) -> list[RawEvent]:
    def chunk(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **candidate}],
            "usageMetadata": {
                "promptTokenCount": 200,
                "candidatesTokenCount": 40,
                "totalTokenCount": 240,
            },
            "modelVersion": "fake-model",
            "responseId": "gem-sights",
        }

    def offset(n: int) -> int:  # Gemini counts UTF-8 bytes
        return len(text[:n].encode())

    grounding = {
        "groundingChunks": [{"web": {"uri": url, "title": title}} for _, _, title, url in spans],
        "groundingSupports": [
            {
                "segment": {"startIndex": offset(s), "endIndex": offset(e), "text": text[s:e]},
                "groundingChunkIndices": [n],
            }
            for n, (s, e, _, _) in enumerate(spans)
        ],
    }
    events: list[RawEvent] = [chunk([{"text": p}]) for p in pieces]
    events.append(chunk([], finishReason="STOP", groundingMetadata=grounding))
    return events


def _bedrock_converse(text: str, pieces: list[str], spans: list[Span]) -> list[RawEvent]:
    def delta(d: dict[str, Any]) -> dict[str, Any]:
        return {"contentBlockDelta": {"contentBlockIndex": 0, "delta": d}}

    events: list[RawEvent] = [{"messageStart": {"role": "assistant"}}]
    events += [delta({"text": p}) for p in pieces]
    events += [
        delta(
            {
                "citation": {
                    "title": title,
                    "source": url,
                    "sourceContent": [{"text": text[s:e]}],
                    "location": {"web": {"url": url, "domain": url.split("/")[2]}},
                }
            }
        )
        for s, e, title, url in spans
    ]
    events += [
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {
            "metadata": {
                "usage": {"inputTokens": 200, "outputTokens": 40, "totalTokens": 240},
                "metrics": {"latencyMs": 10},
            }
        },
    ]
    return events


_EVENTS = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic-messages": _anthropic_messages,
    "gemini": _gemini,
    "bedrock-converse": _bedrock_converse,
}
"""Each wire's events for a cited answer."""
