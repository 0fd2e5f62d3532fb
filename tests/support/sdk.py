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


def _materialize(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        return [_materialize(v) for v in value]
    return value


def _unknown_keys(sent: Any, kept: Any, path: str = "") -> list[str]:
    # A TypedDict drops the keys it does not define: whatever the SDK type did not keep is a
    # key that does not exist in the official request shape (a misspelt or invented field).
    if isinstance(sent, dict) and isinstance(kept, dict):
        out = [f"{path}.{k}" for k in sent if k not in kept]
        for k in sent:
            if k in kept:
                out += _unknown_keys(sent[k], kept[k], f"{path}.{k}")
        return out
    if isinstance(sent, list) and isinstance(kept, list) and len(sent) == len(kept):
        return [
            p
            for i, (a, b) in enumerate(zip(sent, kept, strict=True))
            for p in _unknown_keys(a, b, f"{path}[{i}]")
        ]
    return []


def unknown_keys(adapter: TypeAdapter[Any], body: dict[str, Any]) -> list[str]:
    """Validate ``body`` with an SDK request type and list the keys the type does not define
    (``consume`` alone cannot see them: TypedDicts ignore extras). Free-form values (a JSON
    Schema, tool ``input``) are dicts the SDK keeps whole, so they are not flagged."""
    return _unknown_keys(body, _materialize(adapter.validate_python(body)))
