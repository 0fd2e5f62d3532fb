"""Named regressions for the Responses decoder: the cases neither the recordings nor the
generator pin exactly. Every body is also replayed re-chunked (``tests.support.helpers.replay``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmkit
from tests.support.helpers import kinds, replay

MODEL = llmkit.Model(provider="openai", id="gpt-5", api="openai-responses", reasoning=True)
RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}


def sse(*events: dict[str, Any] | str) -> bytes:
    out = []
    for e in events:
        if isinstance(e, str):
            out.append(f"data: {e}\n\n")
        else:
            out.append(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n")
    return "".join(out).encode()


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": RESPONSE}


def completed(output: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    response = {**RESPONSE, "status": "completed", "output": output or [], "usage": USAGE}
    return {"type": "response.completed", "response": {**response, **extra}}


def call_added(index: int, call_id: str = "call_1", item_id: str = "fc_1") -> dict[str, Any]:
    item = {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": ""}
    return {
        "type": "response.output_item.added",
        "output_index": index,
        "item": {**item, "call_id": call_id, "name": "get_weather"},
    }


def args_delta(index: int, delta: str, item_id: str = "fc_1") -> dict[str, Any]:
    # no call_id on argument events (QUIRKS F5)
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": delta,
    }


def args_done(index: int, arguments: str, item_id: str = "fc_1") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": arguments,
    }


def final(body: bytes) -> llmkit.AssistantMessage:
    return replay(body, MODEL)[-1].message  # type: ignore[union-attr]


def test_argument_deltas_are_keyed_by_output_index_even_when_item_ids_rotate_F5() -> None:
    body = sse(
        created(),
        call_added(0, "call_a", "id-1"),
        call_added(1, "call_b", "id-2"),
        args_delta(1, '{"city":', "id-3"),  # interleaved, and the item id rotates
        args_delta(0, '{"city":"Oslo"}', "id-4"),
        args_delta(1, '"Rome"}', "id-5"),
        completed(),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [
        ("call_a", {"city": "Oslo"}),
        ("call_b", {"city": "Rome"}),
    ]
    assert msg.stop_reason == "tool_use" and kinds(msg) == []


def test_done_backfills_what_the_deltas_missed() -> None:
    body = sse(
        created(),
        call_added(0),
        args_delta(0, '{"ci'),
        args_done(0, '{"city":"Oslo"}'),  # the rest only arrives here
        completed(),
    )
    events = replay(body, MODEL)
    msg = events[-1].message  # type: ignore[union-attr]
    assert msg.tool_calls[0].raw_arguments == '{"city":"Oslo"}'
    deltas = [e.arguments_delta for e in events if isinstance(e, llmkit.ToolCallDelta)]
    assert deltas == ['{"ci', 'ty":"Oslo"}']  # the remainder is one more delta


def test_a_done_value_contradicting_the_deltas_is_reported_and_the_deltas_kept() -> None:
    body = sse(
        created(),
        call_added(0),
        args_delta(0, '{"city":"Oslo"}'),
        args_done(0, '{"city":"Bergen"}'),
        completed(),
    )
    msg = final(body)
    assert msg.tool_calls[0].arguments == {"city": "Oslo"}  # what the events already said
    assert kinds(msg) == ["event_malformed"]
    assert msg.diagnostics[0].details["segment"] == "args"


def test_a_terminal_event_alone_still_gives_the_whole_message() -> None:
    """A server (or proxy) that sends only the final response: its ``output`` back-fills."""
    output = [
        {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Hm."}]},
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi there"}],
        },
        {
            "id": "fc_1",
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": "{}",
        },
    ]
    msg = final(sse(created(), completed(output)))
    assert [p.type for p in msg.content] == ["thinking", "text", "tool_call"]
    assert (msg.thinking, msg.text, msg.tool_calls[0].id) == ("Hm.", "Hi there", "call_1")


def test_reasoning_parts_are_one_thinking_part_joined_by_a_blank_line() -> None:
    where = {"item_id": "rs_1", "output_index": 0}
    body = sse(
        created(),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "OLD"}},
        {"type": "response.reasoning_summary_text.delta", **where, "summary_index": 0,
         "delta": "First."},
        {"type": "response.reasoning_summary_text.delta", **where, "summary_index": 1,
         "delta": "Second."},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"id": "rs_1", "type": "reasoning", "encrypted_content": "NEW",
                  "summary": [{"type": "summary_text", "text": "First."},
                              {"type": "summary_text", "text": "Second."}]}},
        completed(),
    )  # fmt: skip
    msg = final(body)
    (part,) = msg.content
    assert isinstance(part, llmkit.ThinkingPart)
    assert part.thinking == "First.\n\nSecond."
    # the encrypted content of .done, not the incomplete one of .added (QUIRKS F4)
    assert part.replay is not None and part.replay["encrypted_content"] == "NEW"


def test_refusal_text_is_kept_and_the_turn_is_a_refusal() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    body = sse(
        created(),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.refusal.delta", **where, "delta": "I can't help"},
        {"type": "response.refusal.done", **where, "refusal": "I can't help with that."},
        completed(),
    )  # fmt: skip
    msg = final(body)
    assert (msg.text, msg.stop_reason, msg.raw_stop_reason) == (
        "I can't help with that.",
        "refusal",
        "completed",
    )


def test_calls_in_a_refusal_turn_are_not_executable_E3() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    body = sse(
        created(),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.refusal.delta", **where, "delta": "I won't run that."},
        call_added(1),
        args_delta(1, '{"path": "/"}'),
        args_done(1, '{"path": "/"}'),
        completed(),
    )  # fmt: skip
    msg = final(body)
    assert msg.stop_reason == "refusal"
    [call] = msg.tool_calls
    assert call.status == "recovered"  # decode_tool_call refuses it by default
    assert "tool_call_not_executable" in [d.kind for d in msg.diagnostics_for(call.id)]


def test_unknown_events_are_reported_once_per_type_and_never_crash() -> None:
    body = sse(
        created(),
        {"type": "response.output_text.sparkle.added", "output_index": 0},
        {"type": "response.output_text.sparkle.added", "output_index": 0},
        {"type": "response.something_new", "payload": [1, 2]},
        "not json at all",
        completed(),
    )
    msg = final(body)
    assert kinds(msg) == ["event_unknown", "event_unknown", "event_malformed"]
    assert msg.stop_reason == "stop"


def test_the_documented_error_event_shape_is_a_typed_error_A5() -> None:
    body = sse(
        created(),
        {
            "type": "error",
            "code": "rate_limit_exceeded",
            "message": "Rate limit reached for gpt-5.",
            "param": None,
            "sequence_number": 1,
        },
    )
    last = replay(body, MODEL)[-1]
    assert isinstance(last, llmkit.ErrorEvent) and isinstance(last.error, llmkit.RateLimitError)
    assert "Rate limit reached" in str(last.error)


def test_a_trailing_done_marker_is_tolerated_and_alone_is_a_truncation_A4() -> None:
    msg = final(sse(created(), completed(), "[DONE]"))
    assert msg.stop_reason == "stop" and "event_malformed" not in kinds(msg)
    msg = final(sse(created(), "[DONE]"))
    assert msg.stop_reason == "error" and kinds(msg) == ["stream_truncated"]


def test_incomplete_with_an_unknown_reason_is_reported() -> None:
    response = {**RESPONSE, "status": "incomplete", "incomplete_details": {"reason": "steered"}}
    msg = final(sse(created(), {"type": "response.incomplete", "response": response}))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", "steered")
    assert "stop_reason_unknown" in kinds(msg)


def test_a_delta_after_its_item_is_done_is_reported_not_appended() -> None:
    done = {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {**call_added(0)["item"], "arguments": "{}", "status": "completed"},
    }
    body = sse(
        created(), call_added(0), args_delta(0, "{}"), done, args_delta(0, "{}"), completed()
    )
    msg = final(body)
    assert [c.raw_arguments for c in msg.tool_calls] == ["{}"]
    assert kinds(msg) == ["event_malformed"]


def test_arguments_for_an_index_never_announced_still_make_a_call_F5() -> None:
    msg = final(sse(created(), args_delta(3, '{"a":1}', "fc_x"), completed()))
    (call,) = msg.tool_calls
    assert call.arguments == {"a": 1} and call.id.startswith("call_")
    assert "tool_call_id_synthesized" in kinds(msg)


def test_what_the_response_says_about_itself_is_kept_streamed_and_whole() -> None:
    about = {
        "service_tier": "priority",
        "tool_usage": {"web_search": {"num_requests": 2}},
        "input_transformations": [
            {"type": "reasoning", "id": "rs_0", "action": "removed", "reason": "model_mismatch"}
        ],
        "prompt_cache_diagnostics": {"type": "cache_hit"},
    }
    body = {**RESPONSE, "status": "completed", "usage": USAGE, **about}
    whole = llmkit.parse_response(MODEL, body)
    streamed = final(sse(created(), completed(**about)))
    for msg in (whole, streamed):
        assert msg.provider_data == about
        assert msg.diagnostics == []


def test_output_text_logprobs_are_kept_once_per_part_in_order() -> None:
    hi = [{"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}]
    yo = [{"token": "Yo", "logprob": -0.3, "bytes": [89, 111], "top_logprobs": []}]

    def message(i: int, text: str, logprobs: list[Any]) -> dict[str, Any]:
        part = {"type": "output_text", "text": text, "annotations": [], "logprobs": logprobs}
        return {"type": "message", "id": f"msg_{i}", "role": "assistant", "content": [part]}

    output = [message(0, "Hi", hi), message(1, "Yo", yo)]
    events: list[dict[str, Any] | str] = [created()]
    for i, item in enumerate(output):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        part = item["content"][0]
        at = {"output_index": i, "item_id": item["id"], "content_index": 0}
        events.append({"type": "response.content_part.done", **at, "part": part})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append(completed(output))
    body = {**RESPONSE, "status": "completed", "usage": USAGE, "output": output}
    for msg in (final(sse(*events)), llmkit.parse_response(MODEL, body)):
        assert msg.text == "HiYo"
        assert (msg.provider_data or {})["logprobs"] == hi + yo


def test_the_model_that_answered_and_unmapped_usage_counts_are_kept() -> None:
    usage = {
        **USAGE,
        "input_tokens_details": {
            "cached_tokens": 0,
            "cache_write_tokens_details": {"ttl_30m_tokens": 4, "ttl_12h_tokens": 0},
        },
    }
    body = {**RESPONSE, "status": "completed", "model": "gpt-5-2025-08-07", "usage": usage}
    msg = llmkit.parse_response(MODEL, body)
    assert msg.provider_data == {"model": "gpt-5-2025-08-07", "usage": usage}
    body = {**RESPONSE, "status": "completed", "model": "gpt-5", "usage": USAGE}
    assert llmkit.parse_response(MODEL, body).provider_data is None


def test_an_error_on_a_completed_response_is_reported_not_silently_ignored() -> None:
    error = {"code": "server_error", "message": "late"}
    body = {**RESPONSE, "status": "completed", "usage": USAGE, "error": error}
    msg = llmkit.parse_response(MODEL, body)
    assert [(d.kind, d.details.get("error")) for d in msg.diagnostics] == [
        ("event_malformed", error)
    ]


def test_streamed_logprobs_join_and_the_done_value_settles_them() -> None:
    hi = {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}
    bang = {"token": "!", "logprob": -0.2, "bytes": [33], "top_logprobs": []}
    at = {"output_index": 0, "item_id": "msg_1", "content_index": 0}
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    deltas = [
        {"type": "response.output_text.delta", **at, "delta": "Hi", "logprobs": [hi]},
        {"type": "response.output_text.delta", **at, "delta": "!", "logprobs": [bang]},
    ]
    added = {"type": "response.output_item.added", "output_index": 0, "item": item}
    # no .done: the deltas' tokens are all there is
    assert (final(sse(created(), added, *deltas, completed())).provider_data or {})["logprobs"] == [
        hi,
        bang,
    ]
    done = {"type": "response.output_text.done", **at, "text": "Hi!", "logprobs": [hi, bang]}
    msg = final(sse(created(), added, *deltas, done, completed()))
    assert (msg.provider_data or {})["logprobs"] == [hi, bang]  # not doubled


def test_a_response_without_a_status_but_with_an_error_failed() -> None:
    body = {k: v for k, v in RESPONSE.items() if k != "status"}
    body["error"] = {"code": "rate_limit_exceeded", "message": "slow down"}
    with pytest.raises(llmkit.RateLimitError, match="slow down"):
        llmkit.parse_response(MODEL, body)
