"""llmkit streams for the ``llmkit.ui`` tests: every wire, from the fake provider.

Each :class:`Case` is one UI message: the items given to ``to_ui_stream`` (one llmkit stream, or
a two-step tool loop with tool results in between) and what llmkit made of them (each step's
final ``AssistantMessage`` and terminal error), which the UI message must match.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

import llmkit
from llmkit.testing import EMULATED_SERVERS, FakeError, FakeProvider, FakeReply, FakeToolCall
from llmkit.ui import UIStreamItem

WIRES: tuple[llmkit.Api, ...] = ("openai-chat", "openai-responses", "anthropic-messages", "gemini")

SECRET = "sk-llmkit-test-SECRET-0123456789"
"""The key every fake provider requires: it must never reach a UI stream."""

TOOLS = [
    llmkit.Tool(
        name="get_weather",
        description="Get a weather forecast for a city.",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "notes": {"type": "string"},
            },
            "required": ["city"],
        },
    ),
    llmkit.Tool(
        name="get_time",
        description="The local time in a time zone.",
        parameters={"type": "object", "properties": {"tz": {"type": "string"}}},
    ),
]

WEATHER = FakeToolCall(
    "get_weather", {"city": "Zürich", "days": 3, "notes": "abcdefghijklmnopqrstuvwxyz — fin"}
)
TIME = FakeToolCall("get_time", {"tz": "Europe/Paris"})
CUT_MARK = b"mnop"  # inside WEATHER's arguments: a stream cut after it stops mid-call


@dataclass
class Case:
    """One UI message's worth of llmkit output."""

    name: str
    items: list[UIStreamItem]
    messages: list[llmkit.AssistantMessage]
    errors: list[Exception | None]
    results: list[llmkit.ToolResultMessage] = field(default_factory=list)

    @property
    def last(self) -> llmkit.AssistantMessage:
        """The last step's final message."""
        return self.messages[-1]


def _context() -> llmkit.Context:
    return llmkit.Context(
        system="Be brief.", messages=[llmkit.user("Weather and time, please?")], tools=TOOLS
    )


def _model(fake: FakeProvider) -> llmkit.Model:
    return fake.model(reasoning=True)


def _stream(fake: FakeProvider, context: llmkit.Context) -> list[llmkit.Event]:
    with llmkit.stream(_model(fake), context, api_key=SECRET) as events:
        return list(events)


