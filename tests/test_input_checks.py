"""Input no request can carry is refused before anything is sent, as an InvalidRequestError
(never an OverflowError, a UnicodeEncodeError, an httpx.InvalidURL, or a connection error that
is retried)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import llmkit
from tests.support.loopback import Canned, Loopback

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


def chat(url: str) -> llmkit.Model:
    return llmkit.Model(provider="vllm", id="m", api="openai-chat", base_url=url)


BAD_OPTIONS: list[dict[str, Any]] = [
    {"timeout": 1e300},
    {"timeout": float("inf")},
    {"timeout": llmkit.Timeouts(total=1e300)},
    {"headers": {"x-trace": "a\r\nx-injected: 1"}},
    {"headers": {"x-trace": "a\nb"}},
    {"headers": {"x-trace": "nul\x00"}},
    {"headers": {"bad name": "x"}},
    {"headers": {"x-name:": "x"}},
    {"headers": {"x-trace": "caf\u00e9"}},
]


@pytest.mark.parametrize("options", BAD_OPTIONS, ids=repr)
def test_a_value_no_request_can_carry_is_refused_before_sending(options: dict[str, Any]) -> None:
    with Loopback(lambda _: Canned(200, {}, b"")) as server:
        model = chat(server.url)
        with pytest.raises(llmkit.InvalidRequestError):
            llmkit.complete(model, CONTEXT, api_key="k", max_retries=3, **options)
        with pytest.raises(llmkit.InvalidRequestError):
            asyncio.run(llmkit.acomplete(model, CONTEXT, api_key="k", **options))
        with pytest.raises(llmkit.InvalidRequestError):
            llmkit.build_request(model, CONTEXT, api_key="k", **options)
    assert server.requests == []


def test_a_header_error_names_the_header_not_its_value() -> None:
    with pytest.raises(llmkit.InvalidRequestError) as info:
        llmkit.build_request(
            chat("http://127.0.0.1:9"), CONTEXT, api_key="k", headers={"x-key": "SECRET\n"}
        )
    assert "x-key" in str(info.value) and "SECRET" not in str(info.value)


@pytest.mark.parametrize("base_url", ["http://[::1", "http://127.0.0.1:abc/v1"])
@pytest.mark.parametrize("where", ["model", "option"])
def test_a_base_url_that_is_no_url_is_refused(base_url: str, where: str) -> None:
    if where == "model":
        model, options = chat(base_url), {}
    else:
        model, options = chat("http://127.0.0.1:9"), {"base_url": base_url}
    with pytest.raises(llmkit.InvalidRequestError, match="base_url"):
        llmkit.build_request(model, CONTEXT, api_key="k", **options)
    with pytest.raises(llmkit.InvalidRequestError, match="base_url"):
        llmkit.complete(model, CONTEXT, api_key="k", **options)


@pytest.mark.parametrize("name", ["abc\n", "abc\r\n", "\nabc", "a" * 65, ""])
def test_a_tool_name_with_a_final_newline_is_refused(name: str) -> None:
    with pytest.raises(llmkit.ToolDefinitionError):
        llmkit.Tool(name=name, description="d", parameters={"type": "object"})


# ------------------------------------------------------------------ conversations no API takes

WIRES: dict[str, llmkit.Model] = {
    "openai-chat": llmkit.Model(provider="openai", id="gpt-4.1", api="openai-chat"),
    "openai-responses": llmkit.Model(provider="openai", id="gpt-4.1", api="openai-responses"),
    "anthropic-messages": llmkit.Model(
        provider="anthropic", id="claude-x", api="anthropic-messages"
    ),
    "gemini": llmkit.Model(provider="google", id="gemini-x", api="gemini"),
    "bedrock-converse": llmkit.Model(
        provider="bedrock",
        id="anthropic.claude-x",
        api="bedrock-converse",
        base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    ),
}


@pytest.mark.parametrize("wire", sorted(WIRES))
@pytest.mark.parametrize("system", [None, "You are terse."])
def test_an_empty_or_system_only_conversation_is_refused(wire: str, system: str | None) -> None:
    context = llmkit.Context(system=system, messages=[])
    with pytest.raises(llmkit.InvalidRequestError, match="no messages"):
        llmkit.build_request(WIRES[wire], context, api_key="k")


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_result_answering_no_call_is_sent_as_text_and_reported(wire: str) -> None:
    stray = llmkit.ToolResultMessage(
        tool_call_id="call_gone", tool_name="lookup", content=[llmkit.TextPart(text="42")]
    )
    context = llmkit.Context(messages=[llmkit.user("hi"), stray, llmkit.user("and?")])
    request = llmkit.build_request(WIRES[wire], context, api_key="k")
    body = request.content.decode()
    assert "[result of tool call call_gone (lookup)]" in body and "42" in body
    for marker in ('"role":"tool"', '"tool_result"', '"function_call_output"', '"toolResult"'):
        assert marker not in body, marker
    assert "functionResponse" not in body
    [d] = [d for d in request.extensions["llmkit.diagnostics"] if d.kind == "orphan_tool_call"]
    assert d.tool_call_id == "call_gone" and d.details["result_without_call"] is True


@pytest.mark.parametrize("wire", ["anthropic-messages", "bedrock-converse"])
def test_an_empty_user_message_is_refused_where_empty_text_cannot_be_sent(wire: str) -> None:
    context = llmkit.Context(messages=[llmkit.user("")])
    with pytest.raises(llmkit.InvalidRequestError, match="nothing this API can send"):
        llmkit.build_request(WIRES[wire], context, api_key="k")


# ---------------------------------------------------------------------- images and documents


@pytest.mark.parametrize(
    "fields",
    [
        {"data": "not base64!", "media_type": "image/png"},
        {"data": "iVBORw0KGgo\n", "media_type": "image/png"},
        {"data": "iVBORw0KGgo=", "media_type": "text/html"},
        {"url": "https://example.com/a.png", "media_type": "application/javascript"},
        {"url": "javascript:alert(1)"},
        {"url": "data:text/html;base64,PHNjcmlwdD4="},
        {"url": "file:///etc/passwd"},
    ],
    ids=repr,
)
def test_an_image_no_provider_takes_is_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        llmkit.ImagePart(**fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"url": "file:///etc/passwd"},
        {"url": "javascript:alert(1)"},
        {"data": "%PDF-1.4 not base64"},
    ],
    ids=repr,
)
def test_a_document_no_provider_takes_is_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        llmkit.DocumentPart(**fields)


def test_images_and_documents_providers_take_are_kept() -> None:
    llmkit.ImagePart(data="iVBORw0KGgo=", media_type="image/png")
    llmkit.ImagePart(url="https://example.com/a.png")
    llmkit.ImagePart(url="s3://bucket/cat.jpg", media_type="image/jpeg")  # Bedrock
    llmkit.DocumentPart(url="https://example.com/a.pdf")
    llmkit.DocumentPart(data="JVBERi0xLjQ=")


# ------------------------------------------------------------------- response_format schemas


def _self_referencing() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["child"] = schema
    return schema


@pytest.mark.parametrize(
    "schema",
    [
        {"type": 5},
        {"type": "strin"},
        {"type": "object", "required": "a"},
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        _self_referencing(),
    ],
    ids=["type-5", "strin", "required-str", "nested-strin", "self-referencing"],
)
def test_a_response_format_schema_is_checked_like_a_tool_schema(schema: dict[str, Any]) -> None:
    with Loopback(lambda _: Canned(200, {}, b"")) as server:
        with pytest.raises(llmkit.InvalidRequestError, match="response_format"):
            llmkit.complete(chat(server.url), CONTEXT, api_key="k", response_format=schema)
        with pytest.raises(llmkit.InvalidRequestError, match="response_format"):
            llmkit.build_request(chat(server.url), CONTEXT, api_key="k", response_format=schema)
    assert server.requests == []


def test_a_valid_response_format_schema_is_sent() -> None:
    node = {"type": "object", "properties": {"label": {"type": "string"}}}
    schema = {"type": "object", "properties": {"a": node, "b": node}, "required": ["a"]}
    request = llmkit.build_request(chat("http://127.0.0.1:9"), CONTEXT, response_format=schema)
    assert b"json_schema" in request.content  # a shared (not self-referencing) dict is fine


# ------------------------------------------------------------------------------- max_tokens


@pytest.mark.parametrize("wire", ["openai-chat", "anthropic-messages", "gemini"])
def test_max_tokens_above_the_catalogue_limit_is_clamped_and_reported(wire: str) -> None:
    model = WIRES[wire].model_copy(update={"max_output_tokens": 32_768})
    request = llmkit.build_request(model, CONTEXT, api_key="k", max_tokens=10**12)
    body = request.content.decode()
    assert "32768" in body and str(10**12) not in body
    [d] = [d for d in request.extensions["llmkit.diagnostics"] if d.kind == "option_unsupported"]
    assert d.details == {"option": "max_tokens", "given": 10**12, "sent": 32_768}
    within = llmkit.build_request(model, CONTEXT, api_key="k", max_tokens=1000)
    assert not [
        d for d in within.extensions["llmkit.diagnostics"] if d.kind == "option_unsupported"
    ]


@pytest.mark.parametrize(
    ("wire", "megabytes"),
    [("anthropic-messages", 6), ("bedrock-converse", 4), ("openai-chat", 21), ("gemini", 21)],
)
def test_an_image_larger_than_the_api_takes_is_refused(wire: str, megabytes: int) -> None:
    data = "A" * (megabytes * 1024 * 1024 // 3 * 4)
    image = llmkit.ImagePart(data=data, media_type="image/png")
    context = llmkit.Context(messages=[llmkit.UserMessage(content=[image])])
    with pytest.raises(llmkit.InvalidRequestError, match="takes images up to"):
        llmkit.build_request(WIRES[wire], context, api_key="k")
    small = llmkit.ImagePart(data="A" * 4000, media_type="image/png")
    llmkit.build_request(
        WIRES[wire], llmkit.Context(messages=[llmkit.user("x", [small])]), api_key="k"
    )
