"""The hand-written tool loop of ``examples/tool_loop.py`` (docs/design.md §1), on Gemini.

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

from tool_loop import run  # the same loop (examples/ is on sys.path when run as a script)

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeRequest, FakeToolCall


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
