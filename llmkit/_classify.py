"""Error classification: provider error bodies and headers → typed :class:`APIError`.

One place decides which exception a status, an error type or an error message means, for
HTTP errors and for error payloads inside a 200 stream alike. Retry hints are parsed here
too: ``retry-after-ms``, then ``retry-after`` (seconds or an HTTP date), then Gemini's
``RetryInfo.retryDelay`` in the body (QUIRKS I1, I3).
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Mapping
from typing import Any

from ._errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    ContextLengthError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ._json.scanner import loads
from ._redact import scrub

__all__ = ["classify", "error_from_body", "http_error", "parse_retry_after"]

# Messages providers really send when the prompt does not fit (OpenAI, Anthropic, Gemini,
# DeepSeek, vLLM, Ollama, OpenRouter, llama.cpp).
_CONTEXT = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long"
    r"|too many tokens|input length and `?max_tokens`? exceed|exceeds the maximum number of tokens"
    r"|input token count.*exceeds|reduce the length of the messages|context size has been exceeded"
    r"|input is too long"  # Bedrock's ValidationException
    r"|exceeds the available context size",  # llama-server
    re.IGNORECASE,
)
_TYPES: dict[str, type[APIError]] = {
    "rate_limit_error": RateLimitError,
    "rate_limit_exceeded": RateLimitError,
    "resource_exhausted": RateLimitError,
    "insufficient_quota": RateLimitError,
    "overloaded_error": OverloadedError,
    "overloaded": OverloadedError,
    "authentication_error": AuthenticationError,
    "invalid_api_key": AuthenticationError,
    "unauthenticated": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "permission_denied": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "model_not_found": NotFoundError,
    "not_found": NotFoundError,
    "context_length_exceeded": ContextLengthError,
    "exceed_context_size_error": ContextLengthError,  # llama.cpp's llama-server (HTTP 400)
    "server_error": ServerError,
    "api_error": ServerError,
    "internal": ServerError,
    "unavailable": ServerError,
    # Amazon Bedrock's exception names (x-amzn-ErrorType, in-stream :exception-type)
    "throttlingexception": RateLimitError,
    "servicequotaexceededexception": RateLimitError,
    "modelnotreadyexception": OverloadedError,
    "serviceunavailableexception": OverloadedError,
    "internalserverexception": ServerError,
    "modelstreamerrorexception": ServerError,
    "modelerrorexception": ServerError,
    "modeltimeoutexception": ServerError,
    "accessdeniedexception": PermissionDeniedError,
    "resourcenotfoundexception": NotFoundError,
    "unrecognizedclientexception": AuthenticationError,
    "expiredtokenexception": AuthenticationError,
    "invalidsignatureexception": AuthenticationError,
    "incompletesignatureexception": AuthenticationError,
    "missingauthenticationtokenexception": AuthenticationError,
}
_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    413: BadRequestError,
    422: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
    529: OverloadedError,
}


def _seconds(text: str, scale: float = 1.0) -> float | None:
    """A finite number of seconds, or ``None`` (``nan``/``inf`` are no delay: QUIRKS I1)."""
    value = float(text) / scale  # ValueError: not a number
    return max(value, 0.0) if math.isfinite(value) else None


def parse_retry_after(headers: Mapping[str, str], body: Any = None) -> float | None:
    """Seconds to wait, from ``retry-after-ms``, ``retry-after`` or Gemini ``RetryInfo``
    (a value that is not a finite number is ignored)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            seconds = _seconds(ms, 1000.0)
            if seconds is not None:
                return seconds
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if ra:
        try:
            seconds = _seconds(ra)
            if seconds is not None:
                return seconds
        except ValueError:
            parsed = email.utils.parsedate_tz(ra)
            if parsed is not None:
                return max(email.utils.mktime_tz(parsed) - time.time(), 0.0)
    for detail in _details(body):
        delay = detail.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                seconds = _seconds(delay[:-1])
            except ValueError:
                continue
            if seconds is not None:
                return seconds
    return None


def _details(body: Any) -> list[dict[str, Any]]:
    err = _error_obj(body)
    details = err.get("details") if err else None
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def _error_obj(body: Any) -> dict[str, Any]:
    if isinstance(body, list) and body:  # Vertex/Gemini error bodies can be arrays (A10)
        body = body[0]
    if not isinstance(body, dict):
        return {}
    err = body.get("error", body)
    if isinstance(err, dict):
        return err
    if isinstance(err, str):
        return {"message": err}
    return {}


def _aws_type(err: dict[str, Any], headers: Mapping[str, str]) -> str | None:
    """An AWS error's type: the ``x-amzn-ErrorType`` header or the body's ``__type``, without
    the namespace and the URL part (``ValidationException:http://…`` → ``ValidationException``)."""
    raw = headers.get("x-amzn-errortype") or err.get("__type")
    if not isinstance(raw, str) or not raw:
        return None
    return raw.split(":", 1)[0].rsplit("#", 1)[-1] or None


