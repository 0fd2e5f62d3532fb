"""The tool loop of ``examples/tool_loop.py``, on Anthropic Messages (docs/design.md §1): the
loop, the tool and its execution are the caller's; llmkit sends the request and hands back typed,
validated tool calls, with Claude's thinking kept and sent back verbatim between turns.

    python examples/tool_loop_anthropic.py              # no key: llmkit's built-in fake provider
    ANTHROPIC_API_KEY=sk-ant-... python examples/tool_loop_anthropic.py      # the real API
    python examples/tool_loop_anthropic.py --model claude-haiku-4-5 --stream --reasoning low

Without ``ANTHROPIC_API_KEY``, the example starts ``llmkit.testing.FakeProvider`` speaking the
Anthropic wire: a real HTTP server on 127.0.0.1 that answers like Claude would (thinking, one
call with bad arguments to show the error path, then a good call), over real sockets.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack
from typing import Any

from tool_loop import run  # the same loop (examples/ is on sys.path when run as a script)

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeRequest, FakeToolCall


def fake_claude(request: FakeRequest) -> FakeReply:
    """A scripted stand-in for Claude: a call with bad arguments, then a good call, then an
    answer built from the tool result it was sent (read from the Anthropic request body)."""
    messages: list[dict[str, Any]] = request.body["messages"]
    results = [
        block
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    if not results:
        return FakeReply(
            thinking="The user wants a packing list; I need the forecast first.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 30})],
        )
    if len(results) == 1:
        return FakeReply(
            "Let me fix the number of days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
        )
    forecast = results[-1]["content"]
    return FakeReply(f"Forecast — {forecast}. Pack light layers and a windbreaker.")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--model", default="claude-sonnet-4-5")
    parser.add_argument("--stream", action="store_true", help="stream the answer as it arrives")
    parser.add_argument("--reasoning", choices=["off", "minimal", "low", "medium", "high"])
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()

    with ExitStack() as stack:
        try:
            model = llmkit.get_model("anthropic", ns.model)
        except llmkit.UnknownModelError:
            model = llmkit.Model(
                provider="anthropic",
                id=ns.model,
                api="anthropic-messages",
                max_output_tokens=64000,
                reasoning=True,
                input=["text", "image"],
            )
        options: dict[str, Any] = {}
        if ns.reasoning:
            options["reasoning"] = ns.reasoning
        if ns.fake or not os.environ.get("ANTHROPIC_API_KEY"):
            why = "--fake" if ns.fake else "no ANTHROPIC_API_KEY set"
            print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
            fake = stack.enter_context(FakeProvider(fake_claude, api="anthropic-messages"))
            model = fake.model(ns.model, max_output_tokens=64000, reasoning=True)
            options["api_key"] = fake.api_key
        answer = run(model, stream=ns.stream, **options)
    if not ns.stream:  # streamed answers were printed as they arrived
        print(answer)


if __name__ == "__main__":
    main()
