"""The recorded Bedrock Converse responses (``tests/fixtures/bedrock-converse``) replay exactly.

Every streamed exchange is decoded by ``parse_stream`` after being re-split at random byte
offsets (inside binary messages and their headers and CRCs too), and served over a real
loopback socket by the fake provider in random write sizes; the text, reasoning, signatures,
redacted reasoning, tool calls, usage and stop reasons must equal an independent reading of
the same bytes (:func:`expected`, written here from the Converse event shapes with the test's
own event-stream walker, ``tests/support/eventstream.py``: nothing from llmkit). The non-streamed
bodies go through ``parse_response``; the recorded 400 is a
typed error; and the recorded second request of the thinking exchange — the assistant turn
that pydantic-ai sent back and Bedrock accepted — is what llmkit builds from its own decoded
reply.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply
from tests.support.corpus import Exchange, corpus_files, fixture_id, load_exchanges, rechunk
from tests.support.eventstream import CONTENT_TYPE, events

FILES = corpus_files("bedrock-converse")
MODEL = llmkit.Model(
    provider="bedrock",
    id="us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    api="bedrock-converse",
    base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    reasoning=True,
    input=["text", "image"],
)
# Bedrock's documented stopReason values and what they mean for a caller (not llmkit's table).
STOPS = {"end_turn": "stop", "tool_use": "tool_use", "max_tokens": "length"}


def exchanges(kind: str) -> list[tuple[str, Exchange]]:
    out = []
    for path in FILES:
        for ex in load_exchanges(path):
            ok = ex.status == 200
            if ok and (ex.content_type == CONTENT_TYPE if kind == "stream" else kind == "json"):
                if kind == "json" and not ex.is_json:
                    continue
                out.append((f"{fixture_id(path)}#{ex.source.rsplit('#', 1)[-1]}", ex))
            elif kind == "error" and ex.status >= 400:
                out.append((fixture_id(path), ex))
    return out


STREAMS = exchanges("stream")
BODIES = exchanges("json")
ERRORS = exchanges("error")


@dataclass
class Expected:
    """What a caller must get from a recorded response, read independently."""

    text: str = ""
    thinking: str = ""
    signatures: list[str] = field(default_factory=list)
    redacted: int = 0
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    server_blocks: int = 0
    raw_stop: str | None = None
    input: int | None = None
    output: int | None = None


def expected(body: bytes) -> Expected:
    """An independent reading of a ConverseStream body."""
    out = Expected()
    blocks: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    for name, payload in events(body):
        index = payload.get("contentBlockIndex")
        if name == "contentBlockStart":
            tool = payload["start"].get("toolUse")
            server = tool is not None and tool.get("type") == "server_tool_use"
            blocks[index] = {"kind": "server" if server or tool is None else "tool", **(tool or {})}
            blocks[index]["input"] = ""
            order.append(index)
        elif name == "contentBlockDelta":
            delta = payload["delta"]
            block = blocks.setdefault(index, {"kind": None, "text": "", "input": ""})
            if index not in order:
                order.append(index)
            if "text" in delta:
                block["kind"] = "text"
                block["text"] = block.get("text", "") + delta["text"]
            elif "reasoningContent" in delta:
                block["kind"] = "thinking"
                r = delta["reasoningContent"]
                block["text"] = block.get("text", "") + r.get("text", "")
                if "signature" in r:
                    block["signature"] = r["signature"]
                if "redactedContent" in r:
                    block["redacted"] = True
            elif "toolUse" in delta:
                block["input"] += delta["toolUse"]["input"]
        elif name == "messageStop":
            out.raw_stop = payload["stopReason"]
        elif name == "metadata":
            usage = payload["usage"]
            cached = usage.get("cacheReadInputTokens", 0) + usage.get("cacheWriteInputTokens", 0)
            out.input, out.output = usage["inputTokens"] + cached, usage["outputTokens"]
    for index in order:
        block = blocks[index]
        if block["kind"] == "text":
            out.text += block["text"]
        elif block["kind"] == "thinking":
            out.thinking += block["text"]
            if "signature" in block:
                out.signatures.append(block["signature"])
            out.redacted += bool(block.get("redacted"))
        elif block["kind"] == "tool":
            arguments = json.loads(block["input"]) if block["input"] else {}
            out.calls.append((block["toolUseId"], block["name"], arguments))
        else:
            out.server_blocks += 1
    return out


def expected_json(body: bytes) -> Expected:
    """An independent reading of a Converse body."""
    data = json.loads(body)
    out = Expected(raw_stop=data["stopReason"])
    for block in data["output"]["message"]["content"]:
        if "text" in block:
            out.text += block["text"]
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"]["reasoningText"]
            out.thinking += reasoning["text"]
            out.signatures.append(reasoning["signature"])
        elif "toolUse" in block:
            tool = block["toolUse"]
            out.calls.append((tool["toolUseId"], tool["name"], tool["input"]))
    usage = data["usage"]
    cached = usage.get("cacheReadInputTokens", 0) + usage.get("cacheWriteInputTokens", 0)
    out.input, out.output = usage["inputTokens"] + cached, usage["outputTokens"]
    return out


def check(message: llmkit.AssistantMessage, want: Expected) -> None:
    assert message.text == want.text
    assert message.thinking == want.thinking
    parts = [p for p in message.content if isinstance(p, llmkit.ThinkingPart)]
    assert [p.signature for p in parts if p.signature] == want.signatures
    assert sum(p.redacted for p in parts) == want.redacted
    assert sum(1 for p in parts if p.replay and "bedrock" in p.replay) == want.server_blocks
    assert [(c.id, c.name, c.arguments, c.status) for c in message.tool_calls] == [
        (i, n, a, "complete") for i, n, a in want.calls
    ]
    assert message.raw_stop_reason == want.raw_stop
    assert message.stop_reason == STOPS[want.raw_stop or ""]
    assert (message.usage.input, message.usage.output) == (want.input, want.output)
    assert message.error is None
    kinds = {d.kind for d in message.diagnostics}
    assert not kinds & {"event_malformed", "stream_truncated", "usage_missing"}, kinds


def test_the_corpus_holds_the_eight_recordings() -> None:
    assert len(FILES) == 8
    assert (len(STREAMS), len(BODIES), len(ERRORS)) == (7, 2, 1)


@pytest.mark.parametrize(("name", "ex"), STREAMS, ids=[n for n, _ in STREAMS])
def test_streams_replay_exactly_at_any_split(name: str, ex: Exchange) -> None:
    want = expected(ex.body)
    reference = list(llmkit.parse_stream(MODEL, [ex.body]))
    assert isinstance(reference[-1], llmkit.Done)
    check(reference[-1].message, want)
    for seed in range(12):
        chunks = rechunk(ex.body, random.Random(f"{name}:{seed}"))
        got = list(llmkit.parse_stream(MODEL, chunks))
        assert [type(e) for e in got] == [type(e) for e in reference]
        assert got[-1].message == reference[-1].message  # type: ignore[union-attr]
    singles = [ex.body[i : i + 1] for i in range(len(ex.body))]
    assert list(llmkit.parse_stream(MODEL, singles))[-1].message == reference[-1].message  # type: ignore[union-attr]


@pytest.mark.parametrize(("name", "ex"), STREAMS, ids=[n for n, _ in STREAMS])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_streams_replay_over_a_socket(name: str, ex: Exchange, mode: str) -> None:
    size = random.Random(name).choice([1, 7, 64, 333])
    reply = FakeReply(raw_events=[ex.body], chunk_size=size)
    with FakeProvider([reply], api="bedrock-converse") as fake:
        model = fake.model(MODEL.id, reasoning=True)
        context = llmkit.Context(messages=[llmkit.user("replay")])
        if mode == "sync":
            message = llmkit.complete(model, context, api_key=fake.api_key)
        else:
            message = asyncio.run(llmkit.acomplete(model, context, api_key=fake.api_key))
        assert (
            fake.requests[0].path
            == "/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse-stream"
        )
    check(message, expected(ex.body))


@pytest.mark.parametrize(("name", "ex"), BODIES, ids=[n for n, _ in BODIES])
def test_whole_bodies_decode_exactly(name: str, ex: Exchange) -> None:
    want = expected_json(ex.body)
    check(llmkit.parse_response(MODEL, ex.body), want)


def test_the_recorded_400_is_a_typed_error_naming_the_problem() -> None:
    [(_, ex)] = ERRORS
    with FakeProvider(
        [FakeError(ex.status, body=ex.body, headers=ex.headers)], api="bedrock-converse"
    ) as fake:
        model = fake.model("us.does-not-exist-model-v1:0")
        with pytest.raises(llmkit.APIError) as info:
            llmkit.complete(
                model, llmkit.Context(messages=[llmkit.user("hello")]), api_key=fake.api_key
            )
        assert len(fake.requests) == 1  # a 400 is not retried
    assert info.value.status == 400
    assert "The provided model identifier is invalid." in str(info.value)


def test_the_thinking_turn_goes_back_exactly_as_bedrock_accepted_it() -> None:
    """pydantic-ai's second request replays the first reply (reasoning with its signature,
    text, tool use) and Bedrock answered 200: llmkit must build the same assistant turn from
    what it decoded."""
    path = next(p for p in FILES if "anthropic_tool_with_thinking" in p.name)
    first, second = load_exchanges(path)
    reply = llmkit.parse_response(MODEL, first.body)
    assert second.request is not None
    recorded = second.request["body"]
    [call] = reply.tool_calls
    context = llmkit.Context(
        messages=[
            llmkit.user("What is the largest city in the user country?"),
            reply,
            llmkit.tool_result(call, "Mexico"),
        ],
        tools=[
            llmkit.Tool(
                name="get_user_country",
                parameters={"additionalProperties": False, "properties": {}, "type": "object"},
            )
        ],
    )
    body = json.loads(llmkit.build_request(MODEL, context, api_key="k").content)
    assert body["messages"] == recorded["messages"]
    assert body["toolConfig"] == recorded["toolConfig"]
    assert Path(path).exists()
