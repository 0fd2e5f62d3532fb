"""The exact round trip through the page, on every wire: a transcript (thinking with its
signatures and replay data, text, parallel calls, a recovered call that got no result, results
with ``is_error``, several steps, two turns) → ``to_ui_stream`` → the ``ai`` package's own
``readUIMessageStream`` (in Node, as ``useChat`` runs it) → JSON → ``from_ui_messages``: the
request ``build_request`` makes from it is byte for byte the request made from the original.

Needs ``node`` and ``npm ci --prefix tests/ui``; see ``tests/support/ui_node.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall
from llmkit.ui import (
    Approval,
    ApprovalRequest,
    UIStreamItem,
    approvals,
    from_ui_messages,
    to_ui_stream,
)

from .support.ui_cases import SECRET, TIME, TOOLS, WEATHER
from .support.ui_node import node, run_node

WIRES: tuple[llmkit.Api, ...] = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "bedrock-converse",
)
SYSTEM = "Be brief."
BROKEN = FakeToolCall("get_weather", '{"city": "Par')  # arguments cut off: recovered/invalid


@dataclass
class Transcript:
    """One wire's conversation: the context llmkit built, the page's turns to post back."""

    model: llmkit.Model
    context: llmkit.Context
    turns: list[tuple[str, list[UIStreamItem]]]  # (the user's text, the stream of the answer)


def _turn(
    fake: FakeProvider, context: llmkit.Context, user: str, results: list[list[bool | None]]
) -> tuple[str, list[UIStreamItem]]:
    """One user turn: steps until ``results`` runs out; after step ``i``, call ``j`` gets a
    result (``results[i][j]``: ``False`` fine, ``True`` an error, ``None`` none)."""
    context.messages.append(llmkit.user(user))
    items: list[UIStreamItem] = []
    for plan in [*results, []]:
        with llmkit.stream(fake.model(reasoning=True), context, api_key=SECRET) as events:
            got = list(events)
        final = got[-1]
        # Gemini refuses the broken call outright (MALFORMED_FUNCTION_CALL): an empty, failed step
        assert isinstance(final, (llmkit.Done, llmkit.ErrorEvent))
        context.messages.append(final.message)
        items += got
        for call, error in zip(final.message.tool_calls, plan, strict=False):
            if error is not None:
                result = llmkit.tool_result(call, f"result of {call.name}", is_error=error)
                context.messages.append(result)
                items.append(result)
    return user, items


def transcript(api: llmkit.Api) -> Transcript:
    replies = [
        FakeReply("Let me look.", thinking="First the weather.", tool_calls=[WEATHER, TIME]),
        FakeReply(thinking="Once more.", tool_calls=[TIME, BROKEN]),
        FakeReply("Sunny in Zürich; noon in Paris.", thinking="Now answer."),
        FakeReply("You're welcome — 🌦️.", thinking="Be polite."),
    ]
    with FakeProvider(replies, api=api, api_key=SECRET) as fake:
        context = llmkit.Context(system=SYSTEM, tools=TOOLS)
        turns = [
            _turn(fake, context, "Weather and time, please?", [[False, True], [False, None]]),
            _turn(fake, context, "Thanks!", []),
        ]
        model = fake.model(reasoning=True)
    return Transcript(model, context, turns)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Transcript, list[Any]]]:
    """Each wire's transcript and the UIMessages the page would post after its last turn."""
    node()
    transcripts = {api: transcript(api) for api in WIRES}
    cases = [
        {"name": f"{api}/{n}", "sse": "".join(to_ui_stream(items)), "chunkSize": 7}
        for api, t in transcripts.items()
        for n, (_, items) in enumerate(t.turns)
    ]
    path = tmp_path_factory.mktemp("roundtrip") / "cases.json"
    path.write_text(json.dumps(cases))
    read = run_node("read_stream.mjs", str(path))["cases"]
    out: dict[str, tuple[Transcript, list[Any]]] = {}
    for api, t in transcripts.items():
        messages: list[Any] = [
            {"id": "system", "role": "system", "parts": [{"type": "text", "text": SYSTEM}]}
        ]
        for n, (text, _) in enumerate(t.turns):
            got = read[f"{api}/{n}"]
            assert got["invalid"] == []
            messages.append(
                {"id": f"u{n}", "role": "user", "parts": [{"type": "text", "text": text}]}
            )
            messages.append(got["message"])
        out[api] = (t, json.loads(json.dumps(messages)))  # what the page posts: JSON
    return out


_NOT_SENT = {"usage", "diagnostics", "error"}  # what no request uses


