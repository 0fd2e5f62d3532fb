"""One test per docs/quirks.md row that applies to the Chat Completions dialect.

Each test feeds the bytes the named server sends (built from the row's description or taken
from the corpus) and asserts what the row's "Do" column says, including the diagnostic kind
where llmkit repaired, inferred, synthesised or dropped anything. Every body is replayed
re-chunked at random byte offsets by ``helpers.replay``/``final``.
"""

from __future__ import annotations

import json
import time
from functools import partial
from typing import Any

import pytest

import llmkit
from llmkit._classify import classify, parse_retry_after
from tests.support.bodies import sent_kinds
from tests.support.helpers import MODEL, call, chunk, final, kinds, rechunk, replay, sse, tools

WEATHER = llmkit.Tool(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


def model(provider: str, **fields: Any) -> llmkit.Model:
    base = {"azure": "https://res.openai.azure.com"}.get(provider, "")
    return llmkit.Model(
        provider=provider, id=fields.pop("id", "m"), api="openai-chat", base_url=base, **fields
    )


body_of = partial(sent_kinds, None, api_key="k")


def turn(
    *calls: llmkit.ToolCall,
    text: str = "",
    thinking: str = "",
    m: llmkit.Model | None = None,
    **extra: Any,
) -> llmkit.AssistantMessage:
    content: list[Any] = []
    if thinking:
        content.append(llmkit.ThinkingPart(thinking=thinking))
    if text:
        content.append(llmkit.TextPart(text=text))
    content.extend(calls)
    origin = {"provider": m.provider, "api": m.api, "model": m.id} if m else {}
    return llmkit.AssistantMessage(
        content=content, stop_reason="tool_use" if calls else "stop", **origin, **extra
    )


def tc(id: str, name: str = "get_weather", **kw: Any) -> llmkit.ToolCall:
    return llmkit.ToolCall(
        id=id, name=name, arguments={"city": "Oslo"}, raw_arguments='{"city":"Oslo"}', **kw
    )


# -- A. SSE framing and transport --


def test_A1_emoji_split_at_every_byte_offset() -> None:
    body = sse(chunk({"content": "Ok 😀 日本"}), chunk(finish="stop"))
    start = body.index("😀".encode())
    for cut in range(start, start + 5):
        events = list(llmkit.parse_stream(MODEL, [body[:cut], body[cut:]]))
        assert events[-1].message.text == "Ok 😀 日本"  # type: ignore[union-attr]


def test_A2_u2028_inside_json_strings_does_not_cut_the_line() -> None:
    msg = final(sse(chunk({"content": "a\u2028b\u2029c\x85d"}), chunk(finish="stop")))
    assert msg.text == "a\u2028b\u2029c\x85d"


def test_A3_openrouter_processing_comments_are_ignored() -> None:
    body = b": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + sse(
        chunk({"content": "hi"}), chunk(finish="stop")
    )
    msg = final(body)
    assert msg.text == "hi" and "event_malformed" not in kinds(msg)


def test_A4_done_terminates_eof_without_it_is_truncated_and_trailing_data_is_ignored() -> None:
    assert final(sse(chunk({"content": "x"}), chunk(finish="stop"))).stop_reason == "stop"
    cut = replay(sse(chunk({"content": "x"}), chunk(finish="stop"), done=False))
    assert isinstance(cut[-1], llmkit.ErrorEvent) and "stream_truncated" in kinds(cut[-1].message)
    after = (
        sse(chunk({"content": "x"}), chunk(finish="stop"))
        + b"data: [DONE]\n\n"
        + sse(chunk({"content": "y"}))
    )
    assert final(after).text == "x"


def test_A5_error_payload_mid_stream_keeps_the_partial_message() -> None:
    body = sse(
        chunk({"content": "Half"}),
        {"error": {"message": "boom", "type": "server_error"}},
        done=False,
    )
    events = replay(body)
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(
        events[-1].error, llmkit.ServerError
    )
    assert events[-1].message.text == "Half" and events[-1].error.partial is events[-1].message


