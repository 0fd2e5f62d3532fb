"""A chat page that renders a tool loop as it streams: llmkit events, relayed by a Starlette
endpoint as the Vercel AI SDK "UI message stream", read in the browser by the AI SDK's own
client code (``DefaultChatTransport`` + ``readUIMessageStream``, bundled in ``static/app.js``).

    pip install -e '.[examples]'
    python examples/web_ui/server.py                 # http://127.0.0.1:8000, no key needed
    python examples/web_ui/server.py --api gemini    # the same loop over another wire API
    OPENAI_API_KEY=sk-... python examples/web_ui/server.py --provider openai --model gpt-4.1-mini

Without a key for the chosen provider (or with ``--fake``), each chat request gets its own
``llmkit.testing.FakeProvider``, scripted for three turns and paced so the arguments visibly
grow: two parallel calls (one with arguments the tool's schema refuses), a corrected call,
then the answer. The loop, the tool and its execution are this file's, as in
``examples/tool_loop.py``; llmkit streams each turn and ``llmkit.ui`` turns the whole loop into
one UI message, a step per turn. The page reads only the last user message (no history).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall
from llmkit.ui import UI_STREAM_HEADERS, UIStreamItem, ato_ui_stream

STATIC = Path(__file__).parent / "static"
MAX_TURNS = 6


class GetWeather(BaseModel):
    """Get a weather forecast for a city."""

    city: str = Field(description="City name", min_length=1)
    days: int = Field(description="Number of days to forecast", ge=1, le=10)


WEATHER = llmkit.tool(GetWeather)
FORECASTS = {"beijing": "sunny, 12-19 °C, windy in the evening", "shanghai": "showers, 17-22 °C"}


def get_weather(args: GetWeather) -> str:
    """The server's own tool implementation."""
    forecast = FORECASTS.get(args.city.lower(), "mild and cloudy")
    return f"{args.city}, next {args.days} days: {forecast}"


def fake_turns(delay: float) -> list[FakeReply]:
    """The scripted model: parallel calls (Beijing asks for 30 days, more than the tool
    allows), a corrected call, then an answer."""
    pace: dict[str, Any] = {"delta_size": 3, "delay": delay}
    return [
        FakeReply(
            "Let me check both forecasts.",
            tool_calls=[
                FakeToolCall("get_weather", {"city": "Beijing", "days": 30}),
                FakeToolCall("get_weather", {"city": "Shanghai", "days": 3}),
            ],
            **pace,
        ),
        FakeReply(
            "The tool forecasts 10 days at most; asking for 3 days in Beijing.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
            **pace,
        ),
        FakeReply(
            "Beijing will be sunny and windy in the evening (12-19 °C); Shanghai brings "
            "showers (17-22 °C). Pack light layers, a windbreaker and an umbrella.",
            thinking="Both forecasts are in; combine them into one packing list.",
            **pace,
        ),
    ]


async def tool_loop(
    model: llmkit.Model, context: llmkit.Context, **options: Any
) -> AsyncIterator[UIStreamItem]:
    """Stream each turn's events, run the calls, yield their results; stop when the model
    answers without calls (or fails: the UI stream reports it)."""
    for _ in range(MAX_TURNS):
        async with llmkit.astream(model, context, **options) as events:
            async for event in events:
                yield event
        reply = events.message
        context.messages.append(reply)
        if reply.stop_reason != "tool_use":
            return
        for call in reply.tool_calls:
            try:
                args = llmkit.decode_tool_call(WEATHER, call)
            except llmkit.ToolArgumentsError as e:
                result = llmkit.tool_result(call, e.model_message, is_error=True)
            else:
                result = llmkit.tool_result(call, get_weather(args))
            context.messages.append(result)
            yield result


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a ``useChat``-style request body."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            return "".join(
                p.get("text", "") for p in message.get("parts", []) if p["type"] == "text"
            )
    return ""


def create_app(
    *,
    model: llmkit.Model | None = None,
    api: llmkit.Api = "openai-chat",
    delay: float = 0.05,
    **options: Any,
) -> Starlette:
    """The app: the page, its script, and ``POST /api/chat``. With no ``model``, each request
    gets its own fake provider speaking ``api``, paced ``delay`` seconds per event."""

    async def chat(request: Request) -> Response:
        context = llmkit.Context(
            system="Be brief. Use the tools.",
            messages=[llmkit.user(last_user_text(await request.json()))],
            tools=[WEATHER],
        )
        return StreamingResponse(ato_ui_stream(turns(context)), headers=UI_STREAM_HEADERS)

    async def turns(context: llmkit.Context) -> AsyncIterator[UIStreamItem]:
        async with AsyncExitStack() as stack:
            chosen, extra = model, options
            if chosen is None:
                fake = stack.enter_context(FakeProvider(fake_turns(delay), api=api))
                chosen, extra = fake.model(), {"api_key": fake.api_key}
            async for item in tool_loop(chosen, context, **extra):
                yield item

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/chat", chat, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--api", default="openai-chat", help="the fake provider's wire API")
    parser.add_argument("--delay", type=float, default=0.05, help="fake: seconds per event")
    parser.add_argument("--provider", default="openai")
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()

    model: llmkit.Model | None = None
    if not ns.fake:
        try:
            real = llmkit.get_model(ns.provider, ns.model)
        except llmkit.UnknownModelError:
            real = llmkit.Model(provider=ns.provider, id=ns.model, api="openai-chat")
        if real.api_key_env and os.environ.get(real.api_key_env):
            model = real
    if model is None:
        print(f"(no key or --fake: llmkit's fake provider, {ns.api})", file=sys.stderr)
    app = create_app(model=model, api=ns.api, delay=ns.delay)
    uvicorn.run(app, host=ns.host, port=ns.port, log_level="warning")


if __name__ == "__main__":
    main()
