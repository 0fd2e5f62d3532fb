"""Prompt caching: ``cache=``, ``cache_key=`` and ``CachePoint()`` on Anthropic and OpenAI.

    python examples/features/prompt_caching.py

Runs against llmkit's fake provider. On Anthropic, ``cache="long"`` sends the top-level
``cache_control`` with a 1-hour ttl, and a ``CachePoint`` marks the block before it (at most 4
per request); the 1-hour write is priced at its own price. On OpenAI, ``cache_key`` is
``prompt_cache_key`` and ``cache="long"`` asks for 24-hour retention.
"""

from __future__ import annotations

import llmkit
from llmkit.testing import FakeProvider, FakeReply

MANUAL = "You answer questions about the manual below.\n\n" + "Section text. " * 400


def anthropic() -> None:
    usage = {"input": 2100, "output": 4, "cache_write": 2000, "cache_write_long": 2000}
    reply = FakeReply("Page 12.", usage=usage)
    with FakeProvider([reply], api="anthropic-messages") as fake:
        # the fake's id is unknown to the catalogue: borrow a real model's prices
        prices = llmkit.get_model("anthropic", "claude-sonnet-5-5").cost
        model = fake.model(cost=prices)
        first = llmkit.UserMessage(content=[llmkit.TextPart(text=MANUAL), llmkit.CachePoint()])
        context = llmkit.Context(messages=[first, llmkit.user("Where is the reset button?")])
        message = llmkit.complete(model, context, api_key=fake.api_key, cache="long")
        body = fake.requests[0].body
        print("anthropic top-level:", body["cache_control"])
        print("anthropic breakpoint:", body["messages"][0]["content"][0]["cache_control"])
        write = message.usage.cache_write
        print(f"usage: {write} tokens written to the cache, cost ${message.usage.cost:.6f}")
        long = write * prices.cache_write_long / 1e6  # type: ignore[operator]
        print(f"  of which the 1-hour write: ${long:.6f} (at {prices.cache_write_long}/M)")


def openai() -> None:
    with FakeProvider([FakeReply("Page 12.")], api="openai-responses") as fake:
        model = fake.model(compat={"supports_prompt_cache": True})
        context = llmkit.Context(
            system=MANUAL, messages=[llmkit.user("Where is the reset button?")]
        )
        llmkit.complete(model, context, api_key=fake.api_key, cache="long", cache_key="manual-v3")
        body = fake.requests[0].body
        print("openai:", body["prompt_cache_key"], body["prompt_cache_retention"])
    # A server without those fields gets none of them, and the message says so.
    request = llmkit.build_request(
        llmkit.Model(provider="vllm", id="qwen3", api="openai-chat"),
        llmkit.Context(messages=[llmkit.user("hi")]),
        cache_key="manual-v3",
    )
    [diagnostic] = request.extensions["llmkit.diagnostics"]
    print("vllm:", diagnostic.kind, "-", diagnostic.message)


if __name__ == "__main__":
    anthropic()
    openai()
