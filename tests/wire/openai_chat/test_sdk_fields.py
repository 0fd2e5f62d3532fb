"""What the openai SDK's ``ChatCompletion`` / ``ChatCompletionChunk`` define beyond text and
function calls (docs/design.md §4, "Report, never guess silently"): custom tool calls, the
legacy ``function_call``, ``audio``, ``logprobs``, ``service_tier``, ``system_fingerprint``,
``moderation``; streamed (every body re-chunked) and whole, each body validated with the SDK's
own model first, and what goes back validated with its ``CompletionCreateParams`` (no key it
does not define)."""

from __future__ import annotations

import json
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

import llmkit
from tests.support.helpers import replay
from tests.support.sdk import CHAT_PARAMS, unknown_keys

MODEL = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")
USAGE = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
HEAD = {"id": "chatcmpl-1", "created": 1, "model": "gpt-4o-2024-08-06"}
LOGPROB = {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}
LOGPROB2 = {"token": "!", "logprob": -0.2, "bytes": [33], "top_logprobs": []}


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    if "logprobs" in extra:
        choice["logprobs"] = extra.pop("logprobs")
    body = {**HEAD, "object": "chat.completion.chunk", "choices": [choice], **extra}
    ChatCompletionChunk.model_validate(body)  # a shape the SDK defines
    return body


def sse(*chunks: dict[str, Any]) -> bytes:
    lines = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def whole(message: dict[str, Any], finish: str, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
    if "logprobs" in extra:
        choice["logprobs"] = extra.pop("logprobs")
    body = {**HEAD, "object": "chat.completion", "choices": [choice], "usage": USAGE}
    body.update(extra)
    ChatCompletion.model_validate(body)
    return body


def streamed(body: bytes) -> llmkit.AssistantMessage:
    return replay(body, MODEL)[-1].message  # type: ignore[union-attr]


def sent_back(msg: llmkit.AssistantMessage) -> dict[str, Any]:
    """The assistant message as the next request sends it (validated by the SDK's type)."""
    context = llmkit.Context(messages=[llmkit.user("hi"), msg, llmkit.user("more")])
    request = llmkit.build_request(MODEL, context, api_key="sk-test")
    body = json.loads(request.content)
    assert unknown_keys(CHAT_PARAMS, body) == []
    message: dict[str, Any] = body["messages"][1]
    return message


SQL = "SELECT * FROM t WHERE a = 'x' -- {not json"


def test_custom_tool_calls_are_calls_with_their_freeform_input_whole_and_streamed() -> None:
    body = whole(
        {
            "content": None,
            "tool_calls": [
                {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": SQL}}
            ],
        },
        "tool_calls",
    )
    one = llmkit.parse_response(MODEL, body)
    two = streamed(
        sse(
            chunk({"role": "assistant", "content": None}),
            # a custom call streamed: its input in pieces (the SDK's chunk type names only
            # function calls, so these deltas are built as the API sends them)
            {
                **HEAD,
                "object": "chat.completion.chunk",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_c",
                                    "type": "custom",
                                    "custom": {"name": "run_sql", "input": SQL[:10]},
                                }
                            ]
                        },
                        "finish_reason": None,
                    }
                ],
            },
            {
                **HEAD,
                "object": "chat.completion.chunk",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "custom": {"input": SQL[10:]}}]},
                        "finish_reason": None,
                    }
                ],
            },
            chunk({}, "tool_calls", usage=USAGE),
        )
    )
    for msg in (one, two):
        (call,) = msg.content
        assert isinstance(call, llmkit.ToolCall)
        assert (call.id, call.name, call.raw_arguments) == ("call_c", "run_sql", SQL)
        assert call.replay == {"type": "custom"}
        assert msg.stop_reason == "tool_use"
        # a named call: no misleading tool_call_unknown_name; the input is plain text, kept
        # whole and not parsed as JSON, so nothing to report
        assert (call.status, call.arguments) == ("complete", {})
        assert msg.diagnostics == []
    assert one.content == two.content
    assert sent_back(one)["tool_calls"] == [
        {"id": "call_c", "type": "custom", "custom": {"name": "run_sql", "input": SQL}}
    ]


