"""llmkit against the official Anthropic SDK's own stream accumulator, on generated streams.

Each body from :mod:`tests.wire.anthropic_messages.streams` (realistic api.anthropic.com
Messages streams) is cut at hypothesis-drawn byte offsets -- inside multi-byte UTF-8 characters
and between the CR and LF of a CRLF too -- and decoded by ``llmkit.parse_stream`` under two
chunkings. Independently, the anthropic SDK decodes the same bytes with its own SSE decoder
(``anthropic._streaming.SSEDecoder``, what ``anthropic.Stream`` runs; ``ping`` skipped as
``Stream`` does) and accumulates the events with ``accumulate_event`` (what
``client.messages.stream()`` uses), keeping its raw input buffers. The properties:

1. **Oracle**: llmkit's final message equals the SDK's snapshot: text, thinking text and
   signatures, redacted data, tool calls (id, name, raw input text, parsed input for complete
   calls), the stop reason (raw, and mapped), usage (in llmkit's convention: input = input +
   cache reads + cache writes), message id.
2. **Generator intent**: the SDK's snapshot is what the generator meant to send, so the oracle
   comparison is never vacuous.
3. **Event contract**: ``Start`` first, one terminal ``Done`` last; text deltas join to each
   text part; argument deltas join to ``raw_arguments``; ``ToolCallEnd`` carries the final call.
4. **Chunking does not matter**: both chunkings give identical messages; ``aparse_stream`` gives
   the same events as ``parse_stream``.

Runs are reproducible (``derandomize=True``). ``LLMKIT_ORACLE_EXAMPLES`` sets the number of
examples (default sized for well under 30 s).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from anthropic._streaming import SSEDecoder  # private, but exactly what anthropic.Stream runs
from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import given, settings
from hypothesis import strategies as st

import llmkit
from tests.support.chunking import cut_points, split
from tests.support.oracle import oracle_examples, oracle_settings
from tests.wire.anthropic_messages.streams import MessageStream, anthropic_streams

MODEL = llmkit.Model(
    provider="anthropic",
    id="claude-sonnet-4-5",
    api="anthropic-messages",
    max_output_tokens=64000,
    reasoning=True,
    input=["text", "image"],
)
EXAMPLES = oracle_examples(200)
SETTINGS = oracle_settings(EXAMPLES)
STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "pause_turn": "pause",
    "refusal": "refusal",
}


@st.composite
def cases(draw: st.DrawFn) -> tuple[MessageStream, tuple[int, ...], tuple[int, ...]]:
    stream = draw(anthropic_streams())
    return stream, draw(cut_points(stream.body)), draw(cut_points(stream.body))


def sdk_read(chunks: list[bytes]) -> tuple[Any, dict[int, bytes]]:
    """The SDK's final snapshot and its raw tool-input buffers (by block index)."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.event in ("ping", None):
            continue
        snapshot = accumulate_event(event=sse.json(), current_snapshot=snapshot, json_bufs=buffers)
    return snapshot, buffers


def check_oracle(
    message: llmkit.AssistantMessage, snapshot: Any, buffers: dict[int, bytes]
) -> None:
    blocks = snapshot.content
    assert message.response_id == snapshot.id
    assert message.text == "".join(b.text for b in blocks if b.type == "text")
    thinking = [b for b in blocks if b.type in ("thinking", "redacted_thinking")]
    parts = [p for p in message.content if isinstance(p, llmkit.ThinkingPart)]
    assert len(parts) == len(thinking)
    for part, block in zip(parts, thinking, strict=True):
        if block.type == "thinking":
            assert (part.thinking, part.signature, part.redacted) == (
                block.thinking,
                block.signature or None,
                False,
            )
        else:
            assert part.redacted and part.replay == {"data": block.data}
    uses = [(i, b) for i, b in enumerate(blocks) if b.type == "tool_use"]
    calls = message.tool_calls
    assert [(c.id, c.name) for c in calls] == [(b.id, b.name) for _, b in uses]
    for call, (index, block) in zip(calls, uses, strict=True):
        raw = buffers.get(index, b"").decode("utf-8")
        if index in buffers:
            assert call.raw_arguments == raw
        if call.status == "complete":
            assert call.arguments == block.input
        else:
            assert snapshot.stop_reason == "max_tokens", (call, snapshot.stop_reason)
            assert call.status == "recovered"
    assert message.raw_stop_reason == snapshot.stop_reason
    assert message.stop_reason == STOP[snapshot.stop_reason]
    u = snapshot.usage
    read, write = u.cache_read_input_tokens, u.cache_creation_input_tokens
    assert message.usage.input == u.input_tokens + (read or 0) + (write or 0)
    assert (message.usage.output, message.usage.cache_read, message.usage.cache_write) == (
        u.output_tokens,
        read,
        write,
    )
    details = u.output_tokens_details
    assert message.usage.reasoning == (details.thinking_tokens if details else None)


