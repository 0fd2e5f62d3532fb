"""The Anthropic Messages decoder on hand-built streams: one test per rule the recordings do not
pin down exactly (named after the behaviour, with its QUIRKS id)."""

from __future__ import annotations

import json
from typing import Any

import llmkit
from tests.support.helpers import rechunk

MODEL = llmkit.Model(
    provider="anthropic",
    id="claude-sonnet-4-5",
    api="anthropic-messages",
    max_output_tokens=64000,
    reasoning=True,
    input=["text", "image"],
)


def start(usage: dict[str, Any] | None = None, **message: Any) -> dict[str, Any]:
    shell = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 10, "output_tokens": 1},
    }
    return {"type": "message_start", "message": {**shell, **message}}


def block(index: int, **content_block: Any) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content_block}


def delta(index: int, **d: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": d}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def end(reason: str = "end_turn", **usage: Any) -> list[dict[str, Any]]:
    message_delta = {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": {"output_tokens": 5, **usage},
    }
    return [message_delta, {"type": "message_stop"}]


def sse(*events: dict[str, Any] | str) -> bytes:
    out = []
    for e in events:
        if isinstance(e, str):
            out.append(e)
        else:
            out.append(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n")
    return "".join(out).encode()


def decode(body: bytes) -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
    events = list(llmkit.parse_stream(MODEL, [body]))
    for seed in range(3):  # the chunking never matters
        again = list(llmkit.parse_stream(MODEL, rechunk(body, seed)))
        assert again[-1].message.model_dump() == events[-1].message.model_dump()  # type: ignore[union-attr]
    return events, events[-1].message  # type: ignore[union-attr]


def kinds(message: llmkit.AssistantMessage) -> list[str]:
    return [d.kind for d in message.diagnostics]


def test_block_index_is_not_the_tool_ordinal_C5() -> None:
    body = sse(
        start(),
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="Two calls."),
        stop(0),
        block(1, type="tool_use", id="toolu_a", name="add", input={}),
        delta(1, type="input_json_delta", partial_json=""),
        delta(1, type="input_json_delta", partial_json='{"a": 1}'),
        stop(1),
        block(2, type="tool_use", id="toolu_b", name="add", input={}),
        delta(2, type="input_json_delta", partial_json='{"a": 2}'),
        stop(2),
        *end("tool_use"),
    )
    events, message = decode(body)
    assert [(c.id, c.arguments) for c in message.tool_calls] == [
        ("toolu_a", {"a": 1}),
        ("toolu_b", {"a": 2}),
    ]
    starts = [e for e in events if isinstance(e, llmkit.ToolCallStart)]
    assert [e.index for e in starts] == [1, 2]  # positions in message.content
    assert message.stop_reason == "tool_use" and kinds(message) == []


def test_whole_input_in_content_block_start_and_empty_input_D1_D3() -> None:
    body = sse(
        start(),
        block(0, type="tool_use", id="toolu_a", name="f", input={"k": [1, {"x": "é"}]}),
        stop(0),
        block(1, type="tool_use", id="toolu_b", name="g", input={}),
        delta(1, type="input_json_delta", partial_json=""),
        stop(1),
        *end("tool_use"),
    )
    _, message = decode(body)
    a, b = message.tool_calls
    assert (a.arguments, a.status, json.loads(a.raw_arguments)) == (
        {"k": [1, {"x": "é"}]},
        "complete",
        {"k": [1, {"x": "é"}]},
    )
    assert (b.arguments, b.status, b.raw_arguments) == ({}, "complete", "")


def test_an_empty_fragment_for_an_unannounced_block_opens_no_call_D3() -> None:
    body = sse(
        start(),
        delta(3, type="input_json_delta", partial_json=""),
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="hi"),
        stop(0),
        *end(),
    )
    _, message = decode(body)
    assert message.tool_calls == [] and message.text == "hi" and kinds(message) == []


def test_signature_and_redacted_thinking_are_kept_for_replay_F1() -> None:
    body = sse(
        start(),
        block(0, type="thinking", thinking="", signature=""),
        delta(0, type="thinking_delta", thinking="Let me "),
        delta(0, type="thinking_delta", thinking="think."),
        delta(0, type="signature_delta", signature="EqQBCgIYAhIM"),
        stop(0),
        block(1, type="redacted_thinking", data="EmwKAhgBEgy"),
        stop(1),
        block(2, type="text", text=""),
        delta(2, type="text_delta", text="Done."),
        stop(2),
        *end(),
    )
    _, message = decode(body)
    t1, t2, _ = message.content
    assert isinstance(t1, llmkit.ThinkingPart) and isinstance(t2, llmkit.ThinkingPart)
    assert (t1.thinking, t1.signature, t1.redacted) == ("Let me think.", "EqQBCgIYAhIM", False)
    assert (t2.thinking, t2.redacted, t2.replay) == ("", True, {"data": "EmwKAhgBEgy"})
    assert message.thinking == "Let me think." and message.text == "Done."