def test_A6_overloaded_error_payload_is_overloaded() -> None:
    body = sse(
        chunk({"content": "a"}),
        {"error": {"type": "overloaded_error", "message": "Overloaded"}},
        done=False,
    )
    assert isinstance(replay(body)[-1].error, llmkit.OverloadedError)  # type: ignore[union-attr]


def test_A7_openrouter_error_inside_200_with_finish_reason_error() -> None:
    err = {
        "code": 502,
        "message": "Provider returned error",
        "metadata": {"provider_name": "Novita", "raw": "upstream"},
    }
    body = sse(
        chunk({"content": "par"}),
        {
            "id": "gen-1",
            "choices": [
                {
                    "index": 0,
                    "delta": {},
                    "finish_reason": "error",
                    "native_finish_reason": "error",
                    "error": err,
                }
            ],
        },
        done=False,
    )
    events = replay(body, model("openrouter"))
    error = events[-1].error  # type: ignore[union-attr]
    assert isinstance(events[-1], llmkit.ErrorEvent) and isinstance(error, llmkit.APIError)
    assert error.body["error"]["metadata"]["provider_name"] == "Novita"
    # null choices in a whole body is a transient failure, not an empty success
    with pytest.raises(llmkit.ServerError):
        llmkit.parse_response(model("openrouter"), {"id": "gen-2", "choices": None})


