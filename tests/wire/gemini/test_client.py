"""The client on the Gemini wire over real loopback HTTP (``FakeProvider(api="gemini")``),
sync and async alike, including Gemini's retry hints and the fake's fidelity to the real wire
(checked with the official google-genai SDK pointed at the fake).
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeToolCall
from tests.support.clients import Complete, Run, run_async, run_sync

CONTEXT = llmkit.Context(
    system="Be brief.",
    messages=[llmkit.user("Weather in Paris and Oslo?")],
    tools=[
        llmkit.Tool(
            name="get_weather",
            description="Get the weather.",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)


def model_of(fake: FakeProvider, model_id: str = "gemini-2.5-flash") -> llmkit.Model:
    return fake.model(model_id, reasoning=True, input=["text", "image"])


def rate_limit(
    delay: str, quota_id: str = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
) -> dict[str, Any]:
    """Gemini's 429 body: no Retry-After header, the delay in RetryInfo (QUIRKS I3)."""
    return {
        "error": {
            "code": 429,
            "message": "You exceeded your current quota, please check your plan and billing.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": quota_id,
                            "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"},
                            "quotaValue": "10",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ],
        }
    }


def test_text_thinking_and_calls_sync_and_async_identical() -> None:
    reply = FakeReply(
        "Checking.",
        thinking="The user wants two cities.",
        tool_calls=[
            FakeToolCall("get_weather", {"city": "Paris"}, id="a1b2c3d4"),
            FakeToolCall("get_weather", {"city": "Oslo"}),
        ],
        usage={"input": 30, "output": 12, "reasoning": 5, "cache_read": 10},
        chunk_size=7,
        delta_size=3,
    )
    results = []
    for runner in (run_sync, run_async):
        with FakeProvider([reply], api="gemini") as fake:
            events, message = runner(model_of(fake), CONTEXT, api_key=fake.api_key)
            request = fake.requests[0]
        assert request.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        assert request.headers["x-goog-api-key"] == "fake-key"
        assert "authorization" not in request.headers
        assert (message.thinking, message.text) == ("The user wants two cities.", "Checking.")
        calls = message.tool_calls
        assert [(c.id, c.name, c.arguments) for c in calls] == [
            ("a1b2c3d4", "get_weather", {"city": "Paris"}),
            ("call_1", "get_weather", {"city": "Oslo"}),
        ]
        assert calls[0].replay and not calls[1].replay  # signature on the first call (F2)
        assert (message.stop_reason, message.raw_stop_reason) == ("tool_use", "STOP")
        u = message.usage
        assert (u.input, u.output, u.reasoning, u.cache_read) == (30, 12, 5, 10)
        assert isinstance(events[0], llmkit.Start) and isinstance(events[-1], llmkit.Done)
        results.append((events, message))
    (e1, m1), (e2, m2) = results
    assert [type(e) for e in e1] == [type(e) for e in e2]
    assert m1.model_dump(exclude={"response_id"}) == m2.model_dump(exclude={"response_id"})


def test_a_tool_loop_replays_signatures_and_groups_responses() -> None:
    replies = [
        FakeReply(
            thinking="Two lookups.",
            tool_calls=[
                FakeToolCall("get_weather", {"city": "Paris"}, id="id_p"),
                FakeToolCall("get_weather", {"city": "Oslo"}, id="id_o"),
            ],
        ),
        FakeReply("Sunny in Paris, rain in Oslo.", thinking="Summing up."),
    ]
    with FakeProvider(replies, api="gemini") as fake:
        model = model_of(fake, "gemini-3-pro-preview")
        context = CONTEXT.model_copy(deep=True)
        first = llmkit.complete(model, context, api_key=fake.api_key)
        context.messages.append(first)
        for call, text in zip(first.tool_calls, ("sunny", "rain"), strict=True):
            context.messages.append(llmkit.tool_result(call, text))
        second = llmkit.complete(model, context, api_key=fake.api_key)
        sent = fake.requests[1].body
    assert second.text == "Sunny in Paris, rain in Oslo."
    model_turn, responses = sent["contents"][1], sent["contents"][2]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0] == {"text": "Two lookups.", "thought": True}
    signature = (first.tool_calls[0].replay or {})["thoughtSignature"]
    assert model_turn["parts"][1]["thoughtSignature"] == signature
    assert [p["functionResponse"] for p in responses["parts"]] == [
        {"name": "get_weather", "response": {"output": "sunny"}, "id": "id_p"},
        {"name": "get_weather", "response": {"output": "rain"}, "id": "id_o"},
    ]
    # The answer's signature came on a trailing empty text part and is kept (F2).
    carrier = second.content[-1]
    assert isinstance(carrier, llmkit.ThinkingPart) and carrier.signature