@pytest.mark.parametrize("api", WIRES)
def test_the_page_history_comes_back_equal_in_every_field_a_request_uses(
    api: llmkit.Api, page: dict[str, tuple[Transcript, list[Any]]]
) -> None:
    original, posted = page[api]
    diagnostics: list[llmkit.Diagnostic] = []
    back = from_ui_messages(posted, diagnostics=diagnostics)
    assert diagnostics == []
    assert back.system == original.context.system
    assert len(back.messages) == len(original.context.messages)
    for got, want in zip(back.messages, original.context.messages, strict=True):
        if isinstance(want, llmkit.AssistantMessage):
            assert isinstance(got, llmkit.AssistantMessage)
            assert got.model_dump(exclude=_NOT_SENT) == want.model_dump(exclude=_NOT_SENT)
        else:
            assert got == want
    # The cases reach what they are meant to: signatures or replay data, a call that is not
    # complete and got no result, an error result, several steps in one UI message.
    calls = [
        c
        for m in original.context.messages
        if isinstance(m, llmkit.AssistantMessage)
        for c in m.tool_calls
    ]
    assert any(c.status != "complete" for c in calls) or api == "gemini"
    assert any(
        isinstance(m, llmkit.ToolResultMessage) and m.is_error for m in original.context.messages
    )
    if api != "openai-chat":
        assert any(
            getattr(p, "signature", None) or getattr(p, "replay", None)
            for m in original.context.messages
            if isinstance(m, llmkit.AssistantMessage)
            for p in m.content
        )


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("to", WIRES)
def test_build_request_sends_the_same_bytes_for_the_round_tripped_history(
    api: llmkit.Api, to: llmkit.Api, page: dict[str, tuple[Transcript, list[Any]]]
) -> None:
    original, posted = page[api]
    back = from_ui_messages(posted)
    back.tools = list(original.context.tools)
    model = page[to][0].model  # the same model, and each other wire's too
    want = llmkit.build_request(model, original.context, api_key=SECRET)
    got = llmkit.build_request(model, back, api_key=SECRET)
    assert got.content == want.content
    assert got.url == want.url


def test_without_the_llmkit_record_the_history_would_not_replay(
    page: dict[str, tuple[Transcript, list[Any]]],
) -> None:
    """The check above has teeth: the visible parts alone lose what the next request needs."""
    for api in WIRES:
        original, posted = page[api]
        stripped = [
            {**m, "parts": [p for p in m["parts"] if p["type"] != "data-llmkit"]} for m in posted
        ]
        back = from_ui_messages(stripped)
        back.tools = list(original.context.tools)
        want = llmkit.build_request(original.model, original.context, api_key=SECRET)
        assert llmkit.build_request(original.model, back, api_key=SECRET).content != want.content


# ------------------------------------------------------------------ approvals, sources, replay

