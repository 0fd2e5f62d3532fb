"""The cloud platforms for ``examples/tool_loop.py --provider bedrock|vertex|azure``
(docs/cloud.md).

Which model each platform runs by default, whether credentials are present (else the example
uses llmkit's fake provider, speaking the platform's real wire: Bedrock's binary event stream,
Vertex AI's URL shapes), and a scripted stand-in for the model that reads each wire's body.
"""

from __future__ import annotations

import os
from typing import Any

from llmkit.testing import FakeReply, FakeRequest, FakeToolCall

DEFAULTS = {
    "bedrock": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    "vertex": "gemini-2.5-flash",
    "vertex-anthropic": "claude-haiku-4-5@20251001",
    "azure": "gpt-4.1-mini",
    "foundry-anthropic": "claude-haiku-4-5",
}
"""The model ``--provider`` runs when ``--model`` is not given."""

APIS = {
    "bedrock": "bedrock-converse",
    "vertex": "gemini",
    "vertex-anthropic": "anthropic-messages",
    "azure": "openai-chat",
    "foundry-anthropic": "anthropic-messages",
}
PLATFORMS = {"bedrock": "bedrock", "azure": "azure", "foundry-anthropic": "azure"}


def has_credentials(provider: str) -> bool:
    """Whether the real platform can be reached: a Bedrock API key or AWS credentials; a Vertex
    express key, or a project for application-default credentials; an Azure endpoint (a key or
    Microsoft Entra ID, through azure-identity, does the rest)."""
    names: tuple[str, ...]
    if provider == "bedrock":
        names = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE")
    elif provider == "azure":
        names = ("AZURE_OPENAI_ENDPOINT",)
    elif provider == "foundry-anthropic":
        names = ("ANTHROPIC_FOUNDRY_RESOURCE", "ANTHROPIC_FOUNDRY_BASE_URL")
    else:
        names = ("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID")
    return any(os.environ.get(n) for n in names)


def _results(request: FakeRequest) -> list[str]:
    """The tool results the request carries, in order, whatever the wire."""
    body = request.body
    found: list[str] = []
    for message in body.get("messages", []):  # Bedrock Converse, Anthropic Messages
        for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
            if "toolResult" in block:
                found.append(block["toolResult"]["content"][0]["text"])
            elif block.get("type") == "tool_result":
                content = block.get("content")
                found.append(content if isinstance(content, str) else content[0]["text"])
    for message in body.get("messages", []):  # OpenAI Chat Completions (Azure OpenAI)
        if message.get("role") == "tool":
            content = message["content"]
            found.append(content if isinstance(content, str) else content[0]["text"])
    for content in body.get("contents", []):  # Gemini on Vertex AI
        for part in content["parts"]:
            if "functionResponse" in part:
                found.append(str(part["functionResponse"]["response"].get("output")))
    return found


def fake_model(request: FakeRequest) -> FakeReply:
    """A scripted stand-in: a call with bad arguments, a good call, then the answer."""
    results = _results(request)
    if not results:
        return FakeReply(
            thinking="The user wants a forecast; I will call get_weather.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 30})],
        )
    if len(results) == 1:
        return FakeReply(
            "Let me fix the number of days.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Beijing", "days": 3})],
        )
    return FakeReply(f"Forecast — {results[-1]}. Pack light layers and a windbreaker.")


def fake_options(provider: str) -> dict[str, Any]:
    """``FakeProvider`` arguments for the platform."""
    return {"api": APIS[provider], "platform": PLATFORMS.get(provider, "vertex")}
