"""What travels in the UI message for the exact round trip, under the key ``"llmkit"``.

A step's visible parts (``text``, ``reasoning``, tool parts) say what the page shows; what a
later request needs and the protocol has no field for rides along:

- per step, one ``data-llmkit`` part (its last part): ``{"message": {provider, api, model,
  response_id, provider_data, stop_reason, raw_stop_reason}, "content": [...]}``, one entry
  per content part in order: ``{"type": "text", "ui": n}`` (the step's n-th visible text
  part) or ``{"type": "text", "text": ...}`` (a part with no visible text), plus
  ``citations``; thinking alike plus ``signature``, ``redacted``, ``replay``; a call as
  ``{"type": "tool_call", "id", "raw_arguments", "status", "provider_id", "replay",
  "arguments"}`` (``arguments`` only where they are not ``raw_arguments`` parsed). Fields at
  their defaults are left out.
- per tool result, the ``providerMetadata`` of its ``tool-output-*`` part (the UI part's
  ``resultProviderMetadata``): ``{"llmkit": {"index", "content", "tool_name"}}``: its place
  among the results after its step (none for a result or refusal in a later response: those
  come back after the others, in call order), and its content and tool name where the visible
  ``output`` / tool part do not say them exactly.

Both are written here and read back by ``from_ui_messages`` (``_history.py``).
"""

from __future__ import annotations

import json
from typing import Any

from .._messages import (
    AssistantMessage,
    Citation,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
)

__all__ = [
    "KEY",
    "RECORD_TYPE",
    "citation_sources",
    "parsed_arguments",
    "result_metadata",
    "step_record",
]

KEY = "llmkit"
RECORD_TYPE = "data-llmkit"
_MESSAGE_FIELDS = ("provider", "api", "model", "response_id", "provider_data", "raw_stop_reason")


def parsed_arguments(raw: str) -> Any:
    """``raw`` parsed as JSON, or ``None`` when it is not JSON."""
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _call_entry(call: ToolCall) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "tool_call",
        "id": call.id,
        "raw_arguments": call.raw_arguments,
    }
    if call.status != "complete":
        entry["status"] = call.status
    if call.provider_id is not None:
        entry["provider_id"] = call.provider_id
    if call.replay is not None:
        entry["replay"] = call.replay
    if not _same_json(parsed_arguments(call.raw_arguments), call.arguments):
        entry["arguments"] = call.arguments
    return entry


def step_record(
    message: AssistantMessage, visible: dict[int, tuple[str, int, str]]
) -> dict[str, Any]:
    """The ``data-llmkit`` part of a step whose final message is ``message``; ``visible`` maps
    a content index to the (kind, ordinal, text) of the UI part streamed for it."""
    head: dict[str, Any] = {"stop_reason": message.stop_reason}
    for name in _MESSAGE_FIELDS:
        value = getattr(message, name)
        if value is not None:
            head[name] = value
    content: list[dict[str, Any]] = []
    for index, part in enumerate(message.content):
        if isinstance(part, ToolCall):
            content.append(_call_entry(part))
            continue
        kind, text = (
            ("text", part.text) if isinstance(part, TextPart) else ("reasoning", part.thinking)
        )
        entry: dict[str, Any] = {"type": part.type}
        shown = visible.get(index)
        if shown is not None and shown[0] == kind and shown[2] == text:
            entry["ui"] = shown[1]
        else:
            entry["text" if kind == "text" else "thinking"] = text
        if isinstance(part, TextPart) and part.citations:
            entry["citations"] = [
                c.model_dump(mode="json", exclude_none=True) for c in part.citations
            ]
        if isinstance(part, ThinkingPart):
            if part.signature is not None:
                entry["signature"] = part.signature
            if part.redacted:
                entry["redacted"] = True
            if part.replay is not None:
                entry["replay"] = part.replay
        content.append(entry)
    return {"type": RECORD_TYPE, "data": {"message": head, "content": content}}


def result_metadata(
    result: ToolResultMessage, index: int | None, name: str | None
) -> dict[str, Any]:
    """The ``providerMetadata`` of a result's ``tool-output-*`` part (``name``: its call's;
    ``index``: its place among its step's results, ``None`` for a result that continues a
    message an earlier response streamed, which comes back after those, in call order)."""
    record: dict[str, Any] = {} if index is None else {"index": index}
    content = result.content
    if not (len(content) == 1 and isinstance(content[0], TextPart) and not content[0].citations):
        record["content"] = [p.model_dump(mode="json") for p in content]
    if result.tool_name != name:
        record["tool_name"] = result.tool_name
    return {KEY: record}


def citation_sources(citations: list[Citation], prefix: str) -> list[dict[str, Any]]:
    """A text part's citations as ``source-url`` (those with a URL) and ``source-document``
    parts, ids ``{prefix}-{n}``."""
    out: list[dict[str, Any]] = []
    for n, citation in enumerate(citations):
        source: dict[str, Any]
        if citation.url is not None:
            source = {"type": "source-url", "sourceId": f"{prefix}-{n}", "url": citation.url}
            if citation.title is not None:
                source["title"] = citation.title
        else:
            located = (citation.provider_data or {}).get("type")
            source = {
                "type": "source-document",
                "sourceId": f"{prefix}-{n}",
                # Anthropic's page locations cite PDFs; every other located text is text
                "mediaType": "application/pdf" if located == "page_location" else "text/plain",
                "title": citation.title or citation.cited_text or f"Source {citation.source}",
            }
        out.append(source)
    return out
