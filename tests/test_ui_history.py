"""``llmkit.ui`` back from the page: ``from_ui_messages``, ``approvals``, approval requests and
refusals, in pure Python (the real client's messages: test_ui_roundtrip.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmkit
from llmkit import (
    AssistantMessage,
    Done,
    Start,
    TextDelta,
    TextEnd,
    TextPart,
    TextStart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
)
from llmkit.ui import Approval, ApprovalRequest, approvals, from_ui_messages, to_ui_stream

from .test_ui import WEATHER, parts, weather_step

PNG = "iVBORw0KGgo="


def user(text: str, id: str = "u1") -> dict[str, Any]:
    return {"id": id, "role": "user", "parts": [{"type": "text", "text": text}]}


def tool_part(state: str, **fields: Any) -> dict[str, Any]:
    return {"type": "tool-get_weather", "toolCallId": "call_a", "state": state, **fields}


def assistant(*parts: dict[str, Any], id: str = "a1") -> dict[str, Any]:
    return {"id": id, "role": "assistant", "parts": list(parts)}


def test_a_plain_page_history_becomes_a_context() -> None:
    messages = [
        {"id": "s", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
        user("Weather?"),
        assistant(
            {"type": "step-start"},
            {"type": "reasoning", "text": "Hmm."},
            {"type": "text", "text": "Sure."},
            tool_part("output-available", input={"city": "Paris"}, output="Sunny"),
            {"type": "step-start"},
            {"type": "text", "text": "It is sunny."},
        ),
        user("Thanks"),
    ]
    context = from_ui_messages(messages)
    assert context.system == "Be brief."
    assert context.tools == []
    assert context.messages == [
        llmkit.user("Weather?"),
        AssistantMessage(
            content=[
                ThinkingPart(thinking="Hmm."),
                TextPart(text="Sure."),
                ToolCall(
                    id="call_a",
                    name="get_weather",
                    arguments={"city": "Paris"},
                    raw_arguments='{"city": "Paris"}',
                ),
            ]
        ),
        ToolResultMessage(
            tool_call_id="call_a", tool_name="get_weather", content=[TextPart(text="Sunny")]
        ),
        AssistantMessage(content="It is sunny."),
        llmkit.user("Thanks"),
    ]


def test_user_files_become_image_and_document_parts() -> None:
    text = "aGVsbG8="  # "hello"
    message = {
        "id": "u",
        "role": "user",
        "parts": [
            {"type": "file", "mediaType": "image/png", "url": f"data:image/png;base64,{PNG}"},
            {"type": "file", "mediaType": "image/jpeg", "url": "https://x.test/a.jpg"},
            {"type": "file", "mediaType": "application/pdf", "url": "https://x.test/a.pdf"},
            {"type": "file", "mediaType": "text/plain", "url": f"data:text/plain;base64,{text}"},
        ],
    }
    content = from_ui_messages([message]).messages[0].content
    assert content == [
        llmkit.ImagePart(data=PNG, media_type="image/png"),
        llmkit.ImagePart(url="https://x.test/a.jpg"),
        llmkit.DocumentPart(url="https://x.test/a.pdf"),
        llmkit.DocumentPart(text="hello", media_type="text/plain"),
    ]


def test_parts_not_taken_are_skipped_and_each_reported() -> None:
    message = assistant(
        {"type": "text", "text": "See"},
        {"type": "source-url", "sourceId": "s", "url": "https://x.test"},
        {"type": "data-weather", "data": {}},
        {"type": "file", "mediaType": "image/png", "url": "https://x.test/i.png"},
    )
    diagnostics: list[llmkit.Diagnostic] = []
    context = from_ui_messages([message], diagnostics=diagnostics)
    assert context.messages == [AssistantMessage(content="See")]
    assert [(d.kind, d.details["part"], d.details["type"]) for d in diagnostics] == [
        ("ui_part_skipped", 1, "source-url"),
        ("ui_part_skipped", 2, "data-weather"),
        ("ui_part_skipped", 3, "file"),
    ]
    assert from_ui_messages([message]) == context  # no list given: nothing reported
    diagnostics.clear()
    empty = {"id": "a2", "role": "assistant", "parts": []}  # a response that never got going
    assert from_ui_messages([message, empty], diagnostics=diagnostics) == context
    assert [(d.details["message"], d.details["part"]) for d in diagnostics[3:]] == [(1, None)]
    assert "an assistant message without parts was skipped" in diagnostics[3].message


def test_denied_and_failed_outcomes_are_error_results() -> None:
    denied = tool_part(
        "output-denied", input={}, approval={"id": "x", "approved": False, "reason": "No."}
    )
    failed = tool_part("output-error", input={}, errorText="boom")
    for part, text in ((denied, "The user denied this tool call. Reason: No."), (failed, "boom")):
        result = from_ui_messages([assistant(part)]).messages[1]
        assert isinstance(result, ToolResultMessage)
        assert (result.is_error, result.text) == (True, text)


def test_calls_awaiting_approval_get_no_result_and_approvals_reads_the_answers() -> None:
    messages = [
        user("Delete it"),
        assistant(
            tool_part("approval-responded", input={}, approval={"id": "ap1", "approved": True}),
            {
                "type": "tool-delete",
                "toolCallId": "call_b",
                "state": "approval-responded",
                "input": {},
                "approval": {"id": "ap2", "approved": False, "reason": "too risky"},
            },
            {
                "type": "tool-delete",
                "toolCallId": "call_c",
                "state": "approval-requested",
                "input": {},
                "approval": {"id": "ap3"},
            },
        ),
    ]
    context = from_ui_messages(messages)
    assert [type(m).__name__ for m in context.messages] == ["UserMessage", "AssistantMessage"]
    assert approvals(messages) == {
        "call_a": Approval("call_a", "ap1", True),
        "call_b": Approval("call_b", "ap2", False, "too risky"),
    }


def test_an_approval_request_and_a_refusal_reach_the_page() -> None:
    got = parts(to_ui_stream([*weather_step(), ApprovalRequest("call_a")]))
    assert got[-2] == {
        "type": "tool-approval-request",
        "approvalId": "approval-call_a",
        "toolCallId": "call_a",
    }
    assert (
        parts(to_ui_stream([*weather_step(), ApprovalRequest("call_a", "mine")]))[-2]["approvalId"]
        == "mine"
    )
    # The next turn continues the message: the refusal comes before any step.
    answer = Approval("call_a", "approval-call_a", approved=False, reason="No.")
    after = AssistantMessage(content="OK, I will not.")
    continued = [
        answer,
        Start(),
        TextStart(0),
        TextDelta(0, "OK, I will not."),
        TextEnd(0, "OK, I will not."),
        Done(after),
    ]
    got = parts(to_ui_stream(continued))
    assert got[1] == {"type": "tool-output-denied", "toolCallId": "call_a"}
    assert answer.refusal(WEATHER) == ToolResultMessage(
        tool_call_id="call_a",
        tool_name="get_weather",
        content=[TextPart(text="The user denied this tool call. Reason: No.")],
        is_error=True,
    )
    # An approved answer sends nothing (its result follows as usual).
    approved = Approval("call_a", "approval-call_a", approved=True)
    assert parts(to_ui_stream([approved]))[1:] == [{"type": "finish"}]


def test_approval_items_inside_a_step_or_for_unknown_calls_are_refused() -> None:
    with pytest.raises(ValueError, match="inside a step"):
        list(to_ui_stream([Start(), ApprovalRequest("call_a")]))
    with pytest.raises(ValueError, match="unknown call"):
        list(to_ui_stream([*weather_step(), ApprovalRequest("call_zz")]))


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


HOSTILE: list[tuple[Any, str]] = [
    ("hello", "must be a list"),
    ({"messages": []}, "must be a list"),
    ([42], r"messages\[0\]: a UI message must be an object"),
    ([{"id": "m", "role": "robot", "parts": []}], r"messages\[0\] \(id 'm'\): 'role'"),
    ([{"role": "user"}], "'parts' must be a list, not missing"),
    ([{"role": "user", "parts": [{"type": 3}]}], r"part 0: a part must be an object"),
    ([{"role": "user", "parts": [{"type": "text", "text": None}]}], "part 0: 'text'"),
    ([{"role": "user", "id": 5, "parts": []}], "'id' must be a string"),
    (
        [{"role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": "file:/x"}]}],
        "part 0: .*url must be http",
    ),
    (
        [{"role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": "data:,x"}]}],
        "part 0: a file's data: URL must be base64",
    ),
    ([assistant(tool_part("weird", input={}))], r"part 0: unknown tool part state"),
    ([assistant(tool_part("output-error", input={}))], r"part 0: 'errorText'"),
    (
        [assistant(tool_part("output-available", input={}, output=float("nan")))],
        "nan is not a JSON number",
    ),
    (
        [assistant({"type": "dynamic-tool", "toolCallId": "c", "state": "input-available"})],
        "toolName",
    ),
    ([assistant(tool_part("approval-responded", input={}))], "needs an 'approval'"),
    (
        [assistant(tool_part("approval-responded", input={}, approval={"id": "a"}))],
        "'approved' must be true or false",
    ),
    ([assistant({"type": "data-llmkit", "data": []})], "part 0: 'data' must be an object"),
    (
        [
            assistant(
                {
                    "type": "data-llmkit",
                    "data": {"message": {}, "content": [{"type": "text", "ui": 3}]},
                }
            )
        ],
        "names a text part the step does not have",
    ),
    (
        [
            assistant(
                {"type": "data-llmkit", "data": {"message": {"stop_reason": "nope"}, "content": []}}
            )
        ],
        "part 0: ",
    ),
    # Values Python's json reads but no request can send, nesting that exhausts recursion
    (
        [assistant({"type": "text", "text": "x"}, {"type": "text", "text": "\ud800"})],
        r"messages\[0\] \(id 'a1'\) part 1: a string holds a lone surrogate",
    ),
    ([assistant(tool_part("input-available", input={"n": float("nan")}))], "nan is not a JSON"),
    ([assistant(tool_part("input-available", input={1: 2}))], "key must be a string"),
    (
        [assistant(tool_part("output-available", input={}, output=_deep(101)))],
        "part 0: nested deeper than 100 levels",
    ),
    ([assistant(tool_part("output-available", input={}, output=_deep(5000)))], "deeper"),
]


@pytest.mark.parametrize(("messages", "match"), HOSTILE)
def test_malformed_history_is_an_invalid_request_naming_message_and_part(
    messages: Any, match: str
) -> None:
    with pytest.raises(llmkit.InvalidRequestError, match=match):
        from_ui_messages(messages)
    with pytest.raises(llmkit.InvalidRequestError):
        approvals(messages)


def test_the_record_restores_what_the_visible_parts_cannot_say() -> None:
    call = ToolCall(
        id="call_a",
        name="get_weather",
        arguments={"n": 12345678901234567890},
        raw_arguments='{"n": 12345678901234567890}',
        provider_id="",
        replay={"thought_signature": "sig"},
    )
    final = AssistantMessage(
        content=[ThinkingPart(thinking="", signature="s", redacted=True), call],
        stop_reason="tool_use",
        provider="anthropic",
        api="anthropic-messages",
        model="m",
        response_id="r1",
        provider_data={"k": [1]},
    )
    items = [
        Start(),
        Done(final),
        ToolResultMessage(
            tool_call_id="call_a",
            tool_name="get_weather",
            content=[TextPart(text="a"), TextPart(text="b")],
        ),
    ]
    record = [p for p in parts(to_ui_stream(items), record=True) if p["type"] == "data-llmkit"]
    assert len(record) == 1
    # What a page would have made of it (the conformance tests check the real client's).
    page = assistant(
        {"type": "step-start"},
        tool_part(
            "output-available",
            input={"n": 12345678901234567000},  # JavaScript lost digits
            output="ab",
            resultProviderMetadata=parts(to_ui_stream(items))[-2]["providerMetadata"],
        ),
        record[0],
    )
    context = from_ui_messages(json.loads(json.dumps([page])))
    assert context.messages == [final, items[2]]
