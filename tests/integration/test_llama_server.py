"""llmkit against a real llama.cpp ``llama-server`` (README.md here says how to run).

Every test sends its request through llmkit's public API to the server, then reads the bytes
the server really sent (kept by ``harness.Recorder``) with ``oracle.py`` — plain ``json``, no
llmkit — and checks that llmkit's message says the same: text, reasoning, each call's id, name
and argument text, the stop reason, usage and the response id. The model's weights are random,
so what it says is noise; the protocol around it (grammar-forced calls, parallel calls, calls
cut off at ``max_tokens``, schema-constrained output, errors) is the server's real behaviour.

With ``LLMKIT_LLAMA_RECORD=<dir>`` each test also writes the exchange it checked into ``<dir>``
(that is how ``tests/fixtures/llama-server/`` was made).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, Field

import llmkit
from tests.integration.harness import AsyncRecorder, Exchange, Server
from tests.integration.oracle import Reply, read_json, read_stream


class GetWeather(BaseModel):
    """Get a weather forecast."""

    city: str = Field(description="City name")
    days: int = 1


class Answer(BaseModel):
    city: str = Field(min_length=1, max_length=12)
    days: int = Field(ge=1, le=10)


WEATHER = llmkit.tool(GetWeather)
ASK = llmkit.Context(messages=[llmkit.user("What is the weather in Oslo and in Paris?")])
ASK_TOOLS = ASK.model_copy(update={"tools": [WEATHER]})
# A continued assistant turn that opens a call no declared tool describes.
PREFILL = '<tool_call>{"nope": 1}</tool_call>'


def stream(
    server: Server, context: llmkit.Context, **options: Any
) -> tuple[list[llmkit.Event], llmkit.AssistantMessage, Exchange]:
    """Stream through llmkit, returning its events, its message and what went over the wire."""
    client, recorder = server.client()
    with client, llmkit.stream(server.model(), context, client=client, **options) as events:
        collected = list(events)
    return collected, events.message, recorder.last


def capture(name: str, exchange: Exchange, note: str) -> None:
    """Write the exchange into ``$LLMKIT_LLAMA_RECORD`` (the default run replays those)."""
    folder = os.environ.get("LLMKIT_LLAMA_RECORD")
    if not folder:
        return
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    ext = "sse" if exchange.content_type == "text/event-stream" else "json"
    (out / f"{name}.{ext}").write_bytes(exchange.body)
    index_file = out / "captures.json"
    index = json.loads(index_file.read_text()) if index_file.exists() else {}
    index[f"{name}.{ext}"] = {
        "note": note,
        "status": exchange.status,
        "content_type": exchange.content_type,
        "request": exchange.request,
    }
    index_file.write_text(json.dumps(dict(sorted(index.items())), indent=2) + "\n")


def call_status(arguments: str) -> str:
    try:
        value = json.loads(arguments)
    except ValueError:
        return "recovered"  # a call cut off at max_tokens: a prefix of JSON
    return "complete" if isinstance(value, dict) else "invalid"


def assert_same(message: llmkit.AssistantMessage, reply: Reply) -> None:
    """llmkit's message says what the bytes say (see the module docstring)."""
    assert message.text == reply.text
    assert message.thinking == reply.reasoning
    assert [c.name for c in message.tool_calls] == [c.name for c in reply.calls]
    for got, want in zip(message.tool_calls, reply.calls, strict=True):
        assert got.id == want.id  # llama-server's ids are usable as they are
        assert got.raw_arguments == want.arguments
        assert got.status == call_status(want.arguments)
        if got.status == "complete":
            assert got.arguments == json.loads(want.arguments)
    assert message.stop_reason == reply.stop_reason
    if reply.error is None:
        assert message.raw_stop_reason == reply.finish_reason
    assert message.response_id == (reply.id or None)
    if reply.usage is not None:
        assert message.usage.input == reply.usage["prompt_tokens"]
        assert message.usage.output == reply.usage["completion_tokens"]
        assert message.usage.cache_read == reply.usage["prompt_tokens_details"]["cached_tokens"]


