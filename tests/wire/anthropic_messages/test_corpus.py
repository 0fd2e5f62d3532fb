"""Replay every recorded Anthropic Messages response through llmkit.

Every exchange under ``tests/fixtures/anthropic-messages/`` is used:

* 200 ``text/event-stream`` bodies go through ``llmkit.parse_stream`` cut several ways (random
  offsets with 5 seeds, including inside UTF-8 characters; 1-byte pieces; one piece) and are
  compared with :func:`read_stream`, an independent reading of the same bytes written here
  without llmkit (on ``tests.support.corpus.sse_events``, its own SSE parser);
* 200 JSON bodies go through ``llmkit.parse_response`` and are compared with
  :func:`read_message`;
* error exchanges (401, 404) are served by the fake provider with their recorded status and
  body and must raise the matching typed error; ``parse_response`` types them too.

The programmatic tool-calling capture holds 15 responses back to back (see the fixtures'
PROVENANCE.md); it is cut at each ``message_start`` and every message is replayed alone.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider
from tests.support.corpus import (
    CorpusSkip,
    Exchange,
    corpus_files,
    fixture_id,
    load_exchanges,
    rechunk,
    splits_inside_utf8,
    sse_events,
)

WIRE = "anthropic-messages"
SEEDS = (0, 1, 2, 3, 4)
CHUNKINGS = (*(f"seed{s}" for s in SEEDS), "bytes1", "whole")
PRIMARY = "seed0"
STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "pause_turn": "pause",
}


# --------------------------------------------------------------------------- the recordings


def split_messages(body: bytes) -> list[bytes]:
    """A body cut before each ``event: message_start`` line (one piece per message)."""
    starts = [m.start() for m in re.finditer(rb"(?m)^event: message_start\r?$", body)]
    if len(starts) <= 1:
        return [body]
    bounds = [*starts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def _exchanges() -> tuple[list[Any], list[Any], list[Any]]:
    streams: list[Any] = []
    bodies: list[Any] = []
    errors: list[Any] = []
    for path in corpus_files(WIRE):
        try:
            loaded = load_exchanges(path)
        except CorpusSkip as skip:  # pragma: no cover - brotli bodies; none here today
            mark = pytest.mark.skip(reason=str(skip))
            streams.append(pytest.param(None, id=fixture_id(path), marks=mark))
            continue
        for ex in loaded:
            if ex.status != 200:
                errors.append(pytest.param(ex, id=ex.source))
            elif ex.is_sse:
                pieces = split_messages(ex.body)
                for n, piece in enumerate(pieces):
                    source = ex.source if len(pieces) == 1 else f"{ex.source}/message{n}"
                    part = Exchange(ex.status, ex.headers, piece, ex.request, source)
                    streams.append(pytest.param(part, id=source))
            else:
                bodies.append(pytest.param(ex, id=ex.source))
    return streams, bodies, errors


STREAMS, JSON_BODIES, ERRORS = _exchanges()


def model_for(exchange: Exchange) -> llmkit.Model:
    """The model a caller would have configured for this recording."""
    body = (exchange.request or {}).get("body")
    model_id = body.get("model") if isinstance(body, dict) else None
    return llmkit.Model(
        provider="anthropic",
        id=model_id if isinstance(model_id, str) else "claude-sonnet-4-5",
        api="anthropic-messages",
        max_output_tokens=64000,
        reasoning=True,
        input=["text", "image"],
    )


# --------------------------------------------------------------------------- independent reading


@dataclass
class Block:
    """One content block as the recording holds it."""

    type: str
    text: str = ""
    thinking: str = ""
    signature: str = ""
    data: str = ""  # redacted_thinking
    id: str = ""
    name: str = ""
    input: Any = None  # the input sent whole (content_block_start or message content)
    fragments: list[str] = field(default_factory=list)  # input_json_delta pieces
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def input_text(self) -> str:
        """The argument text: the fragments joined, else the whole input (if not empty)."""
        if self.fragments and "".join(self.fragments):
            return "".join(self.fragments)
        return json.dumps(self.input, separators=(",", ":")) if self.input else ""


@dataclass
class Recorded:
    """What one Anthropic message holds, read without llmkit."""

    id: str = ""
    blocks: list[Block] = field(default_factory=list)
    stop_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False  # message_stop seen
    error: dict[str, Any] | None = None

    def of(self, *types: str) -> list[Block]:
        return [b for b in self.blocks if b.type in types]


def _block(raw: dict[str, Any]) -> Block:
    block = Block(type=raw["type"], raw=raw)
    block.text = raw.get("text") or ""
    block.thinking = raw.get("thinking") or ""
    block.signature = raw.get("signature") or ""
    block.data = raw.get("data") or ""
    block.id = raw.get("id") or ""
    block.name = raw.get("name") or ""
    block.input = raw.get("input")
    return block


def _merge_usage(into: dict[str, Any], usage: dict[str, Any] | None) -> None:
    # message_delta counts are cumulative; a field left out keeps its value (QUIRKS J2).
    for key, value in (usage or {}).items():
        if value is not None:
            into[key] = value


def read_message(doc: dict[str, Any], into: Recorded | None = None) -> Recorded:
    """A ``message`` object (a JSON body, or ``message_start.message``)."""
    rec = into or Recorded()
    rec.id = doc.get("id") or ""
    rec.blocks.extend(_block(raw) for raw in doc.get("content") or [])
    rec.stop_reason = doc.get("stop_reason") or rec.stop_reason
    _merge_usage(rec.usage, doc.get("usage"))
    return rec


def read_stream(body: bytes) -> Recorded:
    """An Anthropic SSE body: blocks by their ``index``, deltas appended, usage merged."""
    rec = Recorded()
    by_index: dict[int, Block] = {}
    # The SDK's capture ends `data: {"type":"message_stop" }` with no line break at all (the
    # fixture file lost it; the server sends "\n\n"): the event is complete JSON, so it counts,
    # as llmkit's SSE layer keeps a final unterminated line too.
    if not body.endswith((b"\n", b"\r")):
        body += b"\n"
    for event, data in sse_events(body, flush_at_eof=True):
        if data.strip() == "[DONE]" or rec.stopped or rec.error:
            continue
        payload = json.loads(data)
        kind = payload.get("type")
        if event == "error" or kind == "error":
            rec.error = payload.get("error") or payload
        elif kind == "message_start":
            read_message(payload["message"], rec)
            by_index.update(enumerate(rec.blocks))
        elif kind == "content_block_start":
            block = _block(payload["content_block"])
            by_index[payload["index"]] = block
            rec.blocks.append(block)
        elif kind == "content_block_delta":
            block, delta = by_index[payload["index"]], payload["delta"]
            if delta["type"] == "text_delta":
                block.text += delta["text"]
            elif delta["type"] == "thinking_delta":
                block.thinking += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block.signature += delta["signature"]
            elif delta["type"] == "input_json_delta":
                block.fragments.append(delta["partial_json"])
        elif kind == "message_delta":
            rec.stop_reason = payload["delta"].get("stop_reason") or rec.stop_reason
            _merge_usage(rec.usage, payload.get("usage"))
        elif kind == "message_stop":
            rec.stopped = True
    return rec


def expected_stop(rec: Recorded) -> str:
    if rec.error is not None or not rec.stopped:
        return "error"
    return STOP[rec.stop_reason or ""]


def expected_status(block: Block, rec: Recorded) -> str:
    text = block.input_text
    if not text.strip():
        return "complete"  # no-argument tool: {} (QUIRKS D3)
    try:
        json.loads(text)
    except ValueError:
        return "recovered"  # cut by max_tokens mid-JSON (D6, E3)
    return "complete"


def expected_usage(usage: dict[str, Any]) -> tuple[Any, ...]:
    fresh = usage.get("input_tokens")
    read = usage.get("cache_read_input_tokens")
    write = usage.get("cache_creation_input_tokens")
    total = None if fresh is None else fresh + (read or 0) + (write or 0)
    return (total, usage.get("output_tokens"), read, write)


def content_kinds(rec: Recorded) -> list[str]:
    """The parts llmkit must produce, in order: server-side blocks are opaque thinking."""
    kinds = []
    for b in rec.blocks:
        if b.type == "text":
            if b.text:
                kinds.append("text")
        elif b.type == "tool_use":
            kinds.append("tool_call")
        elif b.type in ("thinking", "redacted_thinking"):
            if b.thinking or b.signature or b.data:
                kinds.append("thinking")
        else:
            kinds.append("opaque")
    return kinds


# --------------------------------------------------------------------------- running llmkit


def cut(body: bytes, chunking: str) -> list[bytes]:
    if chunking == "whole":
        return [body]
    if chunking == "bytes1":
        return [body[i : i + 1] for i in range(len(body))]
    return rechunk(body, random.Random(int(chunking.removeprefix("seed"))))


_runs: dict[tuple[str, str], list[Any]] = {}


def events_of(exchange: Exchange, chunking: str = PRIMARY) -> list[Any]:
    key = (exchange.source, chunking)
    if key not in _runs:
        chunks = iter(cut(exchange.body, chunking))  # one-shot: never iterated twice
        _runs[key] = list(llmkit.parse_stream(model_for(exchange), chunks))
    return _runs[key]


def message_of(exchange: Exchange) -> llmkit.AssistantMessage:
    message: llmkit.AssistantMessage = events_of(exchange)[-1].message
    return message


def parts(message: llmkit.AssistantMessage) -> list[str]:
    out = []
    for p in message.content:
        if isinstance(p, llmkit.ThinkingPart) and p.replay and "block" in p.replay:
            out.append("opaque")
        else:
            out.append("tool_call" if p.type == "tool_call" else p.type)
    return out


# --------------------------------------------------------------------------- checks


def check_message(message: llmkit.AssistantMessage, rec: Recorded) -> None:
    """Text, thinking, calls, server blocks, stop reason and usage equal the recording."""
    assert parts(message) == content_kinds(rec)
    assert message.text == "".join(b.text for b in rec.of("text"))
    thinking = [p for p in message.content if isinstance(p, llmkit.ThinkingPart)]
    visible = [p for p in thinking if not (p.replay and "block" in p.replay)]
    recorded = [
        b for b in rec.of("thinking", "redacted_thinking") if b.thinking or b.signature or b.data
    ]
    assert [(p.thinking, p.signature or "", p.redacted) for p in visible] == [
        (b.thinking, b.signature, b.type == "redacted_thinking") for b in recorded
    ]
    for part, block in zip(visible, recorded, strict=True):
        if block.type == "redacted_thinking":
            assert part.replay == {"data": block.data}  # kept verbatim for replay (F1)
    opaque = [p.replay for p in thinking if p.replay and "block" in p.replay]
    servers = [
        b for b in rec.blocks if b.type not in ("text", "thinking", "redacted_thinking", "tool_use")
    ]
    assert [r["block"]["type"] for r in opaque] == [b.type for b in servers]
    for replay, block in zip(opaque, servers, strict=True):
        if block.type == "server_tool_use":
            assert replay["block"]["id"] == block.id
            want = json.loads(block.input_text) if block.input_text.strip() else {}
            assert replay["block"]["input"] == want
    calls = message.tool_calls
    recorded_calls = rec.of("tool_use")
    assert [(c.id, c.name) for c in calls] == [(b.id, b.name) for b in recorded_calls]
    for call, block in zip(calls, recorded_calls, strict=True):
        status = expected_status(block, rec)
        assert call.status == status, call.name
        if status == "complete":
            text = block.input_text
            assert call.arguments == (json.loads(text) if text.strip() else {})
        if block.fragments:
            assert call.raw_arguments == "".join(block.fragments)
        caller = block.raw.get("caller")
        if isinstance(caller, dict) and caller.get("type") != "direct":
            assert call.replay == {"caller": caller}  # programmatic tool calling
    assert message.stop_reason == expected_stop(rec)
    if rec.stop_reason is not None and rec.error is None:
        assert message.raw_stop_reason == rec.stop_reason
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == expected_usage(
        rec.usage
    )
    assert message.response_id == (rec.id or None)


def check_events(events: list[Any]) -> None:
    """Start first, one terminal event last; deltas join to the parts they index."""
    message = events[-1].message
    assert isinstance(events[0], llmkit.Start)
    terminals = [i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
    assert terminals == [len(events) - 1]
    content = message.content
    texts: dict[int, str] = {}
    for e in events:
        if isinstance(e, llmkit.TextDelta):
            texts[e.index] = texts.get(e.index, "") + e.delta
    assert texts == {i: p.text for i, p in enumerate(content) if p.type == "text"}
    for e in events:
        if isinstance(e, llmkit.ToolCallEnd):
            assert content[e.index] == e.tool_call
        elif isinstance(e, llmkit.ThinkingEnd):
            assert content[e.index].thinking == e.thinking


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("exchange", STREAMS)
def test_stream_matches_the_recording(exchange: Exchange) -> None:
    rec = read_stream(exchange.body)
    message = message_of(exchange)
    check_message(message, rec)
    check_events(events_of(exchange))
    assert isinstance(events_of(exchange)[-1], llmkit.Done if rec.stopped else llmkit.ErrorEvent)


@pytest.mark.parametrize("exchange", STREAMS)
def test_stream_rechunking_does_not_matter_A1(exchange: Exchange) -> None:
    reference = message_of(exchange).model_dump()
    for chunking in CHUNKINGS:
        assert events_of(exchange, chunking)[-1].message.model_dump() == reference, chunking


@pytest.mark.parametrize("exchange", JSON_BODIES)
def test_json_body_matches_the_recording(exchange: Exchange) -> None:
    message = llmkit.parse_response(model_for(exchange), exchange.body)
    rec = read_message(json.loads(exchange.body))
    rec.stopped = True  # a whole body is complete by definition
    check_message(message, rec)


@pytest.mark.parametrize("exchange", ERRORS)
def test_error_recordings_raise_typed_errors(exchange: Exchange) -> None:
    expected = {401: llmkit.AuthenticationError, 404: llmkit.NotFoundError}[exchange.status]
    with pytest.raises(expected):  # the body alone says which error it is
        llmkit.parse_response(model_for(exchange), exchange.body)
    # The recorded retry hints go out again (x-should-retry: false on the 401); the fake sets
    # its own content-type and request-id.
    headers = {k: v for k, v in exchange.headers.items() if k.startswith(("x-should", "retry"))}
    served = FakeError(exchange.status, body=exchange.body, headers=headers)
    with FakeProvider([served], api="anthropic-messages") as fake:
        model = fake.model("claude-sonnet-4-5", max_output_tokens=1024)
        context = llmkit.Context(messages=[llmkit.user("hi")])
        with pytest.raises(expected) as info:
            llmkit.complete(model, context, api_key=fake.api_key)
        assert len(fake.requests) == 1  # 4xx: never retried
    assert info.value.status == exchange.status
    assert info.value.request_id == "req_fake1"


def test_messages_after_message_stop_are_ignored_A4() -> None:
    # The capture's 15 responses as one body: the first message_stop ends the response, and
    # what follows (here: more messages; from proxies: a [DONE]) does not leak into it.
    (path,) = [p for p in corpus_files(WIRE) if "programmatic" in p.name]
    (exchange,) = load_exchanges(path)
    first = split_messages(exchange.body)[0]
    whole = list(llmkit.parse_stream(model_for(exchange), [exchange.body]))
    alone = list(llmkit.parse_stream(model_for(exchange), [first]))
    assert whole[-1].message == alone[-1].message
    assert [type(e) for e in whole] == [type(e) for e in alone]


def test_content_whole_in_message_start_programmatic_tool_calling() -> None:
    # The second response of the capture is message_start (content and stop_reason inside)
    # followed directly by message_stop.
    streams = [
        p.values[0]
        for p in STREAMS
        if p.id.endswith("programmatic-tool-calling.1.chunks.txt#0/message1")
    ]
    (exchange,) = streams
    message = message_of(exchange)
    (call,) = message.tool_calls
    assert (call.id, call.name, call.arguments, call.status) == (
        "toolu_015dGLMbwBKv1ZRQr6KdJzeH",
        "rollDie",
        {"player": "player2"},
        "complete",
    )
    assert call.replay is not None and call.replay["caller"]["type"] == "code_execution_20250825"
    assert message.stop_reason == "tool_use" and not message.text


def test_the_corpus_is_all_here() -> None:
    # A path mistake must not silently collect zero cases.
    assert len(corpus_files(WIRE)) == 20
    assert len(STREAMS) == 22 + 14  # + the 14 extra messages of the programmatic capture
    assert len(JSON_BODIES) == 3 and len(ERRORS) == 2
    # Some random cuts really fall inside multi-byte characters (QUIRKS A1).
    body = next(p.values[0].body for p in STREAMS if "thinking-streaming" in p.id and "#1" in p.id)
    assert splits_inside_utf8(body, cut(body, PRIMARY)) > 0
