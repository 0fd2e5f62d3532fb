"""A transcript always serialises, and what a provider's bytes could make ambiguous is said:
lone surrogate escapes, invalid UTF-8, keys repeated in arguments, arguments nested too deep."""

from __future__ import annotations

import json

import pytest

import llmkit
from tests.support.helpers import MODEL, call, chunk, sse, tools
from tests.wire.anthropic_messages import test_decode as anthropic

TOOL = llmkit.Tool(name="f", description="f", parameters={"type": "object"})
ANTHROPIC = llmkit.Model(provider="anthropic", id="claude-x", api="anthropic-messages")


def decode(body: bytes, model: llmkit.Model = MODEL) -> llmkit.AssistantMessage:
    *_, last = llmkit.parse_stream(model, [body])
    return last.message  # type: ignore[union-attr]


def durable(message: llmkit.AssistantMessage) -> None:
    """The message, a Context holding it and the next request all serialise and validate."""
    dumped = message.model_dump_json()
    assert llmkit.AssistantMessage.model_validate_json(dumped) == message
    context = llmkit.Context(messages=[llmkit.user("hi"), message, llmkit.user("again")])
    context.model_dump_json().encode("utf-8")
    llmkit.build_request(MODEL, context, api_key="k")
    llmkit.build_request(ANTHROPIC, context, api_key="k")


def kinds(message: llmkit.AssistantMessage) -> list[str]:
    return [d.kind for d in message.diagnostics]


def openai_text(raw_json_text: str) -> bytes:
    """A stream whose one text delta is ``raw_json_text`` as written in the JSON."""
    event = '{"id":"r","choices":[{"index":0,"delta":{"content":"' + raw_json_text + '"}}]}'
    return sse(event, chunk(finish="stop"), {"id": "r", "choices": [], "usage": {}})


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "a\\ud83d", "\\ude00b"])
def test_a_lone_surrogate_in_text_is_replaced_and_reported(escape: str) -> None:
    message = decode(openai_text("x" + escape + "y"))
    assert "\ufffd" in message.text and message.text.startswith("x")
    assert "invalid_unicode" in kinds(message)
    durable(message)


def test_a_surrogate_pair_is_left_alone() -> None:
    message = decode(openai_text("\\ud83d\\ude00"))
    assert message.text == "\U0001f600" and "invalid_unicode" not in kinds(message)


def test_a_lone_surrogate_in_anthropic_text_is_replaced() -> None:
    events = [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{}}}',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        '"content_block":{"type":"text","text":""}}',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"a\\udc00b"}}',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
        '"usage":{"output_tokens":1}}',
        'event: message_stop\ndata: {"type":"message_stop"}',
    ]
    message = decode(("\n\n".join(events) + "\n\n").encode(), ANTHROPIC)
    assert message.text == "a\ufffdb" and "invalid_unicode" in kinds(message)
    durable(message)


def test_a_lone_surrogate_in_arguments_is_replaced_and_reported() -> None:
    body = sse(
        tools(call(0, "call_1", "f", '{"path":"\\ud800x","\\udc01":1}')),
        chunk(finish="tool_calls"),
    )
    message = decode(body)
    [tool_call] = message.tool_calls
    assert tool_call.arguments == {"path": "\ufffdx", "\ufffd": 1}
    assert "invalid_unicode" in kinds(message)
    durable(message)


def test_a_key_repeated_in_arguments_is_reported_and_the_call_not_executable() -> None:
    body = sse(
        tools(call(0, "call_1", "f", '{"a":"/tmp/safe","b":{"c":1,"c":2},"a":"/etc/passwd"}')),
        chunk(finish="tool_calls"),
    )
    message = decode(body)
    [tool_call] = message.tool_calls
    assert tool_call.arguments["a"] == "/etc/passwd"  # the last wins, as json.loads
    assert tool_call.status == "recovered"
    [d] = [d for d in message.diagnostics if d.kind == "tool_arguments_duplicate_keys"]
    assert d.details["keys"] == ["c", "a"] and d.tool_call_id == "call_1"
    with pytest.raises(llmkit.ToolArgumentsError):
        llmkit.decode_tool_call(TOOL, tool_call)


@pytest.mark.parametrize("depth", [200, 1000])
def test_arguments_nested_too_deep_are_invalid_and_the_message_still_serialises(
    depth: int,
) -> None:
    deep = '{"a":' + "[" * depth + "]" * depth + "}"
    message = decode(sse(tools(call(0, "call_1", "f", deep)), chunk(finish="tool_calls")))
    [tool_call] = message.tool_calls
    assert tool_call.status == "invalid" and tool_call.arguments == {}
    assert tool_call.raw_arguments == deep
    assert "tool_arguments_invalid" in kinds(message)
    durable(message)