def test_server_tool_blocks_are_opaque_and_round_trip_for_pause_turn_E3() -> None:
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://a.example", "title": "A"}],
    }
    body = sse(
        start(),
        block(0, type="server_tool_use", id="srvtoolu_1", name="web_search", input={}),
        delta(0, type="input_json_delta", partial_json=""),
        delta(0, type="input_json_delta", partial_json='{"query": "wea'),
        delta(0, type="input_json_delta", partial_json='ther"}'),
        stop(0),
        block(1, **result),
        stop(1),
        *end("pause_turn"),
    )
    _, message = decode(body)
    assert message.stop_reason == "pause" and message.raw_stop_reason == "pause_turn"
    assert message.tool_calls == [] and message.text == "" and kinds(message) == []
    blocks = [p.replay["block"] for p in message.content if isinstance(p, llmkit.ThinkingPart)]  # type: ignore[index]
    search = {"query": "weather"}  # reassembled from its input_json_delta fragments
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": search}
    assert blocks == [server, result]
    # pause_turn: the content goes back as it came, and the model carries on.
    context = llmkit.Context(messages=[llmkit.user("Search"), message])
    sent = json.loads(llmkit.build_request(MODEL, context, api_key="k").content)
    assert sent["messages"][1] == {"role": "assistant", "content": blocks}


def test_a_cut_server_tool_input_is_kept_as_text_and_reported() -> None:
    body = sse(
        start(),
        block(0, type="server_tool_use", id="srvtoolu_1", name="bash_code_execution", input={}),
        delta(0, type="input_json_delta", partial_json='{"command": "ec'),
        *end("max_tokens"),
    )
    _, message = decode(body)
    (part,) = message.content
    assert isinstance(part, llmkit.ThinkingPart) and part.replay is not None
    assert part.replay["input_json"] == '{"command": "ec'
    assert message.stop_reason == "length" and kinds(message) == ["event_malformed"]
    # Not a valid block to send back: dropped from the next request, reported.
    context = llmkit.Context(messages=[llmkit.user("Run it"), message, llmkit.user("again")])
    request = llmkit.build_request(MODEL, context, api_key="k")
    sent = json.loads(request.content)
    assert [m["role"] for m in sent["messages"]] == ["user"]  # both user turns, merged
    assert [d.kind for d in request.extensions["llmkit.diagnostics"]] == ["thinking_dropped"]


def test_a_server_block_cut_by_an_error_keeps_what_arrived_A6() -> None:
    body = sse(
        start(),
        block(0, type="server_tool_use", id="srvtoolu_1", name="web_search", input={}),
        delta(0, type="input_json_delta", partial_json='{"query": "x"}'),
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"}}\n\n',
    )
    events, message = decode(body)
    assert isinstance(events[-1], llmkit.ErrorEvent)
    (part,) = message.content
    assert isinstance(part, llmkit.ThinkingPart) and part.replay is not None
    assert part.replay["block"]["input"] == {"query": "x"}


def test_stop_reasons_map_and_keep_the_raw_value_E3() -> None:
    expected = {
        "end_turn": "stop",
        "stop_sequence": "stop",
        "max_tokens": "length",
        "model_context_window_exceeded": "length",
        "refusal": "refusal",
        "pause_turn": "pause",
    }
    for raw, mapped in expected.items():
        body = sse(start(), block(0, type="text", text="x"), stop(0), *end(raw))
        _, message = decode(body)
        assert (message.stop_reason, message.raw_stop_reason) == (mapped, raw)
    refusal = {
        "type": "message_delta",
        "delta": {"stop_reason": "refusal", "stop_sequence": None, "stop_details": {"x": 1}},
        "usage": {"output_tokens": 3},
    }
    _, message = decode(sse(start(), refusal, {"type": "message_stop"}))
    assert message.stop_reason == "refusal" and message.provider_data == {"stop_details": {"x": 1}}
    _, message = decode(sse(start(), block(0, type="text", text="x"), stop(0), *end("new_one")))
    assert message.stop_reason == "stop" and kinds(message) == ["stop_reason_unknown"]


