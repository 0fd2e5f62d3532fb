"""Input no request can carry is refused before anything is sent, as an InvalidRequestError
(never an OverflowError, a UnicodeEncodeError, an httpx.InvalidURL, or a connection error that
is retried)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import llmkit
from tests.loopback import Canned, Loopback

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
