"""Every field the openai SDK defines for a response reaches the caller: the lifecycle envelope,
the error's details, the output items' envelopes, the progress events of hosted items and
structured calls, audio. Each value is looked for where the caller finds it, and what the
Responses API takes back is looked for, as sent, in the next request (validated against the
SDK's request type)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmkit
from tests.support.helpers import kinds, replay
from tests.support.sdk import RESPONSES_PARAMS, unknown_keys
from tests.wire.openai_responses.test_decode import MODEL, RESPONSE, USAGE, completed, sse

SNAPSHOT = "gpt-5-2025-08-07"


def lifecycle(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": f"response.{kind}", "response": {**RESPONSE, **fields}}


def stream(*events: dict[str, Any]) -> llmkit.AssistantMessage:
    return replay(sse(*events), MODEL)[-1].message  # type: ignore[union-attr]


def whole(**fields: Any) -> llmkit.AssistantMessage:
    body = {**RESPONSE, "status": "completed", "usage": USAGE, **fields}
    return llmkit.parse_response(MODEL, body)


def sent(message: llmkit.AssistantMessage) -> dict[str, Any]:
    """The next request's body, checked against the SDK's request type."""
    context = llmkit.Context(messages=[llmkit.user("hi"), message, llmkit.user("next")])
    body: dict[str, Any] = json.loads(llmkit.build_request(MODEL, context, api_key="k").content)
    RESPONSES_PARAMS.validate_python(body)
    assert unknown_keys(RESPONSES_PARAMS, body) == []
    return body


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(text: str, **fields: Any) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if text else []
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": content,
        **fields,
    }


# -- the lifecycle envelope ----------------------------------------------------------------


def test_every_lifecycle_event_updates_one_record_and_stream_and_whole_agree() -> None:
    streamed = stream(
        lifecycle("created", model=SNAPSHOT, service_tier="auto"),
        lifecycle("queued", status="queued"),
        lifecycle("in_progress", model=SNAPSHOT),
        completed(model=SNAPSHOT, service_tier="default"),
    )
    body = whole(model=SNAPSHOT, service_tier="default")
    for msg in (streamed, body):
        assert msg.response_id == "resp_1"
        assert msg.provider_data == {"model": SNAPSHOT, "service_tier": "default"}  # later wins
        assert msg.raw_stop_reason == "completed" and kinds(msg) == []


def test_a_stream_cut_after_its_first_events_keeps_their_envelope() -> None:
    events = replay(sse(lifecycle("created", model=SNAPSHOT, service_tier="flex")), MODEL)
    msg = events[-1].message  # type: ignore[union-attr]
    assert isinstance(events[-1], llmkit.ErrorEvent) and msg.response_id == "resp_1"
    # the last status it was told: the stream was cut while the response was in progress
    assert msg.provider_data == {"model": SNAPSHOT, "service_tier": "flex", "status": "in_progress"}


@pytest.mark.parametrize("kinds_", [("created",), ("created", "queued"), ("queued", "in_progress")])
def test_a_cut_stream_keeps_the_last_status_and_a_finished_one_keeps_none(
    kinds_: tuple[str, ...],
) -> None:
    statuses = {"created": "queued", "queued": "queued", "in_progress": "in_progress"}
    cut = [lifecycle(k, status=statuses[k]) for k in kinds_]
    msg = replay(sse(*cut), MODEL)[-1].message  # type: ignore[union-attr]
    assert msg is not None and msg.provider_data is not None
    assert msg.provider_data["status"] == statuses[kinds_[-1]]
    finished = stream(*cut, completed())
    assert "status" not in (finished.provider_data or {})  # raw_stop_reason says it
    assert finished.raw_stop_reason == "completed"


def test_the_creation_time_is_the_first_events_and_a_different_later_one_is_reported() -> None:
    msg = stream(
        lifecycle("created", created_at=100),
        lifecycle("in_progress", created_at=100),
        completed(created_at=200, completed_at=300),
    )
    assert msg.provider_data is not None
    assert (msg.provider_data["created_at"], msg.provider_data["completed_at"]) == (100, 300)
    assert [d.details.get("ignored") for d in msg.diagnostics] == [200]


def test_a_response_that_changes_its_id_or_model_keeps_the_first_and_says_so() -> None:
    msg = stream(
        lifecycle("created", model=SNAPSHOT),
        lifecycle("in_progress", id="resp_2", model="gpt-5-mini"),
        completed(model=SNAPSHOT),
    )
    assert msg.response_id == "resp_1" and msg.provider_data == {"model": SNAPSHOT}
    assert kinds(msg) == ["event_malformed", "event_malformed"]
    assert {d.details["ignored"] for d in msg.diagnostics} == {"resp_2", "gpt-5-mini"}


def test_a_status_that_contradicts_its_event_is_reported_and_none_is_never_guessed() -> None:
    msg = stream(lifecycle("in_progress", status="failed"), completed(status=None))
    assert kinds(msg) == ["event_malformed"]
    assert msg.diagnostics[0].details == {"event_type": "response.in_progress", "status": "failed"}
    assert msg.raw_stop_reason is None and msg.stop_reason == "stop"  # the event says completed


def test_a_total_that_is_not_the_sum_of_its_parts_is_reported_and_kept() -> None:
    assert whole().provider_data is None  # an agreeing total says nothing more
    usage = {**USAGE, "total_tokens": 99}
    msg = whole(usage=usage)
    assert kinds(msg) == ["event_malformed"] and msg.diagnostics[0].details["total_tokens"] == 99
    assert msg.provider_data == {"usage": usage}
    assert (msg.usage.input, msg.usage.output) == (10, 5)


# -- errors --------------------------------------------------------------------------------

MISALIGNMENT = {
    "error_type": "potentially_unintended_data_transfer",
    "detailed_explanation": "The action would send files to an unknown host.",
    "review_target": "rvw_123",
    "steer": {"message": "Ask the user to confirm the upload."},
}


def test_a_failed_response_names_everything_its_error_says() -> None:
    err = {
        "code": "misalignment_policy_violation",
        "message": "The request was blocked.",
        "type": "invalid_request_error",
        "param": "input[2]",
        "misalignment": MISALIGNMENT,
    }
    with pytest.raises(llmkit.APIError) as caught:
        llmkit.parse_response(MODEL, {**RESPONSE, "status": "failed", "error": err})
    error = caught.value
    assert error.body == {"error": err}  # verbatim
    assert error.message == (
        "The request was blocked. (type invalid_request_error; code misalignment_policy_violation"
        "; param input[2]; misalignment potentially_unintended_data_transfer: The action would "
        "send files to an unknown host.; to continue: Ask the user to confirm the upload.; "
        "review target rvw_123)"
    )


def test_a_stream_error_event_carries_its_code_and_param() -> None:
    error_event = {
        "type": "error",
        "code": "invalid_value",
        "message": "Bad input.",
        "param": "input[0].content",
    }
    events = replay(sse(lifecycle("created"), error_event), MODEL)
    end = events[-1]
    assert isinstance(end, llmkit.ErrorEvent)
    assert end.error.message == "Bad input. (code invalid_value; param input[0].content)"
    assert end.message.error == "APIError: " + end.error.message
    assert isinstance(end.error, llmkit.APIError) and end.error.code == "invalid_value"


# -- output items --------------------------------------------------------------------------


def test_message_items_keep_their_id_phase_and_status_per_text_part() -> None:
    cited = {
        "type": "url_citation",
        "url": "https://example.com/a",
        "title": "A",
        "start_index": 0,
        "end_index": 4,
    }
    first = message("Let me look.", id="msg_a", phase="commentary", status="incomplete")
    second = message("Done.", id="msg_b", phase="final_answer")
    second["content"][0]["annotations"] = [cited]
    msg = whole(output=[first, second])
    assert msg.provider_data == {
        "message_ids": ["msg_a", "msg_b"],
        "message_phases": ["commentary", "final_answer"],
        "message_statuses": ["incomplete", "completed"],
    }
    # the incomplete item in a completed response is what the stop reason does not say
    assert kinds(msg) == ["stop_reason_conflict"]
    assert (
        stream(
            added(0, {**first, "status": "in_progress", "content": []}),
            done(0, first),
            added(1, {**second, "content": []}),
            done(1, second),
            completed([first, second]),
        ).provider_data
        == msg.provider_data
    )
    items = sent(msg)["input"][1:3]
    assert items[0] == {"role": "assistant", "content": "Let me look.", "phase": "commentary"}
    assert items[1] == {
        "type": "message",
        "id": "msg_b",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Done.", "annotations": [cited]}],
        "phase": "final_answer",
    }


def test_a_message_item_without_text_is_reported() -> None:
    for msg in (
        whole(output=[message("", phase="commentary")]),
        stream(added(0, message("", status="in_progress")), completed()),
    ):
        assert kinds(msg) == ["event_malformed"] and msg.content == []
        assert msg.diagnostics[0].details == {"output_index": 0, "item_id": "msg_1"}


def test_function_call_and_reasoning_status_go_back_as_they_came() -> None:
    reasoning = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [],
        "encrypted_content": "enc-done",
        "status": "completed",
    }
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "f",
        "arguments": "{}",
        "status": "completed",
    }
    msg = whole(output=[reasoning, call])
    assert msg.tool_calls[0].replay == {"item_id": "fc_1", "status": "completed"}
    assert msg.content[0].replay == {  # type: ignore[union-attr]
        "id": "rs_1",
        "summary": [],
        "encrypted_content": "enc-done",
        "status": "completed",
    }
    assert sent(msg)["input"][1:3] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "encrypted_content": "enc-done",
            "status": "completed",
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "f",
            "arguments": "{}",
            "status": "completed",
            "id": "fc_1",
        },
    ]


def test_reasoning_keeps_the_encrypted_content_of_added_until_done_replaces_it() -> None:
    first = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "enc-added"}
    cut = replay(sse(lifecycle("created"), added(0, first)), MODEL)[-1].message
    assert cut.content[0].replay["encrypted_content"] == "enc-added"  # type: ignore[union-attr,index]
    whole_item = {**first, "encrypted_content": "enc-done"}
    msg = stream(lifecycle("created"), added(0, first), done(0, whole_item), completed())
    assert msg.content[0].replay["encrypted_content"] == "enc-done"  # type: ignore[union-attr,index]


def test_an_incomplete_item_is_reported_only_when_the_stop_reason_does_not_say_so() -> None:
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "f",
        "arguments": '{"a": 1}',
        "status": "incomplete",
    }
    msg = whole(output=[call])
    assert kinds(msg) == ["stop_reason_conflict"]
    assert msg.diagnostics[0].details == {"output_index": 0, "item_type": "function_call"}
    cut = whole(
        output=[call], status="incomplete", incomplete_details={"reason": "max_output_tokens"}
    )
    assert cut.stop_reason == "length" and "stop_reason_conflict" not in kinds(cut)


def test_an_interrupted_summary_part_is_reported() -> None:
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    part_done = {
        "type": "response.reasoning_summary_part.done",
        "output_index": 0,
        "summary_index": 0,
        "part": {"type": "summary_text", "text": "Hm"},
        "status": "incomplete",
    }
    msg = stream(lifecycle("created"), added(0, reasoning), part_done, completed())
    assert msg.content[0].thinking == "Hm"  # type: ignore[union-attr]
    assert kinds(msg) == ["stop_reason_conflict"]
    assert msg.diagnostics[0].details == {"output_index": 0, "summary_index": 0}


def test_an_annotation_index_past_the_next_one_reports_the_gap() -> None:
    cited = {
        "type": "url_citation",
        "url": "https://example.com/a",
        "title": "A",
        "start_index": 0,
        "end_index": 2,
    }
    annotation = {
        "type": "response.output_text.annotation.added",
        "output_index": 0,
        "content_index": 0,
        "annotation_index": 2,
        "annotation": cited,
    }
    text = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hi",
    }
    msg = stream(added(0, message("", status="in_progress")), text, annotation, completed())
    assert [c.url for c in msg.content[0].citations] == ["https://example.com/a"]  # type: ignore[union-attr]
    assert kinds(msg) == ["event_malformed"] and msg.diagnostics[0].details["missed"] == 2


# -- progress events -----------------------------------------------------------------------


def progress(kind: str, index: int = 0, **fields: Any) -> dict[str, Any]:
    return {"type": f"response.{kind}", "output_index": index, "item_id": "x", **fields}


def hosted(msg: llmkit.AssistantMessage) -> dict[str, Any]:
    part = msg.content[0]
    assert isinstance(part, llmkit.ThinkingPart) and part.replay is not None
    item: dict[str, Any] = part.replay["item"]
    return item


CODE = {
    "id": "ci_1",
    "type": "code_interpreter_call",
    "status": "in_progress",
    "container_id": "cntr_1",
    "code": None,
    "outputs": None,
}


def test_hosted_progress_is_folded_into_the_item_a_cut_stream_keeps() -> None:
    code = [progress("code_interpreter_call_code.delta", delta=d) for d in ("print(", "1)")]
    cut = replay(sse(lifecycle("created"), added(0, CODE), *code), MODEL)[-1].message
    assert hosted(cut)["code"] == "print(1)"  # type: ignore[arg-type]
    final = {**CODE, "status": "completed", "code": "print(1)", "outputs": []}
    msg = stream(
        added(0, CODE),
        *code,
        progress("code_interpreter_call_code.done", code="print(1)"),
        done(0, final),
        completed([final]),
    )
    assert hosted(msg) == final and kinds(msg) == []
    assert sent(msg)["input"][1] == final  # verbatim, to the same model


def test_mcp_arguments_and_image_previews_are_folded_in() -> None:
    mcp = {
        "id": "mcp_1",
        "type": "mcp_call",
        "name": "search",
        "server_label": "docs",
        "arguments": "",
    }
    args = progress("mcp_call_arguments.delta", delta='{"q":')
    msg = replay(
        sse(added(0, mcp), args, progress("mcp_call_arguments.delta", delta='"x"}')), MODEL
    )[-1].message
    assert hosted(msg)["arguments"] == '{"q":"x"}'  # type: ignore[arg-type]
    image = {"id": "ig_1", "type": "image_generation_call", "status": "generating", "result": None}
    preview = progress(
        "image_generation_call.partial_image",
        partial_image_b64="aGk=",
        partial_image_index=0,
        size="1024x1024",
        quality="low",
    )
    msg = stream(added(0, image), preview, completed())
    assert hosted(msg) == {
        **image,
        "result": "aGk=",
        "partial_image_index": 0,
        "size": "1024x1024",
        "quality": "low",
    }
    assert "partial_image_index" not in sent(msg)["input"][1]  # no field of the item


SHELL = {
    "id": "sh_1",
    "type": "shell_call",
    "call_id": "call_sh",
    "status": "in_progress",
    "action": {"commands": []},
}


def test_streamed_shell_commands_are_the_calls_arguments_until_done() -> None:
    commands = [
        progress("shell_call_command.added", command_index=0, command=""),
        progress("shell_call_command.delta", command_index=0, delta="ls "),
        progress("shell_call_command.delta", command_index=0, delta="-la", obfuscation="pad"),
        progress("shell_call_command.added", command_index=1, command="pwd"),
    ]
    msg = stream(added(0, SHELL), *commands, completed())
    call = msg.tool_calls[0]
    assert (call.name, call.arguments) == ("shell", {"action": {"commands": ["ls -la", "pwd"]}})
    final = {**SHELL, "status": "completed", "action": {"commands": ["ls -la"]}}
    msg = stream(added(0, SHELL), *commands, done(0, final), completed([final]))
    assert msg.tool_calls[0].arguments == {"action": {"commands": ["ls -la"]}}  # .done wins


def test_shell_output_is_folded_into_its_output_item_and_reported_elsewhere() -> None:
    output = {
        "id": "sho_1",
        "type": "shell_call_output",
        "call_id": "call_sh",
        "status": "in_progress",
        "output": [],
    }
    chunk = {"stdout": "a\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    events = [
        progress("shell_call_output_content.delta", 1, command_index=0, delta={"stdout": "a"}),
        progress("shell_call_output_content.delta", 1, command_index=0, delta={"stdout": "\n"}),
    ]
    hosted_shell = {**SHELL, "environment": {"type": "container_reference", "container_id": "c"}}
    msg = stream(added(0, hosted_shell), added(1, output), *events, completed())
    assert msg.content[1].replay["item"]["output"] == [{"stdout": "a\n", "stderr": ""}]  # type: ignore[union-attr,index]
    whole_chunks = progress("shell_call_output_content.done", 1, command_index=0, output=[chunk])
    msg = stream(added(0, hosted_shell), added(1, output), *events, whole_chunks, completed())
    assert msg.content[1].replay["item"]["output"] == [chunk]  # type: ignore[union-attr,index]
    # output for a call the caller runs cannot come from the server: reported, not folded
    msg = stream(added(0, SHELL), events[0], completed())
    assert kinds(msg) == ["event_malformed"] and "output" not in msg.tool_calls[0].arguments


# -- audio ---------------------------------------------------------------------------------


def test_an_audio_answer_is_its_transcript_and_its_data_is_kept_as_on_chat() -> None:
    msg = stream(
        lifecycle("created"),
        {"type": "response.audio.delta", "delta": "UklG"},
        {"type": "response.audio.transcript.delta", "delta": "Hello"},
        {"type": "response.audio.delta", "delta": "RiQ="},
        {"type": "response.audio.transcript.delta", "delta": " there"},
        {"type": "response.audio.transcript.done"},
        {"type": "response.audio.done"},
        completed(),
    )
    assert msg.text == "Hello there" and kinds(msg) == []
    assert msg.provider_data == {"message_ids": [None], "audio": {"data": "UklGRiQ="}}