def assert_events_tell_the_message(events: list[llmkit.Event]) -> None:
    final = events[-1]
    assert isinstance(final, (llmkit.Done, llmkit.ErrorEvent))
    message = final.message
    text = "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta))
    assert text == message.text
    ended = [e.tool_call for e in events if isinstance(e, llmkit.ToolCallEnd)]
    assert ended == message.tool_calls


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_streamed_text(server: Server, seed: int) -> None:
    events, message, wire = stream(server, ASK, max_tokens=24, provider_options={"seed": seed})
    reply = read_stream(wire.body)
    assert reply.done and reply.usage is not None  # include_usage was sent and honoured
    assert wire.request["stream_options"] == {"include_usage": True}
    assert wire.request["max_tokens"] == 24  # the llamacpp profile's field
    assert_same(message, reply)
    assert_events_tell_the_message(events)
    if seed == 1:
        capture("text", wire, "streamed text, max_tokens=24, usage on a choices: [] chunk")


def test_streamed_text_async(server: Server) -> None:
    async def go() -> tuple[llmkit.AssistantMessage, Exchange]:
        recorder = AsyncRecorder()
        async with httpx.AsyncClient(transport=recorder, timeout=60) as client:
            events = llmkit.astream(
                server.model(), ASK, client=client, max_tokens=24, provider_options={"seed": 4}
            )
            async with events:
                async for _ in events:
                    pass
        return events.message, recorder.last

    message, wire = asyncio.run(go())
    assert_same(message, read_stream(wire.body))


def test_reasoning_streams_as_thinking(server: Server) -> None:
    model = server.model(reasoning=True)
    client, recorder = server.client()
    with client:
        message = llmkit.complete(
            model, ASK, client=client, reasoning="high", max_tokens=60, provider_options={"seed": 2}
        )
    wire = recorder.last
    assert wire.request["chat_template_kwargs"] == {"enable_thinking": True}
    reply = read_stream(wire.body)
    assert reply.reasoning  # the template opened <think>: the reply starts as reasoning
    assert_same(message, reply)
    capture("reasoning", wire, "chat_template_kwargs.enable_thinking: reasoning_content deltas")


# --------------------------------------------------------------------------- tool calls


@pytest.mark.parametrize("seed", [2, 4, 5, 6])
def test_forced_calls(server: Server, seed: int) -> None:
    events, message, wire = stream(
        server, ASK_TOOLS, tool_choice="required", max_tokens=300, provider_options={"seed": seed}
    )
    reply = read_stream(wire.body)
    assert reply.calls, "tool_choice=required: the grammar forces at least one call"
    assert_same(message, reply)
    assert_events_tell_the_message(events)
    for call in message.tool_calls:
        if call.status == "complete":
            assert isinstance(llmkit.decode_tool_call(WEATHER, call), GetWeather)


def test_parallel_calls(server: Server) -> None:
    """Several calls in one reply, each with its own id and index."""
    for seed in range(2, 12):
        events, message, wire = stream(
            server,
            ASK_TOOLS,
            tool_choice="required",
            parallel_tool_calls=True,
            max_tokens=300,
            provider_options={"seed": seed},
        )
        reply = read_stream(wire.body)
        if len(reply.calls) >= 2 and reply.finish_reason == "tool_calls":
            break
    else:
        pytest.fail("no seed gave two complete calls")
    assert wire.request["parallel_tool_calls"] is True
    assert_same(message, reply)
    assert_events_tell_the_message(events)
    assert len({c.id for c in message.tool_calls}) == len(message.tool_calls)
    capture("tool-calls-parallel", wire, f"tool_choice=required, parallel calls (seed {seed})")


