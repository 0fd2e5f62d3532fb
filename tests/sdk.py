"""The official SDKs' request types as oracles: a body llmkit builds must validate against them."""

from __future__ import annotations

import itertools
import json
from typing import Any

from anthropic.types.message_create_params import MessageCreateParamsStreaming
from google.genai import types
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming
from pydantic import TypeAdapter

CHAT_PARAMS = TypeAdapter(CompletionCreateParamsStreaming)


RESPONSES_PARAMS = TypeAdapter(ResponseCreateParamsStreaming)


ANTHROPIC_PARAMS = TypeAdapter(MessageCreateParamsStreaming)


def validate_gemini(body: dict[str, Any]) -> None:
    """Strict validation of every part of a body with google-genai's types."""
    allowed = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
    assert set(body) <= allowed, set(body) - allowed
    assert body["contents"], "Gemini refuses an empty contents list"
    for content in body["contents"]:
        parsed = types.Content.model_validate_json(json.dumps(content))
        assert parsed.role in ("user", "model") and parsed.parts
    if "systemInstruction" in body:
        types.Content.model_validate_json(json.dumps(body["systemInstruction"]))
    for tool in body.get("tools", []):
        types.Tool.model_validate_json(json.dumps(tool))
    if "toolConfig" in body:
        types.ToolConfig.model_validate_json(json.dumps(body["toolConfig"]))
    if "generationConfig" in body:
        types.GenerationConfig.model_validate_json(json.dumps(body["generationConfig"]))
    roles = [c["role"] for c in body["contents"]]
    for previous, role in itertools.pairwise(roles):
        assert not (previous == role == "model"), roles  # model turns never follow each other
