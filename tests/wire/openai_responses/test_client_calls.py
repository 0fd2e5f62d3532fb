"""Client-side calls on the Responses wire (docs/design.md §4, "Report, never guess
silently"): every output item the caller must act on is a ToolCall, streamed and whole, the turn
ends ``tool_use``, and the call goes back to the same model as the item it came as, its result
as the matching output item. Items are validated with the openai SDK's own output-item union
first, and the request with its ``ResponseCreateParams`` (no key it does not define)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.responses import ResponseOutputItem
from pydantic import TypeAdapter

import llmkit
from tests.support.helpers import replay
from tests.support.sdk import RESPONSES_PARAMS, unknown_keys

MODEL = llmkit.Model(provider="openai", id="gpt-5", api="openai-responses", reasoning=True)
OUTPUT_ITEM: TypeAdapter[Any] = TypeAdapter(ResponseOutputItem)
PNG_URL = "data:image/png;base64,iVBORw0KGgo="
SHOT = llmkit.ImagePart(data="iVBORw0KGgo=", media_type="image/png")
USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}

REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"}
# One realistic output item per client-side call type, with the ToolCall it must become
# (name, arguments) and the output item type its result goes back as.
CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any], str]] = {
    "custom_tool_call": (
        {
            "type": "custom_tool_call",
            "id": "ctc_1",
            "call_id": "call_sql",
            "name": "run_sql",
            "input": "SELECT * FROM t WHERE a = 'x'",
            "namespace": "db",
        },
        "run_sql",
        {},
        "custom_tool_call_output",
    ),
    "computer_call": (
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "call_cu",
            "action": {"type": "click", "button": "left", "x": 10, "y": 20},
            "pending_safety_checks": [{"id": "sc_1", "code": "malicious", "message": "careful"}],
            "status": "completed",
        },
        "computer",
        {
            "action": {"type": "click", "button": "left", "x": 10, "y": 20},
            "pending_safety_checks": [{"id": "sc_1", "code": "malicious", "message": "careful"}],
        },
        "computer_call_output",
    ),
    "shell_call": (
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "call_sh",
            "action": {"commands": ["ls -la"], "timeout_ms": 1000, "max_output_length": 4096},
            "status": "completed",
            "created_by": "assistant",
        },
        "shell",
        {"action": {"commands": ["ls -la"], "timeout_ms": 1000, "max_output_length": 4096}},
        "shell_call_output",
    ),
    "local_shell_call": (
        {
            "type": "local_shell_call",
            "id": "lsh_1",
            "call_id": "call_lsh",
            "action": {"type": "exec", "command": ["ls"], "env": {"A": "1"}},
            "status": "completed",
        },
        "local_shell",
        {"action": {"type": "exec", "command": ["ls"], "env": {"A": "1"}}},
        "local_shell_call_output",
    ),
    "apply_patch_call": (
        {
            "type": "apply_patch_call",
            "id": "ap_1",
            "call_id": "call_ap",
            "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-a\n+b\n"},
            "status": "completed",
        },
        "apply_patch",
        {"operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-a\n+b\n"}},
        "apply_patch_call_output",
    ),
    "mcp_approval_request": (
        {
            "type": "mcp_approval_request",
            "id": "mcpr_1",
            "name": "delete_repo",
            "arguments": '{"repo":"x"}',
            "server_label": "github",
        },
        "delete_repo",
        {"repo": "x"},
        "mcp_approval_response",
    ),
}


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events
    ).encode()


def response(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": status,
        "output": output,
        "usage": USAGE,
    }


def streamed(item: dict[str, Any], progress: list[dict[str, Any]] | None = None) -> bytes:
    """The item as the API streams it: ``.added`` (in progress, fields it has by then),
    its own progress events, ``.done`` with the whole item, then ``response.completed``."""
    added = {**item, "status": "in_progress"} if "status" in item else dict(item)
    if item["type"] == "custom_tool_call":
        added["input"] = ""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response([]), "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
    ]
    if item["type"] == "custom_tool_call":
        text = item["input"]
        for i in range(0, len(text), 7):
            events.append(
                {
                    "type": "response.custom_tool_call_input.delta",
                    "output_index": 0,
                    "item_id": item["id"],
                    "delta": text[i : i + 7],
                }
            )
    events += progress or []
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    events.append({"type": "response.completed", "response": response([item])})
    return sse(*events)


def result(call: llmkit.ToolCall, **kw: Any) -> llmkit.ToolResultMessage:
    if call.name == "computer":
        content: list[Any] = [SHOT]
    else:
        content = [llmkit.TextPart(text="ok")]
    return llmkit.ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=content, **kw
    )


def request_items(msg: llmkit.AssistantMessage, *results: llmkit.ToolResultMessage) -> Any:
    context = llmkit.Context(messages=[llmkit.UserMessage(content="go"), msg, *results])
    request = llmkit.build_request(MODEL, context, api_key="sk-test")
    body = json.loads(request.content)
    assert unknown_keys(RESPONSES_PARAMS, body) == []  # the SDK's request type takes all of it
    return body["input"][1:], [d.kind for d in request.extensions["llmkit.diagnostics"]]


def sent_back(item: dict[str, Any]) -> dict[str, Any]:
    """The item as the request takes it back: response-only fields left out."""
    return {k: v for k, v in item.items() if k != "created_by"}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_client_side_calls_are_tool_calls_streamed_and_whole(kind: str) -> None:
    item, name, arguments, _ = CASES[kind]
    OUTPUT_ITEM.validate_python(item)  # a shape the SDK defines
    whole = llmkit.parse_response(MODEL, response([item]))
    stream = replay(streamed(item), MODEL)[-1].message  # type: ignore[union-attr]
    for msg in (whole, stream):
        assert msg.stop_reason == "tool_use"
        (call,) = msg.content
        assert isinstance(call, llmkit.ToolCall)
        assert call.name == name
        assert call.id == item.get("call_id", item["id"])
        assert call.arguments == arguments
        if kind == "custom_tool_call":
            assert call.raw_arguments == item["input"]  # freeform, verbatim, not parsed
        assert call.status == "complete"
        assert msg.diagnostics == []
    assert whole.content == stream.content


@pytest.mark.parametrize("kind", sorted(CASES))
def test_client_side_calls_go_back_verbatim_with_the_matching_output_item(kind: str) -> None:
    item, _, _, output_type = CASES[kind]
    msg = llmkit.parse_response(MODEL, response([REASONING, item]))
    call = msg.content[1]
    assert isinstance(call, llmkit.ToolCall)
    (sent_reasoning, sent_call, sent_output), diagnostics = request_items(msg, result(call))
    assert sent_reasoning == REASONING
    assert sent_call == sent_back(item)
    assert sent_output["type"] == output_type
    assert diagnostics == []


@pytest.mark.parametrize("kind", sorted(CASES))
def test_without_its_reasoning_a_call_goes_back_without_an_optional_item_id_F4(
    kind: str,
) -> None:
    item, _, _, _ = CASES[kind]
    msg = llmkit.parse_response(MODEL, response([item]))
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall)
    (sent_call, _), _ = request_items(msg, result(call))
    optional = kind in ("custom_tool_call", "shell_call", "apply_patch_call")
    assert sent_call == {k: v for k, v in sent_back(item).items() if k != "id" or not optional}


def test_each_output_item_says_what_the_result_says() -> None:
    outputs = {}
    for kind, (item, *_) in CASES.items():
        msg = llmkit.parse_response(MODEL, response([item]))
        (call,) = msg.content
        assert isinstance(call, llmkit.ToolCall)
        (_, out), _ = request_items(msg, result(call, is_error=kind == "apply_patch_call"))
        outputs[kind] = out
    assert outputs["custom_tool_call"] == {
        "type": "custom_tool_call_output",
        "call_id": "call_sql",
        "output": "ok",
    }
    # a result for a computer call is its screenshot, and acknowledges the checks it was shown
    assert outputs["computer_call"] == {
        "type": "computer_call_output",
        "call_id": "call_cu",
        "output": {"type": "computer_screenshot", "image_url": PNG_URL},
        "acknowledged_safety_checks": [{"id": "sc_1", "code": "malicious", "message": "careful"}],
    }
    assert outputs["shell_call"] == {
        "type": "shell_call_output",
        "call_id": "call_sh",
        "output": [{"stdout": "ok", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    }
    assert outputs["local_shell_call"] == {
        "type": "local_shell_call_output",
        "id": "call_lsh",
        "output": "ok",
    }
    assert outputs["apply_patch_call"] == {
        "type": "apply_patch_call_output",
        "call_id": "call_ap",
        "status": "failed",
        "output": "ok",
    }
    assert outputs["mcp_approval_request"] == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": True,
        "reason": "ok",
    }


def test_a_denied_approval_and_a_computer_result_with_text_are_said_and_reported() -> None:
    item = CASES["mcp_approval_request"][0]
    msg = llmkit.parse_response(MODEL, response([item]))
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall)
    denied = llmkit.ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content="not now", is_error=True
    )
    (_, out), _ = request_items(msg, denied)
    assert out == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": False,
        "reason": "not now",
    }
    item = CASES["computer_call"][0]
    msg = llmkit.parse_response(MODEL, response([item]))
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall)
    text_too = llmkit.ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[SHOT, llmkit.TextPart(text="clicked")],
    )
    (_, out), diagnostics = request_items(msg, text_too)
    assert out["output"] == {"type": "computer_screenshot", "image_url": PNG_URL}
    assert diagnostics == ["option_unsupported"]  # the text could not go


def test_shell_command_progress_events_are_in_the_done_item_and_not_reported() -> None:
    item = CASES["shell_call"][0]
    progress = [
        {
            "type": "response.shell_call_command.added",
            "output_index": 0,
            "command_index": 0,
            "command": "",
        },
        {
            "type": "response.shell_call_command.delta",
            "output_index": 0,
            "command_index": 0,
            "delta": "ls -la",
        },
        {
            "type": "response.shell_call_command.done",
            "output_index": 0,
            "command_index": 0,
            "command": "ls -la",
        },
    ]
    msg = replay(streamed(item, progress), MODEL)[-1].message  # type: ignore[union-attr]
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall)
    assert call.arguments["action"]["commands"] == ["ls -la"]
    assert msg.diagnostics == []


def test_function_call_namespace_and_caller_are_kept_and_sent_back() -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": '{"q":"x"}',
        "namespace": "crm",
        "caller": {"type": "program", "caller_id": "prog_1"},
        "status": "completed",
    }
    OUTPUT_ITEM.validate_python(item)
    whole = llmkit.parse_response(MODEL, response([item]))
    stream = replay(streamed(item), MODEL)[-1].message  # type: ignore[union-attr]
    assert whole.content == stream.content
    (call,) = whole.content
    assert isinstance(call, llmkit.ToolCall)
    assert call.replay == {
        "item_id": "fc_1",
        "status": "completed",
        "namespace": "crm",
        "caller": {"type": "program", "caller_id": "prog_1"},
    }
    (sent, out), _ = request_items(whole, result(call))
    assert sent == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": '{"q":"x"}',
        "status": "completed",
        "namespace": "crm",
        "caller": {"type": "program", "caller_id": "prog_1"},
    }
    assert out == {"type": "function_call_output", "call_id": "call_1", "output": "ok"}


def test_a_turn_with_a_hosted_item_and_a_client_call_keeps_both_in_order() -> None:
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "x"},
    }
    OUTPUT_ITEM.validate_python(search)
    item = CASES["apply_patch_call"][0]
    msg = llmkit.parse_response(MODEL, response([search, item]))
    assert [p.type for p in msg.content] == ["thinking", "tool_call"]
    assert msg.stop_reason == "tool_use"
    call = msg.content[1]
    assert isinstance(call, llmkit.ToolCall)
    (sent_search, sent_call, _), _ = request_items(msg, result(call))
    assert sent_search == search
    assert sent_call == {k: v for k, v in item.items() if k != "id"}  # no reasoning (F4)


@pytest.mark.parametrize("kind", sorted(set(CASES) - {"custom_tool_call"}))
def test_a_call_announced_only_by_added_still_has_its_arguments(kind: str) -> None:
    # No .done and a terminal event whose output omits it: .added is all there is.
    item, name, arguments, _ = CASES[kind]
    body = sse(
        {"type": "response.created", "response": {**response([]), "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response([])},
    )
    msg = replay(body, MODEL)[-1].message  # type: ignore[union-attr]
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall)
    assert (call.name, call.arguments) == (name, arguments)
    assert msg.stop_reason == "tool_use"


def test_a_shell_call_in_openais_container_is_hosted_not_the_callers_to_run() -> None:
    call = {
        **CASES["shell_call"][0],
        "environment": {"type": "container_reference", "container_id": "cntr_1"},
    }
    output = {
        "type": "shell_call_output",
        "id": "sho_1",
        "created_by": "assistant",
        "call_id": "call_sh",
        "status": "completed",
        "output": [{"stdout": "a.py\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    }
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "One file.", "annotations": []}],
    }
    for item in (call, output, text):
        OUTPUT_ITEM.validate_python(item)
    whole = llmkit.parse_response(MODEL, response([call, output, text]))
    assert [p.type for p in whole.content] == ["thinking", "thinking", "text"]
    assert whole.stop_reason == "stop"
    assert whole.diagnostics == []
    (sent_call, sent_output, _), _ = request_items(whole)
    # verbatim, to the same model, without what only a response has
    assert (sent_call, sent_output) == (sent_back(call), sent_back(output))
    local = {**CASES["shell_call"][0], "environment": {"type": "local"}}
    (part,) = llmkit.parse_response(MODEL, response([local])).content
    assert isinstance(part, llmkit.ToolCall)  # the caller's own machine: the caller runs it


def test_another_models_call_data_is_not_sent_as_namespace_or_caller() -> None:
    # Anthropic's programmatic tool calling keeps its own "caller" in replay: not this wire's.
    call = llmkit.ToolCall(
        id="toolu_1",
        name="lookup",
        arguments={},
        raw_arguments="{}",
        replay={"caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
    )
    other = llmkit.AssistantMessage(
        content=[call], provider="anthropic", api="anthropic-messages", model="claude-sonnet-4-5"
    )
    (sent, _), _ = request_items(other, result(call))
    assert "caller" not in sent and "namespace" not in sent


def test_a_live_computer_call_is_not_reported_as_an_unknown_tool() -> None:
    # Over a real socket (the fake provider): the request declares the computer tool as a
    # provider tool, whose calls are named "computer"; no function tool has that name.
    from llmkit.testing import FakeProvider, FakeReply

    item = {**CASES["computer_call"][0], "pending_safety_checks": []}
    done = response([item])
    events = [
        {"type": "response.created", "response": {**done, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": done},
    ]
    computer = llmkit.ProviderTool(
        api="openai-responses",
        spec={
            "type": "computer_use_preview",
            "display_width": 1024,
            "display_height": 768,
            "environment": "browser",
        },
    )
    weather = llmkit.Tool(name="get_weather", parameters={"type": "object"})
    context = llmkit.Context(messages=[llmkit.user("go")], tools=[computer, weather])
    with FakeProvider([FakeReply(raw_events=events)], api="openai-responses") as fake:
        msg = llmkit.complete(fake.model(), context, api_key=fake.api_key)
    (call,) = msg.content
    assert isinstance(call, llmkit.ToolCall) and call.name == "computer"
    assert msg.stop_reason == "tool_use"
    assert msg.diagnostics == []