def test_A8_empty_choices_and_azure_preamble_never_crash() -> None:
    azure = {
        "id": "",
        "object": "",
        "created": 0,
        "model": "",
        "choices": [],
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
    }
    body = sse(
        azure,
        chunk({"content": "x"}, finish="stop"),
        {"id": "c", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
    )
    msg = final(body)
    assert (msg.text, msg.usage.input) == ("x", 3)


def test_A9_changing_chunk_ids_keep_the_first_and_one_message() -> None:
    body = sse(
        chunk({"content": "a"}, id="one"),
        chunk({"content": "b"}, id="two"),
        chunk(finish="stop", id="three"),
    )
    msg = final(body)
    assert (msg.text, msg.response_id) == ("ab", "one")


def test_A10_error_bodies_as_json_arrays() -> None:
    body = [
        {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}
    ]
    err = classify(429, json.dumps(body))
    assert isinstance(err, llmkit.RateLimitError) and "Resource exhausted" in str(err)


# -- B. Tool-call identity -------------------------------------------------------------------


def test_B1_repeated_id_type_name_are_set_once() -> None:
    body = sse(
        *[
            tools(call(0, id="chatcmpl-tool-1", name="get_weather", arguments=p))
            for p in ('{"city"', ':"Rome"}')
        ]
    )
    c = final(body).tool_calls[0]
    assert (c.id, c.name, c.arguments) == ("chatcmpl-tool-1", "get_weather", {"city": "Rome"})


def test_B2_missing_or_empty_ids_are_synthesised_and_never_null_on_replay() -> None:
    body = sse(
        tools(call(0, id="", name="get_weather", arguments='{"city":"Rome"}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body)
    c = msg.tool_calls[0]
    assert (
        c.id.startswith("call_")
        and c.provider_id == ""
        and "tool_call_id_synthesized" in kinds(msg)
    )
    sent, _ = body_of(
        MODEL, llmkit.Context(messages=[llmkit.user("x"), msg, llmkit.tool_result(c, "ok")])
    )
    assert sent["messages"][1]["tool_calls"][0]["id"] == c.id == sent["messages"][2]["tool_call_id"]


def test_B3_id_change_within_one_call_groups_by_index() -> None:
    body = sse(
        tools(call(0, id="a1", name="f", arguments="")),
        tools(call(0, id="b2", arguments='{"x":1}')),
    )
    msg = final(body)
    assert [(c.id, c.arguments) for c in msg.tool_calls] == [("a1", {"x": 1})]
    assert "tool_call_id_changed" in kinds(msg)


def test_B4_same_name_parallel_calls_without_ids_stay_distinct_and_pair_by_id() -> None:
    body = sse(
        tools(
            call(0, name="get_weather", arguments='{"city":"A"}'),
            call(1, name="get_weather", arguments='{"city":"B"}'),
        )
    )
    msg = final(body)
    a, b = msg.tool_calls
    assert a.id != b.id and (a.arguments, b.arguments) == ({"city": "A"}, {"city": "B"})
    sent, _ = body_of(
        MODEL,
        llmkit.Context(
            messages=[llmkit.user("x"), msg, llmkit.tool_result(b, "B"), llmkit.tool_result(a, "A")]
        ),
    )
    assert [m["tool_call_id"] for m in sent["messages"][2:]] == [b.id, a.id]


def test_B5_ids_mapped_per_target_mistral_nine_alphanumerics() -> None:
    calls = [tc("toolu_01ABCdef_long-anthropic-id"), tc("call_xyz|fc_abc"), tc("abcdefghi")]
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), turn(*calls), *[llmkit.tool_result(c, "r") for c in calls]]
    )
    sent, found = body_of(model("mistral"), ctx)
    ids = [c["id"] for c in sent["messages"][1]["tool_calls"]]
    assert all(len(i) == 9 and i.isalnum() for i in ids) and len(set(ids)) == 3
    assert ids[2] == "abcdefghi"  # already valid: kept
    assert [m["tool_call_id"] for m in sent["messages"][2:5]] == ids
    assert found.count("tool_call_id_normalized") == 2


def test_B6_synthesised_ids_are_reproducible_and_differ_across_responses() -> None:
    one = sse(chunk({}, id="r1"), tools(call(0, name="f", arguments="{}")))
    two = sse(chunk({}, id="r2"), tools(call(0, name="f", arguments="{}")))
    assert final(one).tool_calls[0].id == final(one).tool_calls[0].id != final(two).tool_calls[0].id


# -- C. Index and grouping --


def test_C1_missing_index_uses_list_position() -> None:
    body = sse(
        tools(
            call(id="a", name="f", arguments='{"n":1}'), call(id="b", name="g", arguments='{"n":2}')
        )
    )
    msg = final(body)
    assert [(c.name, c.arguments) for c in msg.tool_calls] == [("f", {"n": 1}), ("g", {"n": 2})]
    assert kinds(msg).count("tool_call_index_missing") == 2


def test_C2_all_calls_at_index_zero_with_new_ids_are_split() -> None:
    body = sse(
        tools(call(0, id="x1", name="read", arguments='{"path":"a.rs"}')),
        tools(call(0, id="x2", name="read", arguments='{"path":"b.rs"}')),
        chunk(finish="stop"),
    )
    msg = final(body)
    assert [c.arguments for c in msg.tool_calls] == [{"path": "a.rs"}, {"path": "b.rs"}]
    assert msg.stop_reason == "tool_use"


def test_C3_arguments_at_an_unannounced_index_join_the_open_call() -> None:
    body = sse(tools(call(0, id="s1", name="f", arguments='{"a"')), tools(call(3, arguments=":1}")))
    msg = final(body)
    assert msg.tool_calls[0].arguments == {"a": 1} and "tool_call_index_mismatch" in kinds(msg)


def test_C4_several_calls_in_one_delta() -> None:
    body = sse(
        tools(*[call(i, id=f"c{i}", name="f", arguments=json.dumps({"i": i})) for i in range(3)])
    )
    assert [c.arguments["i"] for c in final(body).tool_calls] == [0, 1, 2]


def test_C5_first_tool_index_one_and_content_positions_are_llmkits_own() -> None:
    # An Anthropic-backed gateway reuses the block index: the first tool call is at index 1.
    body = sse(tools(call(1, id="toolu_1", name="f", arguments="{}")), chunk(finish="tool_calls"))
    events = replay(body)
    start = next(e for e in events if isinstance(e, llmkit.ToolCallStart))
    assert start.index == 0 and events[-1].message.content[0].id == "toolu_1"  # type: ignore[union-attr]


# -- D. Arguments payload --


def test_D1_whole_arguments_in_one_chunk_equal_many_deltas() -> None:
    text = '{"city": "Paris", "days": 2}'
    whole = final(sse(tools(call(0, id="g1", name="f", arguments=text)))).tool_calls[0]
    many = final(
        sse(tools(call(0, id="g1", name="f")), *[tools(call(0, arguments=ch)) for ch in text])
    ).tool_calls[0]
    assert whole.model_dump() == many.model_dump()


def test_D2_arguments_as_a_json_object() -> None:
    c = final(
        sse(tools(call(0, id="o1", name="f", arguments={"city": "Paris", "n": [1, 2]})))
    ).tool_calls[0]
    assert (c.arguments, c.status, json.loads(c.raw_arguments)) == (
        {"city": "Paris", "n": [1, 2]},
        "complete",
        c.arguments,
    )


def test_D3_empty_arguments_are_an_empty_object_and_replayed_as_braces() -> None:
    msg = final(
        sse(tools(call(0, id="e1", name="now", arguments="")), tools(call(0, arguments="")))
    )
    c = msg.tool_calls[0]
    assert (c.arguments, c.status) == ({}, "complete")
    sent, _ = body_of(
        model("vllm"), llmkit.Context(messages=[llmkit.user("x"), msg, llmkit.tool_result(c, "t")])
    )
    assert sent["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_D4_name_repeated_and_id_inside_function() -> None:
    body = sse(
        tools({"index": 0, "function": {"id": "lc1", "name": "add", "arguments": '{"a":'}}),
        tools({"index": 0, "function": {"name": "add", "arguments": "1}"}}),
    )
    c = final(body).tool_calls[0]
    assert (c.id, c.name, c.arguments) == ("lc1", "add", {"a": 1})


def test_D5_duplicate_summary_chunk_is_not_appended() -> None:
    body = sse(
        tools(call(0, id="d1", name="f", arguments='{"q":1}')),
        tools(call(0, id="d1", name="f", arguments=json.dumps('{"q":1}'))),
    )
    msg = final(body)
    assert msg.tool_calls[0].raw_arguments == '{"q":1}' and "tool_arguments_duplicate" in kinds(msg)


def test_D6_broken_arguments_never_raise_and_carry_the_raw_text_and_position() -> None:
    body = sse(
        tools(call(0, id="b1", name="f", arguments='{"a": 1, "b": tru')), chunk(finish="length")
    )
    msg = final(body)
    c = msg.tool_calls[0]
    assert (c.status, c.arguments, c.raw_arguments) == ("recovered", {"a": 1}, '{"a": 1, "b": tru')
    d = msg.diagnostics_for("b1")[0]
    assert d.details["mode"] == "partial" and d.details["position"] is not None
    # Groq rejects a malformed call with 400 tool_use_failed and the raw text on the error
    err = classify(
        400,
        json.dumps(
            {
                "error": {
                    "message": "Failed to call a function",
                    "type": "invalid_request_error",
                    "code": "tool_use_failed",
                    "failed_generation": "<fn>bad</fn>",
                }
            }
        ),
    )
    # the code says what failed (the type only that the request was invalid)
    assert err.code == "tool_use_failed"
    assert err.body["error"]["failed_generation"] == "<fn>bad</fn>"


def test_D7_partial_arguments_read_on_every_delta_stay_linear() -> None:
    """Reading partial_arguments on every delta (as a streaming UI does) must cost linear time
    in the argument length; re-parsing the buffer per delta, as peers do, is quadratic."""

    def cost(n: int) -> float:
        text = json.dumps(
            {"path": "a.py", "edits": [{"line": i, "text": f"x{i}"} for i in range(n)]}
        )
        deltas = [text[i : i + 8] for i in range(0, len(text), 8)]
        body = sse(
            tools(call(0, id="l1", name="f", arguments="")),
            *[tools(call(0, arguments=d)) for d in deltas],
        )
        chunks = rechunk(body, 1)
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for event in llmkit.parse_stream(MODEL, chunks):
                if isinstance(event, llmkit.ToolCallDelta):
                    event.partial_arguments  # noqa: B018
            best = min(best, time.perf_counter() - started)
        assert event.message.tool_calls[0].arguments["edits"][-1] == {
            "line": n - 1,
            "text": f"x{n - 1}",
        }  # type: ignore[union-attr]
        return best

    small, large = cost(300), cost(2400)
    assert large < 20 * small  # linear: ~8x; quadratic re-parsing: ~64x


# -- E. Finish and stop reasons --


def test_E1_stop_with_tool_calls_is_tool_use_raw_kept() -> None:
    msg = final(sse(tools(call(0, id="v1", name="f", arguments="{}")), chunk(finish="stop")))
    assert (msg.stop_reason, msg.raw_stop_reason) == (
        "tool_use",
        "stop",
    ) and "stop_reason_inferred" in kinds(msg)


def test_E2_two_finish_reasons_first_wins_calls_kept() -> None:
    msg = final(
        sse(
            tools(call(0, id="v1", name="f", arguments="{}")),
            chunk(finish="tool_calls"),
            chunk(finish="stop"),
        )
    )
    assert (msg.stop_reason, len(msg.tool_calls)) == (
        "tool_use",
        1,
    ) and "stop_reason_conflict" in kinds(msg)


def test_E3_refusal_is_its_own_stop_reason_and_its_calls_are_not_executable() -> None:
    msg = final(sse(chunk({"refusal": "No."}), chunk(finish="stop")))
    assert (msg.stop_reason, msg.text) == ("refusal", "No.")
    body = sse(
        tools(call(0, id="r1", name="f", arguments="{}")),
        chunk({"refusal": "No."}),
        chunk(finish="stop"),
    )
    msg = final(body)
    assert (msg.stop_reason, msg.tool_calls[0].status) == ("refusal", "recovered")
    assert "tool_call_not_executable" in kinds(msg)
    with pytest.raises(llmkit.ToolArgumentsError):
        llmkit.decode_tool_call(llmkit.Tool(name="f"), msg.tool_calls[0])


def test_E4_unknown_finish_values_map_by_string_and_are_kept_raw() -> None:
    msg = final(sse(chunk({"content": "x"}), chunk(finish="MODEL_ARMOR_SOMETHING_NEW")))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", "MODEL_ARMOR_SOMETHING_NEW")
    assert "stop_reason_unknown" in kinds(msg)


def test_E4_a_malformed_function_call_from_geminis_compat_endpoint_is_a_failure() -> None:
    # Gemini's OpenAI-compatible endpoint passes its finish reason through unchanged: a failed
    # call must not end as an empty success.
    msg = final(sse(chunk({"content": ""}), chunk(finish="MALFORMED_FUNCTION_CALL")))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("error", "MALFORMED_FUNCTION_CALL")
    assert "tool_arguments_invalid" in kinds(msg)
    assert msg.error is not None and "MALFORMED_FUNCTION_CALL" in msg.error


def test_E5_openrouter_native_finish_reason_is_kept() -> None:
    body = sse(
        {
            "id": "gen-1",
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": "x"},
                    "finish_reason": "stop",
                    "native_finish_reason": "end_turn",
                }
            ],
        }
    )
    msg = final(body, model("openrouter"))
    assert (msg.raw_stop_reason, msg.provider_data) == (
        "stop",
        {"native_finish_reason": "end_turn"},
    )


