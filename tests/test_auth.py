"""Authentication and endpoints of the cloud platforms (``llmkit._auth``).

Bedrock: a Bedrock API key is a bearer token; otherwise SigV4 from the AWS credential chain,
whose ``Authorization`` header must be exactly what botocore's own signer computes for the
request as it arrived at the server (method, path, the signed headers, the body bytes) with
the same credentials and a frozen clock — the check AWS itself makes. Vertex AI: OAuth tokens
(given, or from application-default credentials refreshed through google-auth over httpx
against a local token endpoint), express-mode keys on the global endpoint, and project/location
from the variables the official SDKs read; Claude on Vertex as the Anthropic SDK's own
``AnthropicVertex`` sends it. A missing optional dependency or credential is an error naming
the extra, before anything is sent; no credential appears in an error or an llmkit log record.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

import llmkit
from llmkit._auth import aws, google
from llmkit.testing import FakeError, FakeProvider, FakeReply

botocore_auth = pytest.importorskip("botocore.auth")
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])
KEY_ID, SECRET, TOKEN = (
    "AKIDEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "SESSION-TOKEN-xyz",
)
FROZEN = datetime.datetime(2026, 11, 30, 12, 0, 0)
SONNET = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Credentials in the environment only: no files, no profile, no instance metadata."""
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setattr(botocore_auth, "get_current_datetime", lambda: FROZEN)
    aws.session.cache_clear()
    yield
    aws.session.cache_clear()


def bedrock(**fields: Any) -> llmkit.Model:
    return llmkit.Model(provider="bedrock", id=SONNET, api="bedrock-converse", **fields)


def botocore_signature(method: str, url: str, headers: dict[str, str], body: bytes) -> str:
    """What botocore's signer puts in Authorization for these bytes (frozen clock)."""
    signed = re.search(r"SignedHeaders=([^,]+)", headers["authorization"])
    assert signed is not None
    kept = {name: headers[name] for name in signed.group(1).split(";") if name != "x-amz-date"}
    request = AWSRequest(method=method, url=url, data=body, headers=kept)
    botocore_auth.SigV4Auth(Credentials(KEY_ID, SECRET, TOKEN), "bedrock", "us-west-2").add_auth(
        request
    )
    return str(request.headers["Authorization"])


@pytest.mark.usefixtures("aws_env")
def test_sigv4_equals_botocore_signer_on_the_request_as_the_server_received_it() -> None:
    with FakeProvider([FakeReply("signed")], api="bedrock-converse", platform="bedrock") as fake:
        model = fake.model(SONNET)
        message = llmkit.complete(model, CONTEXT, headers={"x-extra": "kept and signed"})
        [received] = fake.requests
    assert message.text == "signed"
    auth = received.headers["authorization"]
    assert auth.startswith(f"AWS4-HMAC-SHA256 Credential={KEY_ID}/20261130/us-west-2/bedrock/")
    assert "x-extra" in auth and "content-type" in auth and "host" in auth
    assert received.headers["x-amz-date"] == "20261130T120000Z"
    assert received.headers["x-amz-security-token"] == TOKEN
    url = f"{fake.base_url}{received.path}"
    assert botocore_signature("POST", url, received.headers, received.raw) == auth


@pytest.mark.usefixtures("aws_env")
def test_sigv4_signs_the_final_body_after_on_request() -> None:
    def replace(body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "inferenceConfig": {"maxTokens": 7}}

    request = llmkit.build_request(bedrock(), CONTEXT, on_request=replace)
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert json.loads(request.content)["inferenceConfig"] == {"maxTokens": 7}
    assert str(request.url) == (
        f"https://bedrock-runtime.us-west-2.amazonaws.com/model/{SONNET.replace(':', '%3A')}"
        "/converse-stream"
    )
    expected = botocore_signature("POST", str(request.url), headers, request.content)
    assert headers["authorization"] == expected


@pytest.mark.usefixtures("aws_env")
def test_a_bedrock_api_key_is_a_bearer_token_and_nothing_is_signed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-123")
    request = llmkit.build_request(bedrock(), CONTEXT)
    assert request.headers["authorization"] == "Bearer bedrock-api-key-123"
    assert "x-amz-date" not in request.headers
    explicit = llmkit.build_request(bedrock(), CONTEXT, api_key="given")
    assert explicit.headers["authorization"] == "Bearer given"


