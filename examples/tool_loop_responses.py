"""The tool loop of ``examples/tool_loop.py`` on OpenAI's Responses API (``POST /v1/responses``).

    python examples/tool_loop_responses.py                 # no key: llmkit's built-in fake provider
    OPENAI_API_KEY=sk-... python examples/tool_loop_responses.py --model gpt-5 --stream

The loop, the tool and its validation are exactly those of ``tool_loop.py`` (imported from it):
only the model's wire API differs. llmkit uses the Responses API statelessly (``store: false``):
each turn sends the whole transcript, and a reasoning model's encrypted reasoning items travel
back inside the caller's own ``Context``, before the tool calls they led to.

Without a key, ``llmkit.testing.FakeProvider`` answers on 127.0.0.1 in the Responses wire format,
with reasoning, one call with bad arguments, then a good one, then the answer.
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
    """A scripted stand-in for a reasoning model on the Responses wire."""
    items: list[dict[str, Any]] = request.body["input"]
    results = [i for i in items if i.get("type") == "function_call_output"]
    replayed = sum(i.get("type") == "reasoning" for i in items)
    print(
        f"[fake] request {len(results) + 1}: {replayed} reasoning item(s) replayed", file=sys.stderr
    )
    if not results:
        return FakeReply(
            thinking="The user wants a forecast; get_weather needs a city and days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 30})],
        )
    if len(results) == 1:
        return FakeReply(
            "Let me fix the number of days.",
            thinking="days must be at most 10; the trip is 3 days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
        )
    forecast = results[-1]["output"]
    return FakeReply(f"Forecast — {forecast}. Pack light layers and a windbreaker.")


def responses_model(provider: str, model_id: str) -> llmkit.Model:
    """The catalogue entry (or a plain one), switched to the Responses wire."""
    try:
        model = llmkit.get_model(provider, model_id)
    except llmkit.UnknownModelError:
        model = llmkit.Model(provider=provider, id=model_id, api="openai-responses")
    return model.model_copy(update={"api": "openai-responses"})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--provider", default="openai")
    parser.add_argument("--model", default="gpt-5")
    parser.add_argument("--stream", action="store_true", help="stream the answer as it arrives")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()

    with ExitStack() as stack:
        model = responses_model(ns.provider, ns.model)
        options: dict[str, Any] = {}
        if ns.fake or not (model.api_key_env and os.environ.get(model.api_key_env)):
            why = "--fake" if ns.fake else f"no {model.api_key_env or 'API key'} set"
            print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
            fake = stack.enter_context(FakeProvider(fake_model, api="openai-responses"))
            model, options = fake.model(ns.model, reasoning=True), {"api_key": fake.api_key}
        answer = run(model, stream=ns.stream, **options)
    if not ns.stream:  # streamed answers were printed as they arrived
        print(answer)


if __name__ == "__main__":
    main()
