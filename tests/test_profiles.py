"""Provider profiles (docs/servers.md): for each server, the request llmkit builds with its flags
applied, checked against what that server documents; the key read from its variable; a
missing key named in the error; docs/servers.md generated from the same data."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit._models import provider_names

ROOT = Path(__file__).resolve().parent.parent
TOOL = llmkit.Tool(name="f", parameters={"type": "object", "properties": {"a": {"type": "string"}}})
CONTEXT = llmkit.Context(system="S", messages=[llmkit.user("hi")], tools=[TOOL])

# What each server documents for the fields llmkit varies (see docs/servers.md for sources):
# (url suffix, max-tokens field, auth header, stream_options sent, store sent)
DOCUMENTED: dict[str, tuple[str, str, str, bool, bool]] = {
    "openai": (
        "https://api.openai.com/v1/chat/completions",
        "max_completion_tokens",
        "authorization",
        True,
        True,
    ),
    "azure": (
        "https://res.openai.azure.com/openai/v1/chat/completions",  # the v1 endpoint
        "max_completion_tokens",
        "api-key",
        True,
        False,
    ),
    "gemini-openai": (
        "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "deepseek": (
        "https://api.deepseek.com/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "groq": (
        "https://api.groq.com/openai/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "mistral": (
        "https://api.mistral.ai/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "openrouter": (
        "https://openrouter.ai/api/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "xai": ("https://api.x.ai/v1/chat/completions", "max_tokens", "authorization", True, False),
    "together": (
        "https://api.together.xyz/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "fireworks": (
        "https://api.fireworks.ai/inference/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "cerebras": (
        "https://api.cerebras.ai/v1/chat/completions",
        "max_completion_tokens",
        "authorization",
        True,
        False,
    ),
    "ollama": (
        "http://127.0.0.1:11434/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "vllm": (
        "http://127.0.0.1:8000/v1/chat/completions",
        "max_completion_tokens",  # vLLM 0.33.0 deprecates max_tokens (docs/servers.md)
        "authorization",
        True,
        False,
    ),
    "llamacpp": (
        "http://127.0.0.1:8080/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
    "lmstudio": (
        "http://127.0.0.1:1234/v1/chat/completions",
        "max_tokens",
        "authorization",
        True,
        False,
    ),
}
LOCAL = {"ollama", "vllm", "llamacpp", "lmstudio"}


def make(provider: str, **fields: Any) -> llmkit.Model:
    base = "https://res.openai.azure.com" if provider == "azure" else ""
    return llmkit.Model(provider=provider, id="gpt-4.1", api="openai-chat", base_url=base, **fields)


def test_every_chat_profile_is_covered() -> None:
    # the cloud platforms' profiles are tested in tests/test_auth.py
    others = {
        "anthropic", "google", "fake", "bedrock", "vertex", "vertex-anthropic", "foundry-anthropic"
    }  # fmt: skip
    chat = {p for p in provider_names() if p not in others}
    assert chat == set(DOCUMENTED)


@pytest.mark.parametrize("provider", sorted(DOCUMENTED))
def test_profile_request(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    url, max_field, auth, stream_options, store = DOCUMENTED[provider]
    model = make(provider)
    assert model.api_key_env
    monkeypatch.setenv(model.api_key_env, "key-from-env-123")
    request = llmkit.build_request(model, CONTEXT, max_tokens=64)
    body = json.loads(request.content)
    assert str(request.url) == url
    assert request.headers[auth] == (
        "key-from-env-123" if auth == "api-key" else "Bearer key-from-env-123"
    )
    assert body[max_field] == 64
    assert ("stream_options" in body) is stream_options
    assert ("store" in body) is store
    assert "strict" not in body["tools"][0]["function"]


@pytest.mark.parametrize("provider", sorted(DOCUMENTED))
def test_missing_key_is_named_or_not_needed(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = make(provider)
    assert model.api_key_env
    monkeypatch.delenv(model.api_key_env, raising=False)
    if provider in LOCAL:
        request = llmkit.build_request(model, CONTEXT)
        assert "authorization" not in request.headers
    else:
        if model.platform == "azure":  # no key: Entra ID, here without azure-identity
            from llmkit._auth import azure

            def absent() -> None:
                raise ModuleNotFoundError("azure")

            monkeypatch.setattr(azure, "_credential", absent)
        with pytest.raises(llmkit.MissingAPIKeyError, match=model.api_key_env):
            llmkit.build_request(model, CONTEXT)


def test_custom_provider_on_a_known_host_gets_its_flags() -> None:
    m = llmkit.Model(
        provider="my-proxy", id="x", api="openai-chat", base_url="https://api.deepseek.com/v1"
    )
    assert (m.compat.thinking_format, m.api_key_env) == ("deepseek", "DEEPSEEK_API_KEY")
    local = llmkit.Model(
        provider="box", id="x", api="openai-chat", base_url="http://localhost:11434/v1"
    )
    assert local.compat.max_tokens_field == "max_tokens" and local.api_key_required is False
    unknown = llmkit.Model(
        provider="box", id="x", api="openai-chat", base_url="http://10.0.0.5:9000/v1"
    )
    assert unknown.compat == llmkit.OpenAIChatCompat()


def test_flags_override_field_by_field() -> None:
    m = make("mistral", compat={"requires_assistant_after_tool_result": False})
    assert m.compat.requires_assistant_after_tool_result is False
    assert m.compat.tool_call_id_format == "mistral"  # the rest of the profile stays
    with pytest.raises(ValueError):
        make("mistral", compat={"no_such_flag": True})


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("openai", {"reasoning_effort": "high"}),
        ("deepseek", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
        ("openrouter", {"reasoning": {"effort": "high"}}),
        ("vllm", {"chat_template_kwargs": {"enable_thinking": True}}),
    ],
)
def test_thinking_request_format_per_server(provider: str, expected: dict[str, Any]) -> None:
    model = make(provider, reasoning=True)
    body = json.loads(llmkit.build_request(model, CONTEXT, api_key="k", reasoning="high").content)
    assert {k: body[k] for k in expected} == expected


def test_servers_doc_is_generated_from_the_profiles() -> None:
    spec = importlib.util.spec_from_file_location("gen_servers", ROOT / "docs" / "gen_servers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "servers.md").read_text(encoding="utf-8") == module.render()


def test_each_wire_has_its_own_flags_type() -> None:
    # The flags of a Model are its wire's (docs/design.md §3): a Responses model holds the profile's
    # flags that wire reads, not the Chat Completions ones it never sends.
    chat = llmkit.Model(provider="openai", id="x", api="openai-chat")
    responses = llmkit.Model(provider="openai", id="x", api="openai-responses")
    assert type(chat.compat) is llmkit.OpenAIChatCompat
    assert type(responses.compat) is llmkit.OpenAIResponsesCompat
    assert responses.compat.supports_prompt_cache is True  # from the openai profile
    assert not hasattr(responses.compat, "supports_developer_role")
    strictless = llmkit.Model(
        provider="vllm", id="x", api="openai-responses", compat={"supports_strict": False}
    )
    assert strictless.compat.supports_strict is False
    with pytest.raises(ValueError):  # a flag the wire never reads is refused, not ignored
        llmkit.Model(
            provider="x", id="x", api="openai-responses", compat={"max_tokens_field": "max_tokens"}
        )
    claude = llmkit.Model(provider="anthropic", id="claude-x", compat={"thinking": "budget"})
    assert claude.compat == llmkit.AnthropicCompat(thinking="budget")
    assert llmkit.Model(provider="google", id="gemini-x").compat is None
    with pytest.raises(ValueError):
        llmkit.Model(provider="google", id="gemini-x", compat={"supports_strict": False})


def test_the_older_anthropic_spelling_still_works() -> None:
    old = llmkit.Model(provider="anthropic", id="claude-x", anthropic={"supports_sampling": False})
    assert old.compat == llmkit.AnthropicCompat(supports_sampling=False)
    with pytest.warns(DeprecationWarning, match="Model.compat"):
        assert old.anthropic == old.compat
