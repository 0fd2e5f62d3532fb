"""Azure OpenAI (``provider="azure"``, Chat and Responses) and Claude on Microsoft Foundry
(``provider="foundry-anthropic"``): requests equal to the official SDK clients' own
(``openai.OpenAI`` on the v1 endpoint, ``openai.AzureOpenAI`` on the deployment form,
``anthropic.AnthropicFoundry``), captured with a mock transport; Entra ID tokens from a fake
credential, never sent within 60 s of their expiry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anthropic
import openai
import pytest

import llmkit
from llmkit._auth import azure

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])
RESOURCE = "https://res.openai.azure.com"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_ENDPOINT",
        "ANTHROPIC_FOUNDRY_API_KEY",
        "ANTHROPIC_FOUNDRY_BASE_URL",
        "ANTHROPIC_FOUNDRY_RESOURCE",
    ):
        monkeypatch.delenv(name, raising=False)
    azure._tokens.clear()
    yield
    azure._tokens.clear()


def _capture() -> tuple[dict[str, Any], Any]:
    """What the SDK sends, through a mock transport (the SDKs' HTTP client is httpx2)."""
    httpx2 = pytest.importorskip("httpx2")
    seen: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        seen["url"] = str(request.url)
        seen["headers"] = dict(request.headers)
        seen["body"] = json.loads(request.content)
        return httpx2.Response(400, json={"error": {"message": "captured"}})

    return seen, httpx2.Client(transport=httpx2.MockTransport(handler))


def _llmkit(model: llmkit.Model, **options: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    request = llmkit.build_request(model, CONTEXT, **options)
    return str(request.url), dict(request.headers), json.loads(request.content)


def _chat_sdk(client: openai.OpenAI, model: str) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "hi"}],
            max_completion_tokens=100,
            stream=True,
            stream_options={"include_usage": True},
        )


def _responses_sdk(client: openai.OpenAI, model: str) -> None:
    with pytest.raises(openai.BadRequestError):
        client.responses.create(
            model=model,
            input=[{"role": "user", "content": "hi"}],
            max_output_tokens=100,
            stream=True,
            store=False,
        )


def _model(api: str, base_url: str = RESOURCE, id: str = "my-deployment") -> llmkit.Model:
    return llmkit.Model(provider="azure", id=id, api=api, base_url=base_url)  # type: ignore[arg-type]