def test_parallel_tool_calls_false_reaches_the_server(server: Server) -> None:
    """The llamacpp profile sends ``parallel_tool_calls`` (the server reads it,
    ``tools/server/server-common.cpp:1321``) instead of dropping it with a diagnostic.

    At llama.cpp 0c1e57098 the grammar for per-call ``<tool_call>`` JSON (this template's
    format) still allows several calls with ``false`` (``common/chat-auto-parser-generator.cpp
    :211-215`` wraps the call in ``one_or_more``), so only the delivery is asserted here.
    """
    _, message, wire = stream(
        server,
        ASK_TOOLS,
        tool_choice="required",
        parallel_tool_calls=False,
        max_tokens=200,
        provider_options={"seed": 2},
    )
    assert wire.status == 200 and wire.request["parallel_tool_calls"] is False
    assert not [d for d in message.diagnostics if d.kind == "option_unsupported"]
    assert_same(message, read_stream(wire.body))


def test_cut_off_call(server: Server) -> None:
    """A call cut by ``max_tokens``: ``length``, arguments recovered, decoding refused."""
    for seed in range(1, 30):
        events, message, wire = stream(
            server,
            ASK_TOOLS,
            tool_choice="required",
            max_tokens=40,
            provider_options={"seed": seed},
        )
        reply = read_stream(wire.body)
        if reply.calls and call_status(reply.calls[-1].arguments) != "complete":
            break
    else:
        pytest.fail("no seed cut a call off")
    assert reply.finish_reason == "length"
    assert_same(message, reply)
    assert_events_tell_the_message(events)
    cut = message.tool_calls[-1]
    assert cut.status == "recovered"
    with pytest.raises(llmkit.ToolArgumentsError):
        llmkit.decode_tool_call(WEATHER, cut)
    capture("tool-call-cut-off", wire, f"max_tokens=40 inside a call (seed {seed})")


def test_tool_loop(server: Server) -> None:
    """Call, result, answer: the server takes llmkit's replay of its own calls and ids."""
    context = ASK_TOOLS.model_copy(deep=True)
    client, recorder = server.client()
    with client:
        first = llmkit.complete(
            server.model(),
            context,
            client=client,
            tool_choice="required",
            max_tokens=300,
            provider_options={"seed": 2},
        )
        assert first.tool_calls
        context.messages.append(first)
        for call in first.tool_calls:
            try:
                args = llmkit.decode_tool_call(WEATHER, call)
                result = f"{args.city}: sunny for {args.days} days"
                context.messages.append(llmkit.tool_result(call, result))
            except llmkit.ToolArgumentsError as e:
                context.messages.append(llmkit.tool_result(call, e.model_message, is_error=True))
        second = llmkit.complete(
            server.model(),
            context,
            client=client,
            tool_choice="none",
            max_tokens=24,
            provider_options={"seed": 3},
        )
    sent = recorder.last.request["messages"]
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == [
        c.id for c in first.tool_calls
    ]
    assert [c["id"] for c in sent[1]["tool_calls"]] == [c.id for c in first.tool_calls]
    assert recorder.last.status == 200
    assert not second.tool_calls
    assert_same(second, read_stream(recorder.last.body))
    capture("tool-loop-answer", recorder.last, "the turn after tool results, tool_choice=none")


def test_non_streamed_body(server: Server) -> None:
    """``parse_response`` on llama-server's ``chat.completion`` body."""
    model = server.model()
    request = llmkit.build_request(
        model, ASK_TOOLS, tool_choice="required", max_tokens=200, provider_options={"seed": 2}
    )
    body = json.loads(request.content)
    body["stream"] = False
    del body["stream_options"]
    response = httpx.post(str(request.url), json=body, timeout=60)
    assert response.status_code == 200
    reply = read_json(response.content)
    assert reply.calls
    assert_same(llmkit.parse_response(model, response.content), reply)
    capture(
        "non-streamed",
        Exchange(body, 200, "application/json", response.content),
        "stream=false, tool_choice=required",
    )


