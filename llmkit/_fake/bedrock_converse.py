"""The Amazon Bedrock Converse wire (``POST /model/{modelId}/converse-stream`` and
``/converse``) for the fake server.

Shapes are copied from real bedrock-runtime bytes (shared corpus: pydantic-ai cassettes, binary
event streams with their real CRCs, and vercel-ai's decoded Converse events):

- stream: ``application/vnd.amazon.eventstream``, one binary message per event with the headers
  ``:event-type``, ``:content-type: application/json`` and ``:message-type: event``, each
  payload carrying Bedrock's ``"p"`` padding field (deterministic here): ``messageStart``; per
  block, reasoning as ``reasoningContent`` text deltas then one ``signature`` delta, text as
  ``text`` deltas (neither has a ``contentBlockStart``), a tool call as ``contentBlockStart``
  with ``toolUse`` then ``toolUse.input`` string deltas; ``contentBlockStop``; ``messageStop``
  with the ``stopReason``; then ``metadata`` with ``usage`` and ``metrics``, the last event
  (``omit_done`` leaves it out: the stream then looks truncated);
- non-streamed: the ``Converse`` response (``output.message``, ``stopReason``, ``usage``,
  ``metrics``) as JSON;
- errors: ``{"message": ...}`` (Bedrock puts the type in an ``x-amzn-ErrorType`` header; script
  one with ``FakeError(headers=...)``); in a stream, an exception message
  (``:message-type: exception``). A scripted in-stream ``body`` of the form
  ``{"throttlingException": {"message": ...}}`` names the exception; any other mapping is
  the payload of an ``internalServerException``.

Requests authenticate with ``Authorization: Bearer <key>`` (a Bedrock API key); a SigV4
``Authorization: AWS4-HMAC-SHA256 …`` header is accepted without checking the signature (the
fake holds no AWS secret; llmkit's tests check signatures with botocore itself).
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import zlib
from collections.abc import Mapping
from typing import Any

from .encoding import ServeContext, split_text
from .script import FakeReply, FakeRequest, FakeToolCall, wire_finish

__all__ = ["ENCODER", "BedrockConverseEncoder", "message"]

_PATH = re.compile(r"^/model/([^/]+)/(converse-stream|converse)$")
_PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _header(name: str, value: str) -> bytes:
    raw_name, raw = name.encode(), value.encode()
    return struct.pack(">B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw)) + raw


def message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream message with string headers (the framing Bedrock streams in)."""
    block = b"".join(_header(k, v) for k, v in headers.items())
    prelude = struct.pack(">II", 12 + len(block) + len(payload) + 4, len(block))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + block + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _event(event_type: str, payload: bytes) -> bytes:
    headers = {
        ":event-type": event_type,
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return message(headers, payload)


class BedrockConverseEncoder:
    """Encodes scripted replies as Amazon Bedrock's Converse API does (``bedrock-converse``)."""

    api = "bedrock-converse"
    base_path = ""

    def handles(self, method: str, path: str) -> bool:
        """Whether the request is a ``Converse``/``ConverseStream`` call."""
        return method == "POST" and _PATH.match(path.split("?", 1)[0]) is not None

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        """The error body for a missing or wrong Bedrock API key (SigV4 is accepted)."""
        auth = request.headers.get("authorization", "")
        if auth == f"Bearer {api_key}" or auth.startswith("AWS4-HMAC-SHA256 Credential="):
            return None
        if not auth:
            return _error("Missing Authentication Token")
        return _error("Authentication failed: Please make sure your API Key is valid.")

    def wants_stream(self, request: FakeRequest) -> bool:
        """Bedrock streams on ``/converse-stream``."""
        return request.path.split("?", 1)[0].endswith("/converse-stream")

    def headers(self, ctx: ServeContext, *, stream: bool, error: bool) -> list[tuple[str, str]]:
        """Content type as bedrock-runtime sends it, and an ``x-amzn-RequestId``."""
        content_type = "application/vnd.amazon.eventstream" if stream else "application/json"
        return [("content-type", content_type), ("x-amzn-requestid", _request_id(ctx))]

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """The event-stream messages of one streamed reply."""
        events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
        size = reply.delta_size
        for index, block in enumerate(_blocks(reply, ctx)):
            kind = block["kind"]
            if kind == "thinking":
                for piece in split_text(block["text"], size):
                    events.append(_delta(index, {"reasoningContent": {"text": piece}}))
                events.append(_delta(index, {"reasoningContent": {"signature": block["sig"]}}))
            elif kind == "text":
                events += [_delta(index, {"text": p}) for p in split_text(block["text"], size)]
            else:
                start = {"toolUse": {"toolUseId": block["id"], "name": block["name"]}}
                events.append(("contentBlockStart", {"contentBlockIndex": index, "start": start}))
                for piece in split_text(block["arguments"], size):
                    events.append(_delta(index, {"toolUse": {"input": piece}}))
            events.append(("contentBlockStop", {"contentBlockIndex": index}))
        events.append(("messageStop", {"stopReason": _stop_reason(reply)}))
        if not reply.omit_done:
            metadata: dict[str, Any] = {"metrics": {"latencyMs": 100 + ctx.number}}
            if reply.counts is not None:
                metadata["usage"] = _usage(reply.counts)
            events.append(("metadata", metadata))
        return [
            _event(name, _json({**payload, "p": _padding(ctx, n)}))
            for n, (name, payload) in enumerate(events)
        ]

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The ``Converse`` response for ``reply``."""
        content: list[dict[str, Any]] = []
        for block in _blocks(reply, ctx):
            if block["kind"] == "thinking":
                text = {"text": block["text"], "signature": block["sig"]}
                content.append({"reasoningContent": {"reasoningText": text}})
            elif block["kind"] == "text":
                content.append({"text": block["text"]})
            else:
                tool = {"toolUseId": block["id"], "name": block["name"], "input": block["input"]}
                content.append({"toolUse": tool})
        body: dict[str, Any] = {
            "metrics": {"latencyMs": 100 + ctx.number},
            "output": {"message": {"content": content, "role": "assistant"}},
            "stopReason": _stop_reason(reply),
        }
        if reply.counts is not None:
            body["usage"] = _usage(reply.counts)
        return _json(body)

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """One event message for a raw event: ``{"<eventType>": payload}`` (as boto3 and the
        corpus write Converse events), from a mapping or its JSON text; other text is sent
        verbatim as the payload of an ``unknown`` event."""
        parsed: Any = payload
        if isinstance(payload, str):
            try:
                parsed = json.loads(payload)
            except ValueError:
                return _event("unknown", payload.encode())
        if isinstance(parsed, Mapping) and len(parsed) == 1:
            [(name, inner)] = parsed.items()
            return _event(str(name), _json(inner))
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return _event("unknown", text.encode())

    def error_body(self, status: int, message: str) -> bytes:
        """Bedrock's error body."""
        return _error(message)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An exception message: ``{"<name>Exception": payload}`` names it; any other body is
        an ``internalServerException``'s payload."""
        if isinstance(body, bytes):
            return body
        name, payload = "internalServerException", {"message": "Internal server error"}
        if isinstance(body, str):
            payload = {"message": body}
        elif isinstance(body, Mapping):
            if len(body) == 1 and str(next(iter(body))).endswith("Exception"):
                [(key, inner)] = body.items()
                name, payload = str(key), dict(inner) if isinstance(inner, Mapping) else {}
            else:
                payload = dict(body)
        headers = {
            ":exception-type": name,
            ":content-type": "application/json",
            ":message-type": "exception",
        }
        return message(headers, _json(payload))


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _error(text: str) -> bytes:
    return _json({"message": text})


def _request_id(ctx: ServeContext) -> str:
    h = hashlib.sha256(f"bedrock-{ctx.number}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _padding(ctx: ServeContext, n: int) -> str:
    # Bedrock pads every event with a random-length run of this alphabet; here derived.
    length = hashlib.sha256(f"{ctx.number}:{n}".encode()).digest()[0] % 50 + 1
    return _PADDING[:length]


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "contentBlockDelta", {"contentBlockIndex": index, "delta": delta}


def _blocks(reply: FakeReply, ctx: ServeContext) -> list[dict[str, Any]]:
    """Claude's order: reasoning, text, tool calls."""
    blocks: list[dict[str, Any]] = []
    if reply.thinking is not None:
        digest = hashlib.sha256(reply.thinking.encode()).hexdigest()
        blocks.append({"kind": "thinking", "text": reply.thinking, "sig": f"fake-sig-{digest}"})
    if reply.text is not None:
        blocks.append({"kind": "text", "text": reply.text})
    for call in reply.tool_calls:
        text = _arguments(call)
        try:
            value: Any = json.loads(text) if text.strip() else {}
        except ValueError:
            value = {}  # broken scripted arguments can only be streamed, not sent whole
        blocks.append(
            {
                "kind": "tool",
                "id": call.id if call.id is not None else ctx.next_call_id(),
                "name": call.name,
                "arguments": text,
                "input": value if isinstance(value, dict) else {},
            }
        )
    return blocks


def _arguments(call: FakeToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


# llmkit's stop reasons as Bedrock says them (refusal and pause have no word here).
STOP_WORDS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_use": "tool_use",
    "content_filter": "content_filtered",
}


def _stop_reason(reply: FakeReply) -> str:
    reason = wire_finish(reply.finish_reason, STOP_WORDS)
    if reason is not None:
        return reason
    return "tool_use" if reply.tool_calls else "end_turn"


def _usage(usage: Mapping[str, int]) -> dict[str, Any]:
    # Scripted usage is llmkit's convention (input includes cache reads and writes); Bedrock's
    # inputTokens counts only the uncached rest. Only scripted keys go out.
    out: dict[str, Any] = {}
    read, write = usage.get("cache_read"), usage.get("cache_write")
    if "input" in usage:
        out["inputTokens"] = usage["input"] - (read or 0) - (write or 0)
    if "output" in usage:
        out["outputTokens"] = usage["output"]
    if "input" in usage and "output" in usage:
        out["totalTokens"] = usage["input"] + usage["output"]
    if read is not None:
        out["cacheReadInputTokens"] = read
    if write is not None:
        out["cacheWriteInputTokens"] = write
    return out


ENCODER = BedrockConverseEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