def _decode_body(raw: bytes | str | Any) -> Any:
    if isinstance(raw, (bytes, str)):
        try:
            return loads(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
        except ValueError:  # not JSON (nor too deeply nested JSON)
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            return {"message": text[:500]} if text.strip() else None
    return raw


def is_daily_quota(body: Any) -> bool:
    """Gemini ``QuotaFailure`` for a per-day quota: waiting will not help (QUIRKS I3)."""
    for detail in _details(body):
        for violation in detail.get("violations") or ():
            if isinstance(violation, dict) and "PerDay" in str(violation.get("quotaId", "")):
                return True
    return False


def classify(
    status: int | None,
    raw_body: bytes | str | Any,
    headers: Mapping[str, str] | None = None,
    *,
    provider: str | None = None,
    in_stream: bool = False,
) -> APIError:
    """The typed error for an HTTP error response or (``in_stream``) an error payload inside a
    200 stream, whose ``status`` is the payload's own HTTP status code, if any."""
    body = _decode_body(raw_body)
    err = _error_obj(body)
    hdrs = headers or {}
    message = str(err.get("message") or "").strip() or (
        f"HTTP {status}" if status else "The provider reported an error"
    )
    # The first of type/status/code that names a known error wins: OpenAI's generic
    # "invalid_request_error" type comes with a telling code ("model_not_found").
    candidates = [err.get("type"), err.get("status"), err.get("code"), _aws_type(err, hdrs)]
    known = [c for c in candidates if isinstance(c, str) and c.lower() in _TYPES]
    # Else the most specific string the provider gave: a code (Groq's "tool_use_failed")
    # says more than a generic type ("invalid_request_error").
    specific = [err.get("code"), err.get("type"), err.get("status"), candidates[3]]
    etype = known[0] if known else next((c for c in specific if isinstance(c, str) and c), None)
    code = str(etype) if etype is not None else None
    cls: type[APIError] = APIError
    if isinstance(etype, str) and etype.lower() in _TYPES:
        cls = _TYPES[etype.lower()]
    elif status in _STATUS:
        cls = _STATUS[status]
    elif status is not None and status >= 500:
        cls = ServerError
    if status is not None and status in _STATUS and cls is APIError:
        cls = _STATUS[status]
    if cls is ServerError and status is not None and status < 500:
        cls = _STATUS.get(status, APIError)  # a generic "api_error" type on a 4xx
    if cls in (APIError, ServerError) and status == 529:
        cls = OverloadedError
    if _CONTEXT.search(message) or code == "context_length_exceeded":
        cls = ContextLengthError
    if any(d.get("reason") == "API_KEY_INVALID" for d in _details(body)):
        cls = AuthenticationError  # Gemini answers a bad key with 400 INVALID_ARGUMENT
    request_id = hdrs.get("x-request-id") or hdrs.get("request-id") or hdrs.get("x-amzn-requestid")
    error = cls(
        # "(HTTP 404)" once: not after a message that already says it (an empty body's)
        f"{message} (HTTP {status})"
        if status and not in_stream and f"HTTP {status}" not in message
        else message,
        status=status,
        provider=provider,
        code=code,
        request_id=request_id,
        retry_after=parse_retry_after(hdrs, body),
        body=body,
    )
    should = hdrs.get("x-should-retry")
    if should in ("true", "false"):
        error.should_retry = should == "true"  # the provider's advice (Anthropic, OpenAI)
    elif is_daily_quota(body):
        error.should_retry = False  # a per-day quota: waiting will not help (QUIRKS I3)
    return error


def error_from_body(body: Any, *, provider: str | None = None) -> APIError:
    """The typed error for an error object found inside a stream.

    The response itself said 200; a numeric ``code`` in the payload that is an HTTP status
    (llama-server's ``{"error": {"code": 500, ...}}``, OpenRouter's, Gemini's) is the status
    the error stands for, so it becomes ``status``. Any other code leaves it ``None``.
    """
    code = _error_obj(_decode_body(body)).get("code")
    status = code if type(code) is int and 100 <= code <= 599 else None
    return classify(status, body, None, provider=provider, in_stream=True)


def http_error(
    status: int,
    body: bytes,
    headers: Mapping[str, str],
    *,
    provider: str | None,
    secrets: tuple[str, ...] = (),
) -> APIError:
    """The typed error for an HTTP error response, with every ``secret`` (and anything shaped
    like a key) taken out of its message, ``args`` and ``body``: what the transport raises and
    :func:`llmkit.parse_error` returns."""
    # Classified before it is redacted: a short dummy key must not garble what decides the
    # class ("context_length_exceeded"); then every text of it is scrubbed.
    error = classify(status, body.decode("utf-8", "replace"), headers, provider=provider)
    for secret in secrets or (None,):
        scrub(error, secret)
    if isinstance(error, RateLimitError) and error.retry_after is not None:
        error.message += f" (retry after {error.retry_after:.3g}s)"
        error.args = (error.message,)
    return error