@pytest.mark.usefixtures("aws_env")
@pytest.mark.parametrize(
    ("options", "env", "host"),
    [
        ({"region": "eu-central-1"}, {}, "bedrock-runtime.eu-central-1.amazonaws.com"),
        ({}, {"AWS_REGION": "ap-south-1"}, "bedrock-runtime.ap-south-1.amazonaws.com"),
        (
            {},
            {"AWS_REGION": "", "AWS_DEFAULT_REGION": "ca-central-1"},
            "bedrock-runtime.ca-central-1.amazonaws.com",
        ),
        (
            {"base_url": "https://bedrock-runtime.us-gov-west-1.amazonaws.com"},
            {"AWS_REGION": ""},
            "bedrock-runtime.us-gov-west-1.amazonaws.com",
        ),
    ],
)
def test_the_region_fills_the_url_and_signs(
    options: dict[str, Any], env: dict[str, str], host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    request = llmkit.build_request(bedrock(), CONTEXT, **options)
    assert request.url.host == host
    region = host.split(".")[1]
    assert f"/{region}/bedrock/aws4_request" in request.headers["authorization"]


@pytest.mark.usefixtures("aws_env")
def test_no_region_is_refused_before_sending(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION")
    with pytest.raises(llmkit.InvalidRequestError, match="AWS_REGION"):
        llmkit.build_request(bedrock(), CONTEXT)


@pytest.mark.usefixtures("aws_env")
def test_without_botocore_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aws, "_botocore", lambda: None)
    aws.session.cache_clear()
    with pytest.raises(llmkit.MissingAPIKeyError) as info:
        llmkit.build_request(bedrock(), CONTEXT)
    assert "AWS_BEARER_TOKEN_BEDROCK" in str(info.value)
    assert "llmkit-transport[aws]" in str(info.value)
    # an API key needs no botocore at all
    assert llmkit.build_request(bedrock(), CONTEXT, api_key="k").headers["authorization"]


@pytest.mark.usefixtures("aws_env")
def test_without_aws_credentials_the_error_says_what_to_configure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    aws.session.cache_clear()
    with pytest.raises(llmkit.MissingAPIKeyError, match="configure AWS credentials"):
        llmkit.build_request(bedrock(), CONTEXT)


@pytest.mark.usefixtures("aws_env")
def test_sigv4_credentials_never_leak(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="llmkit")
    # the session token goes on the wire (x-amz-security-token): a proxy may echo it; the
    # secret key never leaves the process
    echo = {"throttlingException": {"message": f"slow down {TOKEN}"}}
    script = [
        FakeError(500, body={"message": f"bad {TOKEN}"}),
        FakeError(in_stream=True, body=echo),
    ]
    with FakeProvider(script, api="bedrock-converse", platform="bedrock") as fake:
        model = fake.model(SONNET)
        with pytest.raises(llmkit.ServerError) as first:
            llmkit.complete(model, CONTEXT, max_retries=0)
        with pytest.raises(llmkit.RateLimitError) as second:
            llmkit.complete(model, CONTEXT)
    for error in (first.value, second.value):
        text = f"{error} {error!r} {error.body!r} {error.partial!r}"
        assert TOKEN not in text, text
    llmkit_records = [r for r in caplog.records if r.name == "llmkit"]
    assert all(TOKEN not in r.getMessage() for r in llmkit_records)


# -- Vertex AI ---------------------------------------------------------------------------------

GOOGLE_VARS = (
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_API_KEY",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "GOOGLE_APPLICATION_CREDENTIALS",
)


@pytest.fixture
def google_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in GOOGLE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # google-auth must not probe a metadata server
    loader = google._adc
    loader.cache_clear()
    yield
    loader.cache_clear()


def vertex(model_id: str = "gemini-2.5-pro", api: str = "gemini") -> llmkit.Model:
    provider = "vertex" if api == "gemini" else "vertex-anthropic"
    return llmkit.Model(provider=provider, id=model_id, api=api)  # type: ignore[arg-type]


@pytest.mark.usefixtures("google_env")
def test_vertex_gemini_with_a_token_and_the_sdk_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    request = llmkit.build_request(vertex(), CONTEXT, api_key="ya29.token")
    assert str(request.url) == (
        "https://europe-west4-aiplatform.googleapis.com/v1/projects/my-proj/locations/"
        "europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    )
    assert request.headers["authorization"] == "Bearer ya29.token"
    assert "x-goog-api-key" not in request.headers
    # the global location is the host without a region prefix
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION")
    request = llmkit.build_request(vertex(), CONTEXT, api_key="ya29.token")
    assert str(request.url).startswith(
        "https://aiplatform.googleapis.com/v1/projects/my-proj/locations/global/publishers/"
    )


@pytest.mark.usefixtures("google_env")
def test_express_mode_is_an_api_key_on_the_global_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "AIzaSy-express")
    request = llmkit.build_request(vertex(), CONTEXT)
    assert str(request.url) == (
        "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro"
        ":streamGenerateContent?alt=sse"
    )
    assert request.headers["x-goog-api-key"] == "AIzaSy-express"
    assert "authorization" not in request.headers
    # a Google API key given as api_key is express mode even when a project is configured
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-proj")
    request = llmkit.build_request(vertex(), CONTEXT, api_key="AIzaSy-given")
    assert request.headers["x-goog-api-key"] == "AIzaSy-given" and "/projects/" not in str(
        request.url
    )


class _TokenEndpoint(BaseHTTPRequestHandler):
    calls: list[bytes] = []

    def do_POST(self) -> None:
        _TokenEndpoint.calls.append(self.rfile.read(int(self.headers["content-length"])))
        body = json.dumps({"access_token": "ya29.fresh", "expires_in": 3600}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.usefixtures("google_env")
def test_application_default_credentials_are_refreshed_through_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    oauth2 = pytest.importorskip("google.oauth2.credentials")
    server = HTTPServer(("127.0.0.1", 0), _TokenEndpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        credentials = oauth2.Credentials(
            token=None,
            refresh_token="refresh-me",
            token_uri=f"http://127.0.0.1:{server.server_port}/token",
            client_id="cid",
            client_secret="csecret",
        )
        monkeypatch.setattr(google, "_adc", lambda: (credentials, "adc-proj"))
        first = llmkit.build_request(
            vertex("claude-sonnet-4-5@20250929", "anthropic-messages"), CONTEXT
        )
        second = llmkit.build_request(vertex(), CONTEXT)
    finally:
        server.shutdown()
        server.server_close()
    assert first.headers["authorization"] == "Bearer ya29.fresh"
    assert second.headers["authorization"] == "Bearer ya29.fresh"
    assert len(_TokenEndpoint.calls) == 1  # valid until it expires: refreshed once
    assert b"refresh_token=refresh-me" in _TokenEndpoint.calls[0]
    assert "/projects/adc-proj/locations/global/" in str(first.url)


@pytest.mark.usefixtures("google_env")
def test_without_google_auth_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = google.importlib.import_module

    def without_google(name: str) -> Any:
        if name.startswith("google."):
            raise ModuleNotFoundError(name)
        return real(name)

    monkeypatch.setattr(google.importlib, "import_module", without_google)
    with pytest.raises(llmkit.MissingAPIKeyError, match=re.escape("llmkit-transport[google]")):
        llmkit.build_request(vertex(), CONTEXT)


@pytest.mark.usefixtures("google_env")
def test_no_adc_configured_says_how_to_set_it_up(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.auth")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/adc.json")
    with pytest.raises(llmkit.MissingAPIKeyError, match="application-default"):
        llmkit.build_request(vertex(), CONTEXT)


@pytest.mark.usefixtures("google_env")
def test_vertex_claude_is_sent_as_anthropic_vertex_sends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    seen: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        seen.update(url=str(request.url), headers=request.headers, body=json.loads(request.content))
        return httpx2.Response(
            500, json={"type": "error", "error": {"type": "api_error", "message": "x"}}
        )

    sdk = anthropic.AnthropicVertex(
        region="us-east5",
        project_id="proj",
        access_token="tok-123",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    with pytest.raises(anthropic.APIStatusError):
        sdk.messages.create(
            model="claude-sonnet-4-5@20250929",
            max_tokens=100,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    model = vertex("claude-sonnet-4-5@20250929", "anthropic-messages")
    request = llmkit.build_request(model, CONTEXT, api_key="tok-123", max_tokens=100)
    body = json.loads(request.content)
    assert str(request.url) == seen["url"].replace(":rawPredict", ":streamRawPredict")
    assert request.headers["authorization"] == seen["headers"]["authorization"]
    assert "x-api-key" not in request.headers and "model" not in body
    assert body.pop("anthropic_version") == "vertex-2023-10-16"  # docs/design.md §5
    seen["body"].pop("anthropic_version")
    assert body == {
        **seen["body"],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }


@pytest.mark.usefixtures("google_env")
def test_claude_on_vertex_refuses_an_express_key() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="OAuth access token"):
        llmkit.build_request(vertex("claude-x", "anthropic-messages"), CONTEXT, api_key="AIzaSy-k")


@pytest.mark.usefixtures("google_env")
def test_no_project_for_a_token_is_refused() -> None:
    model = vertex("claude-x", "anthropic-messages")
    with pytest.raises(llmkit.InvalidRequestError, match="ANTHROPIC_VERTEX_PROJECT_ID"):
        llmkit.build_request(model, CONTEXT, api_key="ya29.token")


@pytest.mark.usefixtures("google_env")
@pytest.mark.parametrize("api", ["gemini", "anthropic-messages"])
def test_vertex_over_a_socket_with_the_fake_and_no_token_leaks(
    api: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    token = "ya29.SECRET-token-0123456789"
    with FakeProvider(
        [FakeError(401, body={"error": {"message": f"bad {token}"}}), FakeReply("from vertex")],
        api=api,  # type: ignore[arg-type]
        platform="vertex",
        require_key=False,
    ) as fake:
        model = fake.model("m")
        with pytest.raises(llmkit.AuthenticationError) as info:
            llmkit.complete(model, CONTEXT, api_key=token)
        assert llmkit.complete(model, CONTEXT, api_key=token).text == "from vertex"
        received = fake.requests[-1]
    assert received.headers["authorization"] == f"Bearer {token}"
    assert "/v1/projects/fake-project/locations/us-central1/publishers/" in received.path
    assert token not in f"{info.value} {info.value!r} {info.value.body!r}"
    assert all(token not in r.getMessage() for r in caplog.records)
