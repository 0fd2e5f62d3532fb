"""The Gemini decoder on hand-written streams, one behaviour (and QUIRKS row) per test.

Every body is replayed whole and re-split at random byte offsets; all chunkings must give the
same events and message.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import llmkit
from llmkit._wire.gemini.decode import SIGNATURE_CARRIER

MODEL = llmkit.Model(
    provider="google", id="gemini-2.5-flash", api="gemini", reasoning=True, input=["text", "image"]
)
SIG_A = "c2lnbmF0dXJlIEE="
SIG_B = "c2lnbmF0dXJlIEI="


def chunk(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    rid: str = "resp-1",
    **extra: Any,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}
    if usage is not None:
        body["usageMetadata"] = usage
    body["responseId"] = rid
    body.update(extra)
    return body


def call(name: str | None = None, **fields: Any) -> dict[str, Any]:
    fc: dict[str, Any] = {}
    if name is not None:
        fc["name"] = name
    fc.update(fields)
    return {"functionCall": fc}


def sse(*chunks: dict[str, Any] | str) -> bytes:
    out = []
    for c in chunks:
        data = (
            c if isinstance(c, str) else json.dumps(c, ensure_ascii=False, separators=(",", ": "))
        )
        out.append(f"data: {data}\r\n\r\n")
    return "".join(out).encode()


def pieces(body: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(body):
        n = rng.choice((1, 2, 3, 7, 13, 64, 500))
        out.append(body[i : i + n])
        i += n
    return out


def replay(body: bytes, model: llmkit.Model = MODEL) -> list[llmkit.Event]:
    reference = list(llmkit.parse_stream(model, [body]))
    last = reference[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    for seed in range(4):
        events = list(llmkit.parse_stream(model, pieces(body, seed)))
        assert [type(e) for e in events] == [type(e) for e in reference]
        end = events[-1]
        assert isinstance(end, (llmkit.Done, llmkit.ErrorEvent))
        assert end.message.model_dump() == last.message.model_dump()
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in reference) == 1
    return reference


def final(body: bytes, model: llmkit.Model = MODEL) -> llmkit.AssistantMessage:
    last = replay(body, model)[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    return last.message


def kinds(message: llmkit.AssistantMessage) -> list[str]:
    return [d.kind for d in message.diagnostics]


# --------------------------------------------------------------------------- parts


def test_consecutive_text_and_thought_parts_merge() -> None:
    msg = final(
        sse(
            chunk({"text": "Let me ", "thought": True}),
            chunk({"text": "think.", "thought": True}),
            chunk({"text": "Hello"}, {"text": ", "}),
            chunk({"text": "world"}, finish="STOP", usage={"promptTokenCount": 3}),
        )
    )
    assert [p.type for p in msg.content] == ["thinking", "text"]
    assert (msg.thinking, msg.text) == ("Let me think.", "Hello, world")
    assert msg.stop_reason == "stop" and msg.raw_stop_reason == "STOP"


def test_signed_thought_ends_its_block_F2() -> None:
    """Two signatures never merge: a signed thought part closes its block."""
    msg = final(
        sse(
            chunk({"text": "one", "thought": True, "thoughtSignature": SIG_A}),
            chunk({"text": "two", "thought": True, "thoughtSignature": SIG_B}),
            chunk({"text": "answer"}, finish="STOP"),
        )
    )
    thinking = [p for p in msg.content if isinstance(p, llmkit.ThinkingPart)]
    assert [(t.thinking, t.signature) for t in thinking] == [("one", SIG_A), ("two", SIG_B)]


def test_signature_on_trailing_empty_text_part_is_kept_F2() -> None:
    msg = final(
        sse(
            chunk({"text": "Done."}),
            chunk({"text": "", "thoughtSignature": SIG_A}, finish="STOP"),
        )
    )
    assert msg.text == "Done."
    carrier = msg.content[-1]
    assert isinstance(carrier, llmkit.ThinkingPart)
    assert (carrier.thinking, carrier.signature) == ("", SIG_A)
    assert carrier.replay == {"gemini": SIGNATURE_CARRIER}
    assert msg.thinking == ""  # a carrier adds no visible thinking


def test_signature_in_the_middle_of_text_splits_the_text_in_place_F2() -> None:
    msg = final(
        sse(
            chunk({"text": "a"}),
            chunk({"text": "b", "thoughtSignature": SIG_A}),
            chunk({"text": "c"}, finish="STOP"),
        )
    )
    assert [(p.type, getattr(p, "text", None)) for p in msg.content] == [
        ("text", "a"),
        ("thinking", None),
        ("text", "bc"),
    ]
    # Sent back, the signature sits on the text it came with.
    from llmkit._wire import gemini
    from llmkit._wire.contract import Options

    context = llmkit.Context(messages=[llmkit.user("q"), msg])
    body, _ = gemini.build(MODEL, context, Options(), stream=True)
    assert body["contents"][1]["parts"] == [
        {"text": "a"},
        {"text": "bc", "thoughtSignature": SIG_A},
    ]


def test_parts_llmkit_does_not_model_are_kept_whole_for_replay_signature_included() -> None:
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    code = {"executableCode": {"language": "PYTHON", "code": "1"}, "thoughtSignature": SIG_A}
    msg = final(sse(chunk(image), chunk(code), chunk(dict(image), finish="STOP")))
    unknown = [d for d in msg.diagnostics if d.kind == "event_unknown"]
    # a hosted tool's part (code execution) is known; another kind is reported, once
    assert [d.details["part"] for d in unknown] == ["inlineData"]
    kept = [p.replay for p in msg.content if isinstance(p, llmkit.ThinkingPart)]
    assert kept == [{"gemini": "part", "part": p} for p in (image, code, image)]


def test_other_candidates_are_ignored_and_reported() -> None:
    body = chunk({"text": "first"}, finish="STOP")
    body["candidates"].append({"content": {"parts": [{"text": "other"}]}, "index": 1})
    msg = final(sse(body))
    assert msg.text == "first"
    assert "event_unknown" in kinds(msg)


def test_malformed_event_is_skipped_and_reported() -> None:
    msg = final(sse("not json", chunk({"text": "ok"}, finish="STOP")))
    assert msg.text == "ok" and kinds(msg)[:1] == ["event_malformed"]


# --------------------------------------------------------------------------- function calls


def test_call_ids_kept_or_synthesised_deterministically_B4_B6() -> None:
    body = sse(
        chunk(call("add", args={"a": 1}, id="8hd01vsf"), call("mul", args={"a": 2})),
        chunk(call("sub", args={}), finish="STOP"),
    )
    msg = final(body)
    ids = [c.id for c in msg.tool_calls]
    assert ids[0] == "8hd01vsf" and msg.tool_calls[0].provider_id is None
    assert ids[1].startswith("call_") and msg.tool_calls[1].provider_id == ""
    assert len(set(ids)) == 3
    assert final(body).model_dump() == msg.model_dump()  # same bytes, same ids
    other = final(body.replace(b"resp-1", b"resp-2"))
    assert [c.id for c in other.tool_calls][1:] != ids[1:]  # keyed on the response id
    assert kinds(msg).count("tool_call_id_synthesized") == 2
    assert msg.stop_reason == "tool_use" and msg.raw_stop_reason == "STOP"  # QUIRKS E1


def test_call_without_args_has_empty_arguments_D3() -> None:
    msg = final(sse(chunk(call("read_theme"), finish="STOP")))
    (c,) = msg.tool_calls
    assert (c.arguments, c.raw_arguments, c.status) == ({}, "", "complete")


def test_first_call_signature_goes_on_its_replay_F2() -> None:
    msg = final(
        sse(
            chunk(
                {**call("a", args={}), "thoughtSignature": SIG_A},
                call("b", args={"x": [1, {"y": None}]}),
                finish="STOP",
            )
        )
    )
    assert [c.replay for c in msg.tool_calls] == [{"thoughtSignature": SIG_A}, None]
    assert msg.tool_calls[1].arguments == {"x": [1, {"y": None}]}


def test_partial_args_rebuild_the_same_arguments_D8() -> None:
    """Vertex streamFunctionCallArguments: strings continue across fragments, numbers, bools
    and nulls arrive whole, arrays and nested objects open and close by path."""
    frags = [
        {"jsonPath": "$.recipe.name", "stringValue": 'Las"a', "willContinue": True},
        {"jsonPath": "$.recipe.name", "stringValue": "gna\\ 😀", "willContinue": True},
        {"jsonPath": "$.recipe.name", "stringValue": ""},
        {"jsonPath": "$.recipe.steps[0]", "stringValue": "Boil"},
        {"jsonPath": "$.recipe.steps[1]", "stringValue": "Bake", "willContinue": True},
        {"jsonPath": "$.recipe.steps[1]", "stringValue": " well"},
        {"jsonPath": "$.recipe.items[0].qty", "numberValue": 2},
        {"jsonPath": "$.recipe.items[0].ok", "boolValue": True},
        {"jsonPath": "$.recipe.items[1].qty", "numberValue": 0.5},
        {"jsonPath": "$.recipe.items[1].note", "nullValue": "NULL_VALUE"},
        {"jsonPath": "$.grid[0][1]", "numberValue": 1},
        {"jsonPath": "$['odd key']", "stringValue": "v"},
    ]
    parts = [chunk({**call("cook", willContinue=True), "thoughtSignature": SIG_A})]
    for n, frag in enumerate(frags):
        parts.append(chunk(call(partialArgs=[frag], willContinue=True)))
        if n == 5:
            parts.append(chunk(call(willContinue=True)))  # a no-op part (nested recording)
    parts.append(chunk(call(), finish="STOP"))
    events = replay(sse(*parts))
    msg = events[-1].message  # type: ignore[union-attr]
    (c,) = msg.tool_calls
    assert c.arguments == {
        "recipe": {
            "name": 'Las"agna\\ 😀',
            "steps": ["Boil", "Bake well"],
            "items": [{"qty": 2, "ok": True}, {"qty": 0.5, "note": None}],
        },
        "grid": [[None, 1]],
        "odd key": "v",
    }
    assert c.status == "complete" and c.replay == {"thoughtSignature": SIG_A}
    assert json.loads(c.raw_arguments) == c.arguments
    deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta)]
    assert len(deltas) > len(frags) // 2  # streamed as they came, not at the end
    assert deltas[2].partial_arguments == {"recipe": {"name": 'Las"agna\\ 😀'}}
    # The index gap ([0][1] before [0][0]) is filled and reported, never silent.
    assert any(d.details.get("json_path") == "$.grid[0][1]" for d in msg.diagnostics)


def test_partial_args_ended_by_the_last_fragment_without_terminator_D8() -> None:
    msg = final(
        sse(
            chunk(call("w", willContinue=True)),
            chunk(call(partialArgs=[{"jsonPath": "$.a[0].p", "numberValue": 0.3}])),
            chunk(call("x", args={"k": 1}), finish="STOP"),
        )
    )
    assert [c.arguments for c in msg.tool_calls] == [{"a": [{"p": 0.3}]}, {"k": 1}]
    assert all(c.status == "complete" for c in msg.tool_calls)


def test_partial_args_cut_by_the_token_limit_are_recovered_not_complete() -> None:
    msg = final(
        sse(
            chunk(call("w", willContinue=True)),
            chunk(
                call(
                    partialArgs=[{"jsonPath": "$.t", "stringValue": "unfin", "willContinue": True}],
                    willContinue=True,
                )
            ),
            chunk({"text": ""}, finish="MAX_TOKENS"),
        )
    )
    (c,) = msg.tool_calls
    assert c.status == "recovered" and c.arguments == {"t": "unfin"}
    assert msg.stop_reason == "length"
    assert "tool_arguments_recovered" in kinds(msg)


def test_partial_args_revisiting_a_closed_path_is_reported() -> None:
    msg = final(
        sse(
            chunk(call("w", willContinue=True)),
            chunk(call(partialArgs=[{"jsonPath": "$.a.x", "numberValue": 1}], willContinue=True)),
            chunk(call(partialArgs=[{"jsonPath": "$.b", "numberValue": 2}], willContinue=True)),
            chunk(call(partialArgs=[{"jsonPath": "$.a.y", "numberValue": 3}]), finish="STOP"),
        )
    )
    assert "event_malformed" in kinds(msg)


# --------------------------------------------------------------------------- finish reasons


@pytest.mark.parametrize(
    ("raw", "stop"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MODEL_ARMOR", "content_filter"),
        ("TOO_MANY_TOOL_CALLS", "pause"),
    ],
)
def test_finish_reasons_map_by_string_E4(raw: str, stop: str) -> None:
    msg = final(sse(chunk({"text": "x"}), chunk({"text": ""}, finish=raw)))
    assert (msg.stop_reason, msg.raw_stop_reason) == (stop, raw)
    assert "stop_reason_unknown" not in kinds(msg)


@pytest.mark.parametrize("raw", ["OTHER", "FINISH_REASON_UNSPECIFIED", "A_VALUE_ADDED_IN_2027"])
def test_unknown_finish_reasons_never_raise_E4(raw: str) -> None:
    msg = final(sse(chunk({"text": "x"}, finish=raw)))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("stop", raw)
    assert "stop_reason_unknown" in kinds(msg)
    with_call = final(sse(chunk(call("f", args={}), finish=raw)))
    assert with_call.stop_reason == "tool_use"


def test_malformed_function_call_is_an_error_not_a_silent_success_E4_D6() -> None:
    candidate = {
        "finishReason": "MALFORMED_FUNCTION_CALL",
        "finishMessage": "Malformed function call: print(default_api.x(",
        "index": 0,
    }
    events = replay(sse({"candidates": [candidate], "responseId": "r"}))
    end = events[-1]
    assert isinstance(end, llmkit.ErrorEvent)
    assert isinstance(end.error, llmkit.APIError) and end.error.code == "MALFORMED_FUNCTION_CALL"
    msg = end.message
    assert (msg.stop_reason, msg.raw_stop_reason) == ("error", "MALFORMED_FUNCTION_CALL")
    (diag,) = [d for d in msg.diagnostics if d.kind == "tool_arguments_invalid"]
    assert "print(default_api" in diag.details["finish_message"]
    with pytest.raises(llmkit.APIError, match="MALFORMED_FUNCTION_CALL"):
        llmkit.parse_response(MODEL, {"candidates": [candidate]})


def test_unexpected_tool_call_is_an_error_too() -> None:
    end = replay(sse(chunk(finish="UNEXPECTED_TOOL_CALL")))[-1]
    assert isinstance(end, llmkit.ErrorEvent) and end.message.stop_reason == "error"
    assert "tool_call_unknown_name" in kinds(end.message)


def test_eof_without_finish_reason_is_truncated_A4() -> None:
    end = replay(sse(chunk({"text": "partial"})))[-1]
    assert isinstance(end, llmkit.ErrorEvent)
    assert end.message.text == "partial" and end.message.stop_reason == "error"
    assert "stream_truncated" in kinds(end.message)


def test_blocked_prompt_is_content_filter() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
        "responseId": "r",
    }
    msg = final(sse(blocked))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("content_filter", "PROHIBITED_CONTENT")
    assert msg.provider_data == {"prompt_feedback": {"blockReason": "PROHIBITED_CONTENT"}}


# --------------------------------------------------------------------------- usage and errors


def test_usage_counts_cached_tokens_once() -> None:
    model = MODEL.model_copy(
        update={"cost": llmkit.ModelCost(input=0.3, output=2.5, cache_read=0.075)}
    )
    usage = {
        "promptTokenCount": 1000,
        "cachedContentTokenCount": 600,
        "candidatesTokenCount": 50,
        "thoughtsTokenCount": 150,
        "toolUsePromptTokenCount": 10,
        "totalTokenCount": 1210,
    }
    msg = final(sse(chunk({"text": "x"}, finish="STOP", usage=usage)), model)
    u = msg.usage
    assert (u.input, u.cache_read, u.output, u.reasoning) == (1010, 600, 200, 150)
    assert u.cost == pytest.approx((410 * 0.3 + 600 * 0.075 + 200 * 2.5) / 1e6)


def test_usage_placeholder_chunks_are_ignored_and_the_last_report_holds() -> None:
    msg = final(
        sse(
            chunk({"text": "a"}, usage={"trafficType": "ON_DEMAND"}),
            chunk({"text": "b"}, usage={"promptTokenCount": 9, "totalTokenCount": 9}),
            chunk(finish="STOP", usage={"promptTokenCount": 9, "candidatesTokenCount": 2}),
        )
    )
    assert (msg.usage.input, msg.usage.output, msg.usage.reasoning) == (9, 2, None)
    assert "usage_missing" not in kinds(msg)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        ("INTERNAL", llmkit.ServerError),
        ("UNAVAILABLE", llmkit.ServerError),
        ("RESOURCE_EXHAUSTED", llmkit.RateLimitError),
    ],
)
def test_error_inside_a_200_stream_keeps_the_partial(status: str, error: type[Exception]) -> None:
    body = sse(
        chunk({"text": "so far"}), {"error": {"code": 500, "message": "boom", "status": status}}
    )
    end = replay(body)[-1]
    assert isinstance(end, llmkit.ErrorEvent) and isinstance(end.error, error)
    assert end.message.text == "so far" and end.message.stop_reason == "error"


def test_error_body_as_a_json_array_A10() -> None:
    body = [{"error": {"code": 404, "message": "models/x is not found", "status": "NOT_FOUND"}}]
    with pytest.raises(llmkit.NotFoundError, match="not found"):
        llmkit.parse_response(MODEL, json.dumps(body).encode())


def test_json_array_stream_equals_the_sse_stream_A10() -> None:
    """Without ``alt=sse``, streamGenerateContent sends one JSON array of the same chunks."""
    chunks = [
        chunk({"text": "Hi", "thought": True}),
        chunk({"text": "Hello"}, call("f", args={"a": 1})),
        chunk(
            {"text": "", "thoughtSignature": SIG_A}, finish="STOP", usage={"promptTokenCount": 1}
        ),
    ]
    streamed = final(sse(*chunks))
    whole = llmkit.parse_response(
        MODEL, ("[" + ",\r\n".join(json.dumps(c) for c in chunks) + "]").encode()
    )
    assert whole.model_dump() == streamed.model_dump()


def test_signed_empty_part_between_texts_goes_back_as_its_own_part_F2() -> None:
    """Parts are never merged with a signed part: the empty signed part stays between the
    two texts on replay, and a signed text keeps its signature."""
    from llmkit._wire import gemini
    from llmkit._wire.contract import Options

    msg = final(
        sse(
            chunk({"text": "a"}),
            chunk({"text": "", "thoughtSignature": SIG_A}),
            chunk({"text": "b", "thoughtSignature": SIG_B}, {"text": "c"}, finish="STOP"),
        )
    )
    context = llmkit.Context(messages=[llmkit.user("q"), msg])
    body, _ = gemini.build(MODEL, context, Options(), stream=True)
    assert body["contents"][1]["parts"] == [
        {"text": "a"},
        {"text": "", "thoughtSignature": SIG_A},
        {"text": "bc", "thoughtSignature": SIG_B},
    ]