def test_arguments_nested_within_the_bound_are_kept() -> None:
    value = {"a": json.loads("[" * 60 + "]" * 60)}
    message = decode(
        sse(tools(call(0, "call_1", "f", json.dumps(value))), chunk(finish="tool_calls"))
    )
    assert message.tool_calls[0].status == "complete"
    assert message.tool_calls[0].arguments == value


def test_invalid_utf8_is_replaced_and_reported() -> None:
    body = openai_text("caf\u00e9 ").replace("caf\u00e9".encode(), b"caf\xff")
    message = decode(body)
    assert message.text == "caf\ufffd " and "invalid_unicode" in kinds(message)
    [d] = [d for d in message.diagnostics if d.kind == "invalid_unicode"]
    assert d.details["reason"] == "invalid_utf8"


def test_a_real_replacement_character_is_not_reported() -> None:
    message = decode(openai_text("\u00e9\ufffd"))
    assert message.text == "\u00e9\ufffd" and "invalid_unicode" not in kinds(message)


def test_invalid_utf8_in_a_bedrock_event_is_reported() -> None:
    from tests.support.eventstream import bedrock_event

    model = llmkit.Model(provider="bedrock", id="anthropic.claude-x", api="bedrock-converse")
    delta = b'{"contentBlockIndex":0,"delta":{"text":"caf\xff"},"p":"x"}'
    body = b"".join(
        [
            bedrock_event("messageStart", {"role": "assistant", "p": "x"}),
            bedrock_event("contentBlockDelta", delta),
            bedrock_event("contentBlockStop", {"contentBlockIndex": 0, "p": "x"}),
            bedrock_event("messageStop", {"stopReason": "end_turn", "p": "x"}),
            bedrock_event("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1}, "p": "x"}),
        ]
    )
    message = decode(body, model)
    assert message.text == "caf\ufffd" and "invalid_unicode" in kinds(message)


def test_invalid_utf8_in_the_last_unterminated_event_keeps_the_terminal_event() -> None:
    # The body ends inside an event (no blank line after it) whose data is not UTF-8: the
    # framer's flush hands it over at the end of the body. Its events (the diagnostic, and
    # the error the event carries) used to be drained and dropped there: the stream ended
    # with no Done or ErrorEvent at all. Found by the fuzz suite under HYPOTHESIS_PROFILE=long.
    head = anthropic.sse(anthropic.start())
    for tail in (b"event: error\ndata:\xa0", b'event: ping\ndata: {"type": "ping"}\xa0'):
        events = list(llmkit.parse_stream(ANTHROPIC, [head + tail]))
        terminal = [e for e in events if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
        assert len(terminal) == 1 and terminal[0] is events[-1], tail
        assert "invalid_unicode" in kinds(terminal[0].message), tail


def test_a_lone_surrogate_in_an_opaque_blocks_replay_data_is_replaced_and_reported() -> None:
    # A server tool's input (kept as replay data, sent back as it came) with a lone surrogate
    # escape in a key: the message did not serialise. Found by the fuzz suite (long profile).
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    body = anthropic.sse(
        anthropic.start(),
        anthropic.block(0, **use),
        anthropic.delta(0, type="input_json_delta", partial_json='{"q\\ud800": "x"}'),
        anthropic.stop(0),
        *anthropic.end(),
    )
    message = decode(body, ANTHROPIC)
    [part] = message.content
    assert isinstance(part, llmkit.ThinkingPart) and part.replay is not None
    assert part.replay["block"]["input"] == {"q\ufffd": "x"}
    [d] = [d for d in message.diagnostics if d.kind == "invalid_unicode"]
    assert d.details == {"where": "replay", "reason": "lone_surrogate", "count": 1}
    durable(message)


def test_invalid_utf8_is_reported_where_it_is_whatever_the_chunking() -> None:
    body = openai_text("ok ").replace(b"[DONE]", b"[DONE]").replace(b'"ok "', b'"ok \xff"')
    whole = [type(e).__name__ for e in llmkit.parse_stream(MODEL, [body])]
    for cut in range(1, len(body)):
        pieces = [body[:cut], body[cut:]]
        assert [type(e).__name__ for e in llmkit.parse_stream(MODEL, pieces)] == whole, cut
    assert "DiagnosticEvent" in whole
