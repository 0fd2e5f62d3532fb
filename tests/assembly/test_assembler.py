"""The assembler's rules (docs/design.md §4, QUIRKS B/C/D/E), each a named test over real OpenAI
Chat bytes: every body is also replayed re-split at random byte offsets (``helpers.replay``)."""

from __future__ import annotations

import json

import llmkit
from tests.support.helpers import MODEL, call, chunk, final, kinds, replay, sse, tools


def test_stable_synthesized_ids_when_missing_empty_or_null_B2() -> None:
    body = sse(
        tools(call(0, name="a", arguments='{"x":1}')),  # no id at all
        tools(call(1, id="", name="b", arguments="{}")),  # empty (Gemini compat)
        tools(call(2, name="c", arguments="{}", id=None) | {"id": None}),  # null (vLLM)
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    ids = [c.id for c in msg.tool_calls]
    assert len(set(ids)) == 3 and all(i.startswith("call_") for i in ids)
    assert kinds(msg).count("tool_call_id_synthesized") == 3
    assert [c.provider_id for c in msg.tool_calls] == ["", "", ""]
    # same bytes, same ids; every event carries the final id
    again = final(body)
    assert [c.id for c in again.tool_calls] == ids
    events = replay(body)
    started = [e.id for e in events if isinstance(e, llmkit.ToolCallStart)]
    assert started == ids


def test_synthesized_ids_differ_between_responses_B6() -> None:
    one = final(sse(chunk(id="chatcmpl-A"), tools(call(0, name="a", arguments="{}"))))
    two = final(sse(chunk(id="chatcmpl-B"), tools(call(0, name="a", arguments="{}"))))
    assert one.tool_calls[0].id != two.tool_calls[0].id


def test_id_name_type_are_set_once_never_concatenated_B1_D4() -> None:
    # vLLM/DeepSeek repeat id, type and name on every delta; llama.cpp repeats the name.
    body = sse(
        tools(call(0, id="call_abc", name="get_weather", arguments="")),
        tools(call(0, id="call_abc", name="get_weather", arguments='{"city":')),
        tools(call(0, id="call_abc", name="get_weather", arguments='"Paris"}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert len(msg.tool_calls) == 1
    c = msg.tool_calls[0]
    assert (c.id, c.name, c.arguments, c.status) == (
        "call_abc",
        "get_weather",
        {"city": "Paris"},
        "complete",
    )
    assert kinds(msg) == ["usage_missing"]  # nothing about the call


def test_id_inside_function_is_used_D4() -> None:
    msg = final(
        sse(tools({"index": 0, "function": {"id": "call_fn", "name": "f", "arguments": "{}"}}))
    )
    assert msg.tool_calls[0].id == "call_fn"


def test_new_id_at_occupied_index_is_a_new_call_C2() -> None:
    # Ollama 0.20: every call at index 0, each with its own id, arguments whole.
    body = sse(
        tools(call(0, id="call_a", name="read", arguments='{"path":"a.rs"}')),
        tools(call(0, id="call_b", name="read", arguments='{"path":"b.rs"}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [
        ("call_a", {"path": "a.rs"}),
        ("call_b", {"path": "b.rs"}),
    ]
    assert "tool_call_index_reused" in kinds(msg)


def test_new_name_after_complete_arguments_is_a_new_call_C2() -> None:
    body = sse(
        tools(call(0, name="read", arguments='{"path":"a"}')),
        tools(call(0, name="write", arguments='{"path":"b"}')),
    )
    msg = final(body)
    assert [c.name for c in msg.tool_calls] == ["read", "write"]


def test_changing_id_on_argument_deltas_stays_one_call_B3() -> None:
    body = sse(
        tools(call(0, id="call_first", name="f", arguments="")),
        tools(call(0, id="call_second", arguments='{"a":')),
        tools(call(0, id="call_second", arguments="1}")),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [("call_first", {"a": 1})]
    assert kinds(msg).count("tool_call_id_changed") == 1


def test_duplicate_id_on_distinct_calls_gets_distinct_ids() -> None:
    body = sse(
        tools(call(0, id="call_0", name="a", arguments="{}")),
        tools(call(1, id="call_0", name="b", arguments="{}")),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [c.name for c in msg.tool_calls] == ["a", "b"]
    ids = [c.id for c in msg.tool_calls]
    assert ids[0] == "call_0" and ids[1] != "call_0"
    assert msg.tool_calls[1].provider_id == "call_0"
    assert "tool_call_id_duplicate" in kinds(msg)


def test_missing_index_places_calls_by_position_C1() -> None:
    # Mistral: no index, each call whole; several entries in one list.
    body = sse(
        tools(
            call(id="abcdefghi", name="a", arguments='{"x":1}'),
            call(id="jklmnopqr", name="b", arguments='{"y":2}'),
        ),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [
        ("abcdefghi", {"x": 1}),
        ("jklmnopqr", {"y": 2}),
    ]
    assert kinds(msg).count("tool_call_index_missing") == 2


def test_missing_index_across_chunks_still_splits_calls_C1() -> None:
    body = sse(
        tools(call(id="abcdefghi", name="a", arguments='{"x":1}')),
        tools(call(id="jklmnopqr", name="b", arguments='{"y":2}')),
    )
    msg = final(body)
    assert [c.name for c in msg.tool_calls] == ["a", "b"]
    assert "tool_call_index_reused" not in kinds(msg)


def test_arguments_for_unannounced_index_join_the_single_open_call_C3() -> None:
    body = sse(
        tools(call(0, id="call_a", name="f", arguments='{"a":')),
        tools(call(1, arguments="1}")),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [("call_a", {"a": 1})]
    assert "tool_call_index_mismatch" in kinds(msg)


def test_several_calls_in_one_delta_list_C4() -> None:
    body = sse(
        tools(
            call(0, id="call_a", name="a", arguments='{"n":'),
            call(1, id="call_b", name="b", arguments='{"n":'),
        ),
        tools(call(0, arguments="1}"), call(1, arguments="2}")),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [
        ("call_a", {"n": 1}),
        ("call_b", {"n": 2}),
    ]


def test_arguments_as_deltas_whole_or_object_give_the_same_call_D1_D2() -> None:
    args = {"city": "Zürich", "days": 3, "tags": ["a", "b"]}
    text = json.dumps(args)
    deltas = sse(
        tools(call(0, id="call_x", name="f", arguments="")),
        *[tools(call(0, arguments=text[i : i + 3])) for i in range(0, len(text), 3)],
    )
    whole = sse(tools(call(0, id="call_x", name="f", arguments=text)))
    as_object = sse(tools(call(0, id="call_x", name="f", arguments=args)))
    results = [final(b).tool_calls[0] for b in (deltas, whole, as_object)]
    assert all(r.arguments == args and r.status == "complete" for r in results)
    assert results[0].raw_arguments == results[1].raw_arguments == text
    assert json.loads(results[2].raw_arguments) == args


def test_empty_arguments_are_an_empty_object_D3() -> None:
    for args in ("", "  ", None):
        msg = final(
            sse(tools(call(0, id="call_e", name="now", arguments=args)), chunk(finish="tool_calls"))
        )
        c = msg.tool_calls[0]
        assert (c.arguments, c.status) == ({}, "complete")
        assert not any(d.kind.startswith("tool_arguments") for d in msg.diagnostics)


def test_duplicate_full_payload_is_not_appended_D5() -> None:
    args = '{"q":"x"}'
    body = sse(
        tools(call(0, id="call_d", name="s", arguments='{"q":')),
        tools(call(0, arguments='"x"}')),
        tools(call(0, id="call_d", name="s", arguments=json.dumps(args))),  # double-encoded copy
        tools(call(0, id="call_d", name="s", arguments=args)),  # plain copy
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    c = msg.tool_calls[0]
    assert (c.arguments, c.raw_arguments, c.status) == ({"q": "x"}, args, "complete")
    assert kinds(msg).count("tool_arguments_duplicate") == 2


def test_call_is_finalised_only_when_the_stream_ends() -> None:
    body = sse(
        tools(call(0, id="call_f", name="f", arguments='{"a":1}')),  # complete JSON already
        chunk({"content": "more text"}),
        chunk(finish="tool_calls"),
    )
    events = replay(body)
    end_at = next(i for i, e in enumerate(events) if isinstance(e, llmkit.ToolCallEnd))
    text_at = next(i for i, e in enumerate(events) if isinstance(e, llmkit.TextDelta))
    assert end_at > text_at


def test_stop_with_complete_calls_is_tool_use_E1() -> None:
    msg = final(sse(tools(call(0, id="call_s", name="f", arguments="{}")), chunk(finish="stop")))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("tool_use", "stop")
    assert "stop_reason_inferred" in kinds(msg)


def test_tool_calls_finish_without_calls_is_stop() -> None:
    msg = final(sse(chunk({"content": "hi"}), chunk(finish="tool_calls")))
    assert msg.stop_reason == "stop" and "stop_reason_inferred" in kinds(msg)


def test_unknown_finish_reason_never_raises() -> None:
    msg = final(sse(chunk({"content": "hi"}), chunk(finish="weird_new_reason")))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", "weird_new_reason")
    assert "stop_reason_unknown" in kinds(msg)
    msg = final(sse(tools(call(0, id="c1", name="f", arguments="{}")), chunk(finish="MODEL_ARMOR")))
    assert msg.stop_reason == "tool_use"


def test_first_finish_reason_wins_and_conflict_is_reported_E2() -> None:
    body = sse(
        tools(call(0, id="c1", name="f", arguments="{}")),
        chunk(finish="tool_calls"),
        chunk(finish="stop"),
    )
    msg = final(body)
    assert (msg.stop_reason, msg.raw_stop_reason) == ("tool_use", "tool_calls")
    assert "stop_reason_conflict" in kinds(msg)
    assert len(msg.tool_calls) == 1


def test_no_finish_reason_before_done_is_inferred() -> None:
    msg = final(sse(tools(call(0, id="c1", name="f", arguments="{}"))))
    assert msg.stop_reason == "tool_use" and "stop_reason_inferred" in kinds(msg)


def test_length_cut_arguments_are_recovered_not_complete_D6() -> None:
    body = sse(
        tools(call(0, id="c1", name="write", arguments='{"path":"a.txt","text":"hel')),
        chunk(finish="length"),
    )
    msg = final(body)
    c = msg.tool_calls[0]
    assert msg.stop_reason == "length"
    assert (c.status, c.arguments) == ("recovered", {"path": "a.txt", "text": "hel"})
    diag = msg.diagnostics_for(c.id)[0]
    assert diag.kind == "tool_arguments_recovered" and diag.details["mode"] == "partial"


def test_invalid_arguments_are_empty_with_a_diagnostic_D6() -> None:
    msg = final(
        sse(tools(call(0, id="c1", name="f", arguments="{nope}")), chunk(finish="tool_calls"))
    )
    c = msg.tool_calls[0]
    assert (c.status, c.arguments, c.raw_arguments) == ("invalid", {}, "{nope}")
    assert [d.kind for d in msg.diagnostics_for("c1")] == ["tool_arguments_invalid"]


def test_exactly_one_terminal_event_and_partial_message_after_error_A5() -> None:
    body = sse(
        chunk({"content": "Partial "}),
        tools(call(0, id="c1", name="f", arguments='{"a":1}')),
        {"error": {"message": "The server had an error", "type": "server_error"}},
        done=False,
    )
    events = replay(body)
    assert isinstance(events[-1], llmkit.ErrorEvent)
    msg = events[-1].message
    assert msg.stop_reason == "error" and msg.text == "Partial "
    assert msg.tool_calls[0].arguments == {"a": 1}
    assert isinstance(events[-1].error, llmkit.ServerError)
    # the partial message is transcript-valid: it can be sent back
    ctx = llmkit.Context(messages=[llmkit.user("hi"), msg])
    llmkit.build_request(llmkit.Model(provider="vllm", id="m", api="openai-chat"), ctx)


def test_eof_without_done_is_truncated_A4() -> None:
    events = replay(sse(chunk({"content": "cut"}), done=False))
    assert isinstance(events[-1], llmkit.ErrorEvent)
    msg = events[-1].message
    assert (msg.stop_reason, msg.text) == ("error", "cut")
    assert "stream_truncated" in kinds(msg)
    assert isinstance(events[-1].error, llmkit.StreamError)


def test_events_after_done_are_ignored_A4() -> None:
    body = sse(chunk({"content": "a"}), chunk(finish="stop")) + sse(
        chunk({"content": "zzz"}), done=False
    )
    msg = final(body)
    assert msg.text == "a"


def test_usage_from_empty_choices_chunk_and_last_wins_A8_J1() -> None:
    body = sse(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [],
            "prompt_filter_results": [],
        },
        chunk({"content": "x"}, finish="stop"),
        {
            "id": "chatcmpl-1",
            "choices": [],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 4,
                "prompt_tokens_details": {"cached_tokens": 6},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
        },
    )
    msg = final(body)
    assert msg.usage.model_dump() == {
        "input": 10,
        "output": 4,
        "cache_read": 6,
        "cache_write": None,
        "reasoning": 2,
        "cost": None,
    }
    assert "usage_missing" not in kinds(msg)


def test_usage_missing_is_reported_not_guessed_J1() -> None:
    msg = final(sse(chunk({"content": "x"}, finish="stop")))
    assert msg.usage.input is None and "usage_missing" in kinds(msg)


def test_response_id_is_first_non_empty_chunk_id_A9() -> None:
    body = sse(
        chunk({"content": "a"}, id=""),
        chunk({"content": "b"}, id="first"),
        chunk({"content": "c"}, id="second"),
    )
    assert final(body).response_id == "first"


def test_block_events_are_ordered_and_indexed_by_content_position() -> None:
    body = sse(
        chunk({"reasoning_content": "think"}),
        chunk({"content": "Hello"}),
        tools(call(0, id="c1", name="f", arguments='{"a":1}')),
        chunk(finish="tool_calls"),
    )
    events = replay(body)
    msg = events[-1].message
    assert [p.type for p in msg.content] == ["thinking", "text", "tool_call"]
    for event in events:
        if event.index is not None:
            part = msg.content[event.index]
            expected = {"Thinking": "thinking", "Text": "text", "ToolCall": "tool_call"}
            prefix = next(k for k in expected if type(event).__name__.startswith(k))
            assert part.type == expected[prefix]


def test_partial_arguments_are_the_value_at_each_delta() -> None:
    text = '{"a": [1, 2], "b": "xyz"}'
    body = sse(
        tools(call(0, id="c1", name="f", arguments="")),
        *[tools(call(0, arguments=ch)) for ch in text],
    )
    events = list(llmkit.parse_stream(MODEL, [body]))
    deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta)]
    late = [d.partial_arguments for d in deltas]  # read after the stream ended
    assert late[-1] == {"a": [1, 2], "b": "xyz"}
    assert late[text.index('"b"') - 1] == {"a": [1, 2]}
    assert late[text.index("xyz")] == {"a": [1, 2], "b": "x"}


def test_unknown_tool_name_is_reported() -> None:
    events = list(llmkit.parse_stream(MODEL, [sse(tools(call(0, id="c1", arguments="{}")))]))
    msg = events[-1].message
    assert msg.tool_calls[0].name == "" and "tool_call_unknown_name" in kinds(msg)


def test_refusal_text_and_stop_reason() -> None:
    msg = final(sse(chunk({"refusal": "I can't help with that."}), chunk(finish="stop")))
    assert (msg.text, msg.stop_reason) == ("I can't help with that.", "refusal")


def test_malformed_events_are_skipped_and_reported() -> None:
    msg = final(sse(chunk({"content": "a"}), "not json", chunk({"content": "b"}, finish="stop")))
    assert msg.text == "ab" and kinds(msg).count("event_malformed") == 1


def test_the_same_name_with_a_new_id_before_any_arguments_is_one_call_B1_B3() -> None:
    # A server that repeats id and name (B1) and changes the id after the first chunk (B3):
    # the first chunk's call has no arguments yet, so the second is not a new call. Splitting
    # here made a phantom f({}) marked complete, which looks executable.
    body = sse(
        tools(call(0, "a1", "f", "")),
        tools(call(0, "b2", "f", '{"x": 1}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    [only] = msg.tool_calls
    assert (only.id, only.name, only.arguments) == ("a1", "f", {"x": 1})
    assert "tool_call_id_changed" in kinds(msg)


def test_a_new_id_after_complete_arguments_is_still_a_new_call_C2() -> None:
    body = sse(
        tools(call(0, "a1", "f", '{"x": 1}')),
        tools(call(0, "b2", "f", '{"x": 2}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [("a1", {"x": 1}), ("b2", {"x": 2})]


def test_synthesised_ids_use_the_response_id_when_it_comes_after_the_first_event_B2_B6() -> None:
    # Azure's preamble chunk has id "" and is byte-identical in every response: seeding ids on
    # it made two responses' calls share ids. The response id, known in time, seeds them.
    preamble = {"id": "", "object": "", "choices": [], "prompt_filter_results": []}

    def response(rid: str) -> llmkit.AssistantMessage:
        return final(
            sse(
                preamble,
                chunk({"tool_calls": [call(0, None, "f", "{}")]}, id=rid),
                chunk(finish="tool_calls", id=rid),
            )
        )

    first, second = response("r1"), response("r2")
    assert first.tool_calls[0].id != second.tool_calls[0].id
    assert first.tool_calls[0].id == response("r1").tool_calls[0].id  # still deterministic