# -- F. Reasoning and signatures --


def test_F3_gemini_compat_extra_content_is_kept_and_replayed_to_the_same_model() -> None:
    gem = model("gemini-openai", id="gemini-2.5-flash")
    extra = {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    body = sse(
        tools(
            {
                "id": "",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"A"}'},
                "extra_content": extra,
            }
        ),
        chunk(finish="stop"),
    )
    msg = final(body, gem)
    c = msg.tool_calls[0]
    assert c.replay == {"extra_content": extra}
    ctx = llmkit.Context(messages=[llmkit.user("x"), msg, llmkit.tool_result(c, "ok")])
    sent, _ = body_of(gem, ctx)
    assert sent["messages"][1]["tool_calls"][0]["extra_content"] == extra
    assert sent["messages"][2]["name"] == "get_weather"  # G4: the name on the tool message
    other, _ = body_of(model("gemini-openai", id="gemini-2.5-pro"), ctx)
    assert "extra_content" not in other["messages"][1]["tool_calls"][0]


def test_F6_deepseek_reasoning_content_replayed_on_tool_turns_only() -> None:
    ds = model("deepseek", id="deepseek-v4-flash", reasoning=True)
    body = sse(
        chunk({"reasoning_content": "think "}),
        chunk({"reasoning_content": "hard"}),
        tools(call(0, id="call_0", name="get_weather", arguments='{"city":"A"}')),
        chunk(finish="tool_calls"),
    )
    msg = final(body, ds)
    assert msg.thinking == "think hard"
    c = msg.tool_calls[0]
    answer = turn(text="Done.", thinking="more", m=ds)
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), msg, llmkit.tool_result(c, "ok"), answer, llmkit.user("y")]
    )
    sent, found = body_of(ds, ctx, reasoning="high")
    assert sent["messages"][1]["reasoning_content"] == "think hard"
    assert "reasoning_content" not in sent["messages"][3]  # not a tool turn
    assert (sent["thinking"], sent["reasoning_effort"]) == ({"type": "enabled"}, "high")
    # the older deepseek-reasoner rejects reasoning_content: never replay it there
    old = model(
        "deepseek", id="deepseek-reasoner", reasoning=True, compat={"reasoning_replay": "never"}
    )
    sent, found = body_of(old, ctx)
    assert all("reasoning_content" not in m for m in sent["messages"])
    assert "thinking_dropped" in found


