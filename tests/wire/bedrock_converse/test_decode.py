"""Bedrock Converse decoding rules, on hand-built event streams (``tests/support/eventstream.py``):
exception messages become the most specific typed error with the partial message, stop reasons
map (guardrails and filters to ``content_filter``, malformed output to an error), usage counts
cache reads and writes in ``input``, redacted reasoning pieces join, a stream without
``metadata`` is truncated, a broken CRC mid-stream keeps the partial, and a provider value of
the wrong type is reported, never raised.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

import llmkit
from tests.support.eventstream import bedrock_event, bedrock_exception, encode

MODEL = llmkit.Model(
    provider="bedrock",
    id="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    api="bedrock-converse",
    base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
    reasoning=True,
)
START = bedrock_event("messageStart", {"role": "assistant"})
TEXT = bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hello"}})


def stop(reason: str) -> bytes:
    return bedrock_event("messageStop", {"stopReason": reason})


def metadata(**usage: Any) -> bytes:
    usage = usage or {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7}
    return bedrock_event("metadata", {"usage": usage, "metrics": {"latencyMs": 3}})


def decode(*messages: bytes) -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
    events = list(llmkit.parse_stream(MODEL, [b"".join(messages)]))
    return events, events[-1].message  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("exception", "payload", "error"),
    [
        ("throttlingException", {"message": "Too many requests"}, llmkit.RateLimitError),
        ("serviceUnavailableException", {"message": "try later"}, llmkit.OverloadedError),
        ("internalServerException", {"message": "oops"}, llmkit.ServerError),
        ("modelStreamErrorException", {"message": "model failed"}, llmkit.ServerError),
        (
            "modelStreamErrorException",
            {"message": "model throttled", "originalStatusCode": 429},
            llmkit.RateLimitError,
        ),
        (
            "validationException",
            {"message": "Input is too long for requested model."},
            llmkit.ContextLengthError,
        ),
        ("validationException", {"message": "bad field"}, llmkit.APIError),
    ],
)
def test_exception_messages_are_typed_errors_with_the_partial(
    exception: str, payload: dict[str, Any], error: type[Exception]
) -> None:
    events, message = decode(START, TEXT, bedrock_exception(exception, payload))
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert type(events[-1].error) is error
    assert events[-1].error.partial is not None and events[-1].error.partial.text == "Hello"  # type: ignore[attr-defined]
    assert message.stop_reason == "error" and payload["message"] in str(events[-1].error)


def test_a_generic_error_message_uses_its_headers() -> None:
    failure = encode(
        {
            ":message-type": (7, "error"),
            ":error-code": (7, "InternalFailure"),
            ":error-message": (7, "Something broke"),
        },
        b"",
    )
    events, _ = decode(START, failure)
    assert isinstance(events[-1], llmkit.ErrorEvent) and "Something broke" in str(events[-1].error)


@pytest.mark.parametrize(
    ("reason", "mapped"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("guardrail_intervened", "content_filter"),
        ("content_filtered", "content_filter"),
    ],
)
def test_stop_reasons(reason: str, mapped: str) -> None:
    events, message = decode(START, TEXT, stop(reason), metadata())
    assert isinstance(events[-1], llmkit.Done)
    assert (message.stop_reason, message.raw_stop_reason) == (mapped, reason)


def test_malformed_tool_use_ends_with_an_error_and_a_diagnostic() -> None:
    events, message = decode(START, TEXT, stop("malformed_tool_use"), metadata())
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert "tool_arguments_invalid" in [d.kind for d in message.diagnostics]


def test_an_unknown_stop_reason_is_reported_not_raised() -> None:
    _, message = decode(START, TEXT, stop("brand_new_reason"), metadata())
    assert message.stop_reason == "stop" and message.raw_stop_reason == "brand_new_reason"
    assert "stop_reason_unknown" in [d.kind for d in message.diagnostics]


def test_usage_counts_cache_reads_and_writes_in_input() -> None:
    usage = {
        "inputTokens": 10,
        "outputTokens": 4,
        "cacheReadInputTokens": 100,
        "cacheWriteInputTokens": 50,
    }
    _, message = decode(START, TEXT, stop("end_turn"), metadata(**usage))
    assert message.usage.model_dump(exclude={"cost"}) == {
        "input": 160,
        "output": 4,
        "cache_read": 100,
        "cache_write": 50,
        "reasoning": None,
    }


def test_one_hour_cache_writes_are_priced_at_the_one_hour_rate() -> None:
    priced = MODEL.model_copy(
        update={
            "cost": llmkit.ModelCost(
                input=3.0, output=15.0, cache_read=0.3, cache_write=3.75, cache_write_long=6.0
            )
        }
    )
    usage = {
        "inputTokens": 10, "outputTokens": 4, "totalTokens": 1014, "cacheReadInputTokens": 0,
        "cacheWriteInputTokens": 1000,
        "cacheDetails": [{"ttl": "5m", "inputTokens": 400}, {"ttl": "1h", "inputTokens": 600}],
    }  # fmt: skip
    body = b"".join((START, TEXT, stop("end_turn"), metadata(**usage)))
    streamed = list(llmkit.parse_stream(priced, [body]))[-1].message  # type: ignore[union-attr]
    whole = llmkit.parse_response(
        priced,
        {"output": {"message": {"role": "assistant", "content": [{"text": "Hello"}]}},
         "stopReason": "end_turn", "usage": usage, "metrics": {"latencyMs": 3}},
    )  # fmt: skip
    want = (10 * 3.0 + 400 * 3.75 + 600 * 6.0 + 4 * 15.0) / 1_000_000
    for message in (streamed, whole):
        assert message.usage.cache_write == 1000
        assert message.usage.cost == pytest.approx(want)  # not 1000 at the 5-minute price
        assert message.provider_data is not None
        assert message.provider_data["usage"] == usage  # cacheDetails, totalTokens verbatim
    # a model with no 1-hour price: no cost, never the 5-minute price in its place
    unpriced = priced.model_copy(
        update={"cost": priced.cost.model_copy(update={"cache_write_long": None})}
    )
    assert list(llmkit.parse_stream(unpriced, [body]))[-1].message.usage.cost is None  # type: ignore[union-attr]


def test_performance_config_and_service_tier_are_kept_verbatim() -> None:
    extra = {"performanceConfig": {"latency": "optimized"}, "serviceTier": {"type": "flex"}}
    meta = bedrock_event(
        "metadata",
        {"usage": {"inputTokens": 5, "outputTokens": 2}, "metrics": {"latencyMs": 3}, **extra},
    )
    _, message = decode(START, TEXT, stop("end_turn"), meta)
    assert message.provider_data == {"metrics": {"latencyMs": 3}, **extra}  # counts only: no usage


def test_a_model_stream_error_names_the_models_own_error() -> None:
    failure = bedrock_exception(
        "modelStreamErrorException",
        {"message": "Model failed", "originalStatusCode": 424, "originalMessage": "bad gateway"},
    )
    events, _ = decode(START, TEXT, failure)
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert "status 424, 'bad gateway'" in str(events[-1].error)


def test_redacted_reasoning_pieces_join_into_one_replayable_blob() -> None:
    pieces = [base64.b64encode(b"abc").decode(), base64.b64encode(b"defg").decode()]
    deltas = [
        bedrock_event(
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": p}}},
        )
        for p in pieces
    ]
    _, message = decode(
        START,
        *deltas,
        bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
        stop("end_turn"),
        metadata(),
    )
    [part] = message.content
    assert isinstance(part, llmkit.ThinkingPart) and part.redacted
    assert part.replay == {"redacted": base64.b64encode(b"abcdefg").decode()}


def test_input_without_a_tool_use_start_is_one_call_with_a_synthesised_id() -> None:
    delta = bedrock_event(
        "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a":1}'}}}
    )
    _, message = decode(START, delta, stop("tool_use"), metadata())
    [call] = message.tool_calls
    assert call.arguments == {"a": 1} and call.id
    assert "tool_call_id_synthesized" in [d.kind for d in message.diagnostics]


def test_without_metadata_the_stream_is_truncated() -> None:
    events, message = decode(START, TEXT, stop("end_turn"))
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert "stream_truncated" in [d.kind for d in message.diagnostics] and message.text == "Hello"


def test_a_broken_crc_mid_stream_keeps_the_partial() -> None:
    broken = TEXT[:-1] + bytes([TEXT[-1] ^ 0x55])
    events, message = decode(START, TEXT, broken, stop("end_turn"), metadata())
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.StreamError
    )
    assert "CRC32" in str(events[-1].error) and message.text == "Hello"


@pytest.mark.parametrize(
    "payload",
    [
        {"contentBlockIndex": "0", "delta": {"text": "x"}},
        {"contentBlockIndex": 0, "delta": {"text": 5}},
        {"contentBlockIndex": 0, "delta": {"toolUse": {"input": ["x"]}}},
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": 1}}},
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "not base64!"}}},
    ],
)
def test_a_value_of_the_wrong_type_is_reported_and_the_stream_goes_on(
    payload: dict[str, Any],
) -> None:
    events, message = decode(
        START, bedrock_event("contentBlockDelta", payload), TEXT, stop("end_turn"), metadata()
    )
    assert isinstance(events[-1], llmkit.Done) and message.text.endswith("Hello")
    assert "event_malformed" in [d.kind for d in message.diagnostics]


def test_usage_of_the_wrong_type_is_not_guessed() -> None:
    _, message = decode(START, TEXT, stop("end_turn"), metadata(inputTokens="many", outputTokens=2))
    assert message.usage.input is None and message.usage.output == 2