def _terminal(events: list[llmkit.Event]) -> tuple[llmkit.AssistantMessage, Exception | None]:
    last = events[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    return last.message, last.error if isinstance(last, llmkit.ErrorEvent) else None


def one_stream(
    name: str, api: llmkit.Api, item: FakeReply | FakeError, emulate: str | None = None
) -> Case:
    """The case of one scripted reply on ``api``."""
    with FakeProvider([item], api=api, api_key=SECRET, emulate=emulate) as fake:
        events = _stream(fake, _context())
    message, error = _terminal(events)
    return Case(name, list(events), [message], [error])


def sse_events(api: llmkit.Api, reply: FakeReply) -> list[bytes]:
    """The SSE events the fake sends for ``reply`` (fetched with plain httpx)."""
    with FakeProvider([reply], api=api, api_key=SECRET) as fake:
        request = llmkit.build_request(_model(fake), _context(), api_key=SECRET)
        with httpx.Client() as client:
            body = client.send(request).content
    return [e for e in re.split(rb"\r?\n\r?\n", body) if e.strip()]


def cut_off(api: llmkit.Api) -> Case:
    """A stream whose connection drops right after the event holding ``CUT_MARK``: inside the
    first call's arguments where the wire streams them, after the whole first call on Gemini
    (which sends each call whole)."""
    reply = FakeReply("Checking.", tool_calls=[WEATHER, TIME], delta_size=4)
    events = sse_events(api, reply)
    cut = next(i for i, e in enumerate(events) if CUT_MARK in e) + 1
    dropped = FakeReply("Checking.", tool_calls=[WEATHER, TIME], delta_size=4, drop_after=cut)
    return one_stream(f"{api}/cut_off_call", api, dropped)


def tool_loop(api: llmkit.Api) -> Case:
    """Two steps: parallel calls, the server's results for them (one failed), then an answer."""
    replies = [
        FakeReply("Let me look.", tool_calls=[WEATHER, TIME], delta_size=5),
        FakeReply("Sunny in Zürich; it is noon in Paris.", delta_size=5),
    ]
    with FakeProvider(replies, api=api, api_key=SECRET) as fake:
        context = _context()
        first = _stream(fake, context)
        message, error = _terminal(first)
        context.messages.append(message)
        weather, clock = message.tool_calls
        results = [
            llmkit.tool_result(weather, "Sunny, 21 °C."),
            llmkit.tool_result(clock, "The clock service is down.", is_error=True),
        ]
        context.messages.extend(results)
        second = _stream(fake, context)
    final, final_error = _terminal(second)
    items: list[UIStreamItem] = [*first, *results, *second]
    return Case(f"{api}/tool_loop", items, [message, final], [error, final_error], results)


def _scenarios(api: llmkit.Api) -> dict[str, Callable[[], Case]]:
    """Every scenario on one wire, by name."""
    length = {
        "openai-chat": "length",
        "openai-responses": "max_output_tokens",
        "anthropic-messages": "max_tokens",
        "gemini": "MAX_TOKENS",
    }
    partial = FakeReply("A partial answer that breaks off here", tool_calls=[TIME], delta_size=4)
    replies: dict[str, FakeReply | FakeError] = {
        "text": FakeReply('Hello — ünïcödé, an emoji 🌦️, a\nnewline and "quotes".', delta_size=5),
        "reasoning": FakeReply(
            "The answer is 42.", thinking="First, read the question.\nThen answer.", delta_size=7
        ),
        "parallel_tool_calls": FakeReply(
            "Checking both.", tool_calls=[WEATHER, TIME], delta_size=4
        ),
        # Broken JSON arguments; on Gemini (whose calls are JSON objects) this is the
        # MALFORMED_FUNCTION_CALL finish it sends for a call it cannot parse.
        "invalid_arguments": FakeReply(
            tool_calls=[TIME, FakeToolCall("get_weather", '{"city": "Par')], delta_size=4
        ),
        "mid_stream_error": FakeError(in_stream=True, after_events=5, partial=partial),
        "length": FakeReply("This answer runs out of tok", finish_reason=length[api], delta_size=6),
    }
    scenarios: dict[str, Callable[[], Case]] = {
        name: functools.partial(one_stream, f"{api}/{name}", api, item)
        for name, item in replies.items()
    }
    scenarios["cut_off_call"] = functools.partial(cut_off, api)
    scenarios["tool_loop"] = functools.partial(tool_loop, api)
    return scenarios


def builders() -> dict[str, Callable[[], Case]]:
    """Every case by name, built on demand: each wire's scenarios, a refusal (Anthropic), and
    the parallel calls on every OpenAI-compatible server the fake emulates (their quirks: ids,
    indexes, whole calls in one chunk)."""
    cases: dict[str, Callable[[], Case]] = {}
    for api in WIRES:
        for scenario, build in _scenarios(api).items():
            cases[f"{api}/{scenario}"] = build
    refusal = FakeReply("I can't help.", tool_calls=[TIME], finish_reason="refusal")
    name = "anthropic-messages/refusal"
    cases[name] = functools.partial(one_stream, name, "anthropic-messages", refusal)
    parallel = FakeReply("Checking both.", tool_calls=[WEATHER, TIME], delta_size=4)
    for server in EMULATED_SERVERS:
        name = f"openai-chat~{server}/parallel_tool_calls"
        cases[name] = functools.partial(one_stream, name, "openai-chat", parallel, server)
    return cases


@functools.cache
def built() -> dict[str, Case]:
    """Every case of :func:`builders`, built once per test session."""
    return {name: build() for name, build in builders().items()}
