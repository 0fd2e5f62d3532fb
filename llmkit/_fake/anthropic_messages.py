"""The Anthropic Messages wire (``POST /v1/messages``) for the fake server.

Shapes are copied from real api.anthropic.com bytes (``tests/fixtures/anthropic-messages/``:
anthropic-sdk-python SSE captures, charmbracelet-fantasy and pydantic-ai cassettes for streams,
simonw-llm-anthropic and mirascope for headers and error bodies):

- stream: ``event: <type>\\ndata: <compact JSON>\\n\\n``; ``message_start`` with the message
  shell and usage (input and cache counts, ``output_tokens`` so far); per content block a
  ``content_block_start`` (text ``""``; thinking ``""`` with ``signature: ""``; ``tool_use``
  with ``input: {}``), its deltas (``text_delta``, ``thinking_delta`` then one
  ``signature_delta``, ``input_json_delta`` starting with ``partial_json: ""``) and a
  ``content_block_stop``; a ``ping`` after the first block starts; ``message_delta`` with the
  stop reason and the cumulative ``output_tokens``; then ``message_stop``;
- non-streamed: the ``message`` object as compact JSON;
- errors: ``{"type": "error", "error": {"type", "message"}, "request_id"}``; in a stream,
  ``event: error`` with the same object (QUIRKS A6).

Claude on Vertex AI is served on ``/v1/projects/{p}/locations/{l}/publishers/anthropic/models/
{model}:streamRawPredict`` (``:rawPredict``) with the same bodies, authenticated by an OAuth
bearer token.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from .encoding import ServeContext, split_text
from .script import FakeReply, FakeRequest, FakeToolCall, wire_finish

__all__ = ["ENCODER", "AnthropicMessagesEncoder"]

_VERTEX = re.compile(
    r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/([^/:]+)"
    r":(streamRawPredict|rawPredict)$"
)  # Claude on Vertex AI: the model in the path, anthropic_version in the body

_PING = '{"type": "ping"}'  # written with a space, unlike every other event (recordings)
_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


class AnthropicMessagesEncoder:
    """Encodes scripted replies as the Anthropic Messages API does (``anthropic-messages``)."""

    api = "anthropic-messages"
    base_path = "/v1"
    _path = "/v1/messages"

    def handles(self, method: str, path: str) -> bool:
        """Whether the request is a Messages call (``?beta=true`` included, as the SDK sends),
        or Claude on Vertex AI (``…/publishers/anthropic/models/{m}:streamRawPredict``)."""
        target = path.split("?", 1)[0].rstrip("/")
        return method == "POST" and (target == self._path or _VERTEX.match(target) is not None)

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        """The 401 body Anthropic sends for a missing or wrong key.

        The key is accepted in ``x-api-key`` (what llmkit and older SDKs send) or as
        ``Authorization: Bearer`` (what anthropic-python 2.x sends).
        """
        key = request.headers.get("x-api-key", "")
        auth = request.headers.get("authorization", "")
        bearer = auth[7:].strip() if auth.startswith("Bearer ") else ""
        if _VERTEX.match(request.path.split("?", 1)[0]):
            key = ""  # Vertex AI takes an OAuth access token as a bearer, never x-api-key
        if api_key in (key, bearer):
            return None
        message = "x-api-key header is required" if not (key or bearer) else "invalid x-api-key"
        return _error(message, "authentication_error")

    def wants_stream(self, request: FakeRequest) -> bool:
        """Anthropic streams only when the body says ``"stream": true``."""
        return request.body.get("stream") is True

    def headers(self, ctx: ServeContext, *, stream: bool, error: bool) -> list[tuple[str, str]]:
        """Content type as api.anthropic.com sends it, and a ``request-id``."""
        content_type = "text/event-stream; charset=utf-8" if stream else "application/json"
        return [("content-type", content_type), ("request-id", _request_id(ctx))]

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """The events of one streamed message for ``reply``."""
        shell = _message(request, ctx, content=[], stop_reason=None)
        if reply.counts is not None:
            # At the start, output_tokens counts what was generated so far (1 or a few); the
            # final, cumulative count comes in message_delta (QUIRKS J2).
            shell["usage"] = _usage(reply.counts, start=True)
        events = [self.frame({"type": "message_start", "message": shell})]
        size = reply.delta_size
        blocks = _blocks(reply, ctx)
        for index, block in enumerate(blocks):
            kind = block["type"]
            if kind == "thinking":
                start: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [
                    {"type": "thinking_delta", "thinking": piece}
                    for piece in split_text(block["thinking"], size)
                ]
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
            elif kind == "text":
                start = {"type": "text", "text": ""}
                deltas = [
                    {"type": "text_delta", "text": piece}
                    for piece in split_text(block["text"], size)
                ]
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                # The first input delta is always an empty string (QUIRKS D3).
                pieces = ["", *split_text(block["_text"], size)]
                deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
            events.append(
                self.frame({"type": "content_block_start", "index": index, "content_block": start})
            )
            if index == 0:
                events.append(self.frame(_PING))
            events += [
                self.frame({"type": "content_block_delta", "index": index, "delta": d})
                for d in deltas
            ]
            events.append(self.frame({"type": "content_block_stop", "index": index}))
        if not blocks:
            events.append(self.frame(_PING))
        final: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
        }
        if reply.counts is not None:
            final["usage"] = _usage(reply.counts)
        events.append(self.frame(final))
        if not reply.omit_done:
            events.append(self.frame({"type": "message_stop"}))
        return events

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The ``message`` object for ``reply``."""
        content = [{k: v for k, v in b.items() if k != "_text"} for b in _blocks(reply, ctx)]
        body = _message(request, ctx, content=content, stop_reason=_stop_reason(reply))
        if reply.counts is not None:
            body["usage"] = _usage(reply.counts)
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """``event: <type>`` + ``data: <payload>``; the type is read from the payload."""
        if isinstance(payload, str):
            text = payload
            try:
                parsed = json.loads(payload)
            except ValueError:
                parsed = None
            event = parsed.get("type") if isinstance(parsed, dict) else None
        else:
            # Raw UTF-8, not \\u escapes, so multi-byte characters can straddle TCP reads.
            text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
            event = payload.get("type")
        head = f"event: {event}\n" if isinstance(event, str) else ""
        return (head + "data: " + text + "\n\n").encode()

    def error_body(self, status: int, message: str) -> bytes:
        """Anthropic's error object, with the ``error.type`` it uses for ``status``."""
        kind = _ERROR_TYPES.get(status) or (
            "api_error" if status >= 500 else "invalid_request_error"
        )
        return _error(message, kind)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An in-stream error as Anthropic sends it: ``event: error`` (QUIRKS A6)."""
        if isinstance(body, bytes):
            return body
        if body is None:
            body = {
                "type": "error",
                "error": {"type": "api_error", "message": "Internal server error"},
            }
        text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        return b"event: error\ndata: " + text.encode() + b"\n\n"


def _request_id(ctx: ServeContext) -> str:
    return f"req_fake{ctx.number}"


def _error(message: str, kind: str) -> bytes:
    # The real body also has a "request_id"; the fake sends it as the request-id header only.
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return json.dumps(body, separators=(",", ":")).encode()


def _message(
    request: FakeRequest,
    ctx: ServeContext,
    *,
    content: list[dict[str, Any]],
    stop_reason: str | None,
) -> dict[str, Any]:
    model = request.body.get("model")
    on_vertex = _VERTEX.match(request.path.split("?", 1)[0])
    if on_vertex is not None:
        model = on_vertex.group(1)
    return {
        "model": model if isinstance(model, str) else "fake-model",
        "id": f"msg_fake{ctx.number}",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }


def _blocks(reply: FakeReply, ctx: ServeContext) -> list[dict[str, Any]]:
    """The content blocks of ``reply`` in Claude's order: thinking, text, tool calls."""
    blocks: list[dict[str, Any]] = []
    if reply.thinking is not None:
        blocks.append(
            {"type": "thinking", "thinking": reply.thinking, "signature": _signature(reply)}
        )
    if reply.text is not None:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        call_id = call.id if call.id is not None else ctx.next_call_id()
        text = _arguments(call)
        try:
            value: Any = json.loads(text) if text.strip() else {}
        except ValueError:
            value = {}  # broken scripted arguments can only be streamed, not sent whole
        blocks.append(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": value, "_text": text}
        )
    return blocks


