"""Secrets: the API key never appears in an exception's message, args or repr, a log
record at any level, a diagnostic, or a Context/Model repr; credentials in base URLs are
redacted; TLS verification is on by default. Checked for every wire API."""

from __future__ import annotations

import asyncio
import logging
import ssl
from typing import Any

import pytest

import llmkit
from llmkit._fake.server import ENCODERS
from llmkit._transport import ssl_context
from llmkit.testing import FakeError, FakeProvider, FakeReply

SECRET = "sk-live-THIS-IS-THE-SECRET-0123456789abcdef"
CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


def leaks(value: Any) -> bool:
    text = f"{value!s} {value!r} {getattr(value, 'args', '')}"
    for attr in ("body", "partial", "message", "error"):
        text += f" {getattr(value, attr, '')!r}"
    return SECRET in text or SECRET[8:] in text


@pytest.mark.parametrize("wire", sorted(ENCODERS))
def test_key_never_leaks_through_errors_logs_or_diagnostics(
    wire: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = {
        "error": {
            "message": f"Incorrect API key provided: {SECRET}",
            "type": "authentication_error",
        }
    }
    script = [
        FakeError(500, headers={"retry-after": "0"}),  # retried: logged
        FakeError(401, body=echo),
        FakeError(
            in_stream=True, body={"error": {"message": f"bad key {SECRET}", "type": "server_error"}}
        ),
        FakeReply("fine"),
    ]
    caught: list[BaseException] = []
    with FakeProvider(script, api=wire, require_key=False) as fake:  # type: ignore[arg-type]
        model = fake.model()
        with pytest.raises(llmkit.AuthenticationError) as info:
            llmkit.complete(model, CONTEXT, api_key=SECRET, max_retries=1)
        caught.append(info.value)
        with llmkit.stream(model, CONTEXT, api_key=SECRET) as events:
            collected = list(events)
        caught.append(collected[-1].error)  # type: ignore[union-attr]
        message = asyncio.run(llmkit.acomplete(model, CONTEXT, api_key=SECRET))
        assert fake.requests[-1].raw  # the key was really sent
    for error in caught:
        assert not leaks(error), repr(error)
    assert not any(
        SECRET in repr(d) for e in collected for d in getattr(e, "message", message).diagnostics
    )
    assert all(SECRET not in r.getMessage() and SECRET not in str(r.args) for r in caplog.records)
    assert any(r.name == "llmkit" for r in caplog.records)
    assert SECRET not in repr(model) and SECRET not in repr(CONTEXT) and SECRET not in repr(message)


def test_connection_errors_and_logs_redact_url_credentials(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    model = llmkit.Model(
        provider="vllm",
        id="m",
        api="openai-chat",
        base_url="http://user:hunter2pass@127.0.0.1:9/v1",
    )
    with pytest.raises(llmkit.APIConnectionError) as info:
        llmkit.complete(model, CONTEXT, api_key=SECRET, max_retries=0)
    assert "hunter2pass" not in str(info.value) and not leaks(info.value)
    assert all("hunter2pass" not in r.getMessage() for r in caplog.records)


def test_missing_key_error_names_the_variable_not_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = llmkit.Model(provider="anthropic", id="claude-sonnet-5-5", api="anthropic-messages")
    with pytest.raises(llmkit.MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        llmkit.build_request(model, CONTEXT)


def test_tls_verification_is_on_by_default() -> None:
    ctx = ssl_context()
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname


def test_request_repr_hides_the_key() -> None:
    request = llmkit.build_request(
        llmkit.get_model("openai", "gpt-4.1-mini"), CONTEXT, api_key=SECRET
    )
    assert SECRET not in repr(request) and SECRET not in str(request.extensions)
