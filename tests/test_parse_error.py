"""``parse_error`` and ``LLMError.retryable``: the typed error for an HTTP error response that
the caller's own code received.

Checked three ways: against every recorded error response of the corpus (``tests/fixtures``),
whose class is predicted here from the status alone, independently of llmkit's classifier;
against the providers' documented error shapes (400, 401, 403, 404, 413, 422, context length,
429 with ``retry-after``, ``retry-after-ms`` and Gemini ``RetryInfo``, 500, 529); and over a real
loopback server on every wire, where a request built by ``build_request`` and sent by the
caller's own ``httpx`` client must give the very error ``complete()`` raises. The key is never
in the result, even when the body echoes it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply

from .support.corpus import FIXTURES, CorpusSkip, corpus_files, load_exchanges

KEY = "sk-test-0123456789abcdefSECRET"
WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")


def model(api: str = "openai-chat", provider: str = "openai") -> llmkit.Model:
    return llmkit.Model(provider=provider, id="m", api=api, base_url="http://127.0.0.1:1/v1")


def response(
    status: int,
    body: Any,
    headers: dict[str, str] | None = None,
    request_headers: dict[str, str] | None = None,
    url: str = "http://127.0.0.1:1/v1/chat/completions",
) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = httpx.Request("POST", url, headers=request_headers or {})
    return httpx.Response(status, content=content, headers=headers or {}, request=request)


def expected_class(status: int, body: bytes) -> type[llmkit.APIError]:
    """The class a status means, decided here without llmkit's classifier."""
    text = body.decode("utf-8", "replace").lower()
    if status == 400 and "api_key_invalid" in text:
        return llmkit.AuthenticationError  # Gemini answers a bad key with 400
    if status in (400, 413, 422) and ("context" in text or "too long" in text):
        return llmkit.ContextLengthError
    if status == 400 and "model_not_found" in text:
        return llmkit.NotFoundError  # OpenAI's 400 for an unknown model names it in "code"
    if status == 529 or "overloaded" in text:
        return llmkit.OverloadedError
    return {
        400: llmkit.BadRequestError,
        401: llmkit.AuthenticationError,
        403: llmkit.PermissionDeniedError,
        404: llmkit.NotFoundError,
        413: llmkit.BadRequestError,
        422: llmkit.BadRequestError,
        429: llmkit.RateLimitError,
    }.get(status, llmkit.ServerError)


def recorded_errors() -> list[Any]:
    cases = []
    wires = ("openai-chat", "openai-compatible", "openai-responses", "anthropic-messages")
    for path in corpus_files(*wires, "gemini", "bedrock-converse"):
        try:
            exchanges = load_exchanges(path)
        except CorpusSkip:
            continue
        for exchange in exchanges:
            if exchange.status >= 400:
                cases.append(pytest.param(exchange, id=exchange.source))
    return cases


RECORDED = recorded_errors()


def test_the_corpus_has_error_responses() -> None:
    assert {e.values[0].status for e in RECORDED} >= {400, 401, 404}


@pytest.mark.parametrize("exchange", RECORDED)
def test_parse_error_on_recorded_error_responses(exchange: Any) -> None:
    resp = response(exchange.status, exchange.body, exchange.headers)
    error = llmkit.parse_error(model(), resp)
    assert type(error) is expected_class(exchange.status, exchange.body)
    assert error.status == exchange.status
    assert isinstance(error.message, str) and error.message
    request_id = exchange.headers.get("x-request-id") or exchange.headers.get("request-id")
    if request_id:
        assert error.request_id == request_id
    want_retry = exchange.status in (408, 409, 429) or exchange.status >= 500
    if exchange.headers.get("x-should-retry") in ("true", "false"):
        want_retry = exchange.headers["x-should-retry"] == "true"
    assert error.retryable is want_retry