def test_a_legacy_function_call_is_a_call_and_its_finish_reason_tool_use() -> None:
    body = whole(
        {"content": None, "function_call": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}},
        "function_call",
    )
    one = llmkit.parse_response(MODEL, body)
    two = streamed(
        sse(
            chunk({"role": "assistant", "function_call": {"name": "get_weather", "arguments": ""}}),
            chunk({"function_call": {"arguments": '{"city":'}}),
            chunk({"function_call": {"arguments": '"Oslo"}'}}),
            chunk({}, "function_call", usage=USAGE),
        )
    )
    for msg in (one, two):
        (call,) = msg.content
        assert isinstance(call, llmkit.ToolCall)
        assert (call.name, call.arguments, call.status) == (
            "get_weather",
            {"city": "Oslo"},
            "complete",
        )
        assert msg.stop_reason == "tool_use"  # not inferred to stop
        assert [d.kind for d in msg.diagnostics] == ["tool_call_id_synthesized"]  # none sent
    assert one.content == two.content
    (sent,) = sent_back(one)["tool_calls"]
    assert sent["function"] == {"name": "get_weather", "arguments": '{"city":"Oslo"}'}


def test_a_function_call_mirroring_tool_calls_is_reported_not_doubled() -> None:
    body = whole(
        {
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{}"},
                }
            ],
            "function_call": {"name": "get_weather", "arguments": "{}"},
        },
        "tool_calls",
    )
    msg = llmkit.parse_response(MODEL, body)
    assert [p.type for p in msg.content] == ["tool_call"]
    assert [d.kind for d in msg.diagnostics] == ["event_unknown"]


def test_audio_transcript_is_text_and_the_rest_is_kept_and_its_id_sent_back() -> None:
    audio = {"id": "audio_1", "data": "UklGRg==AAAA", "expires_at": 1700000000}
    body = whole({"content": None, "audio": {**audio, "transcript": "Hello there"}}, "stop")
    one = llmkit.parse_response(MODEL, body)
    two = streamed(
        sse(
            chunk({"role": "assistant", "audio": {"id": "audio_1", "transcript": "Hello "}}),
            chunk({"audio": {"data": "UklGRg==", "transcript": "there"}}),
            chunk({"audio": {"data": "AAAA", "expires_at": 1700000000}}),
            chunk({}, "stop", usage=USAGE),
        )
    )
    for msg in (one, two):
        assert msg.text == "Hello there"
        assert (msg.provider_data or {})["audio"] == audio
        assert msg.diagnostics == []
    assert sent_back(one)["audio"] == {"id": "audio_1"}


def test_logprobs_service_tier_fingerprint_and_moderation_are_kept() -> None:
    moderation = {
        "input": {"type": "error", "code": "x", "message": "unavailable"},
        "output": {"type": "error", "code": "x", "message": "unavailable"},
    }
    extra = {"service_tier": "default", "system_fingerprint": "fp_1"}
    body = whole(
        {"content": "Hi!"},
        "stop",
        logprobs={"content": [LOGPROB, LOGPROB2], "refusal": None},
        moderation=moderation,
        **extra,
    )
    one = llmkit.parse_response(MODEL, body)
    two = streamed(
        sse(
            chunk({"role": "assistant", "content": ""}, **extra),
            chunk({"content": "Hi"}, logprobs={"content": [LOGPROB], "refusal": None}, **extra),
            chunk({"content": "!"}, logprobs={"content": [LOGPROB2], "refusal": None}, **extra),
            chunk({}, "stop", usage=USAGE, moderation=moderation, **extra),
        )
    )
    for msg in (one, two):
        assert msg.text == "Hi!"
        data = msg.provider_data or {}
        assert data["logprobs"] == {"content": [LOGPROB, LOGPROB2], "refusal": None}
        assert (data["service_tier"], data["system_fingerprint"]) == ("default", "fp_1")
        assert data["moderation"] == moderation
        assert msg.diagnostics == []


