"""The OpenAI Chat Completions wire (``POST /v1/chat/completions``) for the fake server.

Shapes are copied from real api.openai.com bytes (shared corpus: ``openai-python__*.bin`` SSE
recordings, charmbracelet-fantasy and mirascope cassettes for non-streamed and error bodies):

- stream: compact JSON in ``data: ...\\n\\n`` lines; a first chunk carrying only the role; one
  chunk per text or argument piece; a tool call's first delta carries ``id``, ``type``, ``name``
  and ``arguments: ""``, later ones only ``index`` and an ``arguments`` piece; a chunk with an
  empty delta and the ``finish_reason``; with ``stream_options.include_usage`` a usage chunk with
  ``choices: []``; then ``data: [DONE]``;
- non-streamed: a ``chat.completion`` object pretty-printed with two-space indents;
- errors: ``{"error": {message, type, param, code}}`` pretty-printed with four-space indents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .encoding import ServeContext, split_text
from .script import FakeReply, FakeRequest, FakeToolCall

__all__ = ["ENCODER", "OpenAIChatEncoder"]

_FINGERPRINT = "fp_fake"


class OpenAIChatEncoder:
    """Encodes scripted replies as the OpenAI Chat Completions API does (``openai-chat``)."""

    api = "openai-chat"
    base_path = "/v1"
    _path = "/v1/chat/completions"

    def handles(self, method: str, path: str) -> bool:
        """Whether the request is a Chat Completions call."""
        return method == "POST" and path.split("?", 1)[0].rstrip("/") == self._path

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        """The 401 body OpenAI sends for a missing or wrong ``Authorization: Bearer`` key."""
        auth = request.headers.get("authorization", "")
        if auth == f"Bearer {api_key}":
            return None
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            message = (
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
            return _error(message, "invalid_request_error", None)
        # The real message echoes a masked key; the fake never echoes keys at all.
        return _error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")

    def wants_stream(self, request: FakeRequest) -> bool:
        """OpenAI streams only when the body says ``"stream": true``."""
        return request.body.get("stream") is True

    def headers(self, ctx: ServeContext, *, stream: bool, error: bool) -> list[tuple[str, str]]:
        """Content type as api.openai.com sends it, and an ``x-request-id``."""
        if stream:
            content_type = "text/event-stream; charset=utf-8"
        elif error:
            content_type = "application/json; charset=utf-8"
        else:
            content_type = "application/json"
        return [("content-type", content_type), ("x-request-id", f"req_fake{ctx.number}")]

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """The ``chat.completion.chunk`` events for ``reply``."""
        head: dict[str, Any] = {
            "id": f"chatcmpl-fake{ctx.number}",
            "object": "chat.completion.chunk",
            "created": ctx.created,
            "model": _model(request),
            "system_fingerprint": _FINGERPRINT,
        }

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            return self.frame({**head, "choices": [choice]})

        # The real first chunk carries only the role: `"content": "", "refusal": null` before
        # text, a bare `"content": null` when the reply is only tool calls (openai-python and
        # fantasy recordings alike).
        if reply.tool_calls and reply.text is None:
            role: dict[str, Any] = {"role": "assistant", "content": None}
        else:
            role = {"role": "assistant", "content": "", "refusal": None}
        events = [chunk(role)]
        size = reply.delta_size
        events += [chunk({"reasoning_content": p}) for p in split_text(reply.thinking or "", size)]
        events += [chunk({"content": p}) for p in split_text(reply.text or "", size)]
        for index, (call, call_id) in enumerate(_with_ids(reply, ctx)):
            function = {"name": call.name, "arguments": ""}
            first = {"index": index, "id": call_id, "type": "function", "function": function}
            events.append(chunk({"tool_calls": [first]}))
            for piece in split_text(_arguments(call), size):
                delta = {"index": index, "function": {"arguments": piece}}
                events.append(chunk({"tool_calls": [delta]}))
        events.append(chunk({}, _finish_reason(reply)))
        options = request.body.get("stream_options")
        # Usage is sent only on request (QUIRKS J1), in a chunk with empty choices (QUIRKS A8).
        if reply.usage is not None and isinstance(options, dict) and options.get("include_usage"):
            events.append(self.frame({**head, "choices": [], "usage": _usage(reply.usage)}))
        if not reply.omit_done:
            events.append(self.frame("[DONE]"))
        return events

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The ``chat.completion`` object for ``reply``."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.thinking is not None:
            message["reasoning_content"] = reply.thinking
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": _arguments(call)},
                }
                for call, call_id in _with_ids(reply, ctx)
            ]
        message["refusal"] = None
        message["annotations"] = []
        choice = {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": _finish_reason(reply),
        }
        body: dict[str, Any] = {
            "id": f"chatcmpl-fake{ctx.number}",
            "object": "chat.completion",
            "created": ctx.created,
            "model": _model(request),
            "choices": [choice],
        }
        if reply.usage is not None:
            body["usage"] = _usage(reply.usage)
        body["service_tier"] = "default"
        body["system_fingerprint"] = _FINGERPRINT
        return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode()

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """``data: <payload>`` and a blank line; mappings as compact JSON, like OpenAI."""
        if not isinstance(payload, str):
            # Raw UTF-8, not \\u escapes, so multi-byte characters can straddle TCP reads.
            payload = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        return b"data: " + payload.encode() + b"\n\n"

    def error_body(self, status: int, message: str) -> bytes:
        """OpenAI's error object, with the ``type``/``code`` it uses for ``status``."""
        if status == 429:
            return _error(message, "requests", "rate_limit_exceeded")
        if status >= 500:
            return _error(message, "server_error", None)
        return _error(message, "invalid_request_error", None)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An in-stream error as OpenAI sends it: ``data: {"error": {...}}`` (QUIRKS A5)."""
        if isinstance(body, bytes):
            return body
        if body is None:
            message = "The server had an error while processing your request. Sorry about that!"
            body = {"error": _error_object(message, "server_error", None)}
        return self.frame(body)


def _error_object(message: str, type_: str, code: str | None) -> dict[str, Any]:
    return {"message": message, "type": type_, "param": None, "code": code}


def _error(message: str, type_: str, code: str | None) -> bytes:
    body = {"error": _error_object(message, type_, code)}
    return (json.dumps(body, indent=4) + "\n").encode()


def _model(request: FakeRequest) -> str:
    model = request.body.get("model")
    return model if isinstance(model, str) else "fake-model"


def _with_ids(reply: FakeReply, ctx: ServeContext) -> list[tuple[FakeToolCall, str]]:
    return [
        (call, call.id if call.id is not None else ctx.next_call_id()) for call in reply.tool_calls
    ]


def _arguments(call: FakeToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _finish_reason(reply: FakeReply) -> str:
    if reply.finish_reason is not None:
        return reply.finish_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _usage(usage: Mapping[str, int]) -> dict[str, Any]:
    # Only what was scripted goes out, so tests can exercise partial usage (llmkit reports an
    # unreported count as None, never guessed).
    out: dict[str, Any] = {}
    if "input" in usage:
        out["prompt_tokens"] = usage["input"]
    if "output" in usage:
        out["completion_tokens"] = usage["output"]
    if "input" in usage and "output" in usage:
        out["total_tokens"] = usage["input"] + usage["output"]
    if "cache_read" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": usage["cache_read"]}
    if "reasoning" in usage:
        out["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
    # Chat Completions has no cache-write count; "cache_write" is deliberately not sent.
    return out


ENCODER = OpenAIChatEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