OPENAI_400 = {
    "error": {
        "message": "Invalid 'temperature': decimal below minimum value.",
        "type": "invalid_request_error",
        "param": "temperature",
        "code": "decimal_below_min_value",
    }
}
ANTHROPIC_ERROR = {"type": "error", "error": {"type": "", "message": ""}}


def anthropic(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


def gemini(code: int, status: str, message: str, details: list[Any] | None = None) -> Any:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


DOCUMENTED = [
    # (id, status, body, headers, class, code, retryable)
    ("openai-400", 400, OPENAI_400, {}, llmkit.BadRequestError, "decimal_below_min_value", False),
    (
        "anthropic-400",
        400,
        anthropic("invalid_request_error", "max_tokens: Field required"),
        {},
        llmkit.BadRequestError,
        "invalid_request_error",
        False,
    ),
    (
        "anthropic-413",
        413,
        anthropic("request_too_large", "Request exceeds the maximum allowed number of bytes."),
        {},
        llmkit.BadRequestError,
        "request_too_large",
        False,
    ),
    (
        "vllm-422",
        422,
        {"detail": [{"loc": ["body", "messages"], "msg": "Field required"}]},
        {},
        llmkit.BadRequestError,
        None,
        False,
    ),
    (
        "openai-401",
        401,
        {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}},
        {"x-request-id": "req_abc"},
        llmkit.AuthenticationError,
        "invalid_request_error",
        False,
    ),
    (
        "anthropic-403",
        403,
        anthropic("permission_error", "Your API key does not have permission"),
        {"request-id": "req_1"},
        llmkit.PermissionDeniedError,
        "permission_error",
        False,
    ),
    (
        "gemini-403",
        403,
        gemini(403, "PERMISSION_DENIED", "Permission denied on resource project"),
        {},
        llmkit.PermissionDeniedError,
        "PERMISSION_DENIED",
        False,
    ),
    (
        "anthropic-404",
        404,
        anthropic("not_found_error", "model: claude-nope"),
        {},
        llmkit.NotFoundError,
        "not_found_error",
        False,
    ),
    (
        "openai-context",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 128000 tokens.",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        },
        {},
        llmkit.ContextLengthError,
        "context_length_exceeded",
        False,
    ),
    (
        "anthropic-context",
        400,
        anthropic("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        {},
        llmkit.ContextLengthError,
        "invalid_request_error",
        False,
    ),
    (
        "gemini-context",
        400,
        gemini(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum"),
        {},
        llmkit.ContextLengthError,
        "INVALID_ARGUMENT",
        False,
    ),
    (
        "openai-429",
        429,
        {
            "error": {
                "message": "Rate limit reached",
                "type": "requests",
                "code": "rate_limit_exceeded",
            }
        },
        {"retry-after": "7"},
        llmkit.RateLimitError,
        "rate_limit_exceeded",
        True,
    ),
    (
        "anthropic-500",
        500,
        anthropic("api_error", "Internal server error"),
        {},
        llmkit.ServerError,
        "api_error",
        True,
    ),
    (
        "anthropic-529",
        529,
        anthropic("overloaded_error", "Overloaded"),
        {},
        llmkit.OverloadedError,
        "overloaded_error",
        True,
    ),
    (
        "gemini-503",
        503,
        gemini(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        {},
        llmkit.ServerError,
        "UNAVAILABLE",
        True,
    ),
]


@pytest.mark.parametrize(
    ("status", "body", "headers", "cls", "code", "retryable"),
    [pytest.param(*case[1:], id=case[0]) for case in DOCUMENTED],
)
def test_parse_error_on_documented_shapes(
    status: int,
    body: Any,
    headers: dict[str, str],
    cls: type[llmkit.APIError],
    code: str | None,
    retryable: bool,
) -> None:
    error = llmkit.parse_error(model(), response(status, body, headers))
    assert type(error) is cls
    assert (error.status, error.code, error.retryable) == (status, code, retryable)
    assert error.provider == "openai"
    assert error.request_id == (headers.get("x-request-id") or headers.get("request-id"))
    assert error.message and isinstance(error.message, str)


@pytest.mark.parametrize(
    ("headers", "body", "seconds"),
    [
        pytest.param({"retry-after": "7"}, OPENAI_400, 7.0, id="retry-after"),
        pytest.param({"retry-after-ms": "1500", "retry-after": "9"}, OPENAI_400, 1.5, id="ms"),
        pytest.param(
            {},
            gemini(
                429,
                "RESOURCE_EXHAUSTED",
                "Quota exceeded",
                [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "26s"}],
            ),
            26.0,
            id="gemini-RetryInfo",
        ),
    ],
)
def test_retry_after_from_headers_and_body(
    headers: dict[str, str], body: Any, seconds: float
) -> None:
    error = llmkit.parse_error(model(), response(429, body, headers))
    assert isinstance(error, llmkit.RateLimitError)
    assert error.retry_after == seconds and error.retryable


def test_gemini_daily_quota_is_not_retryable() -> None:
    body = gemini(
        429,
        "RESOURCE_EXHAUSTED",
        "Quota exceeded",
        [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}],
            }
        ],
    )
    error = llmkit.parse_error(model("gemini", "google"), response(429, body))
    assert isinstance(error, llmkit.RateLimitError) and not error.retryable


