"""``llmkit.ui``: the mapping from llmkit events to UI message stream parts, in pure Python.

The real client's reading of these streams is ``test_ui_conformance.py``; here each rule is
pinned down on its own: framing, every part type, ids, ordering, ``finish`` last, safe errors,
input that is out of order, and the two pumps agreeing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, get_args

import pytest

import llmkit
from llmkit import (
    AssistantMessage,
    Diagnostic,
    DiagnosticEvent,
    Done,
    ErrorEvent,
    Start,
    TextDelta,
    TextEnd,
    TextPart,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingPart,
    ThinkingStart,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageEvent,
)
from llmkit.ui import (
    FINISH_REASONS,
    UI_STREAM_HEADERS,
    UIStreamItem,
    ato_ui_stream,
    safe_error_text,
    to_ui_stream,
)

from .support.ui_cases import SECRET, built

# The finishReason values uiMessageChunkSchema accepts (ai 7.0.185).
PROTOCOL_FINISH_REASONS = {
    "stop",
    "length",
    "content-filter",
    "tool-calls",
    "error",
    "interrupted",
    "other",
}


def parts(chunks: Iterable[str], *, record: bool = False) -> list[dict[str, Any]]:
    """The parts of a UI stream, checking its framing: one compact JSON per ``data:`` chunk,
    ``[DONE]`` last and only last. Each step's ``data-llmkit`` record (the round trip's, see
    test_ui_history.py) is left out unless ``record``."""
    chunks = list(chunks)
    assert chunks[-1] == "data: [DONE]\n\n"
    out = []
    for chunk in chunks[:-1]:
        assert chunk.startswith("data: {")
        assert chunk.endswith("}\n\n")
        assert "\n" not in chunk[:-2] and "\r" not in chunk
        part = json.loads(chunk[len("data: ") :])
        assert chunk == f"data: {json.dumps(part, ensure_ascii=False, separators=(',', ':'))}\n\n"
        if record or part["type"] != "data-llmkit":
            out.append(part)
    return out


def chunks(body: str) -> list[str]:
    """A joined UI stream cut back into its chunks."""
    return [chunk + "\n\n" for chunk in body.split("\n\n")[:-1]]


def delta(index: int, id: str, name: str, text: str) -> ToolCallDelta:
    return ToolCallDelta(index, id, name, text, lambda: None)


def call(id: str, name: str, raw: str, status: llmkit.ToolCallStatus = "complete") -> ToolCall:
    arguments = json.loads(raw) if status == "complete" else {}
    return ToolCall(id=id, name=name, arguments=arguments, raw_arguments=raw, status=status)


def message(*content: Any, stop: llmkit.StopReason = "stop", **fields: Any) -> AssistantMessage:
    return AssistantMessage(content=list(content), stop_reason=stop, **fields)


WEATHER = call("call_a", "get_weather", '{"city":"Paris"}')


def weather_step(final: AssistantMessage | None = None) -> list[UIStreamItem]:
    """Thinking, text and one call, as a stream would deliver them."""
    final = final or message(
        ThinkingPart(thinking="Hmm."), TextPart(text="Sure."), WEATHER, stop="tool_use"
    )
    return [
        Start(provider="fake", model="m"),
        ThinkingStart(0),
        ThinkingDelta(0, "Hmm."),
        ThinkingEnd(0, "Hmm."),
        TextStart(1),
        TextDelta(1, "Sure"),
        TextDelta(1, "."),
        TextEnd(1, "Sure."),
        ToolCallStart(2, "call_a", "get_weather"),
        delta(2, "call_a", "get_weather", '{"city":'),
        delta(2, "call_a", "get_weather", '"Paris"}'),
        ToolCallEnd(2, WEATHER),
        UsageEvent(Usage(input=3, output=4)),
        Done(final),
    ]


def test_one_step_maps_every_event_in_order() -> None:
    assert parts(to_ui_stream(weather_step())) == [
        {"type": "start"},
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "reasoning-0-0"},
        {"type": "reasoning-delta", "id": "reasoning-0-0", "delta": "Hmm."},
        {"type": "reasoning-end", "id": "reasoning-0-0"},
        {"type": "text-start", "id": "text-0-1"},
        {"type": "text-delta", "id": "text-0-1", "delta": "Sure"},
        {"type": "text-delta", "id": "text-0-1", "delta": "."},
        {"type": "text-end", "id": "text-0-1"},
        {"type": "tool-input-start", "toolCallId": "call_a", "toolName": "get_weather"},
        {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '{"city":'},
        {"type": "tool-input-delta", "toolCallId": "call_a", "inputTextDelta": '"Paris"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "call_a",
            "toolName": "get_weather",
            "input": {"city": "Paris"},
        },
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "tool-calls"},
    ]


def test_headers_name_protocol_v1() -> None:
    assert UI_STREAM_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
    assert UI_STREAM_HEADERS["content-type"] == "text/event-stream"


def test_every_stop_reason_has_a_protocol_finish_reason() -> None:
    assert set(FINISH_REASONS) == set(get_args(llmkit.StopReason))
    assert set(FINISH_REASONS.values()) <= PROTOCOL_FINISH_REASONS
    assert FINISH_REASONS["tool_use"] == "tool-calls"
    assert FINISH_REASONS["content_filter"] == "content-filter"
    assert FINISH_REASONS["length"] == "length"


def test_message_id_goes_on_start_and_nothing_is_random() -> None:
    first = list(to_ui_stream(weather_step(), message_id="msg-1"))
    assert parts(first)[0] == {"type": "start", "messageId": "msg-1"}
    assert list(to_ui_stream(weather_step(), message_id="msg-1")) == first


def test_empty_text_and_thinking_parts_send_nothing() -> None:
    """A redacted thinking block, or Gemini's bare signature part, has no text to show."""
    events: list[UIStreamItem] = [
        Start(),
        ThinkingStart(0),
        ThinkingEnd(0, ""),
        TextStart(1),
        TextDelta(1, ""),
        TextEnd(1, ""),
        Done(message(ThinkingPart(redacted=True), TextPart(text=""))),
    ]
    assert [p["type"] for p in parts(to_ui_stream(events))] == [
        "start",
        "start-step",
        "finish-step",
        "finish",
    ]


