"""The hand-written tool loop of ``examples/tool_loop.py`` (DESIGN §1), on Gemini.

The loop, the tool and its execution are the caller's; llmkit sends the request and hands back
typed, validated tool calls. Nothing in the loop is Gemini-specific: the thought signatures
Gemini needs back, the function-response names and the grouping of parallel results are the
wire adapter's business.

    python examples/tool_loop_gemini.py                  # no key: llmkit's built-in fake provider
    GEMINI_API_KEY=... python examples/tool_loop_gemini.py             # the real Gemini API
    python examples/tool_loop_gemini.py --model gemini-3-flash-preview --stream

Without ``GEMINI_API_KEY``, the example starts ``llmkit.testing.FakeProvider(api="gemini")``: a
real HTTP server on 127.0.0.1 that streams like Gemini (CRLF SSE, thought parts, signatures)
and answers like a model would, including one call with bad arguments to show the error path.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from typing import Any

from pydantic import BaseModel, Field

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeRequest, FakeToolCall


class GetWeather(BaseModel):
    """Get a weather forecast for a city."""

    city: str = Field(description="City name", min_length=1)
    days: int = Field(description="Number of days to forecast", ge=1, le=10)


FORECASTS = {"beijing": "sunny, 12-19°C, windy in the evening"}


def get_weather(args: GetWeather) -> str:
    """The caller's own tool implementation."""
    forecast = FORECASTS.get(args.city.lower(), "mild and cloudy")
    return f"{args.city}, next {args.days} days: {forecast}"


def fake_model(request: FakeRequest) -> FakeReply:
    """A scripted stand-in for Gemini: first a call with bad arguments, then a good call, then
    an answer built from the function response it was sent."""
    contents: list[dict[str, Any]] = request.body["contents"]
    responses = [
        part["functionResponse"]
        for content in contents
        for part in content["parts"]
        if "functionResponse" in part
    ]
    if not responses:
        return FakeReply(
            thinking="The user wants a forecast; I will call get_weather.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 30})],
        )
    if len(responses) == 1:
        return FakeReply(
            "Let me fix the number of days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
        )
    forecast = responses[-1]["response"]["output"]
    return FakeReply(f"Forecast — {forecast}. Pack light layers and a windbreaker.")


def run(model: llmkit.Model, *, stream: bool, **options: Any) -> str:
    """The loop of DESIGN §1; returns the final answer."""
    weather = llmkit.tool(GetWeather)
    context = llmkit.Context(
        system="Be brief. Use the tools.",
        messages=[llmkit.user("Pack for 3 days in Beijing?")],
        tools=[weather],
    )
    for turn in range(8):
        if stream:
            with llmkit.stream(model, context, max_tokens=800, **options) as events:
                for event in events:
                    if isinstance(event, llmkit.TextDelta):
                        print(event.delta, end="", flush=True)
                reply = events.message
            print()
        else:
            reply = llmkit.complete(model, context, max_tokens=800, **options)
        context.messages.append(reply)  # the assistant message goes before its results
        if reply.stop_reason == "error":
            raise SystemExit(f"turn {turn}: the provider failed: {reply.error}")
        if not reply.tool_calls:
            return reply.text
        for call in reply.tool_calls:
            try:
                args = llmkit.decode_tool_call(weather, call)
            except llmkit.ToolArgumentsError as e:
                print(f"[turn {turn}] refused {call.name}({call.raw_arguments}): {e.model_message}")
                context.messages.append(llmkit.tool_result(call, e.model_message, is_error=True))
                continue
            result = get_weather(args)
            print(f"[turn {turn}] {call.name}({args.city!r}, {args.days}) -> {result}")
            context.messages.append(llmkit.tool_result(call, result))
    return "(no answer after 8 turns)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--model", default="gemini-2.5-flash")
    parser.add_argument("--stream", action="store_true", help="stream the answer as it arrives")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()

    with ExitStack() as stack:
        try:
            model = llmkit.get_model("google", ns.model)
        except llmkit.UnknownModelError:
            model = llmkit.Model(
                provider="google",
                id=ns.model,
                api="gemini",
                reasoning=True,
                input=["text", "image"],
            )
        options: dict[str, Any] = {}
        if ns.fake or not os.environ.get(model.api_key_env or "GEMINI_API_KEY"):
            why = "--fake" if ns.fake else f"no {model.api_key_env or 'GEMINI_API_KEY'} set"
            print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
            fake = stack.enter_context(FakeProvider(fake_model, api="gemini"))
            model = fake.model(ns.model, reasoning=True, input=["text", "image"])
            options = {"api_key": fake.api_key}
        answer = run(model, stream=ns.stream, **options)
    if not ns.stream:  # streamed answers were printed as they arrived
        print(answer)


if __name__ == "__main__":
    main()