def test_x_should_retry_is_the_providers_word() -> None:
    body = anthropic("api_error", "Internal server error")
    assert not llmkit.parse_error(
        model(), response(500, body, {"x-should-retry": "false"})
    ).retryable
    assert llmkit.parse_error(
        model(), response(400, OPENAI_400, {"x-should-retry": "true"})
    ).retryable


@pytest.mark.parametrize(
    ("request_headers", "url"),
    [
        pytest.param(
            {"authorization": f"Bearer {KEY}"}, "http://h/v1/chat/completions", id="bearer"
        ),
        pytest.param({"x-api-key": KEY}, "http://h/v1/messages", id="x-api-key"),
        pytest.param(
            {"x-goog-api-key": KEY}, "http://h/v1beta/models/m:generateContent", id="goog"
        ),
        pytest.param({"api-key": KEY}, "http://h/openai/v1/chat/completions", id="azure"),
        pytest.param({}, f"http://h/v1beta/models/m:generateContent?key={KEY}", id="query"),
    ],
)
def test_the_key_on_the_request_is_never_in_the_error(
    request_headers: dict[str, str], url: str
) -> None:
    plain = KEY.replace("sk-", "k-")  # not shaped like an OpenAI key: only the request tells
    echo = {"error": {"message": f"Incorrect API key provided: {plain} ({KEY})", "key": plain}}
    headers = {k: v.replace(KEY, plain) for k, v in request_headers.items()}
    error = llmkit.parse_error(model(), response(401, echo, {}, headers, url.replace(KEY, plain)))
    assert isinstance(error, llmkit.AuthenticationError)
    for text in (str(error), repr(error), error.message, json.dumps(error.body), repr(error.args)):
        assert plain not in text and KEY not in text


def test_the_key_in_the_models_variable_is_never_in_the_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = "AIzaPLAINKEYwithoutanyprefix123"
    monkeypatch.setenv("MY_KEY_VAR", plain)
    m = llmkit.Model(provider="x", id="m", api="gemini", base_url="http://h", api_key_env="MY_KEY")
    m = m.model_copy(update={"api_key_env": "MY_KEY_VAR"})
    body = gemini(400, "INVALID_ARGUMENT", f"API key {plain} not valid")
    error = llmkit.parse_error(m, response(400, body))
    assert plain not in str(error) and plain not in json.dumps(error.body)


def test_parse_response_takes_the_http_response() -> None:
    ok = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}
        ],
    }
    assert llmkit.parse_response(model(), response(200, ok)).text == "Hi"
    with pytest.raises(llmkit.AuthenticationError) as info:
        llmkit.parse_response(model(), response(401, anthropic("authentication_error", "bad")))
    assert info.value.status == 401  # the status counts (a bare body would give None)