def test_argument_chunks_with_logprobs_still_gather_every_token() -> None:
    # A stream of identical-looking argument chunks may be taken by the splice (no decoding):
    # chunks that carry logprobs must not be, or their tokens would be lost.
    pieces = ['{"ci', 'ty":', '"Os', 'lo"}']
    chunks = [
        chunk(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ],
            }
        )
    ]
    for piece in pieces:
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        chunks.append(chunk(delta, logprobs={"content": [LOGPROB], "refusal": None}))
    chunks.append(chunk({}, "tool_calls", usage=USAGE))
    msg = streamed(sse(*chunks))
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall) and call.arguments == {"city": "Oslo"}
    assert (msg.provider_data or {})["logprobs"]["content"] == [LOGPROB] * len(pieces)


def test_cache_writes_are_usage() -> None:
    usage = {**USAGE, "prompt_tokens_details": {"cached_tokens": 2, "cache_write_tokens": 5}}
    msg = llmkit.parse_response(MODEL, whole({"content": "Hi"}, "stop", usage=usage))
    assert msg.usage is not None
    assert (msg.usage.cache_read, msg.usage.cache_write) == (2, 5)


def test_the_model_that_answered_and_unmapped_usage_counts_are_kept() -> None:
    usage = {
        **USAGE,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 7},
    }
    msg = llmkit.parse_response(MODEL, whole({"content": "Hi"}, "stop", usage=usage))
    assert msg.provider_data == {"created": 1, "model": "gpt-4o-2024-08-06", "usage": usage}
    plain = {**USAGE, "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0}}
    same = {**HEAD, "model": "gpt-4o"}
    body = {**whole({"content": "Hi"}, "stop", usage=plain), **same}
    # zeros: nothing more than the creation time
    assert llmkit.parse_response(MODEL, body).provider_data == {"created": 1}


def test_the_creation_time_is_kept_and_a_total_that_is_not_the_sum_is_reported_once() -> None:
    bad = {**USAGE, "total_tokens": 99}
    for msg in (
        llmkit.parse_response(MODEL, whole({"content": "Hi"}, "stop", usage=bad)),
        # usage in every chunk (some servers): reported once all the same
        streamed(sse(chunk({"content": "Hi"}, usage=bad), chunk({}, "stop", usage=bad))),
    ):
        assert msg.provider_data is not None and msg.provider_data["created"] == 1
        assert msg.provider_data["usage"] == bad  # kept whole
        assert (msg.usage.input, msg.usage.output) == (9, 4)  # the parts hold
        [diagnostic] = [d for d in msg.diagnostics if d.kind == "event_malformed"]
        assert diagnostic.details == {"total_tokens": 99}
    good = llmkit.parse_response(MODEL, whole({"content": "Hi"}, "stop"))
    assert not good.diagnostics and "usage" not in (good.provider_data or {})


def test_a_tool_call_of_a_type_llmkit_does_not_know_is_reported_and_read_as_a_function() -> None:
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    first = chunk({"tool_calls": [dict(call)]})
    first["choices"][0]["delta"]["tool_calls"][0]["type"] = "mcp"  # not in the SDK's type
    body = sse(first, chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}))
    msg = streamed(body)
    assert [(c.name, c.arguments) for c in msg.tool_calls] == [("f", {})]
    assert [(d.kind, d.details) for d in msg.diagnostics if d.kind == "event_unknown"] == [
        ("event_unknown", {"type": "mcp"})
    ]
    plain = streamed(sse(chunk({"tool_calls": [call]}), chunk({}, "tool_calls")))
    assert [d.kind for d in plain.diagnostics if d.kind == "event_unknown"] == []