def test_interleaved_parts_keep_their_own_ids() -> None:
    events: list[UIStreamItem] = [
        Start(),
        TextStart(0),
        TextDelta(0, "a"),
        ThinkingStart(1),
        ThinkingDelta(1, "b"),
        TextDelta(0, "c"),
        TextEnd(0, "ac"),
        ThinkingEnd(1, "b"),
        Done(message(TextPart(text="ac"), ThinkingPart(thinking="b"))),
    ]
    got = [(p["type"], p.get("id"), p.get("delta")) for p in parts(to_ui_stream(events))[2:-2]]
    assert got == [
        ("text-start", "text-0-0", None),
        ("text-delta", "text-0-0", "a"),
        ("reasoning-start", "reasoning-0-1", None),
        ("reasoning-delta", "reasoning-0-1", "b"),
        ("text-delta", "text-0-0", "c"),
        ("text-end", "text-0-0", None),
        ("reasoning-end", "reasoning-0-1", None),
    ]


def test_a_name_that_arrives_late_starts_the_call_then() -> None:
    """``tool-input-start`` needs a name; the argument text seen before it is sent with it."""
    final = call("c1", "get_time", '{"tz":"UTC"}')
    events: list[UIStreamItem] = [
        Start(),
        ToolCallStart(0, "c1", ""),
        delta(0, "c1", "", '{"tz"'),
        delta(0, "c1", "get_time", ':"UTC"'),
        delta(0, "c1", "get_time", "}"),
        ToolCallEnd(0, final),
        Done(message(final, stop="tool_use")),
    ]
    assert parts(to_ui_stream(events))[2:5] == [
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "get_time"},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"tz":"UTC"'},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": "}"},
    ]