def test_an_unread_async_body_is_asked_for() -> None:
    async def chunks() -> Any:
        yield b"{}"

    resp = httpx.Response(500, content=chunks(), request=httpx.Request("POST", "http://h"))
    with pytest.raises(llmkit.InvalidRequestError, match="aread"):
        llmkit.parse_error(model(), resp)


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(FakeError(400), id="400"),
        pytest.param(FakeError(401), id="401"),
        pytest.param(FakeError(404), id="404"),
        pytest.param(FakeError(429, headers={"retry-after": "3"}), id="429"),
        pytest.param(FakeError(500), id="500"),
        pytest.param(FakeError(529), id="529"),
    ],
)
def test_the_callers_own_client_gets_the_error_complete_raises(
    api: str, failure: FakeError
) -> None:
    context = llmkit.Context(messages=[llmkit.user("Hi")])
    with FakeProvider([failure, failure], api=api) as fake:  # type: ignore[arg-type]
        m = fake.model()
        with pytest.raises(llmkit.APIError) as raised:
            llmkit.complete(m, context, api_key=fake.api_key, max_retries=0)
        request = llmkit.build_request(m, context, api_key=fake.api_key, stream=False)
        with httpx.Client() as client:
            resp = client.send(request)
        assert len(fake.requests) == 2
    error = llmkit.parse_error(m, resp)
    want = raised.value
    assert type(error) is type(want)
    assert (error.status, error.code, error.retry_after, error.retryable) == (
        want.status,
        want.code,
        want.retry_after,
        want.retryable,
    )
    assert fake.api_key not in str(error) and fake.api_key not in json.dumps(error.body)


def test_llmkits_own_retries_follow_retryable() -> None:
    """A 409 and a 408 are retried, a 400 and a 401 are not (one rule: LLMError.retryable)."""
    context = llmkit.Context(messages=[llmkit.user("Hi")])
    script = [FakeError(409), FakeError(408), FakeReply("ok")]
    with FakeProvider(script) as fake:
        reply = llmkit.complete(fake.model(), context, api_key=fake.api_key, max_retries=3)
        assert reply.text == "ok" and len(fake.requests) == 3
    for status in (400, 401, 422):
        with FakeProvider([FakeError(status), FakeReply("never")]) as fake:
            with pytest.raises(llmkit.APIError) as info:
                llmkit.complete(fake.model(), context, api_key=fake.api_key, max_retries=3)
            assert not info.value.retryable and len(fake.requests) == 1


def test_retryable_on_transport_and_stream_failures() -> None:
    assert llmkit.APIConnectionError("x").retryable
    assert llmkit.APITimeoutError("x", phase="idle").retryable
    assert llmkit.StreamError("dropped").retryable
    assert not llmkit.InvalidRequestError("x").retryable
    assert not llmkit.ToolDefinitionError("x").retryable
    assert llmkit.OverloadedError("in stream").retryable  # no status: by class
    assert not llmkit.APIError("MALFORMED_FUNCTION_CALL").retryable
    context = llmkit.Context(messages=[llmkit.user("Hi")])
    with FakeProvider([FakeReply("Hello there", drop_after=1)]) as fake:
        with llmkit.stream(fake.model(), context, api_key=fake.api_key) as events:
            last = list(events)[-1]
    assert isinstance(last, llmkit.ErrorEvent) and last.error.retryable
    with FakeProvider([FakeReply("Hello there, a longer answer", delta_size=2)]) as fake:
        with llmkit.stream(fake.model(), context, api_key=fake.api_key) as events:
            next(iter(events))
        assert events.message is not None and events.message.stop_reason == "aborted"


def test_bad_request_error_is_an_api_error() -> None:
    assert issubclass(llmkit.BadRequestError, llmkit.APIError)
    assert not issubclass(llmkit.ContextLengthError, llmkit.BadRequestError)
    assert FIXTURES.exists()
