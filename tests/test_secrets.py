"""Secrets: the API key never appears in an exception's message, args or repr, a log
record at any level, a diagnostic, or a Context/Model repr; credentials in base URLs are
redacted; TLS verification is on by default. Checked for every wire API, for every kind of
credential (in any escaping a JSON body can give it), and over real redirects."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

import llmkit
from llmkit._fake.http_server import ENCODERS
from llmkit._transport import ssl_context
from llmkit.testing import FakeError, FakeProvider, FakeReply
from tests.support.loopback import Canned, Loopback, Seen

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


# ------------------------------------------------------ every credential kind, every escaping

AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AWS_TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+abc/def=="
CHAT_SSE = (
    b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


@dataclass
class Credential:
    """One kind of credential: the model that sends it, how, and the secret on the wire."""

    name: str
    model: Callable[[str], llmkit.Model]  # base URL -> model
    options: dict[str, Any]
    secret: str  # what goes on the wire and must never come back to the caller
    header: str  # the header that carries it
    env: dict[str, str] = field(default_factory=dict)


CREDENTIALS = [
    Credential(
        "openai",
        lambda url: llmkit.Model(provider="openai", id="gpt-4.1", api="openai-chat", base_url=url),
        {"api_key": "sk-proj-Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv"},
        "sk-proj-Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv",
        "authorization",
    ),
    Credential(
        "anthropic",
        lambda url: llmkit.Model(
            provider="anthropic", id="claude-x", api="anthropic-messages", base_url=url
        ),
        {"api_key": "sk-ant-api03-Zz9_Yy8-Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0-AAAA"},
        "sk-ant-api03-Zz9_Yy8-Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0-AAAA",
        "x-api-key",
    ),
    Credential(
        "google-api-key",
        lambda url: llmkit.Model(provider="google", id="gemini-x", api="gemini", base_url=url),
        {"api_key": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
        "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        "x-goog-api-key",
    ),
    Credential(
        "vertex-token",
        lambda url: llmkit.Model(
            provider="vertex",
            id="gemini-x",
            api="gemini",
            base_url=url + "/v1/projects/p/locations/global",
        ),
        {"api_key": "ya29.a0AfB_byC/7Jk+QxPz9-LmNo_pQrStUvWxYz0123456789"},
        "ya29.a0AfB_byC/7Jk+QxPz9-LmNo_pQrStUvWxYz0123456789",
        "authorization",
    ),
    Credential(
        "aws-sigv4",
        lambda url: llmkit.Model(
            provider="bedrock", id="anthropic.claude-x", api="bedrock-converse", base_url=url
        ),
        {"region": "us-east-1"},
        AWS_TOKEN,
        "x-amz-security-token",
        env={
            "AWS_ACCESS_KEY_ID": AWS_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
            "AWS_SESSION_TOKEN": AWS_TOKEN,
        },
    ),
    Credential(
        "bedrock-api-key",
        lambda url: llmkit.Model(
            provider="bedrock", id="anthropic.claude-x", api="bedrock-converse", base_url=url
        ),
        {"api_key": "ABSKQmVkcm9ja0FQSUtleS1+abc/DEF=ghi/JKL+mno==", "region": "us-east-1"},
        "ABSKQmVkcm9ja0FQSUtleS1+abc/DEF=ghi/JKL+mno==",
        "authorization",
    ),
    Credential(
        "bearer",
        lambda url: llmkit.Model(provider="vllm", id="m", api="openai-chat", base_url=url),
        {"api_key": "tok_Local/Server+Token=0123456789"},
        "tok_Local/Server+Token=0123456789",
        "authorization",
    ),
]

ESCAPINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda s: s,
    "slash": lambda s: s.replace("/", "\\/"),
    "u-lower": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "u-upper": lambda s: "".join(f"\\u{ord(c):04X}" for c in s),
    "mixed": lambda s: "".join(
        (f"\\u{ord(c):04x}" if i % 3 == 0 else "\\/" if c == "/" else c) for i, c in enumerate(s)
    ),
    "u-symbols": lambda s: "".join(f"\\u{ord(c):04x}" if not c.isalnum() else c for c in s),
}


@pytest.fixture
def no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("AWS_", "GOOGLE_")) or name.endswith("_API_KEY"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("NO_GCE_CHECK", "True")


def _use(credential: Credential, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in credential.env.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("no_ambient_credentials")
@pytest.mark.parametrize("escaping", sorted(ESCAPINGS))
@pytest.mark.parametrize("credential", CREDENTIALS, ids=lambda c: c.name)
def test_a_key_echoed_in_an_error_body_is_redacted_in_every_json_escaping(
    credential: Credential, escaping: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use(credential, monkeypatch)
    echoed = ESCAPINGS[escaping](credential.secret)
    body = (
        '{"error": {"message": "Incorrect API key provided: ' + echoed + '", '
        '"type": "authentication_error", "key": "' + echoed + '"}}'
    ).encode()
    with Loopback(lambda _: Canned(401, {"content-type": "application/json"}, body)) as server:
        with pytest.raises(llmkit.AuthenticationError) as info:
            llmkit.complete(credential.model(server.url), CONTEXT, **credential.options)
    assert server.requests[0].headers[credential.header].endswith(credential.secret)  # sent
    error = info.value
    text = f"{error!s} {error!r} {error.args!r} {error.message!r} {error.body!r}"
    assert credential.secret not in text and echoed not in text, text
    assert "Incorrect API key provided" in error.message  # the rest of the message is kept


@pytest.mark.parametrize("key", ["x", "e", "sk", "local"])
def test_a_short_dummy_key_never_garbles_the_error_or_its_class(key: str) -> None:
    body = json.dumps(
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        }
    ).encode()
    model = llmkit.Model(provider="vllm", id="m", api="openai-chat", base_url="")
    with Loopback(lambda _: Canned(400, {"content-type": "application/json"}, body)) as server:
        model = model.model_copy(update={"base_url": server.url})
        with pytest.raises(llmkit.ContextLengthError) as info:
            llmkit.complete(model, CONTEXT, api_key=key)
    assert info.value.message.startswith("This model's maximum context length is 8192 tokens")
    assert info.value.code == "context_length_exceeded"
    assert info.value.body["error"]["code"] == "context_length_exceeded"


@pytest.mark.usefixtures("no_ambient_credentials")
@pytest.mark.parametrize(
    ("bad", "what"),
    [("\n", "line break"), ("\r\n", "line break"), ("é", "non-ASCII"), (" ", "space")],
)
@pytest.mark.parametrize("source", ["option", "environment"])
def test_a_key_no_header_can_carry_is_refused_before_sending(
    bad: str, what: str, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-api03-ThisIsTheWholeKey0123456789" + bad
    options: dict[str, Any] = {"max_retries": 3}
    if source == "option":
        options["api_key"] = key
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with Loopback(lambda _: Canned(200, {}, b"")) as server:
        model = llmkit.Model(
            provider="anthropic", id="c", api="anthropic-messages", base_url=server.url
        )
        for call in (llmkit.complete, lambda *a, **k: asyncio.run(llmkit.acomplete(*a, **k))):
            with pytest.raises(llmkit.InvalidRequestError, match=what) as info:
                call(model, CONTEXT, **options)
            assert "ThisIsTheWholeKey" not in f"{info.value} {info.value!r} {info.value.args}"
        with pytest.raises(llmkit.InvalidRequestError):
            llmkit.build_request(model, CONTEXT, **options)
    assert server.requests == []  # nothing sent, nothing retried
    assert ("ANTHROPIC_API_KEY" if source == "environment" else "api_key") in str(info.value)


# ------------------------------------------------------------------------------- redirects


REDIRECTED = [c for c in CREDENTIALS if c.name in ("anthropic", "google-api-key", "aws-sigv4")]


@pytest.mark.usefixtures("no_ambient_credentials")
@pytest.mark.parametrize("credential", [*REDIRECTED, CREDENTIALS[0]], ids=lambda c: c.name)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_credentials_never_follow_a_redirect_to_another_origin(
    credential: Credential, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use(credential, monkeypatch)
    headers = {"api-key": credential.secret, "x-trace": "kept"}  # a caller's own key header
    with Loopback(lambda _: Canned(400, {"content-type": "application/json"}, b"{}")) as other:

        def moved(seen: Seen) -> Canned:
            return Canned(307, {"location": other.url + seen.path}, b"")

        with Loopback(moved) as origin:
            model = credential.model(origin.url)
            with pytest.raises(llmkit.APIError) as info:
                if mode == "sync":
                    with httpx.Client(follow_redirects=True) as client:
                        llmkit.complete(
                            model, CONTEXT, client=client, headers=headers, **credential.options
                        )
                else:

                    async def go() -> None:
                        async with httpx.AsyncClient(follow_redirects=True) as client:
                            await llmkit.acomplete(
                                model, CONTEXT, client=client, headers=headers, **credential.options
                            )

                    asyncio.run(go())
    assert info.value.status == 400  # the other origin answered: the redirect was followed
    assert origin.requests[0].headers[credential.header].endswith(credential.secret)
    [seen] = other.requests
    assert seen.body == origin.requests[0].body  # a 307 keeps the method and the body
    assert seen.headers["x-trace"] == "kept"
    for name in ("authorization", "x-api-key", "x-goog-api-key", "x-amz-security-token"):
        assert name not in seen.headers, name
    assert "api-key" not in seen.headers
    assert not any(credential.secret in value for value in seen.headers.values())


def test_a_redirect_within_the_origin_keeps_the_key() -> None:
    secret = CREDENTIALS[1].secret

    def answer(seen: Seen) -> Canned:
        if seen.path.startswith("/old"):
            return Canned(308, {"location": "/new/v1/messages"}, b"")
        return Canned(400, {"content-type": "application/json"}, b"{}")

    with Loopback(answer) as server, httpx.Client(follow_redirects=True) as client:
        model = CREDENTIALS[1].model(server.url + "/old")
        with pytest.raises(llmkit.APIError):
            llmkit.complete(model, CONTEXT, client=client, api_key=secret)
    assert [s.path for s in server.requests] == ["/old/messages", "/new/v1/messages"]
    assert server.requests[1].headers["x-api-key"] == secret


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_on_the_default_client_is_an_error_not_a_success(status: int) -> None:
    with Loopback(lambda _: Canned(status, {"location": "http://127.0.0.1:9/x"}, CHAT_SSE)) as s:
        model = CREDENTIALS[0].model(s.url)
        with pytest.raises(llmkit.APIError) as info:
            llmkit.complete(model, CONTEXT, api_key="k", max_retries=2)
        with pytest.raises(llmkit.APIError):
            asyncio.run(llmkit.acomplete(model, CONTEXT, api_key="k"))
    assert info.value.status == status and "redirect" in info.value.message
    assert len(s.requests) == 2  # not retried


# ----------------------------------------------------------------------------- AWS (SigV4)


@pytest.mark.usefixtures("no_ambient_credentials")
def test_botocore_does_not_log_the_canonical_request_while_llmkit_signs(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use(CREDENTIALS[4], monkeypatch)
    caplog.set_level(logging.DEBUG)  # the root logger, as a DEBUG-everything app sets it
    botocore_log = logging.getLogger("botocore.auth")
    filters = list(botocore_log.filters)
    model = CREDENTIALS[4].model("https://bedrock-runtime.us-east-1.amazonaws.com")
    request = llmkit.build_request(model, CONTEXT, region="us-east-1")
    assert request.headers["x-amz-security-token"] == AWS_TOKEN
    assert not any(AWS_TOKEN in r.getMessage() for r in caplog.records)
    assert botocore_log.filters == filters  # logging's configuration is left as it was
    botocore_log.debug("after signing")
    assert caplog.records[-1].getMessage() == "after signing"


@pytest.mark.usefixtures("no_ambient_credentials")
def test_aws_credentials_follow_the_environment_of_each_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = CREDENTIALS[4].model("https://bedrock-runtime.us-east-1.amazonaws.com")

    def signed_by() -> str:
        request = llmkit.build_request(model, CONTEXT, region="us-east-1")
        return request.headers["authorization"].split("Credential=")[1].split("/")[0]

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFIRSTFIRSTFIRST1")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
    assert signed_by() == "AKIAFIRSTFIRSTFIRST1"
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIASECONDSECONDSEC2")
    assert signed_by() == "AKIASECONDSECONDSEC2"
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(llmkit.MissingAPIKeyError, match="configure AWS credentials"):
        llmkit.build_request(model, CONTEXT, region="us-east-1")