def _same_body(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    # llmkit's body holds what the SDK call was given, and nothing of a different value.
    for key, value in theirs.items():
        assert ours[key] == value, key


@pytest.mark.parametrize("base_url", [RESOURCE, RESOURCE + "/openai/v1", RESOURCE + "/openai/v1/"])
def test_v1_chat_is_what_openai_with_the_v1_base_url_sends(base_url: str) -> None:
    seen, http = _capture()
    _chat_sdk(
        openai.OpenAI(
            base_url=RESOURCE + "/openai/v1/", api_key="k", http_client=http, max_retries=0
        ),
        "my-deployment",
    )
    url, headers, body = _llmkit(_model("openai-chat", base_url), api_key="k", max_tokens=100)
    assert url == seen["url"] == RESOURCE + "/openai/v1/chat/completions"
    _same_body(body, seen["body"])
    assert headers["api-key"] == "k" and "authorization" not in headers


def test_v1_responses_is_what_openai_with_the_v1_base_url_sends() -> None:
    seen, http = _capture()
    _responses_sdk(
        openai.OpenAI(
            base_url=RESOURCE + "/openai/v1/", api_key="k", http_client=http, max_retries=0
        ),
        "my-deployment",
    )
    url, headers, body = _llmkit(_model("openai-responses"), api_key="k", max_tokens=100)
    assert url == seen["url"] == RESOURCE + "/openai/v1/responses"
    _same_body(body, seen["body"])
    assert headers["api-key"] == "k"


def test_the_endpoint_and_key_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", RESOURCE + "/")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "env-key")
    model = llmkit.Model(provider="azure", id="d", api="openai-chat")
    assert model.platform == "azure" and model.base_url == ""
    url, headers, _ = _llmkit(model)
    assert url == RESOURCE + "/openai/v1/chat/completions" and headers["api-key"] == "env-key"


def test_no_endpoint_is_a_clear_error() -> None:
    model = llmkit.Model(provider="azure", id="d", api="openai-chat")
    with pytest.raises(llmkit.InvalidRequestError, match="AZURE_OPENAI_ENDPOINT"):
        llmkit.build_request(model, CONTEXT, api_key="k")


@pytest.mark.parametrize(
    ("base_url", "deployment"),
    [
        (RESOURCE + "/openai/deployments/my-deployment?api-version=2025-04-01-preview", None),
        (RESOURCE + "?api-version=2025-04-01-preview", None),
        (RESOURCE + "/openai?api-version=2025-04-01-preview", None),
    ],
)
def test_deployment_chat_is_what_azure_openai_sends(base_url: str, deployment: str | None) -> None:
    seen, http = _capture()
    sdk = openai.AzureOpenAI(
        azure_endpoint=RESOURCE,
        azure_deployment="my-deployment",
        api_version="2025-04-01-preview",
        api_key="k",
        http_client=http,
        max_retries=0,
    )
    _chat_sdk(sdk, "my-deployment")
    url, headers, body = _llmkit(_model("openai-chat", base_url), api_key="k", max_tokens=100)
    assert url == seen["url"]
    assert (
        url
        == RESOURCE
        + "/openai/deployments/my-deployment/chat/completions?api-version=2025-04-01-preview"
    )
    assert headers["api-key"] == seen["headers"]["api-key"] == "k"
    _same_body(body, seen["body"])


def test_a_deployment_path_without_a_version_takes_the_profiles_version() -> None:
    url, _, _ = _llmkit(_model("openai-chat", RESOURCE + "/openai/deployments/dep"), api_key="k")
    assert url == RESOURCE + "/openai/deployments/dep/chat/completions?api-version=2024-10-21"


def test_deployment_responses_is_what_azure_openai_sends() -> None:
    seen, http = _capture()
    sdk = openai.AzureOpenAI(
        azure_endpoint=RESOURCE,
        azure_deployment="my-deployment",
        api_version="2025-04-01-preview",
        api_key="k",
        http_client=http,
        max_retries=0,
    )
    _responses_sdk(sdk, "my-deployment")
    base = RESOURCE + "/openai/deployments/my-deployment?api-version=2025-04-01-preview"
    url, headers, body = _llmkit(_model("openai-responses", base), api_key="k", max_tokens=100)
    assert url == seen["url"] == RESOURCE + "/openai/responses?api-version=2025-04-01-preview"
    assert headers["api-key"] == seen["headers"]["api-key"]
    _same_body(body, seen["body"])


# -- Microsoft Entra ID ---------------------------------------------------------------------


@dataclass
class _AccessToken:
    token: str
    expires_on: int


class _Credential:
    """A stand-in for DefaultAzureCredential: a new token per call, expiring in an hour."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock
        self.scopes: list[str] = []

    def get_token(self, scope: str) -> _AccessToken:
        self.scopes.append(scope)
        return _AccessToken(f"tok-{len(self.scopes)}", int(self.clock[0]) + 3600)


@pytest.fixture
def entra(monkeypatch: pytest.MonkeyPatch) -> tuple[_Credential, list[float]]:
    clock = [1_000_000.0]
    credential = _Credential(clock)
    monkeypatch.setattr(azure, "_credential", lambda: credential)
    monkeypatch.setattr(azure, "_now", lambda: clock[0])
    return credential, clock


def test_without_a_key_an_entra_token_is_sent_as_azure_openai_sends_it(
    entra: tuple[_Credential, list[float]],
) -> None:
    credential, _ = entra
    seen, http = _capture()
    sdk = openai.AzureOpenAI(
        azure_endpoint=RESOURCE,
        api_version="2025-04-01-preview",
        azure_ad_token_provider=lambda: "tok-1",
        http_client=http,
        max_retries=0,
    )
    _chat_sdk(sdk, "my-deployment")
    base = RESOURCE + "?api-version=2025-04-01-preview"
    url, headers, _ = _llmkit(_model("openai-chat", base), max_tokens=100)
    assert url == seen["url"]
    assert headers["authorization"] == seen["headers"]["authorization"] == "Bearer tok-1"
    assert "api-key" not in headers
    assert credential.scopes == ["https://cognitiveservices.azure.com/.default"]


def test_a_token_is_never_sent_within_60_seconds_of_its_expiry(
    entra: tuple[_Credential, list[float]],
) -> None:
    credential, clock = entra
    model = _model("openai-chat")
    assert _llmkit(model)[1]["authorization"] == "Bearer tok-1"
    clock[0] += 3600 - 61  # 61 s left: still good
    assert _llmkit(model)[1]["authorization"] == "Bearer tok-1"
    clock[0] += 2  # 59 s left: a new one first
    assert _llmkit(model)[1]["authorization"] == "Bearer tok-2"
    assert _llmkit(model)[1]["authorization"] == "Bearer tok-2"
    assert len(credential.scopes) == 2


def test_the_token_is_redacted_like_a_key(entra: tuple[_Credential, list[float]]) -> None:
    request = llmkit.build_request(_model("openai-chat"), CONTEXT)
    assert "tok-1" not in repr(request)


def test_without_azure_identity_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent() -> None:
        raise ModuleNotFoundError("No module named 'azure'")

    monkeypatch.setattr(azure, "_credential", absent)
    with pytest.raises(llmkit.MissingAPIKeyError, match=r"llmkit-transport\[azure\]"):
        llmkit.build_request(_model("openai-chat"), CONTEXT)


def test_a_credential_failure_is_an_authentication_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Failing:
        def get_token(self, scope: str) -> _AccessToken:
            raise RuntimeError("no az login")

    monkeypatch.setattr(azure, "_credential", Failing)
    with pytest.raises(llmkit.AuthenticationError, match="Entra ID"):
        llmkit.build_request(_model("openai-chat"), CONTEXT)


# -- Claude on Microsoft Foundry ------------------------------------------------------------


def _foundry_sdk(client: anthropic.AnthropicFoundry) -> None:
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(
            model="claude-sonnet-5",
            max_tokens=100,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )


def _foundry_model() -> llmkit.Model:
    return llmkit.get_model("foundry-anthropic", "claude-sonnet-5")


def test_foundry_is_what_anthropic_foundry_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    seen, http = _capture()
    _foundry_sdk(
        anthropic.AnthropicFoundry(api_key="k", resource="res", http_client=http, max_retries=0)
    )
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_RESOURCE", "res")
    url, headers, body = _llmkit(_foundry_model(), api_key="k", max_tokens=100)
    assert url == seen["url"] == "https://res.services.ai.azure.com/anthropic/v1/messages"
    for name in ("x-api-key", "api-key", "anthropic-version"):
        assert headers[name] == seen["headers"][name], name
    assert "authorization" not in headers
    _same_body({**body, "messages": [{"role": "user", "content": "hi"}]}, seen["body"])


def test_foundry_keeps_a_callers_anthropic_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_RESOURCE", "res")
    _, headers, _ = _llmkit(
        _foundry_model(), api_key="k", headers={"Anthropic-Version": "2023-06-01"}
    )
    assert headers["anthropic-version"] == "2023-06-01"  # the caller's, once (in any case)
    assert azure.FOUNDRY_ANTHROPIC_VERSION != "2023-06-01"  # else this test proves nothing


@pytest.mark.parametrize(
    "base_url",
    ["https://res.services.ai.azure.com/anthropic/", "https://res.services.ai.azure.com/anthropic"],
)
def test_foundry_base_url_from_the_model_or_the_environment(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = "https://res.services.ai.azure.com/anthropic/v1/messages"
    model = _foundry_model().model_copy(update={"base_url": base_url})
    assert _llmkit(model, api_key="k")[0] == expected
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_BASE_URL", base_url)
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_API_KEY", "env-key")
    url, headers, _ = _llmkit(_foundry_model())
    assert url == expected and headers["x-api-key"] == "env-key"


def test_foundry_without_a_key_sends_an_entra_token(
    entra: tuple[_Credential, list[float]], monkeypatch: pytest.MonkeyPatch
) -> None:
    credential, _ = entra
    seen, http = _capture()
    sdk = anthropic.AnthropicFoundry(
        azure_ad_token_provider=lambda: "tok-1", resource="res", http_client=http, max_retries=0
    )
    _foundry_sdk(sdk)
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_RESOURCE", "res")
    url, headers, _ = _llmkit(_foundry_model(), max_tokens=100)
    assert url == seen["url"]
    assert headers["authorization"] == seen["headers"]["authorization"] == "Bearer tok-1"
    assert headers["anthropic-version"] == seen["headers"]["anthropic-version"]
    assert "x-api-key" not in headers and "api-key" not in headers
    assert credential.scopes == ["https://ai.azure.com/.default"]


def test_foundry_without_an_endpoint_is_a_clear_error() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="ANTHROPIC_FOUNDRY_RESOURCE"):
        llmkit.build_request(_foundry_model(), CONTEXT, api_key="k")


# -- end to end against the fake provider -------------------------------------------------


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_the_fake_provider_speaks_azure_end_to_end(api: str) -> None:
    from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

    call = FakeToolCall("get_weather", {"city": "Oslo"})
    with FakeProvider(
        [FakeReply(tool_calls=[call]), FakeReply("Sunny.")], api=api, platform="azure"
    ) as fake:  # type: ignore[arg-type]
        model = fake.model("claude-sonnet-5" if api == "anthropic-messages" else "my-deployment")
        assert model.platform == "azure"
        first = llmkit.complete(model, CONTEXT, api_key=fake.api_key, max_retries=0)
        assert first.tool_calls[0].name == "get_weather"
        with llmkit.stream(model, CONTEXT, api_key=fake.api_key, max_retries=0) as events:
            kinds = [type(event).__name__ for event in events]
        assert kinds[0] == "Start" and kinds[-1] == "Done" and "TextDelta" in kinds
        path = fake.requests[0].path
        sent = fake.requests[0].headers
    if api == "anthropic-messages":
        assert path == "/anthropic/v1/messages" and sent["x-api-key"] == sent["api-key"]
    else:
        assert path.startswith("/openai/v1/") and "authorization" not in sent
        assert sent["api-key"] == "fake-key"


def test_the_fake_provider_serves_the_deployment_form_and_entra_tokens(
    entra: tuple[_Credential, list[float]],
) -> None:
    from llmkit.testing import FakeProvider, FakeReply

    with FakeProvider([FakeReply("Hi.")], platform="azure", api_key="tok-1") as fake:
        base = fake.base_url.replace(
            "/openai/v1", "/openai/deployments/dep?api-version=2025-04-01-preview"
        )
        model = fake.model("gpt-4.1").model_copy(update={"base_url": base})
        reply = llmkit.complete(model, CONTEXT, max_retries=0)  # no key: an Entra token
        assert reply.content[0].text == "Hi."  # type: ignore[union-attr]
        assert (
            fake.requests[0].path
            == "/openai/deployments/dep/chat/completions?api-version=2025-04-01-preview"
        )
        assert fake.requests[0].headers["authorization"] == "Bearer tok-1"


@pytest.mark.parametrize("source", ["option", "environment"])
def test_a_key_no_header_can_carry_is_refused_on_azure_too(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "azure-key-ThisIsTheWholeKey0123\n"
    options: dict[str, Any] = {}
    if source == "option":
        options["api_key"] = key
    else:
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", key)
    with pytest.raises(llmkit.InvalidRequestError, match="line break") as info:
        llmkit.build_request(_model("openai-chat"), CONTEXT, **options)
    assert "ThisIsTheWholeKey" not in str(info.value)
    assert ("AZURE_OPENAI_API_KEY" if source == "environment" else "api_key") in str(info.value)