def test_F6_foreign_thinking_is_not_replayed_as_deepseek_reasoning() -> None:
    ds = model("deepseek", id="deepseek-v4-flash", reasoning=True)
    foreign = turn(tc("call_a"), thinking="claude thoughts", m=model("openrouter", id="x"))
    ctx = llmkit.Context(
        messages=[llmkit.user("x"), foreign, llmkit.tool_result(foreign.tool_calls[0], "ok")]
    )
    sent, found = body_of(ds, ctx)
    assert sent["messages"][1]["reasoning_content"] == "" and "thinking_dropped" in found


def test_F7_openrouter_reasoning_details_merged_by_index_and_replayed_verbatim() -> None:
    orm = model("openrouter", id="anthropic/claude-sonnet-4.5", reasoning=True)
    d1 = {"type": "reasoning.text", "text": "Let me ", "format": "anthropic-claude-v1", "index": 0}
    d2 = {"type": "reasoning.text", "text": "think.", "format": "anthropic-claude-v1", "index": 0}
    d3 = {
        "type": "reasoning.text",
        "signature": "sig==",
        "format": "anthropic-claude-v1",
        "index": 0,
    }
    body = sse(
        chunk({"reasoning": "Let me ", "reasoning_details": [d1]}),
        chunk({"reasoning": "think.", "reasoning_details": [d2]}),
        chunk({"reasoning_details": [d3]}),
        chunk({"content": "Hi"}, finish="stop"),
    )
    msg = final(body, orm)
    merged = {
        "type": "reasoning.text",
        "text": "Let me think.",
        "format": "anthropic-claude-v1",
        "index": 0,
        "signature": "sig==",
    }
    assert msg.thinking == "Let me think."
    assert (msg.provider_data or {})["reasoning_details"] == [merged]
    sent, _ = body_of(orm, llmkit.Context(messages=[llmkit.user("x"), msg, llmkit.user("y")]))
    assert sent["messages"][1]["reasoning_details"] == [merged]
    assert sent["messages"][1]["content"] == "Hi"


