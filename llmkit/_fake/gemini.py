"""The Gemini wire (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` and
``:generateContent``) for the fake server; also on Vertex AI's paths
(``/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:…`` with an OAuth bearer
token, and express mode's ``/v1/publishers/google/models/{model}:…`` with an API key).

Shapes are copied from real generativelanguage.googleapis.com bytes
(``tests/fixtures/gemini/``: charmbracelet-fantasy and pydantic-ai cassettes for streams, vercel-ai
for non-streamed bodies, mirascope for errors):

- stream: each event is a whole ``GenerateContentResponse`` as ``data: <JSON>\\r\\n\\r\\n`` —
  CRLF framing, and Google's JSON spelling (``", "`` never, ``","`` between items and ``": "``
  after keys); candidate 0 with ``content.parts`` and ``role: "model"``, ``index: 0``;
  ``usageMetadata`` on every chunk; ``modelVersion`` and ``responseId``; thoughts as
  ``thought: true`` text parts; each function call whole in one part, the first one carrying a
  ``thoughtSignature``; ``finishReason`` on the last chunk and no terminal event (the body just
  ends, QUIRKS A4); a reply with thinking but no calls ends with an empty text part carrying
  the signature, as Gemini 3 does (QUIRKS F2);
- non-streamed: the same response as one pretty-printed JSON object (two-space indents);
- errors: ``{"error": {"code", "message", "status"}}`` pretty-printed; in a stream, a
  ``data: {"error": ...}`` event.

Scripted calls whose arguments are not a JSON object cannot be written on this wire (``args``
is an object); the reply then ends with ``finishReason: MALFORMED_FUNCTION_CALL`` and no content,
which is what Gemini does with a call it cannot parse (QUIRKS E4). ``omit_done`` leaves the
finish reason out: the only way a Gemini stream looks truncated.
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

__all__ = ["ENCODER", "GeminiEncoder"]

_PATH = re.compile(
    r"^/(?:v1beta|v1(?:beta1)?(?P<project>/projects/[^/]+/locations/[^/]+)?/publishers/google)"
    r"/models/([^/:?]+):(streamGenerateContent|generateContent)$"
)  # Google AI (/v1beta/models/...) and Vertex AI (.../publishers/google/models/..., QUIRKS A10)
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# llmkit's stop reasons as Gemini says them (a turn with calls ends STOP; refusal has no word).
FINISH_WORDS = {
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "tool_use": "STOP",
    "content_filter": "SAFETY",
    "pause": "TOO_MANY_TOOL_CALLS",
}


def _dumps(value: Any) -> str:
    # Google's spelling in stream events: "," between items, ": " after keys.
    return json.dumps(value, ensure_ascii=False, separators=(",", ": "))


class GeminiEncoder:
    """Encodes scripted replies as the Gemini API does (``gemini``)."""

    api = "gemini"
    base_path = "/v1beta"

    def handles(self, method: str, path: str) -> bool:
        """Whether the request is a ``generateContent``/``streamGenerateContent`` call."""
        return method == "POST" and _PATH.match(path.split("?", 1)[0]) is not None

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        """The error body for a missing or wrong key (``x-goog-api-key`` or ``?key=``).

        Gemini answers a wrong key with HTTP 400 ``INVALID_ARGUMENT`` and reason
        ``API_KEY_INVALID``; the fake server always sends 401 here, so the status in the body
        says ``UNAUTHENTICATED``, keeping the ``ErrorInfo`` detail.
        """
        found = _PATH.match(request.path.split("?", 1)[0])
        if found is not None and found.group("project"):
            # Vertex AI with a project: an OAuth access token as a bearer (docs/cloud.md).
            if request.headers.get("authorization") == f"Bearer {api_key}":
                return None
            message = (
                "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                "login cookie or other valid authentication credential."
            )
            return _error(401, message)
        key = request.headers.get("x-goog-api-key", "")
        query = request.path.partition("?")[2]
        params = {
            name: value for name, _, value in (p.partition("=") for p in query.split("&") if p)
        }
        if api_key in (key, params.get("key")):
            return None
        if not key and "key" not in params:
            message = (
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to call "
                "this API."
            )
            return _error(401, message)
        detail = {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "API_KEY_INVALID",
            "domain": "googleapis.com",
            "metadata": {"service": "generativelanguage.googleapis.com"},
        }
        return _error(401, "API key not valid. Please pass a valid API key.", [detail])

    def wants_stream(self, request: FakeRequest) -> bool:
        """Gemini streams on ``:streamGenerateContent`` (SSE with ``alt=sse``)."""
        return ":streamGenerateContent" in request.path

    def headers(self, ctx: ServeContext, *, stream: bool, error: bool) -> list[tuple[str, str]]:
        """Content type as Google sends it; Gemini has no request-id header."""
        content_type = "text/event-stream" if stream else "application/json; charset=UTF-8"
        return [
            ("content-type", content_type),
            ("vary", "Origin, X-Origin, Referer"),
            ("server-timing", f"gfet4t7; dur={100 + ctx.number}"),
        ]

    def stream_events(
        self, reply: FakeReply, request: FakeRequest, ctx: ServeContext
    ) -> list[bytes]:
        """One ``GenerateContentResponse`` per event, the finish reason on the last."""
        size = reply.delta_size
        chunks: list[list[dict[str, Any]]] = []
        chunks += [[{"text": p, "thought": True}] for p in split_text(reply.thinking or "", size)]
        chunks += [[{"text": p}] for p in split_text(reply.text or "", size)]
        calls, malformed = _calls(reply, ctx)
        if malformed is None:
            chunks += [[part] for part in calls]  # each call whole in one chunk (QUIRKS D1)
            if reply.thinking and not reply.tool_calls:
                # Gemini 3 streams the signature of a text answer on a trailing empty part (F2).
                chunks.append([{"text": "", "thoughtSignature": _signature(ctx)}])
        else:
            chunks = []
        if not chunks:
            chunks.append([{"text": ""}])
        events = []
        for n, parts in enumerate(chunks):
            last = n == len(chunks) - 1
            events.append(
                self.frame(
                    _response(
                        reply,
                        request,
                        ctx,
                        [] if malformed is not None else parts,
                        finish=last and not reply.omit_done,
                        malformed=malformed,
                    )
                )
            )
        return events

    def json_body(self, reply: FakeReply, request: FakeRequest, ctx: ServeContext) -> bytes:
        """The ``generateContent`` response for ``reply``."""
        parts: list[dict[str, Any]] = []
        if reply.thinking:
            parts.append({"text": reply.thinking, "thought": True})
        if reply.text:
            parts.append({"text": reply.text})
        calls, malformed = _calls(reply, ctx)
        parts += calls
        if reply.thinking and not reply.tool_calls and parts:
            parts[-1]["thoughtSignature"] = _signature(ctx)
        body = _response(
            reply,
            request,
            ctx,
            [] if malformed is not None else parts,
            finish=not reply.omit_done,
            malformed=malformed,
        )
        return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode()

    def frame(self, payload: str | Mapping[str, Any]) -> bytes:
        """``data: <payload>`` and a blank line, CRLF-separated like Gemini."""
        if not isinstance(payload, str):
            payload = _dumps(payload)
        return b"data: " + payload.encode() + b"\r\n\r\n"

    def error_body(self, status: int, message: str) -> bytes:
        """Google's error object for ``status``."""
        return _error(status, message)

    def error_event(self, body: Mapping[str, Any] | str | bytes | None) -> bytes:
        """An error inside a 200 stream: ``data: {"error": {...}}``."""
        if isinstance(body, bytes):
            return body
        if body is None:
            message = (
                "An internal error has occurred. Please retry or report in "
                "https://developers.generativeai.google/guide/troubleshooting"
            )
            body = {"error": {"code": 500, "message": message, "status": "INTERNAL"}}
        return self.frame(body)


