"""The adapter conformance suite: the same contract, checked for every wire API.

Like a database driver's contract tests: whatever the wire, llmkit must end every stream with
exactly one terminal event, keep start/delta/end order per block with indexes equal to
content positions, give the same ids and message however the bytes are chunked, keep a
transcript-valid partial message after an error, and give the same result sync and async.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

import llmkit
from llmkit._fake.encoding import ServeContext
from llmkit._fake.http_server import ENCODERS
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall
from tests.support.contract import check_contract

WIRES = sorted(ENCODERS)
TOOLS = [
    llmkit.Tool(
        name="get_weather",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    ),
    llmkit.Tool(
        name="get_time", parameters={"type": "object", "properties": {"zone": {"type": "string"}}}
    ),
]
CONTEXT = llmkit.Context(messages=[llmkit.user("Weather and time in Oslo?")], tools=TOOLS)
REPLY = FakeReply(
    "Checking both — 😀 ok.",
    thinking="The user wants two things.",
    tool_calls=[
        FakeToolCall("get_weather", {"city": "Oslo, Norway"}),
        FakeToolCall("get_time", {"zone": "Europe/Oslo"}),
    ],
    usage={"input": 40, "output": 12},
    delta_size=3,
)


def body_for(wire: str, reply: FakeReply = REPLY) -> bytes:
    request = FakeRequest(
        "POST", "/", {}, {"stream": True, "stream_options": {"include_usage": True}}, b""
    )
    ids = iter(f"call_{i}" for i in range(1, 100))
    ctx = ServeContext(number=7, created=1_700_000_000, next_call_id=lambda: next(ids))
    return b"".join(ENCODERS[wire].stream_events(reply, request, ctx))


def model_for(wire: str) -> llmkit.Model:
    return llmkit.Model(
        provider="fake", id="fake-model", api=wire, base_url="http://127.0.0.1:9", reasoning=True
    )  # type: ignore[arg-type]


def chunkings(body: bytes, count: int = 6) -> list[list[bytes]]:
    out = [[body], [body[i : i + 1] for i in range(len(body))]]
    for seed in range(count):
        rng = random.Random(seed)
        pieces, i = [], 0
        while i < len(body):
            n = rng.choice((1, 2, 3, 7, 31, 300))
            pieces.append(body[i : i + n])
            i += n
        out.append(pieces)
    return out


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_the_scripted_reply_comes_back_whole(wire: str) -> None:
    message = check_contract(list(llmkit.parse_stream(model_for(wire), [body_for(wire)])))
    assert message.text == "Checking both — 😀 ok."
    assert message.thinking == "The user wants two things."
    assert [(c.name, c.arguments, c.status) for c in message.tool_calls] == [
        ("get_weather", {"city": "Oslo, Norway"}, "complete"),
        ("get_time", {"zone": "Europe/Oslo"}, "complete"),
    ]
    assert message.stop_reason == "tool_use"
    assert (message.usage.input, message.usage.output) == (40, 12)


def test_any_chunking_gives_the_same_events_ids_and_message(wire: str) -> None:
    model, body = model_for(wire), body_for(wire)
    reference = list(llmkit.parse_stream(model, [body]))
    for chunks in chunkings(body):
        events = list(llmkit.parse_stream(model, chunks))
        check_contract(events)
        assert [type(e) for e in events] == [type(e) for e in reference]
        assert [getattr(e, "id", None) for e in events] == [
            getattr(e, "id", None) for e in reference
        ]
        assert events[-1].message.model_dump() == reference[-1].message.model_dump()  # type: ignore[union-attr]


def test_truncation_at_every_event_boundary_keeps_a_valid_partial(wire: str) -> None:
    model = model_for(wire)
    request = FakeRequest("POST", "/", {}, {"stream": True}, b"")
    ctx = ServeContext(number=7, created=1, next_call_id=lambda: "call_x")
    events_bytes = ENCODERS[wire].stream_events(REPLY, request, ctx)
    for cut in range(1, len(events_bytes)):
        events = list(llmkit.parse_stream(model, [b"".join(events_bytes[:cut])]))
        message = check_contract(events)
        if isinstance(events[-1], llmkit.ErrorEvent):
            assert message.stop_reason == "error"
            assert "stream_truncated" in [d.kind for d in message.diagnostics]
        # the partial message is transcript-valid: it can go back to the same model
        ctx2 = CONTEXT.model_copy(update={"messages": [*CONTEXT.messages, message]})
        request2 = llmkit.build_request(model, ctx2, api_key="k")
        assert json.loads(request2.content)


def test_partial_arguments_are_prefix_values(wire: str) -> None:
    model = model_for(wire)
    events = list(llmkit.parse_stream(model, chunkings(body_for(wire))[1]))
    final = {c.id: c.arguments for c in events[-1].message.tool_calls}  # type: ignore[union-attr]
    for event in events:
        if isinstance(event, llmkit.ToolCallDelta):
            partial = event.partial_arguments
            assert partial is None or isinstance(partial, dict)
            for key, value in (partial or {}).items():
                target = final[event.id][key]
                assert value == target or (isinstance(value, str) and target.startswith(value))


async def _aiter(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for c in chunks:
        yield c


def test_async_parse_equals_sync(wire: str) -> None:
    model, chunks = model_for(wire), chunkings(body_for(wire))[3]

    async def go() -> list[llmkit.Event]:
        return [e async for e in llmkit.aparse_stream(model, _aiter(chunks))]

    sync = list(llmkit.parse_stream(model, chunks))
    asynchronous = asyncio.run(go())
    assert [type(e) for e in sync] == [type(e) for e in asynchronous]
    assert sync[-1].message.model_dump() == asynchronous[-1].message.model_dump()  # type: ignore[union-attr]


def _strip(message: llmkit.AssistantMessage) -> dict[str, Any]:
    data = message.model_dump()
    data.pop("response_id")
    return data


def test_client_sync_and_async_agree_and_errors_end_once(wire: str) -> None:
    results = []
    for mode in ("sync", "async"):
        with FakeProvider([REPLY, FakeError(in_stream=True, after_events=3)], api=wire) as fake:  # type: ignore[arg-type]
            model = fake.model()
            if mode == "sync":
                first = llmkit.complete(model, CONTEXT, api_key=fake.api_key)
                with llmkit.stream(model, CONTEXT, api_key=fake.api_key) as events:
                    second = list(events)
            else:

                async def go(
                    m: llmkit.Model, key: str
                ) -> tuple[llmkit.AssistantMessage, list[llmkit.Event]]:
                    a = await llmkit.acomplete(m, CONTEXT, api_key=key)
                    async with llmkit.astream(m, CONTEXT, api_key=key) as events:
                        b = [e async for e in events]
                    return a, b

                first, second = asyncio.run(go(model, fake.api_key))
        check_contract(second)
        assert isinstance(second[-1], llmkit.ErrorEvent)
        results.append((_strip(first), [type(e) for e in second]))
    assert results[0] == results[1]