def test_F7_a_reasoning_details_piece_that_is_not_text_is_reported_not_raised() -> None:
    # A streamed field's pieces are joined as text; a piece of another type (here a list
    # before text, then a number after it) cannot be: each is reported, the text kept.
    # Before: `[None] + ""` raised TypeError out of the decoder (found by the fuzz suite).
    orm = model("openrouter", id="anthropic/claude-sonnet-4.5", reasoning=True)
    first = {"type": "reasoning.text", "text": "", "index": 0, "signature": [None]}
    body = sse(
        chunk({"reasoning_details": [first]}),
        chunk({"reasoning_details": [{"index": 0, "signature": "si"}]}),
        chunk({"reasoning_details": [{"index": 0, "signature": "g=="}]}),
        chunk({"reasoning_details": [{"index": 0, "text": 7}]}),
        chunk({"content": "Hi"}, finish="stop"),
    )
    msg = final(body, orm)
    [details] = (msg.provider_data or {})["reasoning_details"]
    assert details["signature"] == "sig==" and details["text"] == ""
    fields = [d.details.get("field") for d in msg.diagnostics if d.kind == "event_malformed"]
    assert fields == ["reasoning_details.signature", "reasoning_details.text"]


def test_F8_reasoning_field_names_and_a_configured_one() -> None:
    for field in ("reasoning_content", "reasoning", "reasoning_text"):
        assert (
            final(sse(chunk({field: "r"}), chunk({"content": "a"}, finish="stop"))).thinking == "r"
        )
    chutes = final(sse(chunk({"reasoning_content": "r", "reasoning": "r"}), chunk(finish="stop")))
    assert chutes.thinking == "r"  # two fields with the same text: read once
    custom = model("vllm", compat={"reasoning_fields": ["thoughts"]})
    assert final(sse(chunk({"thoughts": "t"}), chunk(finish="stop")), custom).thinking == "t"


