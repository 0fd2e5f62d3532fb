"""A terminal UI that renders a streamed reply live: the text as it arrives, and each tool call
as a card whose fields fill in while the model is still writing its arguments.

    python examples/stream_ui.py            # no key: llmkit's fake provider, streaming slowly
    python examples/stream_ui.py --plain    # one line per update instead of redrawing
    OPENAI_API_KEY=sk-... python examples/stream_ui.py

``ToolCallDelta.partial_arguments`` is the best reading of the arguments received so far (a
dict, with a half-written string cut where the stream is), computed incrementally, so reading
it on every delta stays cheap however long the arguments grow. On a terminal the card is
redrawn in place (ANSI: move up, clear); otherwise (a pipe, a log, CI) each update is printed
as one line. When the call ends, its ``status`` says whether the arguments are complete; only
then are they decoded and acted on (here: the email is shown, not sent).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any

from _provider import add_arguments, connect  # examples/ is on sys.path when run as a script
from pydantic import BaseModel, Field

import llmkit
from llmkit.testing import FakeReply, FakeRequest, FakeToolCall


class SendEmail(BaseModel):
    """Send an email."""

    to: list[str] = Field(description="Recipients' addresses")
    subject: str
    body: str


def card(name: str, args: Any, status: str, width: int) -> list[str]:
    """The lines of one tool call's card: a pure function of what has arrived."""
    lines = [f"+- {name or '?'} ({status})"]
    for key, value in (args or {}).items():
        text = ", ".join(map(str, value)) if isinstance(value, list) else value
        text = text if isinstance(text, str) else json.dumps(text)
        room = max(width - len(key) - 6, 10)
        text = " ".join(text.split())  # one line per field
        lines.append(f"| {key}: {text if len(text) <= room else text[: room - 3] + '...'}")
    lines.append("+-")
    return lines


class Screen:
    """Draws text and cards; on a terminal, the card being streamed is redrawn in place."""

    def __init__(self, *, live: bool) -> None:
        self.live = live
        self.width = shutil.get_terminal_size().columns
        self.drawn = 0  # lines of the card currently on screen (live mode)
        self.updates = 0
        self.last = ""  # the last line printed (plain mode)

    def text(self, delta: str) -> None:
        self.drawn = 0  # text after a card: that card stays as it is
        sys.stdout.write(delta)
        sys.stdout.flush()

    def show(self, name: str, args: Any, status: str) -> None:
        lines = card(name, args, status, self.width)
        self.updates += 1
        if self.live:
            if self.drawn:
                sys.stdout.write(f"\x1b[{self.drawn}F\x1b[J")  # up to the card's top; clear
            sys.stdout.write("\n".join(lines) + "\n")
            self.drawn = len(lines)
        else:
            line = " ".join([lines[0][3:], *(field[2:] for field in lines[1:-1])])
            if line == self.last:  # a delta that changed nothing visible (a comma, a quote)
                return
            self.last = line
            sys.stdout.write(f"[update {self.updates}] {line}\n")
        sys.stdout.flush()


def render(model: llmkit.Model, context: llmkit.Context, screen: Screen, **options: Any) -> Any:
    with llmkit.stream(model, context, max_tokens=800, **options) as events:
        for event in events:
            match event:
                case llmkit.TextDelta(delta=delta):
                    screen.text(delta)
                case llmkit.ToolCallStart(name=name):
                    screen.text("\n")
                    screen.show(name, {}, "streaming")
                case llmkit.ToolCallDelta(name=name):
                    screen.show(name, event.partial_arguments, "streaming")
                case llmkit.ToolCallEnd(tool_call=call):
                    screen.show(call.name, call.arguments, call.status)
                    screen.drawn = 0  # the next card goes below this one
        return events.message


def fake_model(request: FakeRequest) -> FakeReply:
    """The model's part: a sentence, then an email written out slowly, in small deltas."""
    email = {
        "to": ["ana@example.com", "bo@example.com"],
        "subject": "Team lunch on Friday",
        "body": "Hi both, shall we have lunch on Friday at 12:30 at the usual place? Reply "
        "by Thursday so I can book a table. Cheers, Sam",
    }
    return FakeReply(
        "Sure, here is the invitation.",
        tool_calls=[FakeToolCall("send_email", email)],
        delta_size=6,
        delay=0.02,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument("--plain", action="store_true", help="print updates, do not redraw")
    ns = parser.parse_args()
    email = llmkit.tool(SendEmail)
    context = llmkit.Context(
        system="Write emails with the send_email tool.",
        messages=[llmkit.user("Invite Ana and Bo to lunch on Friday, 12:30.")],
        tools=[email],
    )
    screen = Screen(live=sys.stdout.isatty() and not ns.plain)
    with connect(ns, fake_model) as (model, options):
        reply = render(model, context, screen, **options)
    print(f"\n({screen.updates} updates; stop reason {reply.stop_reason})")
    for call in reply.tool_calls:
        try:
            args = llmkit.decode_tool_call(SendEmail, call)  # refuses incomplete arguments
        except llmkit.ToolArgumentsError as e:
            print(f"not sending: {e.model_message}")
            continue
        print(f"Would send to {', '.join(args.to)}: {args.subject!r} ({len(args.body)} chars)")


if __name__ == "__main__":
    main()
