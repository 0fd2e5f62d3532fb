"""``llmkit.Client``: default options held once, merged under each call's own.

On every wire, over a real loopback server that records each request: the defaults reach the
body and headers, a call's option replaces a default, headers merge case-insensitively (the
call's value winning), ``with_options`` keeps the other defaults, ``build_request`` leaves the
client's transport defaults out but refuses the call's own, a refused option sends nothing,
and the repr never shows a key.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply

WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")
MAX_TOKENS_FIELD = {
    "openai-chat": ("max_completion_tokens",),
    "openai-responses": ("max_output_tokens",),
    "anthropic-messages": ("max_tokens",),
    "gemini": ("generationConfig", "maxOutputTokens"),
    "bedrock-converse": ("inferenceConfig", "maxTokens"),
}


def max_tokens(api: str, body: dict[str, Any]) -> Any:
    value: Any = body
    for key in MAX_TOKENS_FIELD[api]:
        value = value.get(key, {}) if isinstance(value, dict) else None
    if api == "openai-chat" and value == {}:
        value = body.get("max_tokens")
    return value


@pytest.fixture(params=WIRES)
def api(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def extra(api: str) -> dict[str, Any]:
    return {"region": "us-east-1"} if api == "bedrock-converse" else {}


@pytest.mark.parametrize("mode", ["complete", "acomplete", "stream", "astream"])
def test_defaults_reach_the_request_and_a_call_replaces_them(api: str, mode: str) -> None:
    with FakeProvider([FakeReply("Hello")] * 2, api=api) as fake:  # type: ignore[arg-type]
        client = llmkit.Client(
            api_key=fake.api_key,
            max_tokens=111,
            headers={"X-Team": "a", "X-Trace": "default"},
            **extra(api),
        )

        def call(**options: Any) -> str:
            model = fake.model()
            if mode == "complete":
                return client.complete(model, "Hi", **options).text
            if mode == "acomplete":
                return asyncio.run(client.acomplete(model, "Hi", **options)).text
            if mode == "stream":
                with client.stream(model, "Hi", **options) as events:
                    list(events)
                assert events.message is not None
                return events.message.text

            async def go() -> str:
                async with client.astream(model, "Hi", **options) as events:
                    async for _ in events:
                        pass
                assert events.message is not None
                return events.message.text

            return asyncio.run(go())

        assert call() == "Hello"
        assert call(max_tokens=222, headers={"x-trace": "call"}) == "Hello"
        first, second = fake.requests
    assert max_tokens(api, first.body) == 111 and max_tokens(api, second.body) == 222
    assert first.headers["x-team"] == second.headers["x-team"] == "a"
    assert first.headers["x-trace"] == "default" and second.headers["x-trace"] == "call"


def test_count_tokens_with_defaults(api: str) -> None:
    if api in ("openai-chat", "bedrock-converse"):
        pytest.skip("no counting endpoint on this wire")
    with FakeProvider([], api=api) as fake:  # type: ignore[arg-type]
        client = llmkit.Client(api_key=fake.api_key, headers={"X-Team": "a"})
        assert client.count_tokens(fake.model(), "Hello there") > 0
        assert asyncio.run(client.acount_tokens(fake.model(), "Hello there")) > 0
        assert [r.headers["x-team"] for r in fake.requests] == ["a", "a"]


def test_with_options_keeps_the_other_defaults(api: str) -> None:
    with FakeProvider([FakeReply("Hello")], api=api) as fake:  # type: ignore[arg-type]
        base = llmkit.Client(
            api_key=fake.api_key, max_tokens=50, headers={"X-A": "1"}, **extra(api)
        )
        derived = base.with_options(max_tokens=60, headers={"x-b": "2"})
        assert derived.complete(fake.model(), "Hi").text == "Hello"
        (request,) = fake.requests
    assert max_tokens(api, request.body) == 60
    assert (request.headers["x-a"], request.headers["x-b"]) == ("1", "2")
    assert base.options["max_tokens"] == 50  # the original is unchanged


def test_build_request_ignores_the_clients_transport_defaults(api: str) -> None:
    with FakeProvider([FakeReply("never")], api=api) as fake:  # type: ignore[arg-type]
        own = httpx.Client()
        client = llmkit.Client(
            api_key=fake.api_key, max_tokens=77, timeout=5, max_retries=4, client=own, **extra(api)
        )
        request = client.build_request(fake.model(), "Hi", stream=False)
        assert max_tokens(api, httpx.Response(200, content=request.content).json()) == 77
        with pytest.raises(llmkit.InvalidRequestError, match="timeout"):
            client.build_request(fake.model(), "Hi", timeout=3)
        own.close()
        assert fake.requests == []


def test_the_callers_httpx_client_is_used_and_left_open(api: str) -> None:
    sent: list[httpx.Request] = []
    own = httpx.Client(event_hooks={"request": [sent.append]})
    with FakeProvider([FakeReply("Hello")], api=api) as fake:  # type: ignore[arg-type]
        client = llmkit.Client(api_key=fake.api_key, client=own, **extra(api))
        assert client.complete(fake.model(), "Hi").text == "Hello"
    assert len(sent) == 1 and not own.is_closed
    own.close()


def test_options_are_checked_when_the_client_is_made_and_sent_nothing(api: str) -> None:
    with FakeProvider([FakeReply("never")], api=api) as fake:  # type: ignore[arg-type]
        with pytest.raises(llmkit.InvalidRequestError, match="temperature"):
            llmkit.Client(temperature="hot")  # type: ignore[typeddict-item]
        with pytest.raises(llmkit.InvalidRequestError, match="did you mean max_tokens"):
            llmkit.Client(max_tokenz=5)  # type: ignore[call-arg]
        client = llmkit.Client(api_key=fake.api_key)
        with pytest.raises(llmkit.InvalidRequestError, match="did you mean temperature"):
            client.complete(fake.model(), "Hi", temprature=1)  # type: ignore[call-arg]
        with pytest.raises(llmkit.InvalidRequestError, match="context"):
            client.complete(fake.model(), 3)  # type: ignore[arg-type]
        assert fake.requests == []


def test_the_repr_shows_the_options_never_a_key() -> None:
    key = "sk-live-0123456789abcdefghij"
    client = llmkit.Client(
        api_key=key,
        max_tokens=10,
        headers={"Authorization": f"Bearer {key}", "x-goog-api-key": key, "X-Trace": "t1"},
        client=httpx.Client(),
    )
    shown = repr(client)
    assert key not in shown and "0123456789" not in shown
    assert "max_tokens=10" in shown and "'X-Trace': 't1'" in shown and "httpx.Client" in shown
    assert repr(client.with_options(temperature=0.5)).count("***") == 3
