"""Provider-hosted tools: ``ProviderTool`` next to function tools, and their output kept for replay.

    python examples/features/hosted_tools.py

Runs against llmkit's fake provider speaking Anthropic's wire. The web-search tool's spec goes
verbatim into ``tools`` (next to the function tool); the model's ``server_tool_use`` and
``web_search_tool_result`` blocks come back as opaque parts of the message, in order, and the
next request sends them back verbatim to the same model. A ProviderTool for another wire is
left out of the request, reported.
"""

from __future__ import annotations

from typing import Any

import llmkit
from llmkit.testing import FakeProvider, FakeReply

SEARCH = llmkit.ProviderTool(
    "anthropic-messages", {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
)
RESULT = {
    "type": "web_search_result",
    "url": "https://example.com/oslo",
    "title": "Oslo weather",
    "encrypted_content": "EqQBCioIBhgC",
    "page_age": None,
}


def searched() -> list[dict[str, Any]]:
    """The events of a reply that searched the web, as Anthropic streams them."""
    use = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [RESULT]}
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "fake-model",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 40, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": use},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "Oslo weather"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": found},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "text_delta", "text": "Sunny, 18°C."},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 30},
        },
        {"type": "message_stop"},
    ]


def main() -> None:
    weather = llmkit.Tool(
        name="get_forecast",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    )
    elsewhere = llmkit.ProviderTool("gemini", {"google_search": {}})
    replies = [FakeReply(raw_events=searched()), FakeReply("You are welcome.")]
    with FakeProvider(replies, api="anthropic-messages") as fake:
        model = fake.model()
        context = llmkit.Context(
            messages=[llmkit.user("Weather in Oslo?")], tools=[weather, SEARCH, elsewhere]
        )
        reply = llmkit.complete(model, context, api_key=fake.api_key)
        sent = fake.requests[0].body["tools"]
        print("tools sent:", [t.get("type", "custom") for t in sent])
        print(
            "left out:",
            [d.details["api"] for d in reply.diagnostics if d.details.get("option") == "tools"],
        )
        kept = [
            p.replay["block"]["type"]
            for p in reply.content
            if isinstance(p, llmkit.ThinkingPart) and p.replay
        ]
        print("kept for replay:", kept, "then:", reply.text)
        context.messages += [reply, llmkit.user("Thanks!")]
        llmkit.complete(model, context, api_key=fake.api_key)
        replayed = fake.requests[1].body["messages"][1]["content"]
        print("sent back:", [b["type"] for b in replayed])


if __name__ == "__main__":
    main()
