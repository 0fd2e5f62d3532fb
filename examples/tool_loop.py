"""A hand-written tool loop with llmkit (docs/design.md §1): the loop, the tool and its execution
are the caller's; llmkit sends the request and hands back typed, validated tool calls.

    python examples/tool_loop.py                      # no key: llmkit's built-in fake provider
    OPENAI_API_KEY=sk-... python examples/tool_loop.py            # the real OpenAI API
    python examples/tool_loop.py --provider groq --model llama-3.3-70b-versatile --stream
    python examples/tool_loop.py --provider bedrock     # Amazon Bedrock (AWS credentials or key)
    python examples/tool_loop.py --provider vertex      # Vertex AI Gemini (ADC or express key)
    python examples/tool_loop.py --provider azure       # Azure OpenAI (key or Entra ID)

Without a key for the chosen provider, the example starts ``llmkit.testing.FakeProvider``: a
real HTTP server on 127.0.0.1 that answers like a model would (including one call with bad
arguments, to show the error path), so the whole loop runs over real sockets.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from typing import Any

import _cloud as cloud  # examples/_cloud.py (examples/ is on sys.path when run as a script)
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
    """A scripted stand-in for a model: first a call with bad arguments, then a good call,
    then an answer built from the tool result it was sent."""
    messages: list[dict[str, Any]] = request.body["messages"]
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        return FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 30})])
    if len(results) == 1:
        return FakeReply(
            "Let me fix the number of days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
        )
    forecast = results[-1]["content"]
    return FakeReply(f"Forecast — {forecast}. Pack light layers and a windbreaker.")


def run(model: llmkit.Model, *, stream: bool, max_tokens: int = 800, **options: Any) -> str:
    """The loop of docs/design.md §1; returns the final answer. The examples for the other wire APIs
    (``tool_loop_anthropic.py``, ``_responses``, ``_gemini``) run this same loop."""
    weather = llmkit.tool(GetWeather)
    context = llmkit.Context(
        system="Be brief. Use the tools.",
        messages=[llmkit.user("Pack for 3 days in Beijing?")],
        tools=[weather],
    )
    for turn in range(8):
        if stream:
            with llmkit.stream(model, context, max_tokens=max_tokens, **options) as events:
                for event in events:
                    if isinstance(event, llmkit.TextDelta):
                        print(event.delta, end="", flush=True)
                reply = events.message
            print()
        else:
            reply = llmkit.complete(model, context, max_tokens=max_tokens, **options)
        # The whole reply goes back, thinking and its signatures included: Anthropic and Gemini
        # need them before the calls of the turn (QUIRKS F1, F2).
        context.messages.append(reply)
        if reply.stop_reason == "error":
            raise SystemExit(f"turn {turn}: the provider failed: {reply.error}")
        if reply.thinking:
            print(f"[turn {turn}] thinking: {reply.thinking}")
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
    parser.add_argument("--provider", default="openai")
    parser.add_argument("--model", default=None, help="default: gpt-4.1-mini, or the platform's")
    parser.add_argument("--stream", action="store_true", help="stream the answer as it arrives")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()

    with ExitStack() as stack:
        if ns.provider in cloud.DEFAULTS:  # Bedrock, Vertex AI, Azure (docs/cloud.md)
            answer = run_cloud(stack, ns.provider, ns.model, fake=ns.fake, stream=ns.stream)
            if not ns.stream:
                print(answer)
            return
        ns.model = ns.model or "gpt-4.1-mini"
        try:
            model = llmkit.get_model(ns.provider, ns.model)
        except llmkit.UnknownModelError:
            model = llmkit.Model(provider=ns.provider, id=ns.model, api="openai-chat")
        options: dict[str, Any] = {}
        if ns.fake or not (model.api_key_env and os.environ.get(model.api_key_env)):
            why = "--fake" if ns.fake else f"no {model.api_key_env or 'API key'} set"
            print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
            fake = stack.enter_context(FakeProvider(fake_model))
            model, options = fake.model(), {"api_key": fake.api_key}
        answer = run(model, stream=ns.stream, **options)
    if not ns.stream:  # streamed answers were printed as they arrived
        print(answer)


def run_cloud(
    stack: ExitStack, provider: str, model_id: str | None, *, fake: bool, stream: bool
) -> str:
    """The same loop on a cloud platform, or on the fake provider speaking its wire."""
    model_id = model_id or cloud.DEFAULTS[provider]
    try:
        model = llmkit.get_model(provider, model_id)
    except llmkit.UnknownModelError:
        model = llmkit.Model(provider=provider, id=model_id, api=cloud.APIS[provider])  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    if fake or not cloud.has_credentials(provider):
        why = "--fake" if fake else f"no {provider} credentials"
        print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
        server = stack.enter_context(FakeProvider(cloud.fake_model, **cloud.fake_options(provider)))
        fields = {k: getattr(model, k) for k in ("reasoning", "input", "max_output_tokens")}
        model, options = server.model(model.id, **fields), {"api_key": server.api_key}
    return run(model, stream=stream, **options)


if __name__ == "__main__":
    main()