def _error(status: int, message: str, details: list[dict[str, Any]] | None = None) -> bytes:
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": _STATUS.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = details
    return (json.dumps({"error": error}, indent=2) + "\n").encode()


def _model(request: FakeRequest) -> str:
    found = _PATH.match(request.path.split("?", 1)[0])
    return found.group(2) if found else "fake-model"


def _response_id(ctx: ServeContext) -> str:
    # 23 URL-safe characters, like Gemini's ("fwCzaajKAZDmz7IP9Pvy-AE"); derived, not random.
    digest = hashlib.blake2b(f"response-{ctx.number}".encode(), digest_size=18).digest()
    return base64.urlsafe_b64encode(digest).decode()[:23]


def _signature(ctx: ServeContext) -> str:
    # Opaque base64 like a real thought signature; deterministic per response.
    return base64.b64encode(hashlib.sha256(f"signature-{ctx.number}".encode()).digest()).decode()


def _calls(reply: FakeReply, ctx: ServeContext) -> tuple[list[dict[str, Any]], str | None]:
    """The functionCall parts, or the raw text of the first call Gemini could not express."""
    parts: list[dict[str, Any]] = []
    for call in reply.tool_calls:
        args = _arguments(call)
        if args is None:
            return [], str(call.arguments)
        call_id = call.id if call.id is not None else ctx.next_call_id()
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": args, "id": call_id}}
        if not parts:
            part["thoughtSignature"] = _signature(ctx)  # only the first call has one (F2)
        parts.append(part)
    return parts, None


