"""Structured output: ``response_format=``, the partial value while it streams, ``decode_output``.

    python examples/features/structured_output.py

Runs against llmkit's fake provider (a real HTTP server on 127.0.0.1 speaking Anthropic's
wire): the request carries ``output_config.format`` (the schema rewritten for Anthropic, each
lossy step reported), every ``TextDelta`` has ``partial_output`` (the JSON so far, parsed
incrementally), and ``decode_output`` validates the final text into the pydantic model.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

import llmkit
from llmkit.testing import FakeProvider, FakeReply


class City(BaseModel):
    name: str
    country: str
    population: int = Field(ge=0)


class Answer(BaseModel):
    """The three largest cities."""

    cities: list[City]


REPLY = json.dumps(
    {
        "cities": [
            {"name": "Stockholm", "country": "Sweden", "population": 984748},
            {"name": "Oslo", "country": "Norway", "population": 709037},
            {"name": "Copenhagen", "country": "Denmark", "population": 660842},
        ]
    }
)


def main() -> None:
    with FakeProvider([FakeReply(REPLY, delta_size=16)], api="anthropic-messages") as fake:
        # A fake model id tells llmkit nothing, so say what it can do.
        model = fake.model(structured_output=True)
        context = llmkit.Context(messages=[llmkit.user("The three largest Nordic cities?")])
        seen = 0
        with llmkit.stream(model, context, api_key=fake.api_key, response_format=Answer) as events:
            for event in events:
                if isinstance(event, llmkit.TextDelta) and event.partial_output:
                    cities = event.partial_output.get("cities", [])
                    done = [c["name"] for c in cities if "population" in c]
                    if len(done) > seen:  # a UI would re-render here
                        seen = len(done)
                        print(f"partial: {', '.join(done)}")
            message = events.message
        answer = llmkit.decode_output(Answer, message)
        print("decoded:", ", ".join(f"{c.name} ({c.population:,})" for c in answer.cities))
        fmt = fake.requests[0].body["output_config"]["format"]
        print(
            "sent output_config.format:", fmt["type"], "with", len(fmt["schema"]["$defs"]), "$defs"
        )
        rewritten = [d for d in message.diagnostics if d.kind == "schema_rewritten"]
        print("schema rewrites reported:", len(rewritten))
    # A reply that does not match is refused with a message meant for the model.
    bad = llmkit.AssistantMessage(content=[llmkit.TextPart(text='{"cities": [{"name": "X"}]}')])
    try:
        llmkit.decode_output(Answer, bad)
    except llmkit.OutputValidationError as e:
        print("refused:", e.errors[0]["path"], "-", e.errors[0]["message"])


if __name__ == "__main__":
    main()