def test_a_call_the_final_message_marks_recovered_is_an_input_error() -> None:
    """A refusal turn: the call ended ``complete``, then the terminal event marked it
    ``recovered``. The page gets ``tool-input-error``, never ``tool-input-available``."""
    refused = WEATHER.model_copy(update={"status": "recovered"})
    not_executable = Diagnostic(
        kind="tool_call_not_executable",
        message="This tool call is not safe to execute: the model refused in this turn (E3)",
        tool_call_id="call_a",
    )
    final = message(
        ThinkingPart(thinking="Hmm."),
        TextPart(text="Sure."),
        refused,
        stop="refusal",
        diagnostics=[not_executable],
    )
    got = parts(to_ui_stream(weather_step(final)))
    assert "tool-input-available" not in [p["type"] for p in got]
    assert got[-3:] == [
        {
            "type": "tool-input-error",
            "toolCallId": "call_a",
            "toolName": "get_weather",
            "input": '{"city":"Paris"}',
            "errorText": "The call is not safe to run: the model's turn must not be acted on.",
        },
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "content-filter"},
    ]


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        ("partial", "The arguments were cut off before they were complete."),
        ("repaired", "The arguments are not valid JSON."),
    ],
)
def test_recovered_arguments_say_why_in_plain_words(mode: str, text: str) -> None:
    cut = call("c1", "get_time", '{"tz": "UT', status="recovered")
    recovered = Diagnostic(
        kind="tool_arguments_recovered", message="...", tool_call_id="c1", details={"mode": mode}
    )
    events: list[UIStreamItem] = [
        Start(),
        ToolCallStart(0, "c1", "get_time"),
        delta(0, "c1", "get_time", '{"tz": "UT'),
        ToolCallEnd(0, cut),
        Done(message(cut, stop="length", diagnostics=[recovered])),
    ]
    settled = parts(to_ui_stream(events))[-3]
    assert settled == {
        "type": "tool-input-error",
        "toolCallId": "c1",
        "toolName": "get_time",
        "input": '{"tz": "UT',
        "errorText": text,
    }


def test_a_call_never_streamed_is_still_started_before_it_settles() -> None:
    bare = call("c9", "get_time", "{}")
    got = parts(to_ui_stream([Start(), Done(message(bare, stop="tool_use"))]))
    assert [p["type"] for p in got] == [
        "start",
        "start-step",
        "tool-input-start",
        "tool-input-available",
        "finish-step",
        "finish",
    ]


def failed(error: Exception, *content: Any, stop: llmkit.StopReason = "error") -> ErrorEvent:
    return ErrorEvent(message(*content, stop=stop, error=f"{type(error).__name__}: {error}"), error)


def test_an_error_event_sends_a_safe_error_then_finish() -> None:
    leaky = llmkit.ServerError(
        f"upstream 10.1.2.3 failed for key {SECRET}", status=500, body={"key": SECRET}
    )
    events: list[UIStreamItem] = [
        Start(),
        TextStart(0),
        TextDelta(0, "Half an ans"),
        failed(leaky, TextPart(text="Half an ans")),
    ]
    body = "".join(to_ui_stream(events))
    assert SECRET not in body and "10.1.2.3" not in body and "ServerError" not in body
    assert parts(chunks(body))[-5:] == [
        {"type": "text-delta", "id": "text-0-0", "delta": "Half an ans"},
        {"type": "text-end", "id": "text-0-0"},
        {"type": "error", "errorText": "The model's provider had an error. Please try again."},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "error"},
    ]