def check_intent(stream: MessageStream, snapshot: Any) -> None:
    assert snapshot.id == stream.message_id
    assert [b.type for b in snapshot.content] == [b.kind for b in stream.blocks]
    assert "".join(b.text for b in snapshot.content if b.type == "text") == stream.text
    uses = [b for b in snapshot.content if b.type == "tool_use"]
    for block, spec in zip(uses, stream.tool_calls, strict=True):
        assert (block.id, block.name) == (spec.id, spec.name)
        if not spec.truncated:
            assert block.input == spec.arguments
    assert snapshot.stop_reason == stream.stop_reason
    assert snapshot.usage.output_tokens == stream.usage["output_tokens"]


def check_events(events: list[Any]) -> None:
    assert isinstance(events[0], llmkit.Start)
    assert isinstance(events[-1], llmkit.Done)
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in events) == 1
    message = events[-1].message
    content = message.content
    texts: dict[int, str] = {}
    args: dict[int, str] = {}
    for e in events:
        if isinstance(e, llmkit.TextDelta):
            texts[e.index] = texts.get(e.index, "") + e.delta
        elif isinstance(e, llmkit.ToolCallDelta):
            args[e.index] = args.get(e.index, "") + e.arguments_delta
        elif isinstance(e, llmkit.ToolCallEnd):
            assert content[e.index] == e.tool_call
    assert texts == {i: p.text for i, p in enumerate(content) if p.type == "text"}
    for i, p in enumerate(content):
        if isinstance(p, llmkit.ToolCall):
            assert args.get(i, "") == p.raw_arguments


@SETTINGS
@given(cases())
def test_llmkit_matches_the_anthropic_sdk_accumulator(
    case: tuple[MessageStream, tuple[int, ...], tuple[int, ...]],
) -> None:
    stream, cuts_a, cuts_b = case
    chunks_a = split(stream.body, cuts_a)
    events = list(llmkit.parse_stream(MODEL, chunks_a))
    message = events[-1].message
    snapshot, buffers = sdk_read(chunks_a)
    check_intent(stream, snapshot)
    check_oracle(message, snapshot, buffers)
    check_events(events)
    again = list(llmkit.parse_stream(MODEL, split(stream.body, cuts_b)))
    assert again[-1].message.model_dump() == message.model_dump()
    # Nothing to repair on a clean stream: the only diagnostics are a truncated call's.
    kinds = {d.kind for d in message.diagnostics}
    assert kinds <= {"tool_arguments_recovered", "tool_arguments_invalid"}, kinds


async def _aiter(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


@settings(SETTINGS, max_examples=max(1, EXAMPLES // 10))
@given(cases())
def test_aparse_stream_gives_the_same_events(
    case: tuple[MessageStream, tuple[int, ...], tuple[int, ...]],
) -> None:
    stream, cuts, _ = case
    chunks = split(stream.body, cuts)

    async def collect() -> list[Any]:
        return [e async for e in llmkit.aparse_stream(MODEL, _aiter(chunks))]

    events = asyncio.run(collect())
    assert [repr(e) for e in events] == [repr(e) for e in llmkit.parse_stream(MODEL, chunks)]


def test_truncated_tool_input_is_recovered_not_executable_D6_E3() -> None:
    # Named regression: max_tokens inside a string of the input JSON (as in the SDK's capture).
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
         "content": [], "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
         "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "make_file", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"name": "tax'}},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
         "usage": {"output_tokens": 7}},
        {"type": "message_stop"},
    ]  # fmt: skip
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    final = list(llmkit.parse_stream(MODEL, [body]))[-1].message
    (call,) = final.tool_calls
    assert (final.stop_reason, call.status, call.raw_arguments) == (
        "length",
        "recovered",
        '{"name": "tax',
    )
    tool = llmkit.Tool(name="make_file", parameters={"type": "object"})
    with pytest.raises(llmkit.ToolArgumentsError):  # refused unless allow_recovered=True
        llmkit.decode_tool_call(tool, call)