def _arguments(call: FakeToolCall) -> dict[str, Any] | None:
    if not isinstance(call.arguments, str):
        return dict(call.arguments)
    try:
        value = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _response(
    reply: FakeReply,
    request: FakeRequest,
    ctx: ServeContext,
    parts: list[dict[str, Any]],
    *,
    finish: bool,
    malformed: str | None,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if malformed is not None:
        candidate = {}  # a malformed call comes with no content at all
    if finish:
        if malformed is not None:
            candidate["finishReason"] = "MALFORMED_FUNCTION_CALL"
            candidate["finishMessage"] = f"Malformed function call: {malformed}"
        else:
            reason = wire_finish(reply.finish_reason, FINISH_WORDS)
            candidate["finishReason"] = reason or "STOP"
            if reply.tool_calls and reason in (None, "STOP"):
                candidate["finishMessage"] = "Model generated function call(s)."
    candidate["index"] = 0
    body: dict[str, Any] = {"candidates": [candidate]}
    if reply.counts is not None:
        body["usageMetadata"] = _usage(reply.counts)
    body["modelVersion"] = _model(request)
    body["responseId"] = _response_id(ctx)
    return body


def _usage(usage: Mapping[str, int]) -> dict[str, Any]:
    # llmkit's output includes reasoning; Gemini counts thoughts apart from candidates. Only
    # what was scripted goes out (proto3 JSON leaves zero counts out too).
    out: dict[str, Any] = {}
    reasoning = usage.get("reasoning")
    if "input" in usage:
        out["promptTokenCount"] = usage["input"]
    if "output" in usage:
        out["candidatesTokenCount"] = usage["output"] - (reasoning or 0)
    if "input" in usage and "output" in usage:
        out["totalTokenCount"] = usage["input"] + usage["output"]
    if "cache_read" in usage:
        out["cachedContentTokenCount"] = usage["cache_read"]
    if "input" in usage:
        out["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": usage["input"]}]
    if reasoning is not None:
        out["thoughtsTokenCount"] = reasoning
    # Gemini has no cache-write count; "cache_write" is deliberately not sent.
    return out


ENCODER = GeminiEncoder()
"""The instance the fake server registers (see ``server._ENCODER_MODULES``)."""
