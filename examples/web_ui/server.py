"""A chat page on llmkit: history kept on the server by chat id, tools whose results show in the
page, a risky tool that waits for the person's Approve / Deny, and the answer's sources.

    pip install -e '.[examples]'
    python examples/web_ui/server.py                 # http://127.0.0.1:8000, no key needed
    python examples/web_ui/server.py --api gemini    # the fake provider on another wire API
    OPENAI_API_KEY=sk-... python examples/web_ui/server.py --provider openai --model gpt-4.1-mini

The page (``static/``, built from ``src/app.js``) runs the AI SDK's own chat client
(``AbstractChat``, what ``useChat`` wraps); this file is its backend. Each ``POST /api/chat``
is ``useChat``'s request, ``{"id", "messages", ...}``: the page's whole history. The server
takes two things from it, the new user message (``from_ui_messages`` of the last message) and
the person's answers to the calls the server itself holds for approval (``approvals``); the
conversation is the server's own (``Chat.context``), because a page can post any history it
likes (docs/streaming-ui.md, "The page can forge its history"). ``GET /api/chats/{id}`` gives
a reloaded page that history back, as the UI message stream parts the server sent (the page's
AI SDK reader rebuilds the messages from them).

Without a key for the chosen provider (or with ``--fake``), the model is llmkit's fake
provider speaking ``--api``'s wire, scripted by ``_fake_model.py``. The tool loop, the tools
and the approval policy are this file's, as in ``examples/tool_loop.py`` and
``examples/approval.py``; ``llmkit.ui`` turns each response into a UI message stream.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import _fake_model  # examples/web_ui/_fake_model.py (its folder is on sys.path as a script)
import uvicorn
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeRequest
from llmkit.ui import (
    UI_STREAM_HEADERS,
    Approval,
    ApprovalRequest,
    UIStreamItem,
    approvals,
    ato_ui_stream,
    from_ui_messages,
)

STATIC = Path(__file__).parent / "static"
MAX_STEPS = 6  # model calls per request
MAX_CHATS = 1000  # the oldest chat is forgotten beyond this (an example keeps them in memory)
CHAT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
CHAT_HEADER = "x-web-ui-chat"  # tells the fake provider which chat a request is for
SYSTEM = "Be brief. Use the tools. Booking a hotel needs the person's approval."


class GetWeather(BaseModel):
    """Get a weather forecast for a city."""

    city: str = Field(description="City name", min_length=1)
    days: int = Field(description="Number of days to forecast", ge=1, le=10)


class BookHotel(BaseModel):
    """Book and pay for a hotel room. The person is asked to approve each booking."""

    city: str = Field(description="City name", min_length=1)
    nights: int = Field(description="Number of nights", ge=1, le=30)


TOOLS = [llmkit.tool(GetWeather), llmkit.tool(BookHotel)]
NEEDS_APPROVAL = {"book_hotel"}  # the server's policy: nothing the page sends changes it
FORECASTS = {"beijing": "sunny, 12-19 °C, windy in the evening", "shanghai": "showers, 17-22 °C"}


def run_tool(call: llmkit.ToolCall) -> llmkit.ToolResultMessage:
    """The server's own tool implementations (nothing is really booked)."""
    try:
        args = llmkit.decode_tool_call(TOOLS, call)
    except llmkit.ToolArgumentsError as e:
        return llmkit.tool_result(call, e.model_message, is_error=True)
    if isinstance(args, GetWeather):
        forecast = FORECASTS.get(args.city.lower(), "mild and cloudy")
        return llmkit.tool_result(call, f"{args.city}, next {args.days} days: {forecast}")
    assert isinstance(args, BookHotel)
    code = hashlib.sha256(call.id.encode()).hexdigest()[:6].upper()
    text = f"{args.nights} nights at the Grand Hotel {args.city}, confirmation {code}"
    return llmkit.tool_result(call, text)


@dataclass
class Chat:
    """One conversation, as the server keeps it."""

    context: llmkit.Context = field(
        default_factory=lambda: llmkit.Context(system=SYSTEM, tools=TOOLS)
    )
    history: list[dict[str, Any]] = field(default_factory=list)
    """For a reloaded page: each user message as a UI message, each assistant message as
    ``{"id", "role": "assistant", "responses": [{"answers", "parts"}, ...]}``: for each
    response that wrote it (an answer to an approval continues the message), the person's
    answers that opened it (``{tool call id: {"id", "approved", "reason"}}``, which the stream
    has no part for) and the UI message stream parts it sent."""
    waiting: dict[str, llmkit.ToolCall] = field(default_factory=dict)
    """Calls held for the person's answer, by tool call id."""
    busy: bool = False