# -- G. Message shape on replay --


def test_G1_every_call_gets_a_result_before_the_next_turn() -> None:
    c1, c2 = tc("c1"), tc("c2")
    sent, found = body_of(
        MODEL,
        llmkit.Context(
            messages=[
                llmkit.user("x"),
                turn(c1, c2),
                llmkit.tool_result(c1, "ok"),
                llmkit.user("y"),
            ]
        ),
    )
    assert [m.get("tool_call_id") for m in sent["messages"] if m["role"] == "tool"] == ["c1", "c2"]
    assert found == ["orphan_tool_call"]


def test_G2_mistral_assistant_turn_between_tool_and_user() -> None:
    c = tc("abcdefghi")
    sent, found = body_of(
        model("mistral"),
        llmkit.Context(
            messages=[llmkit.user("x"), turn(c), llmkit.tool_result(c, "ok"), llmkit.user("y")]
        ),
    )
    assert [m["role"] for m in sent["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert sent["messages"][2]["name"] == "get_weather"
    assert "message_inserted" in found
    plain, _ = body_of(
        MODEL,
        llmkit.Context(
            messages=[llmkit.user("x"), turn(c), llmkit.tool_result(c, "ok"), llmkit.user("y")]
        ),
    )
    assert [m["role"] for m in plain["messages"]] == ["user", "assistant", "tool", "user"]


def test_G3_groq_gets_empty_string_content_with_tool_calls() -> None:
    c = tc("c1")
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn(c), llmkit.tool_result(c, "ok")])
    assert body_of(model("groq"), ctx)[0]["messages"][1]["content"] == ""
    assert body_of(MODEL, ctx)[0]["messages"][1]["content"] is None


def test_G4_tool_result_name_where_the_server_requires_it() -> None:
    c = tc("c1")
    ctx = llmkit.Context(messages=[llmkit.user("x"), turn(c), llmkit.tool_result(c, "ok")])
    assert body_of(model("gemini-openai"), ctx)[0]["messages"][2]["name"] == "get_weather"
    assert "name" not in body_of(MODEL, ctx)[0]["messages"][2]


# -- H. Tool schemas --


