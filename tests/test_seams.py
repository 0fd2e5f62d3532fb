"""Where the caller's code meets llmkit.

``context`` as a ``str`` or a sequence of messages, anything else refused naming ``context``;
``build_request(stream=False)`` paired with ``parse_response``; the send-only options refused
by ``build_request``; "did you mean" for a misspelt option. On every wire, over a real loopback
server that counts requests: a refused input sends nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply

WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")
SEND_ONLY: dict[str, Any] = {
    "timeout": 3,
    "max_retries": 1,
    "max_retry_delay": 1.0,
    "client": httpx.Client(),
    "on_response": print,
    "max_event_size": 1024,
    "telemetry": False,
}


@pytest.fixture(params=WIRES)
def api(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("mode", ["complete", "acomplete", "stream", "count"])
def test_context_may_be_a_str(api: str, mode: str) -> None:
    if mode == "count" and api in ("openai-chat", "bedrock-converse"):
        pytest.skip("no counting endpoint on this wire")
    with FakeProvider([FakeReply("Hello")], api=api) as fake:  # type: ignore[arg-type]
        model, key = fake.model(), fake.api_key
        if mode == "complete":
            assert llmkit.complete(model, "Hi there", api_key=key).text == "Hello"
        elif mode == "acomplete":
            assert asyncio.run(llmkit.acomplete(model, "Hi there", api_key=key)).text == "Hello"
        elif mode == "stream":
            with llmkit.stream(model, "Hi there", api_key=key) as events:
                list(events)
            assert events.message is not None and events.message.text == "Hello"
        else:
            assert llmkit.count_tokens(model, "Hi there", api_key=key) > 0
        assert len(fake.requests) == 1
        assert b"Hi there" in fake.requests[0].raw


def test_context_may_be_a_sequence_of_messages(api: str) -> None:
    first = llmkit.AssistantMessage(content=[llmkit.TextPart(text="Earlier answer")])
    history = (llmkit.user("First question"), first, llmkit.user("Second question"))
    with FakeProvider([FakeReply("Hello"), FakeReply("Hello")], api=api) as fake:  # type: ignore[arg-type]
        for context in (history, list(history)):
            assert llmkit.complete(fake.model(), context, api_key=fake.api_key).text == "Hello"
        same = llmkit.build_request(
            fake.model(), llmkit.Context(messages=list(history)), api_key=fake.api_key
        )
        assert [r.raw for r in fake.requests] == [same.content, same.content]


@pytest.mark.parametrize(
    ("context", "named"),
    [
        (None, "context"),
        (42, "context"),
        ({"messages": []}, "context"),
        (b"bytes", "context"),
        (["Hi"], "context[0]"),
        ([llmkit.user("Hi"), {"role": "user"}], "context[1]"),
    ],
)
def test_anything_else_is_refused_before_sending(api: str, context: Any, named: str) -> None:
    with FakeProvider([FakeReply("never")] * 4, api=api) as fake:  # type: ignore[arg-type]
        model, key = fake.model(), fake.api_key
        calls = [
            lambda: llmkit.complete(model, context, api_key=key),
            lambda: asyncio.run(llmkit.acomplete(model, context, api_key=key)),
            lambda: llmkit.stream(model, context, api_key=key).__enter__(),
            lambda: llmkit.build_request(model, context, api_key=key),
        ]
        for call in calls:
            with pytest.raises(llmkit.InvalidRequestError) as info:
                call()
            assert str(info.value).startswith(named), info.value
        assert fake.requests == []


def test_build_request_without_stream_pairs_with_parse_response(api: str) -> None:
    usage = {"input": 5, "output": 2}
    with FakeProvider([FakeReply("Hello there", usage=usage)], api=api) as fake:  # type: ignore[arg-type]
        model = fake.model()
        request = llmkit.build_request(model, "Hi", api_key=fake.api_key, stream=False)
        streamed = llmkit.build_request(model, "Hi", api_key=fake.api_key)
        assert request.url != streamed.url or request.content != streamed.content
        with httpx.Client() as client:
            response = client.send(request)
        assert len(fake.requests) == 1
    assert response.headers["content-type"].startswith("application/json")
    for body in (response, response.content, response.text):
        message = llmkit.parse_response(model, body)
        assert message.text == "Hello there" and message.stop_reason == "stop"
        assert (message.usage.input, message.usage.output) == (5, 2)


@pytest.mark.parametrize("option", sorted(SEND_ONLY))
def test_build_request_refuses_send_only_options(api: str, option: str) -> None:
    with FakeProvider([FakeReply("never")], api=api) as fake:  # type: ignore[arg-type]
        with pytest.raises(llmkit.InvalidRequestError, match=option):
            llmkit.build_request(
                fake.model(), "Hi", api_key=fake.api_key, **{option: SEND_ONLY[option]}
            )
        assert fake.requests == []


def test_build_request_names_every_send_only_option_given() -> None:
    model = llmkit.Model(provider="x", id="y", api="openai-chat", base_url="http://h")
    with pytest.raises(llmkit.InvalidRequestError) as info:
        llmkit.build_request(model, "Hi", api_key="k", timeout=3, max_retries=5, on_response=print)
    for name in ("timeout", "max_retries", "on_response"):
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("max_tokenz", "max_tokens"), ("temprature", "temperature"), ("time_out", "timeout")],
)
def test_a_misspelt_option_says_did_you_mean(api: str, typo: str, meant: str) -> None:
    with FakeProvider([FakeReply("never")], api=api) as fake:  # type: ignore[arg-type]
        with pytest.raises(llmkit.InvalidRequestError) as info:
            llmkit.complete(fake.model(), "Hi", api_key=fake.api_key, **{typo: 1})
        assert f"{typo} (did you mean {meant}?)" in str(info.value)
        assert fake.requests == []