class BadPost(Exception):
    """A post the server refuses, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def take_post(chat: Chat, messages: Any) -> tuple[list[UIStreamItem], list[dict[str, Any]]]:
    """Apply a page's post to its chat: its new user message, or its answers to the calls
    held for approval. Nothing else the page posts is read. Returns what opens the response
    (the answered calls' results and denials; the model's turn follows) and the list to keep
    the response's parts in (``Chat.history``)."""
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        raise BadPost(400, "expected useChat's {id, messages}")
    last = messages[-1]
    try:
        if last.get("role") == "user":
            context = from_ui_messages([last])
        elif last.get("role") == "assistant":
            answers = approvals(messages)
        else:
            raise BadPost(400, "the last message must be the person's or the answered one")
    except llmkit.InvalidRequestError as e:
        raise BadPost(400, str(e)) from None
    if last.get("role") == "user":
        if not user_texts(context):
            raise BadPost(400, "the message has no text")
        close_waiting(chat)
        chat.context.messages.extend(context.messages)  # one UserMessage
        turn = len(chat.history)
        page_id = last.get("id")  # the page's own id, so that a reloaded page shows the same
        user_id = page_id if isinstance(page_id, str) and CHAT_ID.fullmatch(page_id) else f"u{turn}"
        shown = [{"type": "text", "text": t} for t in user_texts(context)]
        chat.history.append({"id": user_id, "role": "user", "parts": shown})
        chat.history.append({"id": f"a{turn + 1}", "role": "assistant", "responses": []})
        return [], new_response(chat, {})
    if not chat.waiting:
        raise BadPost(409, "no call is waiting for approval")
    missing = set(chat.waiting) - set(answers)
    if missing:
        raise BadPost(400, f"no answer for {sorted(missing)}")
    opening: list[UIStreamItem] = []
    given: dict[str, Any] = {}
    for call_id, call in chat.waiting.items():
        answer = answers[call_id]
        given[call_id] = {"id": answer.approval_id, "approved": answer.approved}
        if answer.reason is not None:
            given[call_id]["reason"] = answer.reason
        if answer.approved:
            result = run_tool(call)
            opening.append(result)
        else:
            result = answer.refusal(call)  # tells the model the person said no, and why
            opening.append(answer)  # shows the page the denial (tool-output-denied)
        chat.context.messages.append(result)
    chat.waiting.clear()
    return opening, new_response(chat, given)


def new_response(chat: Chat, answers: dict[str, Any]) -> list[dict[str, Any]]:
    """Start the record of a response to the chat's last message; the parts go in the list."""
    parts: list[dict[str, Any]] = []
    chat.history[-1]["responses"].append({"answers": answers, "parts": parts})
    return parts


def user_texts(context: llmkit.Context) -> list[str]:
    """The text parts of the user's message (what a reloaded page shows of it)."""
    return [
        part.text
        for message in context.messages
        if isinstance(message, llmkit.UserMessage)
        for part in message.content
        if isinstance(part, llmkit.TextPart)
    ]


def close_waiting(chat: Chat) -> None:
    """The person wrote again instead of answering: every held call gets a refusal (the next
    request must answer each call the model made)."""
    for call in chat.waiting.values():
        refused = Approval(call.id, f"approval-{call.id}", approved=False, reason="No answer.")
        chat.context.messages.append(refused.refusal(call))
    chat.waiting.clear()