def test_H1_strict_tools_are_transformed_and_reported() -> None:
    strict = llmkit.Tool(
        name="f",
        strict=True,
        parameters={"type": "object", "properties": {"a": {"type": "integer", "default": 1}}},
    )
    sent, found = body_of(
        MODEL.model_copy(update={"strict_tools": True}),
        llmkit.Context(tools=[strict], messages=[llmkit.user("x")]),
    )
    params = sent["tools"][0]["function"]["parameters"]
    assert params["additionalProperties"] is False and params["required"] == ["a"]
    assert "schema_rewritten" in found


def test_H2_strict_key_only_when_set_and_supported() -> None:
    ctx = llmkit.Context(tools=[WEATHER], messages=[llmkit.user("x")])
    assert "strict" not in body_of(model("openrouter"), ctx)[0]["tools"][0]["function"]
    strict = llmkit.Context(
        tools=[WEATHER.model_copy(update={"strict": True})], messages=[llmkit.user("x")]
    )
    with pytest.raises(llmkit.InvalidRequestError):
        llmkit.build_request(model("openrouter", strict_tools=True), strict, api_key="k")


def test_H3_schema_is_sent_whole_for_chat_servers() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "string", "const": "x"}},
    }
    sent, found = body_of(
        MODEL,
        llmkit.Context(
            tools=[llmkit.Tool(name="f", parameters=schema)], messages=[llmkit.user("x")]
        ),
    )
    assert sent["tools"][0]["function"]["parameters"] == schema and found == []


def test_H4_parallel_tool_calls_only_where_accepted() -> None:
    ctx = llmkit.Context(tools=[WEATHER], messages=[llmkit.user("x")])
    assert body_of(MODEL, ctx, parallel_tool_calls=False)[0]["parallel_tool_calls"] is False
    sent, found = body_of(model("ollama"), ctx, parallel_tool_calls=False)
    assert "parallel_tool_calls" not in sent and found == ["option_unsupported"]


# -- I. Rate limits, overload, retries --


def test_I1_retry_after_ms_then_seconds_then_http_date() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= (parse_retry_after({"retry-after": date}) or 0) <= 31


def test_I2_529_is_overloaded() -> None:
    err = classify(
        529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    )
    assert isinstance(err, llmkit.OverloadedError) and err.status == 529


def test_I3_gemini_retry_info_fractional_seconds_and_daily_quota() -> None:
    body = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "message": "Quota",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "45.837906927s"}
            ],
        }
    }
    err = classify(429, json.dumps(body))
    assert isinstance(err, llmkit.RateLimitError) and err.retry_after == pytest.approx(45.837906927)


def test_I4_openrouter_402_403_502_keep_metadata() -> None:
    credits = classify(402, json.dumps({"error": {"code": 402, "message": "Insufficient credits"}}))
    assert type(credits) is llmkit.APIError and credits.status == 402
    moderation = classify(
        403,
        json.dumps(
            {"error": {"code": 403, "message": "Flagged", "metadata": {"reasons": ["violence"]}}}
        ),
    )
    assert isinstance(moderation, llmkit.PermissionDeniedError) and moderation.body["error"][
        "metadata"
    ]["reasons"] == ["violence"]
    down = classify(
        502,
        json.dumps(
            {"error": {"code": 502, "message": "Provider down", "metadata": {"provider_name": "X"}}}
        ),
    )
    assert (
        isinstance(down, llmkit.ServerError)
        and down.body["error"]["metadata"]["provider_name"] == "X"
    )


# -- J. Usage --


def test_J1_include_usage_per_profile_and_none_not_estimated() -> None:
    ctx = llmkit.Context(messages=[llmkit.user("x")])
    assert body_of(MODEL, ctx)[0]["stream_options"] == {"include_usage": True}
    off = model("vllm", compat={"supports_usage_in_streaming": False})
    assert "stream_options" not in body_of(off, ctx)[0]
    msg = final(sse(chunk({"content": "x"}, finish="stop")))
    assert msg.usage.input is None and msg.usage.output is None and "usage_missing" in kinds(msg)


def test_J2_cumulative_usage_last_report_wins() -> None:
    body = sse(
        chunk({"content": "x"}),
        {"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}},
        chunk(finish="stop"),
        {"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 9}},
    )
    assert final(body).usage.output == 9
