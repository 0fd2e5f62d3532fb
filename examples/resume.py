"""A stream fails in the middle of a turn; the transcript is saved as JSON, loaded by a new
process, and the conversation goes on from there, with nothing repaired by hand.

    python examples/resume.py                  # no key: the fake provider drops the connection
    OPENAI_API_KEY=sk-... python examples/resume.py --fail-after 2   # a real stream, cut short
    python examples/resume.py --resume transcript.json                # continue a saved one

1. This process runs the loop. The model calls a tool, then streams its answer, and the
   connection drops half-way (with a real provider: the total timeout of ``--fail-after``
   seconds runs out). ``complete()`` raises; the error's ``.partial`` is the message received
   so far, and it is transcript-valid: it goes into the context as it is.
2. ``Context.model_dump_json()`` is saved to a file: the durable transcript.
3. A new process (``--resume FILE``, started here with ``subprocess``) loads it with
   ``Context.model_validate_json()``, asks the model to go on, and prints the whole answer.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _provider import add_arguments, connect  # examples/ is on sys.path when run as a script
from pydantic import BaseModel, Field

import llmkit
from llmkit.testing import FakeReply, FakeRequest, FakeToolCall


class GetForecast(BaseModel):
    """Get the weather forecast for a city."""

    city: str = Field(description="City name")
    days: int = Field(default=3, ge=1, le=7)


FORECAST = "Mon sunny 21°C; Tue showers from noon 17°C; Wed clearing 19°C"
ANSWER = (
    "Paris, the next three days: Monday is sunny and warm at 21°C, Tuesday brings showers from "
    "noon with 17°C, and Wednesday clears up at 19°C. Pack light layers and an umbrella."
)
CONTINUE = "The connection dropped while you were answering. Please finish your answer."


def first_process(ns: argparse.Namespace) -> int:
    """Run the turns until one fails mid-stream; save the transcript; resume elsewhere."""
    weather = llmkit.tool(GetForecast)
    context = llmkit.Context(
        system="Use the tools. Answer in one detailed paragraph.",
        messages=[llmkit.user("What will the weather be in Paris, and what should I pack?")],
        tools=[weather],
    )
    with connect(ns, fake_first) as (model, options):
        if model.provider != "fake":  # a real provider: cut its stream with a deadline
            options["timeout"] = llmkit.Timeouts(total=ns.fail_after)
        for _turn in range(4):
            try:
                reply = llmkit.complete(model, context, max_tokens=600, **options)
            except llmkit.LLMError as e:
                if e.partial is None:
                    raise  # failed before the response started: there is nothing to keep
                print(f"the stream failed: {type(e).__name__}: {e}")
                print(f"partial answer kept: {e.partial.text!r}")
                context.messages.append(e.partial)  # as received: no repair
                break
            context.messages.append(reply)
            if not reply.tool_calls:
                print("the stream did not fail: nothing to resume")
                print(reply.text)
                return 0
            for call in reply.tool_calls:
                args = llmkit.decode_tool_call(weather, call)
                print(f"tool {call.name}({args.city!r}) -> {FORECAST}")
                context.messages.append(llmkit.tool_result(call, FORECAST))
        else:
            return 0
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(ns.transcript or Path(scratch) / "transcript.json")
        path.write_text(context.model_dump_json(indent=2), encoding="utf-8")
        print(f"transcript saved: {path} ({len(context.messages)} messages)")
        # A new process: nothing survives but the file.
        forwarded = ["--provider", ns.provider, "--model", ns.model, *(["--fake"] * ns.fake)]
        return subprocess.call([sys.executable, __file__, "--resume", str(path), *forwarded])


def resumed_process(ns: argparse.Namespace) -> int:
    """Load the transcript and carry on."""
    context = llmkit.Context.model_validate_json(Path(ns.resume).read_text(encoding="utf-8"))
    last = context.messages[-1]
    assert isinstance(last, llmkit.AssistantMessage)
    print(f"[new process] loaded {len(context.messages)} messages; the last one ends with")
    print(f"[new process] stop_reason={last.stop_reason!r}: {last.text!r}")
    context.messages.append(llmkit.user(CONTINUE))
    with connect(ns, fake_resumed) as (model, options):
        reply = llmkit.complete(model, context, max_tokens=600, **options)
    print(f"[new process] the rest: {reply.text!r}")
    print(f"\n{last.text}{reply.text}")
    return 0


def fake_first(request: FakeRequest) -> FakeReply:
    """The model's part in the first process: a tool call, then an answer that gets cut."""
    if not any(m["role"] == "tool" for m in request.body["messages"]):
        return FakeReply(tool_calls=[FakeToolCall("get_forecast", {"city": "Paris"})])
    # 11 events (the role, then 10 deltas of 8 characters), then the connection drops.
    return FakeReply(ANSWER, drop_after=11)


def fake_resumed(request: FakeRequest) -> FakeReply:
    """The model's part in the new process: it sees its own cut-off answer and finishes it."""
    messages: list[dict[str, Any]] = request.body["messages"]
    earlier = [m.get("content") or "" for m in messages if m["role"] == "assistant"]
    partial = earlier[-1] if earlier else ""
    if not partial or not ANSWER.startswith(partial) or messages[-1]["content"] != CONTINUE:
        return FakeReply("I have no record of an earlier answer.")
    return FakeReply(ANSWER.removeprefix(partial))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument("--resume", metavar="FILE", help="continue the transcript in FILE")
    parser.add_argument(
        "--transcript", metavar="FILE", help="where to save it (default: a temp dir)"
    )
    parser.add_argument(
        "--fail-after", type=float, default=3.0, metavar="S", help="cut a real stream after S s"
    )
    ns = parser.parse_args()
    raise SystemExit(resumed_process(ns) if ns.resume else first_process(ns))


if __name__ == "__main__":
    main()
