"""The OpenAI Responses wire (``POST /v1/responses``) for the fake server.

Shapes are copied from real api.openai.com bytes (the go-vcr recordings of gpt-4o / gpt-5 and the
vercel/ai captures in ``tests/fixtures/openai-responses``):

- stream: ``event: <type>`` + ``data: <compact JSON>`` per event, each with a
  ``sequence_number``; ``response.created`` and ``response.in_progress`` carrying the response
  object; per output item ``response.output_item.added`` … ``response.output_item.done``:
  a reasoning item (summary part and text deltas; ``encrypted_content`` when the request asked
  for ``include: ["reasoning.encrypted_content"]``), a message (content part, ``output_text``
  deltas, ``.done`` events), function calls (argument deltas that carry ``item_id`` and
  ``output_index`` but no ``call_id``, QUIRKS F5); then ``response.completed`` (or
  ``response.incomplete``) with the whole output and usage. No ``[DONE]``;
- non-streamed: the ``response`` object pretty-printed with two-space indents;
- errors: ``{"error": {message, type, param, code}}`` as on every OpenAI endpoint; in a stream,
  an ``error`` event.

``FakeReply.finish_reason``: ``None``, ``"stop"`` or ``"tool_use"`` (or ``"completed"``) end
with ``response.completed``; ``"length"`` with ``response.incomplete`` whose
``incomplete_details.reason`` is ``max_output_tokens``, ``"content_filter"`` with one whose
reason is ``content_filter``; any other value with ``response.incomplete`` carrying it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from .encoding import ServeContext, split_text
from .script import FakeReply, FakeRequest, FakeToolCall, wire_finish

__all__ = ["ENCODER", "OpenAIResponsesEncoder"]


class OpenAIResponsesEncoder:
    """Encodes scripted replies as the OpenAI Responses API does (``openai-responses``)."""

    api = "openai-responses"
    base_path = "/v1"
    _path = "/v1/responses"

    def handles(self, method: str, path: str) -> bool:
        """Whether the request is a Responses call."""
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
        """The SSE events for ``reply``."""
        seq = iter(range(1_000_000))
        events: list[bytes] = []

        def emit(payload: dict[str, Any]) -> None:
            events.append(self.frame({**payload, "sequence_number": next(seq)}))

        output = _output(reply, request, ctx)
        pending = _response(reply, request, ctx, [], "in_progress", with_usage=False)
        emit({"type": "response.created", "response": pending})
        emit({"type": "response.in_progress", "response": pending})
        size = reply.delta_size
        for index, item in enumerate(output):
            item_id = item["id"]
            where = {"item_id": item_id, "output_index": index}
            if item["type"] == "reasoning":
                emit(
                    {
                        "type": "response.output_item.added",
                        "output_index": index,
                        "item": {**item, "summary": []},
                    }
                )
                for si, summary in enumerate(item["summary"]):
                    text = summary["text"]
                    part = {"type": "summary_text", "text": ""}
                    emit(
                        {
                            "type": "response.reasoning_summary_part.added",
                            **where,
                            "part": part,
                            "summary_index": si,
                        }
                    )
                    for piece in split_text(text, size):
                        emit(
                            {
                                "type": "response.reasoning_summary_text.delta",
                                **where,
                                "delta": piece,
                                "summary_index": si,
                            }
                        )
                    emit(
                        {
                            "type": "response.reasoning_summary_text.done",
                            **where,
                            "summary_index": si,
                            "text": text,
                        }
                    )
                    emit(
                        {
                            "type": "response.reasoning_summary_part.done",
                            **where,
                            "part": {**part, "text": text},
                            "summary_index": si,
                        }
                    )
            elif item["type"] == "message":
                text = item["content"][0]["text"]
                added = {**item, "status": "in_progress", "content": []}
                emit({"type": "response.output_item.added", "output_index": index, "item": added})
                empty: dict[str, Any] = {"type": "output_text", "annotations": [], "logprobs": []}
                at = {**where, "content_index": 0}
                emit({"type": "response.content_part.added", **at, "part": {**empty, "text": ""}})
                for piece in split_text(text, size):
                    emit(
                        {"type": "response.output_text.delta", **at, "delta": piece, "logprobs": []}
                    )
                emit({"type": "response.output_text.done", **at, "text": text, "logprobs": []})
                emit({"type": "response.content_part.done", **at, "part": {**empty, "text": text}})
            else:
                arguments = item["arguments"]
                added = {**item, "status": "in_progress", "arguments": ""}
                emit({"type": "response.output_item.added", "output_index": index, "item": added})
                for piece in split_text(arguments, size):
                    emit(
                        {"type": "response.function_call_arguments.delta", **where, "delta": piece}
                    )
                emit(
                    {
                        "type": "response.function_call_arguments.done",
                        **where,
                        "arguments": arguments,
                    }
                )
            emit({"type": "response.output_item.done", "output_index": index, "item": item})
        if not reply.omit_done:
            final = _response(reply, request, ctx, output, _status(reply), with_usage=True)
            emit({"type": f"response.{_status(reply)}", "response": final})
        return events

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The ``response`` object for ``reply``."""
        output = _output(reply, request, ctx)
        body = _response(reply, request, ctx, output, _status(reply), with_usage=True)
        return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode()

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """``event: <type>`` and ``data: <payload>``; mappings as compact JSON, like OpenAI."""
        if isinstance(payload, str):
            try:
                parsed = json.loads(payload)
            except ValueError:
                parsed = None
            data = payload
        else:
            parsed = payload
            # Raw UTF-8, not \\u escapes, so multi-byte characters can straddle TCP reads.
            data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        kind = parsed.get("type") if isinstance(parsed, dict) else None
        head = f"event: {kind}\n" if isinstance(kind, str) else ""
        return (head + "data: " + data + "\n\n").encode()

    def error_body(self, status: int, message: str) -> bytes:
        """OpenAI's error object, with the ``type``/``code`` it uses for ``status``."""
        if status == 429:
            return _error(message, "requests", "rate_limit_exceeded")
        if status >= 500:
            return _error(message, "server_error", None)
        return _error(message, "invalid_request_error", None)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An in-stream failure: an ``error`` event by default (as api.openai.com sent it in
        the vercel/ai capture); a scripted mapping is framed as given, so a test can send a
        ``response.failed`` event instead."""
        if isinstance(body, bytes):
            return body
        if body is None:
            message = "The server had an error while processing your request. Sorry about that!"
            body = {"type": "error", "error": _error_object(message, "server_error", None)}
        return self.frame(body)


# llmkit's stop reasons as Responses says them: a finished turn is "completed", a cut one
# "incomplete" with this reason (refusal and pause have no word here).
INCOMPLETE_WORDS = {
    "stop": "completed",
    "tool_use": "completed",
    "length": "max_output_tokens",
    "content_filter": "content_filter",
}


def _incomplete_reason(reply: FakeReply) -> str | None:
    reason = wire_finish(reply.finish_reason, INCOMPLETE_WORDS)
    return None if reason in (None, "completed") else reason


def _status(reply: FakeReply) -> str:
    return "completed" if _incomplete_reason(reply) is None else "incomplete"


def _output(reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> list[dict[str, Any]]:
    """The output items for ``reply``: reasoning, message, function calls (in that order)."""
    n = ctx.number
    items: list[dict[str, Any]] = []
    if reply.thinking is not None:
        item: dict[str, Any] = {"id": f"rs_fake{n}_{len(items)}", "type": "reasoning"}
        include = request.body.get("include")
        if isinstance(include, list) and "reasoning.encrypted_content" in include:
            # Opaque to the client; deterministic so tests can check it is replayed verbatim.
            blob = base64.urlsafe_b64encode(f"fake-reasoning:{n}:{reply.thinking}".encode())
            item["encrypted_content"] = "gAAAAA" + blob.decode()
        item["summary"] = (
            [{"type": "summary_text", "text": reply.thinking}] if reply.thinking else []
        )
        items.append(item)
    if reply.text is not None:
        items.append(
            {
                "id": f"msg_fake{n}_{len(items)}",
                "type": "message",
                "status": "completed",
                "content": [
                    {"type": "output_text", "annotations": [], "logprobs": [], "text": reply.text}
                ],
                "role": "assistant",
            }
        )
    for call in reply.tool_calls:
        items.append(
            {
                "id": f"fc_fake{n}_{len(items)}",
                "type": "function_call",
                "status": "completed",
                "arguments": _arguments(call),
                "call_id": call.id if call.id is not None else ctx.next_call_id(),
                "name": call.name,
            }
        )
    return items


def _response(
    reply: FakeReply,
    request: FakeRequest,
    ctx: ServeContext,
    output: list[dict[str, Any]],
    status: str,
    *,
    with_usage: bool,
) -> dict[str, Any]:
    body = request.body
    incomplete = {"reason": _incomplete_reason(reply)} if status == "incomplete" else None
    return {
        "id": f"resp_fake{ctx.number}",
        "object": "response",
        "created_at": ctx.created,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": incomplete,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model") if isinstance(body.get("model"), str) else "fake-model",
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": _usage(reply.counts) if with_usage and reply.counts is not None else None,
        "user": None,
        "metadata": {},
    }


def _error_object(message: str, type_: str, code: str | None) -> dict[str, Any]:
    return {"message": message, "type": type_, "param": None, "code": code}


def _error(message: str, type_: str, code: str | None) -> bytes:
    body = {"error": _error_object(message, type_, code)}
    return (json.dumps(body, indent=2) + "\n").encode()


def _arguments(call: FakeToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _usage(usage: Mapping[str, int]) -> dict[str, Any]:
    # Only what was scripted goes out (llmkit reports an unreported count as None).
    out: dict[str, Any] = {}
    if "input" in usage:
        out["input_tokens"] = usage["input"]
    details = {k: usage[f] for f, k in _DETAILS if f in usage}
    if details:
        out["input_tokens_details"] = details
    if "output" in usage:
        out["output_tokens"] = usage["output"]
    if "reasoning" in usage:
        out["output_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
    if "input" in usage and "output" in usage:
        out["total_tokens"] = usage["input"] + usage["output"]
    return out


_DETAILS = (("cache_read", "cached_tokens"), ("cache_write", "cache_write_tokens"))


ENCODER = OpenAIResponsesEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