def _signature(reply: FakeReply) -> str:
    # Opaque and deterministic, shaped like the real base64 signatures.
    digest = hashlib.sha256((reply.thinking or "").encode()).digest()
    return base64.b64encode(b"fake-signature:" + digest).decode()


def _arguments(call: FakeToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


# llmkit's stop reasons as Anthropic says them (content_filter has no word here).
STOP_WORDS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_use": "tool_use",
    "refusal": "refusal",
    "pause": "pause_turn",
}


def _stop_reason(reply: FakeReply) -> str:
    reason = wire_finish(reply.finish_reason, STOP_WORDS)
    if reason is not None:
        return reason
    return "tool_use" if reply.tool_calls else "end_turn"


def _usage(usage: Mapping[str, int], *, start: bool = False) -> dict[str, Any]:
    # Scripted usage is in llmkit's convention (input includes cache reads and writes);
    # Anthropic's input_tokens counts only the uncached rest. Only scripted keys go out.
    out: dict[str, Any] = {}
    read, write = usage.get("cache_read"), usage.get("cache_write")
    if "input" in usage:
        out["input_tokens"] = usage["input"] - (read or 0) - (write or 0)
    if write is not None:
        out["cache_creation_input_tokens"] = write
        long = usage.get("cache_write_long")
        if long is not None:  # the split Anthropic reports since 1-hour caching
            out["cache_creation"] = {
                "ephemeral_5m_input_tokens": write - long,
                "ephemeral_1h_input_tokens": long,
            }
    if read is not None:
        out["cache_read_input_tokens"] = read
    if "output" in usage:
        out["output_tokens"] = min(usage["output"], 1) if start else usage["output"]
    if "reasoning" in usage and not start:
        out["output_tokens_details"] = {"thinking_tokens": usage["reasoning"]}
    return out


ENCODER = AnthropicMessagesEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