# --------------------------------------------------------------------------- structured output


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_structured_output_schema_goes_as_written(server: Server, seed: int) -> None:
    """No strict mode on llama-server: the schema goes unchanged, and the server's grammar
    holds the reply to all of it, ``maxLength`` included (mismatch 2 of
    ``test_llama_server_captures.py``)."""
    _, message, wire = stream(
        server, ASK, response_format=Answer, max_tokens=200, provider_options={"seed": seed}
    )
    sent = wire.request["response_format"]
    assert sent == {
        "type": "json_schema",
        "json_schema": {"name": "Answer", "schema": Answer.model_json_schema()},
    }
    assert not [d for d in message.diagnostics if d.kind == "schema_rewritten"]
    reply = read_stream(wire.body)
    assert_same(message, reply)
    answer = Answer.model_validate_json(message.text)  # within max_length=12: enforced
    assert 1 <= len(answer.city) <= 12
    if seed == 1:
        capture("structured-output", wire, "response_format from a pydantic model, as written")


def test_the_strict_transform_would_lose_max_length(server: Server) -> None:
    """Why the schema must go as written: with the strict transform (forced here with
    ``compat={"supports_strict": True}``), ``maxLength`` only survives as a description, and
    the server's grammar lets the model exceed it."""
    model = server.model(compat={"supports_strict": True})
    for seed in range(1, 11):
        client, recorder = server.client()
        with client:
            message = llmkit.complete(
                model,
                ASK,
                client=client,
                response_format=Answer,
                max_tokens=200,
                provider_options={"seed": seed},
            )
        kinds = [d.kind for d in message.diagnostics]
        assert "schema_rewritten" in kinds  # maxLength moved into the description
        assert recorder.last.request["response_format"]["json_schema"]["strict"] is True
        if len(json.loads(message.text)["city"]) > 12:
            break
    else:
        pytest.fail("the model kept within maxLength without being held to it")


# --------------------------------------------------------------------------- errors


def test_context_overflow_is_a_context_length_error(server: Server) -> None:
    """HTTP 400 ``exceed_context_size_error`` (mismatch 1 of ``test_llama_server_captures.py``)."""
    long = llmkit.Context(messages=[llmkit.user("x" * 9000)])
    client, recorder = server.client()
    with client, pytest.raises(llmkit.ContextLengthError) as info:
        llmkit.complete(server.model(), long, client=client, max_tokens=8)
    wire = recorder.last
    error = json.loads(wire.body)["error"]
    assert (wire.status, error["type"]) == (400, "exceed_context_size_error")
    assert error["n_prompt_tokens"] > error["n_ctx"]
    assert (info.value.status, info.value.code) == (400, "exceed_context_size_error")
    assert info.value.body == json.loads(wire.body)
    capture("context-overflow", wire, "prompt longer than the slot's context (-c 8192 -np 2)")


def test_in_stream_error_keeps_the_payload_status(server: Server) -> None:
    """A 200 stream that ends in ``data: {"error": {"code": 500, ...}}`` without ``[DONE]``:
    a ``ServerError`` whose ``status`` is the payload's 500 (mismatch 4 of
    ``test_llama_server_captures.py``).

    The server's parser refuses a continued assistant turn that opened a call the tools do
    not describe (``common/chat.cpp:1498``, sent by ``tools/server/server-context.cpp:4493``).
    """
    context = ASK_TOOLS.model_copy(deep=True)
    prefill = llmkit.AssistantMessage(content=[llmkit.TextPart(text=PREFILL)])
    context.messages.append(prefill)
    events, message, wire = stream(server, context, max_tokens=16, provider_options={"seed": 1})
    reply = read_stream(wire.body)
    assert wire.status == 200 and reply.error is not None and not reply.done
    assert reply.error["code"] == 500
    final = events[-1]
    assert isinstance(final, llmkit.ErrorEvent)
    assert isinstance(final.error, llmkit.ServerError)
    assert (final.error.status, final.error.code) == (500, reply.error["type"])
    assert final.error.message == reply.error["message"]
    assert_same(message, reply)
    capture("in-stream-error", wire, "HTTP 200, then an error payload and no [DONE]")