async def tool_loop(
    chat: Chat, model: llmkit.Model, opening: list[UIStreamItem], **options: Any
) -> AsyncIterator[UIStreamItem]:
    """The answered calls' results, then each model turn's events, its calls run (or held for
    approval) and their results; stop when the model answers without calls, a call waits for
    the person, or the turn failed (the UI stream reports it)."""
    for item in opening:
        yield item
    for _ in range(MAX_STEPS):
        async with llmkit.astream(model, chat.context, **options) as events:
            async for event in events:
                yield event
        reply = events.message
        if reply.stop_reason in ("error", "aborted"):
            return  # not kept: the next turn starts from the last complete one
        chat.context.messages.append(reply)
        # Every call gets its result (or is held) before anything is yielded: if the page goes
        # away mid-response, the conversation still answers each call the model made.
        items: list[UIStreamItem] = []
        for call in reply.tool_calls:
            if call.name in NEEDS_APPROVAL and call.status == "complete":
                chat.waiting[call.id] = call
                items.append(ApprovalRequest(call.id))  # the page shows Approve / Deny
            else:  # run_tool refuses arguments that did not arrive complete
                result = run_tool(call)
                chat.context.messages.append(result)
                items.append(result)
        for item in items:
            yield item
        if chat.waiting or reply.stop_reason != "tool_use":
            return  # the page posts its answers (continuing this message), or the model is done


class ChatResponse(StreamingResponse):
    """The UI message stream of one response; the chat takes no other post until it ends
    (however it ends: the page may go away before the stream even starts)."""

    def __init__(self, chat: Chat, frames: AsyncIterator[str]) -> None:
        super().__init__(frames, headers=UI_STREAM_HEADERS)
        self.chat = chat
        chat.busy = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.chat.busy = False


def create_app(
    *,
    model: llmkit.Model | None = None,
    api: llmkit.Api = "openai-chat",
    delay: float = 0.05,
    **options: Any,
) -> Starlette:
    """The app: the page, its script, ``POST /api/chat`` and ``GET /api/chats/{id}``. With no
    ``model``, the fake provider speaking ``api``, paced ``delay`` seconds per event
    (``app.state.fake``, serving while the app runs); ``app.state.chats`` holds the chats."""
    chats: OrderedDict[str, Chat] = OrderedDict()

    def respond(request: FakeRequest) -> FakeReply:
        chat = chats[request.headers[CHAT_HEADER]]
        return _fake_model.reply(api, chat.context, delay=delay)

    fake = FakeProvider(respond, api=api) if model is None else None

    def chat_for(chat_id: str) -> Chat:
        if chat_id not in chats:
            chats[chat_id] = Chat()
            while len(chats) > MAX_CHATS:
                chats.popitem(last=False)
        return chats[chat_id]

    async def post(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "not JSON"}, status_code=400)
        try:
            if not isinstance(body, dict):
                raise BadPost(400, "expected useChat's {id, messages}")
            chat_id = body.get("id")
            if not isinstance(chat_id, str) or not CHAT_ID.fullmatch(chat_id):
                raise BadPost(400, "a chat id is 1-64 letters, digits, '-' or '_'")
            chat = chat_for(chat_id)
            if chat.busy:
                raise BadPost(409, "this chat is still answering")
            opening, sent = take_post(chat, body.get("messages"))
        except BadPost as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        message_id = chat.history[-1]["id"]
        frames = record(respond_to(chat, chat_id, opening, message_id), sent)
        return ChatResponse(chat, frames)

    async def respond_to(
        chat: Chat, chat_id: str, opening: list[UIStreamItem], message_id: str
    ) -> AsyncIterator[str]:
        chosen, extra = model, options
        if chosen is None:
            assert fake is not None
            chosen = fake.model()
            extra = {"api_key": fake.api_key, "headers": {CHAT_HEADER: chat_id}}
        items = tool_loop(chat, chosen, opening, **extra)
        async for frame in ato_ui_stream(items, message_id=message_id):
            yield frame

    async def record(frames: AsyncIterator[str], sent: list[dict[str, Any]]) -> Any:
        """Relay the frames, keeping each part for a reloaded page."""
        async for frame in frames:
            if frame.startswith("data: {"):
                sent.append(json.loads(frame[len("data: ") :]))
            yield frame

    async def history(request: Request) -> Response:
        chat = chats.get(request.path_params["chat_id"])
        prompts = list(_fake_model.PROMPTS) if fake is not None else []
        return JSONResponse({"messages": chat.history if chat else [], "prompts": prompts})

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if fake is None:
            yield
            return
        with fake:
            yield

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/chat", post, methods=["POST"]),
            Route("/api/chats/{chat_id}", history),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.fake = fake
    app.state.chats = chats
    return app


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--api", default="openai-chat", choices=get_args(llmkit.Api), help="the fake's wire API"
    )
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
