"""The OpenAI Chat Completions wire (``POST /v1/chat/completions``) for the fake server.

Shapes are copied from real api.openai.com bytes (``tests/fixtures/openai-chat/``:
``openai-python__*.bin`` SSE recordings, charmbracelet-fantasy and mirascope cassettes for
non-streamed and error bodies):

- stream: compact JSON in ``data: ...\\n\\n`` lines; a first chunk carrying only the role; one
  chunk per text or argument piece; a tool call's first delta carries ``id``, ``type``, ``name``
  and ``arguments: ""``, later ones only ``index`` and an ``arguments`` piece; a chunk with an
  empty delta and the ``finish_reason``; with ``stream_options.include_usage`` a usage chunk with
  ``choices: []``; then ``data: [DONE]``;
- non-streamed: a ``chat.completion`` object pretty-printed with two-space indents;
- errors: ``{"error": {message, type, param, code}}`` pretty-printed with four-space indents.

An encoder can also *emulate* another OpenAI-compatible server: its streams then follow a
:class:`~llmkit._fake.servers.ServerProfile` (vLLM, Ollama, llama.cpp, Mistral, Groq, DeepSeek,
OpenRouter, Gemini's compat endpoint, Azure), reproducing that server's wire quirks. The
default profile, ``openai``, gives exactly the bytes described above. Emulation shapes
streamed responses only: non-streamed bodies and HTTP errors keep OpenAI's shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .encoding import ServeContext, split_text
from .script import FakeReply, FakeRequest, FakeToolCall, wire_finish
from .servers import OPENAI, ServerProfile

__all__ = ["ENCODER", "OpenAIChatEncoder"]

_FINGERPRINT = "fp_fake"


class OpenAIChatEncoder:
    """Encodes scripted replies as the OpenAI Chat Completions API does (``openai-chat``).

    Args:
        profile: The server whose streaming quirks to reproduce; OpenAI's own by default.
    """

    api = "openai-chat"
    base_path = "/v1"
    _path = "/v1/chat/completions"

    def __init__(self, profile: ServerProfile = OPENAI) -> None:
        self.profile = profile

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
        """Content type as the server sends it, and an ``x-request-id``."""
        if stream:
            content_type = self.profile.stream_content_type
        elif error:
            content_type = "application/json; charset=utf-8"
        else:
            content_type = "application/json"
        return [("content-type", content_type), ("x-request-id", f"req_fake{ctx.number}")]

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """The ``chat.completion.chunk`` events for ``reply``, shaped by the profile."""
        return _Stream(self, reply, request, ctx).events()

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
                for call, call_id in _with_ids(reply, ctx, OPENAI)
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
        if reply.counts is not None:
            body["usage"] = OPENAI.usage_fields(reply.counts)
        body["service_tier"] = "default"
        body["system_fingerprint"] = _FINGERPRINT
        return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode()

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """``data: <payload>`` and a blank line; mappings as compact JSON, like OpenAI."""
        if not isinstance(payload, str):
            # Raw UTF-8, not \\u escapes, so multi-byte characters can straddle TCP reads.
            payload = json.dumps(
                payload, separators=(",", ":"), ensure_ascii=False, sort_keys=self.profile.sort_keys
            )
        return b"data: " + payload.encode() + b"\n\n"

    def error_body(self, status: int, message: str) -> bytes:
        """OpenAI's error object, with the ``type``/``code`` it uses for ``status``."""
        if status == 429:
            return _error(message, "requests", "rate_limit_exceeded")
        if status >= 500:
            return _error(message, "server_error", None)
        return _error(message, "invalid_request_error", None)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An in-stream error: ``data: {"error": {...}}`` as OpenAI sends it (QUIRKS A5), or
        OpenRouter's chunk with ``error`` and ``finish_reason: "error"`` (QUIRKS A7).

        ``bytes`` are written verbatim and a ``str`` is framed verbatim. For OpenRouter, a
        mapping with an ``"error"`` key has that error wrapped in OpenRouter's chunk.
        """
        if isinstance(body, bytes):
            return body
        profile = self.profile
        if body is None:
            message = "The server had an error while processing your request. Sorry about that!"
            body = {"error": _error_object(message, "server_error", None)}
            if profile.error_style == "openrouter":
                body = {"error": {"code": "server_error", "message": "Provider disconnected"}}
        if profile.error_style == "openrouter" and isinstance(body, Mapping) and "error" in body:
            # OpenRouter's mid-stream error (openrouter.ai/docs/api-reference/errors): HTTP 200
            # and a chunk whose only choice ends with finish_reason "error". The encoder is not
            # told which response this is, hence the placeholder id and model.
            choice: dict[str, Any] = {"index": 0, "delta": {"content": ""}}
            choice.update(finish_reason="error", native_finish_reason="error")
            body = {
                "id": "gen-error",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "fake-model",
                **profile.head_extra,
                "error": body["error"],
                "choices": [choice],
            }
        event = self.frame(body)
        if profile.error_event_name:  # Groq names its error events (corpus: pydantic-ai)
            event = f"event: {profile.error_event_name}\n".encode() + event
        return event


@dataclass
class _Chunk:
    """One chunk before framing: its delta (``None`` for a usage-only chunk with empty
    choices), finish reason and extra top-level keys. Kept unframed until the end so the
    finish reason and usage can still be attached to the last content chunk."""

    delta: dict[str, Any] | None
    finish: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class _Stream:
    """The chunks of one streamed reply under one server profile."""

    def __init__(
        self, encoder: OpenAIChatEncoder, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> None:
        self.encoder = encoder
        self.p = encoder.profile
        self.reply = reply
        self.request = request
        self.ctx = ctx
        self.chunks: list[_Chunk] = []

    def events(self) -> list[bytes]:
        """Every event of the response: preamble, chunks, ``[DONE]``."""
        p, reply = self.p, self.reply
        role = p.role_delta_tool_only if reply.tool_calls and reply.text is None else p.role_delta
        if role is not None:
            self._add({**role})
        if p.x_groq and self.chunks:  # Groq's request id and sampling seed, on the role chunk
            seed = 690443319 + self.ctx.number
            self.chunks[0].extra["x_groq"] = {"id": p.request_id(self.ctx.number), "seed": seed}
        self._reasoning()
        for piece in split_text(reply.text or "", reply.delta_size):
            if p.content_parts and reply.thinking:  # magistral: text as parts after thinking
                self._add({"content": [{"type": "text", "text": piece}], **p.text_extra})
            else:
                self._add({"content": piece, **p.text_extra})
        self._tool_calls()
        self._finish()
        self._usage()
        frame = self.encoder.frame
        events = [e if isinstance(e, bytes) else frame(e) for e in p.preamble]  # A3, A8
        events += [frame(self._chunk(c)) for c in self.chunks]
        if not reply.omit_done:
            events.append(frame("[DONE]"))
        return events

    def _add(self, delta: dict[str, Any]) -> None:
        self.chunks.append(_Chunk(delta))

    def _reasoning(self) -> None:
        p, reply = self.p, self.reply
        pieces = split_text(reply.thinking or "", reply.delta_size)
        if p.content_parts:  # Mistral magistral: thinking as a typed content part
            for piece in pieces:
                thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": piece}]}]
                self._add({"content": thinking})
            return
        # An empty reasoning_fields means this server does not stream reasoning text.
        for piece in pieces if p.reasoning_fields else []:
            delta: dict[str, Any] = {**p.reasoning_extra}
            for name in p.reasoning_fields:  # F8: every name this server uses, same text
                delta[name] = piece
            if p.reasoning_details_format:  # F7: OpenRouter mirrors it in reasoning_details
                fmt = p.reasoning_details_format
                detail = {"type": "reasoning.text", "text": piece, "format": fmt, "index": 0}
                delta["reasoning_details"] = [detail]
            self._add(delta)
        if pieces and p.reasoning_fields and p.reasoning_details_format:
            # The block closes with its signature, alone in a last reasoning detail (F7).
            signature: dict[str, Any] = {
                "type": "reasoning.text",
                "signature": p.signature_detail(self.ctx.number),
                "format": p.reasoning_details_format,
                "index": 0,
            }
            self._add({**p.reasoning_extra, "reasoning_details": [signature]})

    def _tool_calls(self) -> None:
        p, reply = self.p, self.reply
        calls = _with_ids(reply, self.ctx, p)
        if calls and p.tool_layout == "together":  # every call whole in one delta list (C4)
            entries = [
                self._entry(index, call, call_id, _whole_arguments(p, call), first=True)
                for index, (call, call_id) in enumerate(calls)
            ]
            self._add({**p.tool_extra, "tool_calls": entries})
            return
        for index, (call, call_id) in enumerate(calls):
            if p.tool_layout == "whole" or (p.object_arguments and _is_object(call)):
                # D1: the call whole in one chunk; D2: an object cannot be cut into pieces.
                entry = self._entry(index, call, call_id, _whole_arguments(p, call), first=True)
                self._add({**p.tool_extra, "tool_calls": [entry]})
                continue
            pieces = split_text(_arguments(call), reply.delta_size)
            if p.empty_first_arguments:
                pieces.insert(0, "")
            elif not pieces:
                pieces = [""]
            for n, piece in enumerate(pieces):
                entry = self._entry(index, call, call_id, piece, first=n == 0)
                self._add({**p.tool_extra, "tool_calls": [entry]})

    def _entry(
        self, index: int, call: FakeToolCall, call_id: str, arguments: Any, *, first: bool
    ) -> dict[str, Any]:
        """One ``tool_calls[]`` entry: the identity on the first delta of a call (on every
        delta with B1/D4), then the arguments."""
        p = self.p
        entry: dict[str, Any] = {}
        if p.tool_index == "position":
            entry["index"] = index
        elif p.tool_index == "zero":  # C2: Ollama puts every call at index 0
            entry["index"] = 0
        function: dict[str, Any] = {}
        if p.llamacpp_legacy:  # D4: name on every delta, the id inside function on the first
            function["name"] = call.name
            if first:
                function["id"] = call_id
        elif first or p.repeat_identity:  # B1: vLLM repeats id, type and name
            entry["id"] = "" if p.empty_ids else call_id  # B2: Gemini's ids are empty
            if p.tool_type:
                entry["type"] = "function"
            function["name"] = call.name
        function["arguments"] = arguments
        entry["function"] = function
        if first and index == 0 and p.thought_signature:  # F3: Gemini signs the first call
            signature = p.thought_signature_for(call_id)
            entry["extra_content"] = {"google": {"thought_signature": signature}}
        return entry

    def _finish(self) -> None:
        p, reply = self.p, self.reply
        reason = _finish_reason(reply)
        if reply.finish_reason is None and reply.tool_calls and self._stop_with_tools():
            reason = "stop"  # E1
        merge = p.finish_merge == "always" or (p.finish_merge == "tool_calls" and reply.tool_calls)
        if merge and self.chunks:
            self.chunks[-1].finish = reason
        else:
            self.chunks.append(_Chunk({**p.finish_delta}, reason))

    def _stop_with_tools(self) -> bool:
        mode = self.p.stop_with_tools
        named = isinstance(self.request.body.get("tool_choice"), dict)
        return mode == "always" or (mode == "named_choice" and named)

    def _usage(self) -> None:
        """Usage where this server puts it; ``chunks[-1]`` is the finish chunk."""
        p, reply = self.p, self.reply
        options = self.request.body.get("stream_options")
        requested = isinstance(options, dict) and bool(options.get("include_usage"))
        finish = self.chunks[-1]
        if p.x_groq:  # the finish chunk's x_groq carries the request id (and usage)
            x_groq: dict[str, Any] = {"id": p.request_id(self.ctx.number)}  # usage may join
            finish.extra["x_groq"] = x_groq
        if reply.counts is None or not (requested or p.usage_always):
            return  # J1: usage only on request, unless this server always sends it
        usage = p.usage_fields(reply.counts)
        if p.usage_where == "finish_chunk":
            finish.extra.update(usage=usage, **p.usage_chunk_extra)
        elif p.usage_where == "repeat_finish":  # OpenRouter repeats the finish chunk
            self.chunks.append(_Chunk({**p.text_extra, "content": ""}, finish.finish))
            self.chunks[-1].extra["usage"] = usage
        elif p.usage_where == "groq":  # Groq: x_groq.usage and usage, and on request own chunk
            finish.extra["x_groq"]["usage"] = usage
            finish.extra["usage"] = usage
            if requested:
                self.chunks.append(_Chunk(None, extra={"usage": usage, **p.usage_chunk_extra}))
        else:  # a chunk with empty choices (QUIRKS A8, J1)
            self.chunks.append(_Chunk(None, extra={"usage": usage, **p.usage_chunk_extra}))

    def _chunk(self, chunk: _Chunk) -> dict[str, Any]:
        """The ``chat.completion.chunk`` object for ``chunk``."""
        p = self.p
        out: dict[str, Any] = {
            "id": p.chunk_id(self.ctx.number, self.ctx.created),
            "object": "chat.completion.chunk",
            "created": self.ctx.created,
            "model": _model(self.request),
        }
        if p.fingerprint is not None:
            out["system_fingerprint"] = p.fingerprint
        out.update(p.head_extra)
        if chunk.delta is None:
            out["choices"] = []
            out.update(chunk.extra)
            return out
        choice: dict[str, Any] = {"index": 0, "delta": chunk.delta}
        if p.choice_logprobs:
            choice["logprobs"] = None
        choice["finish_reason"] = chunk.finish
        if p.native_finish is not None:  # E5: OpenRouter adds the upstream's own reason
            native = p.native_finish.get(chunk.finish, chunk.finish) if chunk.finish else None
            choice["native_finish_reason"] = native
        if chunk.finish is not None:
            choice.update(p.finish_choice_extra)
        choice.update(p.choice_extra)
        out["choices"] = [choice]
        out.update(chunk.extra)
        return out


def _error_object(message: str, type_: str, code: str | None) -> dict[str, Any]:
    return {"message": message, "type": type_, "param": None, "code": code}


def _error(message: str, type_: str, code: str | None) -> bytes:
    body = {"error": _error_object(message, type_, code)}
    return (json.dumps(body, indent=4) + "\n").encode()


def _model(request: FakeRequest) -> str:
    model = request.body.get("model")
    return model if isinstance(model, str) else "fake-model"


def _with_ids(
    reply: FakeReply, ctx: ServeContext, profile: ServerProfile
) -> list[tuple[FakeToolCall, str]]:
    """Each call with its id: the scripted one, or one in the server's own id grammar."""
    return [
        (call, call.id if call.id is not None else profile.call_id(ctx.next_call_id(), index))
        for index, call in enumerate(reply.tool_calls)
    ]


def _is_object(call: FakeToolCall) -> bool:
    return not isinstance(call.arguments, str)


def _whole_arguments(profile: ServerProfile, call: FakeToolCall) -> Any:
    """The whole arguments: a JSON string, or the object itself where the server sends one
    (QUIRKS D2)."""
    if profile.object_arguments and not isinstance(call.arguments, str):
        return dict(call.arguments)
    return _arguments(call)


def _arguments(call: FakeToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


# llmkit's stop reasons as Chat Completions says them (refusal and pause have no word here).
FINISH_WORDS = {
    "stop": "stop",
    "length": "length",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
}


def _finish_reason(reply: FakeReply) -> str:
    reason = wire_finish(reply.finish_reason, FINISH_WORDS)
    if reason is not None:
        return reason
    return "tool_calls" if reply.tool_calls else "stop"


ENCODER = OpenAIChatEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
