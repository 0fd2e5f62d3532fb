"""Token counting: ``count_tokens`` / ``acount_tokens`` through the provider's counting endpoint.

    python examples/features/count_tokens.py

Runs against llmkit's fake provider, which serves Anthropic's ``/messages/count_tokens``,
OpenAI's ``/responses/input_tokens`` and Gemini's ``:countTokens`` (about four characters a
token). The body is the call's own mapping (system, messages, tools, documents) without the
generation-only fields; a wire without a counting endpoint is refused before anything is sent.
"""

from __future__ import annotations

import asyncio

import llmkit
from llmkit.testing import FakeProvider


def main() -> None:
    weather = llmkit.Tool(
        name="get_forecast",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    )
    context = llmkit.Context(
        system="You are a weather assistant.",
        messages=[llmkit.user("Will it rain in Bergen tomorrow?")],
        tools=[weather],
    )
    for api in ("anthropic-messages", "openai-responses", "gemini"):
        with FakeProvider(api=api) as fake:
            n = llmkit.count_tokens(fake.model(), context, api_key=fake.api_key, max_tokens=500)
            path = fake.requests[0].path
            print(f"{api}: {n} input tokens ({path.split('?')[0]})")
    with FakeProvider(api="gemini") as fake:
        n = asyncio.run(llmkit.acount_tokens(fake.model(), context, api_key=fake.api_key))
        print(f"async: {n}")
    try:
        llmkit.count_tokens(
            llmkit.Model(provider="openai", id="gpt-4.1", api="openai-chat"), context, api_key="k"
        )
    except llmkit.InvalidRequestError as e:
        print("refused:", e)


if __name__ == "__main__":
    main()