def test_on_error_words_the_error_and_sees_the_exception() -> None:
    seen: list[Exception] = []

    def on_error(error: Exception) -> str:
        seen.append(error)
        return "Nope."

    boom = llmkit.StreamError("The stream ended before the response was complete")
    got = parts(to_ui_stream([Start(), failed(boom)], on_error=on_error))
    assert seen == [boom]
    assert {"type": "error", "errorText": "Nope."} in got


def test_an_aborted_stream_sends_abort_not_error() -> None:
    stopped = llmkit.StreamError("The stream was closed by the caller")
    got = parts(to_ui_stream([Start(), failed(stopped, stop="aborted")]))
    assert [p["type"] for p in got] == ["start", "start-step", "abort", "finish-step", "finish"]
    assert got[-1] == {"type": "finish", "finishReason": "other"}


def test_an_open_call_when_the_stream_fails_is_an_input_error_with_its_text() -> None:
    """The events end mid-call (no terminal event): what was open is closed honestly."""
    events: list[UIStreamItem] = [
        Start(),
        TextStart(0),
        TextDelta(0, "x"),
        ToolCallStart(1, "c1", "get_time"),
        delta(1, "c1", "get_time", '{"tz": "U'),
    ]
    got = parts(to_ui_stream(events))
    assert got[-6:] == [
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"tz": "U'},
        {"type": "text-end", "id": "text-0-0"},
        {
            "type": "tool-input-error",
            "toolCallId": "c1",
            "toolName": "get_time",
            "input": '{"tz": "U',
            "errorText": "The call did not complete.",
        },
        {"type": "abort", "reason": "The answer stopped before it was complete."},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "other"},
    ]


def raising(items: list[UIStreamItem], error: Exception) -> Iterator[UIStreamItem]:
    yield from items
    raise error


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (llmkit.RateLimitError(f"slow down {SECRET}", status=429), "Too many requests"),
        (llmkit.OverloadedError("busy", status=529), "overloaded"),
        (llmkit.ContextLengthError("too long", status=400), "too long for the model"),
        (llmkit.APITimeoutError(f"{SECRET}", phase="connect"), "took too long"),
        (llmkit.APIConnectionError(f"dns {SECRET}"), "could not be reached"),
        (llmkit.AuthenticationError(f"bad key {SECRET}", status=401), "Something went wrong"),
        (llmkit.MissingAPIKeyError("openai", "OPENAI_API_KEY"), "Something went wrong"),
    ],
)
def test_an_llmerror_raised_by_the_input_still_ends_with_finish(
    error: Exception, text: str
) -> None:
    """``stream()`` raises before the first byte (a 401, a 429, no connection): the page
    still gets ``error``, ``finish`` and ``[DONE]``, and a sentence without details."""
    body = "".join(to_ui_stream(raising([], error)))
    got = parts(chunks(body))
    assert [p["type"] for p in got] == ["start", "error", "finish"]
    assert text in got[1]["errorText"]
    assert got[1]["errorText"] == safe_error_text(error)
    assert got[2] == {"type": "finish", "finishReason": "error"}
    assert SECRET not in body and "OPENAI_API_KEY" not in body


def test_an_llmerror_between_steps_ends_the_message_after_the_first_step() -> None:
    error = llmkit.RateLimitError("slow down", status=429)
    got = parts(to_ui_stream(raising(weather_step(), error)))
    assert [p["type"] for p in got][-4:] == [
        "tool-input-available",
        "finish-step",
        "error",
        "finish",
    ]
    assert got[-1] == {"type": "finish", "finishReason": "error"}


def test_other_exceptions_propagate_and_the_input_is_closed() -> None:
    closed: list[bool] = []

    def events() -> Iterator[UIStreamItem]:
        try:
            yield Start()
            raise KeyError("a bug in the caller's code")
        finally:
            closed.append(True)

    with pytest.raises(KeyError):
        list(to_ui_stream(events()))
    assert closed == [True]