PNG = "iVBORw0KGgo="
RISKY = llmkit.Tool(
    name="delete_file",
    description="Delete a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
LIST = llmkit.Tool(
    name="list_files",
    description="List files.",
    parameters={"type": "object", "properties": {"n": {"type": "number"}}},
)


def events_of(message: llmkit.AssistantMessage) -> list[UIStreamItem]:
    """A stream that delivers ``message``, part by part."""
    out: list[UIStreamItem] = [llmkit.Start(provider=message.provider, model=message.model)]
    for i, part in enumerate(message.content):
        if isinstance(part, llmkit.TextPart):
            out += [llmkit.TextStart(i), llmkit.TextDelta(i, part.text)]
            out.append(llmkit.TextEnd(i, part.text, citations=part.citations))
        elif isinstance(part, llmkit.ThinkingPart):
            out.append(llmkit.ThinkingStart(i))
            if part.thinking:
                out.append(llmkit.ThinkingDelta(i, part.thinking))
            out.append(llmkit.ThinkingEnd(i, part.thinking))
        else:
            out.append(llmkit.ToolCallStart(i, part.id, part.name))
            out.append(
                llmkit.ToolCallDelta(i, part.id, part.name, part.raw_arguments, lambda: None)
            )
            out.append(llmkit.ToolCallEnd(i, part))
    out.append(llmkit.Done(message))
    return out


def rich_turn(
    api: llmkit.Api,
) -> tuple[llmkit.Model, llmkit.AssistantMessage, llmkit.AssistantMessage]:
    """What the fake does not send: empty and redacted thinking, citations of both kinds, a
    rewritten call id, a number JavaScript would change, a recovered call (the fake's Gemini
    refuses a cut-off call outright, so only this case has one there), provider data; then
    an answer."""
    model = llmkit.Model(provider="fake", id="m", api=api, base_url="http://127.0.0.1:9")
    asked = llmkit.AssistantMessage(
        content=[
            llmkit.ThinkingPart(thinking="", signature="sig-empty"),
            llmkit.ThinkingPart(redacted=True, signature="opaque-redacted"),
            llmkit.ThinkingPart(thinking="Plan: look, then ask.", signature="sig-1"),
            llmkit.TextPart(
                text="The manual says deleting is risky.",
                citations=[
                    llmkit.Citation(url="https://x.test/doc", title="Doc", start=4, end=10),
                    llmkit.Citation(
                        title="Manual",
                        cited_text="deleting is risky",
                        source=0,
                        provider_data={
                            "type": "char_location",
                            "cited_text": "deleting is risky",
                            "document_index": 0,
                            "start_char_index": 0,
                            "end_char_index": 17,
                        },
                    ),
                ],
            ),
            llmkit.ToolCall(
                id="call_rm",
                name="delete_file",
                arguments={"path": "/tmp/x"},
                raw_arguments='{"path": "/tmp/x"}',
                provider_id="",
            ),
            llmkit.ToolCall(
                id="call_ls",
                name="list_files",
                arguments={"n": 12345678901234567890},
                raw_arguments='{"n": 12345678901234567890}',
            ),
            llmkit.ToolCall(  # cut off, recovered: streamed as tool-input-error, no result
                id="call_cut",
                name="list_files",
                arguments={"n": 1},
                raw_arguments='{"n": 1',
                status="recovered",
            ),
        ],
        stop_reason="tool_use",
        response_id="resp_1",
        provider_data={"message_ids": ["m1"]},
        provider="fake",
        api=api,
        model="m",
    )
    answer = llmkit.AssistantMessage(
        content="I listed them and did not delete anything.", provider="fake", api=api, model="m"
    )
    return model, asked, answer


@pytest.mark.parametrize("api", WIRES)
def test_an_approval_denied_in_the_page_round_trips_with_sources_and_replay_data(
    api: llmkit.Api, tmp_path: Path
) -> None:
    node()
    model, asked, answer = rich_turn(api)
    rm, ls, cut = asked.tool_calls
    listed = llmkit.ToolResultMessage(
        tool_call_id=ls.id,
        tool_name=ls.name,
        content=[
            llmkit.TextPart(text="a.txt"),
            llmkit.ImagePart(data=PNG, media_type="image/png"),
        ],
    )
    head: list[Any] = [
        {"id": "s", "role": "system", "parts": [{"type": "text", "text": SYSTEM}]},
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": "Tidy up."}]},
    ]

    def read(items: list[UIStreamItem], message: Any = None) -> Any:
        case: dict[str, Any] = {"name": "c", "sse": "".join(to_ui_stream(items)), "chunkSize": 5}
        if message is not None:
            case["message"] = message
        path = tmp_path / "case.json"
        path.write_text(json.dumps([case]))
        got = run_node("read_stream.mjs", str(path))["cases"]["c"]
        assert got["invalid"] == [] and got["errors"] == []
        return got["message"]

    first = read([*events_of(asked), listed, ApprovalRequest(rm.id)])
    by_type = {p["type"]: p for p in first["parts"]}
    assert by_type["tool-delete_file"]["state"] == "approval-requested"
    cut_part = next(p for p in first["parts"] if p.get("toolCallId") == cut.id)
    assert (cut_part["state"], cut_part["input"]) == ("output-error", '{"n": 1')
    assert by_type["source-url"]["url"] == "https://x.test/doc"
    assert by_type["source-document"]["title"] == "Manual"
    assert approvals([*head, first]) == {}

    # The user clicks Deny (what addToolApprovalResponse does to the part), the page posts.
    part = by_type["tool-delete_file"]
    part["state"] = "approval-responded"
    part["approval"] = {"id": part["approval"]["id"], "approved": False, "reason": "No!"}
    posted = json.loads(json.dumps([*head, first]))
    answers = approvals(posted)
    assert answers == {rm.id: Approval(rm.id, f"approval-{rm.id}", False, "No!")}
    waiting = from_ui_messages(posted)
    assert [type(m).__name__ for m in waiting.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
    ]  # the denied call has no result yet: the server decides

    refusal = answers[rm.id].refusal(rm)
    second = read([answers[rm.id], *events_of(answer)], message=first)
    assert {p["type"]: p for p in second["parts"]}["tool-delete_file"]["state"] == "output-denied"

    original = llmkit.Context(
        system=SYSTEM,
        messages=[llmkit.user("Tidy up."), asked, listed, refusal, answer],
        tools=[RISKY, LIST],
    )
    back = from_ui_messages(json.loads(json.dumps([*head, second])))
    back.tools = [RISKY, LIST]
    for got_message, want in zip(back.messages, original.messages, strict=True):
        if isinstance(want, llmkit.AssistantMessage):
            assert isinstance(got_message, llmkit.AssistantMessage)
            assert got_message.model_dump(exclude=_NOT_SENT) == want.model_dump(exclude=_NOT_SENT)
        else:
            assert got_message == want
    sent = llmkit.build_request(model, original, api_key=SECRET).content
    assert llmkit.build_request(model, back, api_key=SECRET).content == sent