def test_usage_merges_cumulative_counts_J2() -> None:
    usage = {
        "input_tokens": 100,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 300,
        "output_tokens": 1,
    }
    body = sse(
        start(usage),
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="x"),
        stop(0),
        # output_tokens is cumulative; cache counts left out keep their message_start values
        *end(output_tokens=42, output_tokens_details={"thinking_tokens": 30}),
    )
    events, message = decode(body)
    u = message.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.reasoning) == (420, 42, 300, 20, 30)
    reports = [e.usage.output for e in events if isinstance(e, llmkit.UsageEvent)]
    assert reports == [1, 42]


def test_message_start_may_carry_the_whole_message_programmatic_tool_calling() -> None:
    content = [
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "rollDie",
            "input": {"player": "p1"},
            "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
        }
    ]
    usage = {"input_tokens": 0, "output_tokens": 0}
    shell = start(usage, content=content, stop_reason="tool_use", container={"id": "container_1"})
    body = sse(shell, {"type": "message_stop"})
    _, message = decode(body)
    (call,) = message.tool_calls
    assert (call.id, call.arguments, call.replay) == (
        "toolu_1",
        {"player": "p1"},
        {"caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
    )
    assert message.stop_reason == "tool_use" and message.usage.input == 0
    assert message.provider_data == {"container": {"id": "container_1"}}


def test_in_stream_error_with_any_payload_ends_with_a_typed_error_A6() -> None:
    body = sse(
        start(),
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="par"),
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"}}\n\n',
    )
    events, message = decode(body)
    assert isinstance(events[-1], llmkit.ErrorEvent)
    assert isinstance(events[-1].error, llmkit.OverloadedError)
    assert message.text == "par" and message.stop_reason == "error"
    _, message = decode(sse(start(), "event: error\ndata: upstream connect error\n\n"))
    assert message.stop_reason == "error" and "upstream connect error" in (message.error or "")


def test_pings_unknown_deltas_and_malformed_events_A3() -> None:
    body = sse(
        start(),
        'event: ping\ndata: {"type": "ping"}\n\n',
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="See "),
        delta(0, type="mystery_delta", mystery={"type": "char_location", "cited_text": "x"}),
        delta(0, type="mystery_delta", mystery={"type": "char_location", "cited_text": "y"}),
        "event: content_block_delta\ndata: {not json\n\n",
        delta(0, type="text_delta", text="this."),
        stop(0),
        *end(),
    )
    _, message = decode(body)
    assert message.text == "See this."
    assert kinds(message) == ["event_unknown", "event_malformed"]  # each unknown type once


def test_eof_before_message_stop_is_truncated_A4() -> None:
    body = sse(start(), block(0, type="text", text=""), delta(0, type="text_delta", text="x"))
    events, message = decode(body)
    assert isinstance(events[-1], llmkit.ErrorEvent) and message.text == "x"
    assert "stream_truncated" in kinds(message)
    body = sse(start(), block(0, type="text", text="x"), stop(0), "data: [DONE]\n\n")
    _, message = decode(body)  # [DONE] is not Anthropic's terminal event
    assert message.stop_reason == "error"


def test_non_streamed_bodies_and_error_bodies() -> None:
    body = {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "text", "text": "Hi"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 7, "output_tokens": 3},
    }
    message = llmkit.parse_response(MODEL, body)
    assert (message.thinking, message.text, message.response_id) == ("hm", "Hi", "msg_2")
    assert message.content[0].signature == "sig"  # type: ignore[union-attr]
    assert message.tool_calls[0].arguments == {"a": 1} and message.stop_reason == "tool_use"
    assert (message.usage.input, message.usage.cache_read, message.usage.cache_write) == (
        12,
        7,
        None,
    )
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    try:
        llmkit.parse_response(MODEL, json.dumps(error))
    except llmkit.OverloadedError:
        pass
    else:
        raise AssertionError("an error body must raise")


def test_usage_beyond_the_counts_diagnostics_and_the_snapshot_are_kept_verbatim() -> None:
    usage = {
        "input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "service_tier": "priority", "inference_geo": "us",
    }  # fmt: skip
    cache_miss = {"cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 7}}
    body = sse(
        start(usage, model="claude-sonnet-4-5-20250929", diagnostics=cache_miss),
        *end(server_tool_use={"web_search_requests": 2}),
    )
    _, message = decode(body)
    assert message.provider_data == {
        "model": "claude-sonnet-4-5-20250929",  # the snapshot that answered the alias
        "diagnostics": cache_miss,
        "usage": {**usage, "output_tokens": 5, "server_tool_use": {"web_search_requests": 2}},
    }
    assert message.usage.input == 10 and message.usage.output == 5
    # only the four counts llmkit maps: nothing to keep
    _, plain = decode(sse(start(), *end()))
    assert plain.provider_data is None