def test_retry_info_delay_is_honoured_then_success_I3(complete: Complete) -> None:
    script: list[FakeError | FakeReply] = [
        FakeError(429, body=rate_limit("0.3s")),
        FakeReply("after retry"),
    ]
    with FakeProvider(script, api="gemini") as fake:
        started = time.monotonic()
        message = complete(model_of(fake), CONTEXT, api_key=fake.api_key)
        elapsed = time.monotonic() - started
        assert len(fake.requests) == 2
    assert message.text == "after retry"
    assert elapsed >= 0.3


def test_retry_info_beyond_the_cap_raises_with_retry_after_I3(complete: Complete) -> None:
    script: list[FakeError | FakeReply] = [
        FakeError(429, body=rate_limit("45.837906927s")),
        FakeReply("never"),
    ]
    with FakeProvider(script, api="gemini") as fake:
        started = time.monotonic()
        with pytest.raises(llmkit.RateLimitError) as info:
            complete(model_of(fake), CONTEXT, api_key=fake.api_key, max_retry_delay=5)
        assert time.monotonic() - started < 2
        assert len(fake.requests) == 1
    assert info.value.retry_after == pytest.approx(45.837906927)  # fractional seconds kept
    assert info.value.status == 429 and info.value.code == "RESOURCE_EXHAUSTED"


def test_daily_quota_is_not_retried_I3(complete: Complete) -> None:
    body = rate_limit("1s", quota_id="GenerateRequestsPerDayPerProjectPerModel-FreeTier")
    with FakeProvider([FakeError(429, body=body), FakeReply("never")], api="gemini") as fake:
        with pytest.raises(llmkit.RateLimitError):
            complete(model_of(fake), CONTEXT, api_key=fake.api_key)
        assert len(fake.requests) == 1


def test_error_body_as_an_array_is_classified_A10(complete: Complete) -> None:
    body = json.dumps([rate_limit("0.1s")]).encode()
    with FakeProvider([FakeError(429, body=body), FakeReply("ok")], api="gemini") as fake:
        assert complete(model_of(fake), CONTEXT, api_key=fake.api_key).text == "ok"
        assert len(fake.requests) == 2


def test_wrong_key_is_an_authentication_error(complete: Complete) -> None:
    with FakeProvider([FakeReply("never")], api="gemini") as fake:
        with pytest.raises(llmkit.AuthenticationError, match="API key not valid"):
            complete(model_of(fake), CONTEXT, api_key="AIza-wrong-key-123")
        assert len(fake.requests) == 1


def test_missing_finish_reason_is_a_truncated_stream_A4(run: Run) -> None:
    with FakeProvider([FakeReply("cut short", omit_done=True)], api="gemini") as fake:
        events, message = run(model_of(fake), CONTEXT, api_key=fake.api_key)
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert message.text == "cut short" and message.stop_reason == "error"
    assert "stream_truncated" in [d.kind for d in message.diagnostics]


def test_dropped_connection_keeps_the_partial(run: Run) -> None:
    reply = FakeReply("Partial answer here", delta_size=3, drop_after=3)
    with FakeProvider([reply], api="gemini") as fake:
        events, message = run(model_of(fake), CONTEXT, api_key=fake.api_key)
        assert len(fake.requests) == 1
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert message.stop_reason == "error" and message.text == "Partial answer here"[:9]


def test_in_stream_error_is_typed(run: Run) -> None:
    error = FakeError(in_stream=True, after_events=2, partial=FakeReply("partial", delta_size=2))
    with FakeProvider([error], api="gemini") as fake:
        events, message = run(model_of(fake), CONTEXT, api_key=fake.api_key)
    end = events[-1]
    assert isinstance(end, llmkit.ErrorEvent) and isinstance(end.error, llmkit.ServerError)
    assert message.text == "part"  # the first two events' deltas


