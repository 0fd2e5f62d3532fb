"""Replay the llama-server captures (``tests/fixtures/llama-server/``, see its PROVENANCE.md).

These are real bytes from llama.cpp's ``llama-server``, recorded by ``tests/integration/``; this
file needs no build. Every stream goes through the same checks as the rest of the corpus
(``corpus_checks.STREAM_CHECKS``: cut at random byte offsets, one byte at a time and
whole, compared with ``tests/support/corpus.py``'s reading of the bytes, which does not use
llmkit), and
the four mismatches the integration suite found each have a regression test on the captured bytes:

1. HTTP 400 ``exceed_context_size_error`` is a ``ContextLengthError``;
2. ``response_format`` goes as written (no strict transform) to a server without strict mode;
3. the llamacpp profile sends ``parallel_tool_calls``;
4. an in-stream ``{"error": {"code": 500}}`` is a ``ServerError`` with ``status == 500``.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any, Literal

import httpx
import jsonschema
import pytest
from pydantic import BaseModel, Field

import llmkit
from tests.support.corpus import FIXTURES, Exchange, expected_openai_chat, rechunk
from tests.wire.openai_chat.corpus_checks import STREAM_CHECKS, check_json_response, model_for

FOLDER = FIXTURES / "llama-server"
INDEX: dict[str, dict[str, Any]] = json.loads((FOLDER / "captures.json").read_text("utf-8"))
URL = "http://127.0.0.1:8080/v1/chat/completions"


def exchange(name: str) -> Exchange:
    meta = INDEX[name]
    request = {"method": "POST", "url": URL, "headers": {}, "body": meta["request"]}
    body = (FOLDER / name).read_bytes()
    headers = {"content-type": meta["content_type"]}
    return Exchange(meta["status"], headers, body, request, f"llama-server/{name}#0")


STREAMS = [
    pytest.param(exchange(name), id=name)
    for name, meta in INDEX.items()
    if meta["status"] == 200 and meta["content_type"] == "text/event-stream"
]
MODEL = llmkit.Model(provider="llamacpp", id="tiny", api="openai-chat")


def test_the_index_lists_every_capture() -> None:
    files = {p.name for p in FOLDER.iterdir()} - {"captures.json", "PROVENANCE.md"}
    assert files == set(INDEX)
    assert len(STREAMS) >= 7


def test_captures_are_read_with_the_llamacpp_profile() -> None:
    model = model_for(exchange("text.sse"))
    assert (model.provider, model.id, model.compat) == ("llamacpp", "tiny", MODEL.compat)


@pytest.mark.parametrize("exchange", STREAMS)
@pytest.mark.parametrize("check", list(STREAM_CHECKS))
def test_stream(check: str, exchange: Exchange) -> None:
    STREAM_CHECKS[check](exchange)


def test_non_streamed_body() -> None:
    check_json_response(exchange("non-streamed.json"))


def serve(name: str) -> httpx.MockTransport:
    """A transport that answers every request with the captured response."""
    meta = INDEX[name]
    body = (FOLDER / name).read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": meta["content_type"]}
        return httpx.Response(meta["status"], content=body, headers=headers)

    return httpx.MockTransport(answer)


def complete_sync_and_async(name: str, context: llmkit.Context) -> list[Exception]:
    """``complete`` and ``acomplete`` against the captured response; the errors raised."""
    errors: list[Exception] = []
    try:
        with httpx.Client(transport=serve(name)) as client:
            llmkit.complete(MODEL, context, client=client)
    except llmkit.LLMError as e:
        errors.append(e)

    async def go() -> None:
        async with httpx.AsyncClient(transport=serve(name)) as client:
            await llmkit.acomplete(MODEL, context, client=client)

    try:
        asyncio.run(go())
    except llmkit.LLMError as e:
        errors.append(e)
    return errors


# --------------------------------------------------------------------------- 1. context overflow


def test_context_overflow_is_a_context_length_error() -> None:
    body = json.loads((FOLDER / "context-overflow.json").read_bytes())
    assert INDEX["context-overflow.json"]["status"] == 400
    assert body["error"]["type"] == "exceed_context_size_error"
    assert body["error"]["n_prompt_tokens"] > body["error"]["n_ctx"]
    errors = complete_sync_and_async(
        "context-overflow.json", llmkit.Context(messages=[llmkit.user("hi")])
    )
    assert len(errors) == 2
    for error in errors:
        assert type(error) is llmkit.ContextLengthError
        assert (error.status, error.code) == (400, "exceed_context_size_error")
        assert error.body == body  # n_prompt_tokens and n_ctx stay readable
        assert error.message.startswith(body["error"]["message"])


# --------------------------------------------------------------------------- 2. response_format


class Answer(BaseModel):
    city: str = Field(min_length=1, max_length=12)
    days: int = Field(ge=1, le=10)


def test_response_format_goes_as_written_to_a_server_without_strict_mode() -> None:
    sent = INDEX["structured-output.sse"]["request"]["response_format"]
    schema = Answer.model_json_schema()
    assert sent == {"type": "json_schema", "json_schema": {"name": "Answer", "schema": schema}}
    request = llmkit.build_request(
        MODEL, llmkit.Context(messages=[llmkit.user("hi")]), response_format=Answer
    )
    assert json.loads(request.content)["response_format"] == sent
    assert request.extensions["llmkit.diagnostics"] == []  # nothing rewritten
    # The server held its reply to the whole schema, maxLength included.
    reply = expected_openai_chat((FOLDER / "structured-output.sse").read_bytes())
    jsonschema.validate(json.loads(reply.text), schema)


@pytest.mark.parametrize(
    ("provider", "strict"),
    [("openai", True), ("vllm", True), ("llamacpp", False), ("ollama", False), ("groq", False)],
)
@pytest.mark.parametrize("api", ["openai-chat", "openai-responses"])
def test_the_strict_transform_only_where_the_server_does_strict_mode(
    provider: str, strict: bool, api: Literal["openai-chat", "openai-responses"]
) -> None:
    model = llmkit.Model(provider=provider, id="m", api=api, base_url="http://127.0.0.1:1/v1")
    request = llmkit.build_request(
        model, llmkit.Context(messages=[llmkit.user("hi")]), api_key="k", response_format=Answer
    )
    body = json.loads(request.content)
    fmt = body["response_format"]["json_schema"] if api == "openai-chat" else body["text"]["format"]
    kinds = {d.kind for d in request.extensions["llmkit.diagnostics"]}
    if strict:
        assert fmt["strict"] is True and fmt["schema"]["additionalProperties"] is False
        assert "schema_rewritten" in kinds  # minLength/maxLength have no strict-mode form
    else:
        assert "strict" not in fmt  # some servers reject the key itself (QUIRKS H2)
        assert fmt["schema"] == Answer.model_json_schema()
        assert "schema_rewritten" not in kinds


# --------------------------------------------------------------------------- 3. parallel calls


def test_the_llamacpp_profile_sends_parallel_tool_calls() -> None:
    captured = INDEX["tool-calls-parallel.sse"]["request"]
    assert captured["parallel_tool_calls"] is True
    tool = llmkit.Tool(name="get_weather", parameters={"type": "object", "properties": {}})
    context = llmkit.Context(messages=[llmkit.user("x")], tools=[tool])
    for value in (True, False):
        request = llmkit.build_request(MODEL, context, parallel_tool_calls=value)
        assert json.loads(request.content)["parallel_tool_calls"] is value
        assert request.extensions["llmkit.diagnostics"] == []
    reply = expected_openai_chat((FOLDER / "tool-calls-parallel.sse").read_bytes())
    assert len(reply.tool_calls) == 2


# --------------------------------------------------------------------------- 4. in-stream error


@pytest.mark.parametrize("seed", range(8))
def test_in_stream_error_status_is_the_payloads_code(seed: int) -> None:
    body = (FOLDER / "in-stream-error.sse").read_bytes()
    payload = expected_openai_chat(body).error
    assert payload is not None and payload["code"] == 500
    events = list(llmkit.parse_stream(MODEL, iter(rechunk(body, random.Random(seed)))))
    final = events[-1]
    assert isinstance(final, llmkit.ErrorEvent)
    assert type(final.error) is llmkit.ServerError
    assert (final.error.status, final.error.code) == (500, "server_error")
    # The response itself was a 200: the message does not claim an HTTP 500 response.
    assert final.error.message == payload["message"]
    assert final.message.stop_reason == "error"


def test_in_stream_error_raises_a_server_error_with_status_500() -> None:
    errors = complete_sync_and_async(
        "in-stream-error.sse", llmkit.Context(messages=[llmkit.user("hi")])
    )
    assert [(type(e), getattr(e, "status", None)) for e in errors] == [
        (llmkit.ServerError, 500)
    ] * 2


@pytest.mark.parametrize(
    ("payload", "status", "kind"),
    [
        ({"error": {"code": 500, "message": "m", "type": "server_error"}}, 500, llmkit.ServerError),
        ({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, 429, llmkit.RateLimitError),
        ({"error": {"code": 502, "message": "Provider down"}}, 502, llmkit.ServerError),
        ({"error": {"code": "server_error", "message": "m"}}, None, llmkit.ServerError),
        (
            {"error": {"code": True, "message": "m", "type": "server_error"}},
            None,
            llmkit.ServerError,
        ),
        ({"error": {"code": 12, "message": "m", "type": "server_error"}}, None, llmkit.ServerError),
    ],
)
def test_an_in_stream_codes_http_status_becomes_status(
    payload: dict[str, Any], status: int | None, kind: type[llmkit.APIError]
) -> None:
    """llama-server, OpenRouter (502) and Gemini (429) put an HTTP status in ``code``; other
    codes (strings, booleans, numbers outside 100-599) leave ``status`` unset."""
    body = b"data: " + json.dumps(payload).encode() + b"\n\n"
    final = list(llmkit.parse_stream(MODEL, [body]))[-1]
    assert isinstance(final, llmkit.ErrorEvent)
    assert type(final.error) is kind
    assert final.error.status == status
