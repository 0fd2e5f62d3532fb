"""The fake provider speaks llmkit's words and one wire: ``FakeReply(finish_reason=...)`` takes
llmkit's stop reasons, sent as each wire's own value; a request on another wire's path is a
clear 404 (nothing scripted is used); usage is reported unless the script says not to."""

from __future__ import annotations

import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall, ScriptItem

WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")
RAW = {  # what each wire says for llmkit's "length"
    "openai-chat": "length",
    "openai-responses": "max_output_tokens",
    "anthropic-messages": "max_tokens",
    "gemini": "MAX_TOKENS",
    "bedrock-converse": "max_tokens",
}


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("reason", ["stop", "length", "tool_use", "content_filter"])
def test_finish_reason_is_llmkits_word(api: str, stream: bool, reason: str) -> None:
    if reason == "content_filter" and api == "anthropic-messages":
        pytest.skip("Anthropic has no content filter stop reason")
    calls = [FakeToolCall("get_weather", {"city": "Paris"})] if reason == "tool_use" else []
    script: list[ScriptItem] = [FakeReply("Hi", tool_calls=calls, finish_reason=reason)]
    with FakeProvider(script, api=api) as fake:  # type: ignore[arg-type]
        model = fake.model()
        request = llmkit.build_request(model, "Hi", api_key=fake.api_key, stream=stream)
        with llmkit.stream(model, "Hi", api_key=fake.api_key) as events:
            list(events)
        message = events.message
    assert request is not None and message.stop_reason == reason
    assert not [d for d in message.diagnostics if d.kind == "stop_reason_unknown"]
    if reason == "length":
        assert message.raw_stop_reason == RAW[api]


@pytest.mark.parametrize("api", WIRES)
def test_a_wires_raw_value_still_goes_verbatim(api: str) -> None:
    raw = RAW[api]
    with FakeProvider([FakeReply("Hi", finish_reason=raw)], api=api) as fake:  # type: ignore[arg-type]
        reply = llmkit.complete(fake.model(), "Hi", api_key=fake.api_key)
    assert reply.stop_reason == "length"


@pytest.mark.parametrize("api", WIRES)
def test_usage_is_reported_unless_told_not_to(api: str) -> None:
    script = [FakeReply("Hello there"), FakeReply("Hello", usage=None)]
    with FakeProvider(script, api=api) as fake:  # type: ignore[arg-type]
        reported = llmkit.complete(fake.model(), "Hi, how are you?", api_key=fake.api_key)
        missing = llmkit.complete(fake.model(), "Hi", api_key=fake.api_key)
    assert reported.usage.input and reported.usage.input > 0
    assert reported.usage.output == 3  # "Hello there": 11 characters, about 4 a token
    assert "usage_missing" not in [d.kind for d in reported.diagnostics]
    assert "usage_missing" in [d.kind for d in missing.diagnostics]


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("served", WIRES)
def test_another_wires_request_gets_a_clear_404(api: str, served: str) -> None:
    if api == served:
        return
    with FakeProvider([FakeReply("never")], api=served) as fake:  # type: ignore[arg-type]
        model = llmkit.Model(provider="x", id="m", api=api, base_url=fake.base_url)  # type: ignore[arg-type]
        options = {"region": "us-east-1"} if api == "bedrock-converse" else {}
        with pytest.raises(llmkit.NotFoundError) as info:
            llmkit.complete(model, "Hi", api_key=fake.api_key, max_retries=0, **options)
        assert len(fake.requests) == 1
        fake.script()  # the scripted reply is still there: nothing was used
    message = info.value.message
    assert f"speaks {served}" in message and f"endpoint of {api}" in message
    assert f"FakeProvider(api={api!r})" in message


def test_script_items_are_public() -> None:
    item: ScriptItem = FakeReply("x")
    assert isinstance(item, FakeReply)
