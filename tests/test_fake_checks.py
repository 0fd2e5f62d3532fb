"""The fake provider refuses what the real APIs refuse before generating (``llmkit._fake.checks``),
with a 400 in the wire's error shape and no scripted reply used, so users' tests catch those
requests: documents to a model that cannot read them, Anthropic's cache_control rules, OpenAI's
``filename`` with ``file_data``, unknown hosted-tool types. And what llmkit builds passes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply

PDF = b"%PDF-1.7\n%fake\n"
PATHS = {
    "anthropic-messages": "/messages",
    "openai-chat": "/chat/completions",
    "openai-responses": "/responses",
    "gemini": "/models/fake-model:generateContent",
}


def post(fake: FakeProvider, body: dict[str, Any]) -> httpx.Response:
    headers = {
        "x-api-key": fake.api_key,
        "authorization": f"Bearer {fake.api_key}",
        "x-goog-api-key": fake.api_key,
    }
    return httpx.post(fake.base_url + PATHS[fake.api], json=body, headers=headers)


def anthropic(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "model": "fake-model",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": list(blocks)}],
        **extra,
    }


def text(t: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": t, **extra}


EPHEMERAL = {"type": "ephemeral"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (anthropic(text("", cache_control=EPHEMERAL)), "cannot be set for empty text blocks"),
        (
            anthropic(
                *(text(f"t{i}", cache_control=EPHEMERAL) for i in range(4)), cache_control=EPHEMERAL
            ),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (
            anthropic(
                text("a", cache_control=EPHEMERAL),
                text("b", cache_control={"type": "ephemeral", "ttl": "1h"}),
            ),
            "must not come after",
        ),
        (
            anthropic(text("x"), tools=[{"type": "web_search_2099", "name": "web_search"}]),
            "Input tag 'web_search_2099' found using 'type' does not match",
        ),
    ],
)
def test_anthropic_cache_and_tool_rules(body: dict[str, Any], message: str) -> None:
    with FakeProvider([FakeReply("never sent")], api="anthropic-messages") as fake:
        response = post(fake, body)
        assert response.status_code == 400
        error = response.json()
        assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
        assert message in error["error"]["message"]
        ok = post(fake, anthropic(text("x", cache_control=EPHEMERAL)))  # the script is intact
        assert ok.status_code == 200 and ok.json()["content"][0]["text"] == "never sent"


@pytest.mark.parametrize("api", sorted(PATHS))
def test_a_pdf_to_a_model_that_cannot_read_one_is_a_400(api: str) -> None:
    context = llmkit.Context(messages=[llmkit.user("read", documents=[PDF])])
    with FakeProvider([FakeReply("ok")], api=api, input=("text",)) as fake:  # type: ignore[arg-type]
        model = fake.model(input=["text", "pdf"])  # the client believes it can
        with pytest.raises(llmkit.APIError) as info:
            llmkit.complete(model, context, api_key=fake.api_key, max_retries=0)
        assert info.value.status == 400
        assert "pdf" in str(info.value).lower() or "file" in str(info.value).lower()
        # what llmkit sends to a model it knows is text-only passes: a placeholder, reported
        reply = llmkit.complete(fake.model(), context, api_key=fake.api_key)
        assert reply.text == "ok" and "document_omitted" in [d.kind for d in reply.diagnostics]


@pytest.mark.parametrize(
    ("api", "body", "message"),
    [
        (
            "openai-chat",
            {
                "model": "m",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "file",
                                "file": {"file_data": "data:application/pdf;base64,AA=="},
                            }
                        ],
                    }
                ],
            },
            "Missing required parameter: 'messages[0].content[0].file.filename'",
        ),
        (
            "openai-responses",
            {
                "model": "m",
                "input": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "input_file", "file_data": "data:application/pdf;base64,AA=="}
                        ],
                    }
                ],
            },
            "Missing required parameter: 'input[0].content[0].filename'",
        ),
        (
            "openai-responses",
            {"model": "m", "input": "x", "tools": [{"type": "web_searching"}]},
            "Invalid value: 'web_searching'",
        ),
        (
            "openai-chat",
            {"model": "m", "messages": [], "tools": [{"type": "web_search"}]},
            "Invalid value",
        ),
        (
            "gemini",
            {
                "contents": [{"role": "user", "parts": [{"text": "x"}]}],
                "tools": [{"google_searching": {}}],
            },
            'Unknown name "google_searching"',
        ),
    ],
)
def test_openai_and_gemini_rules(api: str, body: dict[str, Any], message: str) -> None:
    with FakeProvider(api=api) as fake:  # type: ignore[arg-type]
        response = post(fake, body)
        assert response.status_code == 400
        error = response.json()["error"]
        assert message in (error if isinstance(error, str) else error["message"])


@pytest.mark.parametrize("api", sorted(PATHS))
def test_what_llmkit_builds_with_every_feature_passes(api: str) -> None:
    hosted = {
        "anthropic-messages": {"type": "web_search_20250305", "name": "web_search"},
        "openai-chat": {"type": "custom", "custom": {"name": "grammar"}},
        "openai-responses": {"type": "web_search"},
        "gemini": {"google_search": {}},
    }[api]
    messages: list[Any] = []
    for i in range(6):  # more cache points than Anthropic takes: llmkit keeps the latest
        messages.append(
            llmkit.UserMessage(content=[llmkit.TextPart(text=f"q{i}"), llmkit.CachePoint()])
        )
        messages.append(llmkit.AssistantMessage(content=[llmkit.TextPart(text=f"a{i}")]))
    messages.append(llmkit.user("last", documents=[PDF, llmkit.DocumentPart(text="notes")]))
    context = llmkit.Context(messages=messages, tools=[llmkit.ProviderTool(api, hosted)])
    with FakeProvider([FakeReply("fine")], api=api) as fake:  # type: ignore[arg-type]
        model = fake.model(input=["text", "image", "pdf"], cache_points=True)
        reply = llmkit.complete(model, context, api_key=fake.api_key, cache="long")
    assert reply.text == "fine"