def test_malformed_function_call_raises(complete: Complete) -> None:
    reply = FakeReply(tool_calls=[FakeToolCall("get_weather", '{"city": "Par')])
    with FakeProvider([reply], api="gemini") as fake:
        with pytest.raises(llmkit.APIError) as info:
            complete(model_of(fake), CONTEXT, api_key=fake.api_key)
    assert info.value.code == "MALFORMED_FUNCTION_CALL"
    assert info.value.partial is not None and info.value.partial.stop_reason == "error"


def test_non_streamed_generate_content_matches_the_stream() -> None:
    reply = FakeReply(
        "Hello",
        thinking="hm",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}, id="c1")],
        usage={"input": 5, "output": 4},
    )
    with FakeProvider([reply, reply], api="gemini") as fake:
        model = model_of(fake)
        streamed = llmkit.complete(model, CONTEXT, api_key=fake.api_key)
        request = llmkit.build_request(model, CONTEXT, api_key=fake.api_key)
        url = str(request.url).replace(":streamGenerateContent?alt=sse", ":generateContent")
        raw = httpx.post(url, content=request.content, headers={"x-goog-api-key": fake.api_key})
    assert raw.headers["content-type"].startswith("application/json")
    whole = llmkit.parse_response(model, raw.content)
    keep = {"content", "stop_reason", "raw_stop_reason", "usage"}
    # Each response has its own signature; everything else is the same message.
    a, b = whole.model_dump(include=keep), streamed.model_dump(include=keep)
    assert a["content"][2].pop("replay") and b["content"][2].pop("replay")
    assert a == b


def test_the_fake_speaks_crlf_sse_like_gemini() -> None:
    reply = FakeReply("héllo 😀", tool_calls=[FakeToolCall("get_weather", {"city": "Oslo"})])
    with FakeProvider([reply], api="gemini") as fake:
        request = llmkit.build_request(model_of(fake), CONTEXT, api_key=fake.api_key)
        raw = httpx.post(str(request.url), content=request.content, headers=dict(request.headers))
    assert raw.headers["content-type"] == "text/event-stream"
    events = raw.content.split(b"\r\n\r\n")
    assert events[-1] == b"" and all(e.startswith(b"data: {") for e in events[:-1])
    assert b'"parts": [{"text": "h' in raw.content  # Google's separators, raw UTF-8
    for event in events[:-1]:
        types.GenerateContentResponse.model_validate_json(event[len(b"data: ") :])


def test_the_official_sdk_reads_the_fake() -> None:
    """google-genai itself, pointed at the fake: the fake is a faithful Gemini."""
    reply = FakeReply(
        "Hi there",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}, id="x1")],
        usage={"input": 3, "output": 2},
    )
    with FakeProvider([reply, reply], api="gemini") as fake:
        client = genai.Client(
            api_key=fake.api_key,
            http_options=types.HttpOptions(
                base_url=fake.base_url.removesuffix("/v1beta"), api_version="v1beta"
            ),
        )
        chunks = list(
            client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi")
        )
        whole = client.models.generate_content(model="gemini-2.5-flash", contents="hi")
        paths = [r.path for r in fake.requests]
    text = "".join(c.text or "" for c in chunks)
    assert text == "Hi there"
    calls = [fc for c in chunks for fc in (c.function_calls or [])]
    assert [(fc.name, fc.args, fc.id) for fc in calls] == [("get_weather", {"city": "Paris"}, "x1")]
    assert whole.text == "Hi there" and whole.usage_metadata is not None
    assert paths == [
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        "/v1beta/models/gemini-2.5-flash:generateContent",
    ]


def test_the_gemini_tool_loop_example_runs_on_the_fake(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util
    from pathlib import Path

    examples = Path(__file__).parents[3] / "examples"
    monkeypatch.syspath_prepend(str(examples))  # the example imports the shared loop
    path = examples / "tool_loop_gemini.py"
    spec = importlib.util.spec_from_file_location("tool_loop_gemini", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    with FakeProvider(example.fake_model, api="gemini") as fake:
        model = fake.model("gemini-3-flash-preview", reasoning=True)
        answer = example.run(model, stream=True, api_key=fake.api_key)
        requests = fake.requests
    assert answer.startswith("Forecast — Beijing, next 3 days")
    assert "refused get_weather" in capsys.readouterr().out
    # Every turn after the first replays the model's signed call (QUIRKS F2).
    assert all(
        any("thoughtSignature" in p for c in r.body["contents"] for p in c["parts"])
        for r in requests[1:]
    )