def test_a_reader_that_stops_early_closes_the_input() -> None:
    """The browser went away: the server stops reading, and the generator holding the llmkit
    stream is closed right then (so its connection closes), not whenever it is collected."""
    closed: list[bool] = []

    def events() -> Iterator[UIStreamItem]:
        try:
            yield from weather_step()
        finally:
            closed.append(True)

    stream = to_ui_stream(events())
    next(stream), next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert closed == [True]


@pytest.mark.parametrize(
    ("items", "match"),
    [
        ([TextStart(0)], "TextStart arrived outside a step"),
        ([Start(), Start()], "Start arrived inside a step"),
        ([Start(), delta(0, "c", "n", "{")], "before its ToolCallStart"),
        ([Start(), llmkit.tool_result(WEATHER, "ok")], "inside a step"),
        ([Start(), Done(message()), llmkit.tool_result(WEATHER, "ok")], "unknown call"),
    ],
)
def test_input_out_of_order_is_refused(items: list[UIStreamItem], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        list(to_ui_stream(items))


def test_a_tool_loop_is_one_message_of_steps_with_tool_outputs() -> None:
    answer = message(TextPart(text="Sunny."))
    items: list[UIStreamItem] = [
        *weather_step(),
        llmkit.tool_result(WEATHER, "Sunny, 21 °C."),
        Start(),
        TextStart(0),
        TextDelta(0, "Sunny."),
        TextEnd(0, "Sunny."),
        Done(answer),
    ]
    got = parts(to_ui_stream(items))
    assert got[14:] == [
        {
            "type": "tool-output-available",
            "toolCallId": "call_a",
            "output": "Sunny, 21 °C.",
            "providerMetadata": {"llmkit": {"index": 0}},
        },
        {"type": "start-step"},
        {"type": "text-start", "id": "text-1-0"},
        {"type": "text-delta", "id": "text-1-0", "delta": "Sunny."},
        {"type": "text-end", "id": "text-1-0"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
    ]
    failed_result = llmkit.tool_result(WEATHER, "days: at most 10", is_error=True)
    got = parts(to_ui_stream([*weather_step(), failed_result]))
    assert got[-2] == {
        "type": "tool-output-error",
        "toolCallId": "call_a",
        "errorText": "days: at most 10",
        "providerMetadata": {"llmkit": {"index": 0}},
    }


def test_data_parts_carry_diagnostics_and_each_steps_outcome() -> None:
    diagnostic = Diagnostic(kind="usage_missing", message="The provider reported no token usage")
    final = message(TextPart(text="x"), stop="length", raw_stop_reason="max_tokens")
    final.usage = Usage(input=10, output=2)
    items: list[UIStreamItem] = [Start(), DiagnosticEvent(diagnostic), Done(final)]
    assert parts(to_ui_stream(items)) == parts(to_ui_stream(items, data_parts=False))
    got = parts(to_ui_stream(items, data_parts=True))
    assert got[2] == {
        "type": "data-llmkit-diagnostic",
        "data": {
            "kind": "usage_missing",
            "message": "The provider reported no token usage",
            "tool_call_id": None,
            "details": {},
        },
    }
    assert got[3] == {
        "type": "data-llmkit-step",
        "data": {
            "stop_reason": "length",
            "raw_stop_reason": "max_tokens",
            "usage": {
                "input": 10,
                "output": 2,
                "cache_read": None,
                "cache_write": None,
                "reasoning": None,
                "cost": None,
            },
        },
    }
    assert "data-llmkit-diagnostic" not in "".join(to_ui_stream(items))


def test_no_input_at_all_is_still_a_whole_stream() -> None:
    assert parts(to_ui_stream([])) == [{"type": "start"}, {"type": "finish"}]


# -- real streams from the fake provider -------------------------------------------------------


def test_tool_input_deltas_add_up_to_the_raw_arguments_on_every_wire() -> None:
    """What the page accumulates while a call streams is exactly the text the model sent."""
    for name, case in built().items():
        got = parts(to_ui_stream(case.items))
        for tool_call in (c for m in case.messages for c in m.tool_calls):
            text = "".join(
                p["inputTextDelta"]
                for p in got
                if p["type"] == "tool-input-delta" and p["toolCallId"] == tool_call.id
            )
            assert text == tool_call.raw_arguments, name


def test_finish_is_the_last_part_on_every_wire() -> None:
    for name, case in built().items():
        got = parts(to_ui_stream(case.items))
        assert got[-1]["type"] == "finish", name
        assert [p["type"] for p in got].count("finish") == 1, name
        assert got[-1]["finishReason"] == FINISH_REASONS[case.last.stop_reason], name
        assert SECRET not in json.dumps(got), name


async def _aiter(items: Iterable[UIStreamItem]) -> AsyncIterator[UIStreamItem]:
    for item in items:
        yield item


async def _collect(stream: AsyncIterator[str]) -> list[str]:
    return [chunk async for chunk in stream]


def test_the_async_pump_writes_the_same_stream() -> None:
    for name, case in built().items():
        for options in ({}, {"data_parts": True, "message_id": "m"}):
            sync = list(to_ui_stream(case.items, **options))  # type: ignore[arg-type]
            async_ = asyncio.run(_collect(ato_ui_stream(_aiter(case.items), **options)))  # type: ignore[arg-type]
            assert async_ == sync, name


def test_the_async_pump_handles_raised_errors_and_closes_its_input() -> None:
    closed: list[bool] = []

    async def events() -> AsyncIterator[UIStreamItem]:
        try:
            for item in weather_step()[:3]:
                yield item
            raise llmkit.APIConnectionError("down")
        finally:
            closed.append(True)

    got = parts(asyncio.run(_collect(ato_ui_stream(events()))))
    assert [p["type"] for p in got][-3:] == ["error", "finish-step", "finish"]
    assert closed == [True]


def test_astream_feeds_ato_ui_stream_end_to_end() -> None:
    """The real async path: ``astream()`` over a socket, straight into the UI stream."""
    from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

    async def main() -> list[str]:
        reply = FakeReply("On it.", tool_calls=[FakeToolCall("get_time", {"tz": "UTC"})])
        with FakeProvider([reply], api="anthropic-messages", api_key=SECRET) as fake:
            context = llmkit.Context(messages=[llmkit.user("time?")])

            async def events() -> AsyncIterator[UIStreamItem]:
                async with llmkit.astream(fake.model(), context, api_key=SECRET) as stream:
                    async for event in stream:
                        yield event

            return await _collect(ato_ui_stream(events()))

    got = parts(asyncio.run(main()))
    assert got[-3]["type"] == "tool-input-available"
    assert got[-3]["input"] == {"tz": "UTC"}
    assert got[-1] == {"type": "finish", "finishReason": "tool-calls"}


def test_the_async_pump_closes_its_input_when_closed_or_cancelled() -> None:
    """What an ASGI server does when the browser goes away: stop reading (``aclose``) or
    cancel the task; either way the input generator, holding the llmkit stream, ends now."""
    closed: list[str] = []

    async def events(tag: str, gate: asyncio.Event) -> AsyncIterator[UIStreamItem]:
        try:
            yield Start()
            await gate.wait()  # a provider that is slow to send the next byte
            yield TextStart(0)
        finally:
            closed.append(tag)

    async def main() -> None:
        stream = ato_ui_stream(events("closed", asyncio.Event()))
        await stream.__anext__(), await stream.__anext__()
        await stream.aclose()  # type: ignore[attr-defined]
        assert closed == ["closed"]

        async def read() -> None:
            async for _ in ato_ui_stream(events("cancelled", asyncio.Event())):
                pass

        task = asyncio.create_task(read())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert closed == ["closed", "cancelled"]

    asyncio.run(main())
