"""The client on the Responses wire over real loopback HTTP (``FakeProvider(api=
"openai-responses")``), sync and async alike; and the official SDK reading the fake's bytes
(so the fake is checked against an independent reader of the wire)."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

import llmkit
from llmkit._fake.encoding import CLOCK
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeRequest, FakeToolCall
from tests.support.clients import Run, run_async, run_sync

API = "openai-responses"
WEATHER = llmkit.Tool(
    name="get_weather",
    description="Get the weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def tool_loop(run: Run) -> tuple[list[FakeRequest], list[llmkit.AssistantMessage]]:
    """Two turns: reasoning + a call, then the answer. Returns what the fake received."""
    replies = [
        FakeReply(
            thinking="The user wants Paris weather.",
            tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})],
            usage={"input": 40, "output": 30, "cache_read": 8, "reasoning": 20},
            chunk_size=11,
            delta_size=4,
        ),
        FakeReply("Sunny in Paris.", usage={"input": 90, "output": 6}),
    ]
    with FakeProvider(replies, api=API) as fake:
        model = fake.model("gpt-5", reasoning=True)
        ctx = llmkit.Context(
            system="Be brief.", messages=[llmkit.user("Weather in Paris?")], tools=[WEATHER]
        )
        replies_seen = []
        for _ in range(2):
            _, reply = run(model, ctx, api_key=fake.api_key, max_tokens=200)
            replies_seen.append(reply)
            ctx.messages.append(reply)
            for call in reply.tool_calls:
                ctx.messages.append(llmkit.tool_result(call, f"{call.arguments['city']}: 21C"))
        return fake.requests, replies_seen


def test_tool_loop_replays_reasoning_and_results_sync_and_async_identical() -> None:
    results = [tool_loop(run_sync), tool_loop(run_async)]
    for requests, (first, second) in results:
        assert [r.path for r in requests] == ["/v1/responses"] * 2
        assert requests[0].headers["authorization"] == "Bearer fake-key"
        body = requests[0].body
        assert (body["instructions"], body["max_output_tokens"]) == ("Be brief.", 200)
        assert (body["store"], body["include"]) == (False, ["reasoning.encrypted_content"])

        assert first.stop_reason == "tool_use" and first.raw_stop_reason == "completed"
        assert first.thinking == "The user wants Paris weather."
        (call,) = first.tool_calls
        assert (call.id, call.name, call.arguments) == ("call_1", "get_weather", {"city": "Paris"})
        assert call.replay == {"item_id": "fc_fake1_1", "status": "completed"}
        assert (first.usage.input, first.usage.cache_read, first.usage.reasoning) == (40, 8, 20)
        assert second.text == "Sunny in Paris." and second.stop_reason == "stop"
        assert not first.diagnostics and not second.diagnostics

        replayed = requests[1].body["input"]
        assert [i.get("type", i.get("role")) for i in replayed] == [
            "user",
            "reasoning",
            "function_call",
            "function_call_output",
        ]
        thinking = first.content[0]
        assert isinstance(thinking, llmkit.ThinkingPart) and thinking.replay is not None
        assert replayed[1]["encrypted_content"] == thinking.replay["encrypted_content"]
        assert replayed[2] == {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "status": "completed",
            "id": "fc_fake1_1",
        }
        assert replayed[3] == {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "Paris: 21C",
        }
    (_, mine), (_, theirs) = results
    dumps = [[m.model_dump(exclude={"response_id"}) for m in ms] for ms in (mine, theirs)]
    assert dumps[0] == dumps[1]


FAILED = {
    "type": "response.failed",
    "response": {
        "id": "resp_fake1",
        "object": "response",
        "status": "failed",
        "error": {"code": "server_error", "message": "The model crashed mid-answer."},
        "output": [],
        "usage": None,
    },
}


def test_in_stream_response_failed_ends_with_a_typed_error_and_the_partial_text(run: Run) -> None:
    partial = FakeReply("Partial answer that will", delta_size=5)
    error = FakeError(in_stream=True, body=FAILED, partial=partial, after_events=6)
    with FakeProvider([error], api=API, require_key=False) as fake:
        events, message = run(fake.model(), llmkit.Context(messages=[llmkit.user("hi")]))
    last = events[-1]
    assert isinstance(last, llmkit.ErrorEvent) and isinstance(last.error, llmkit.ServerError)
    assert "The model crashed mid-answer." in str(last.error)
    # 6 events: created, in_progress, output_item.added, content_part.added, 2 text deltas
    assert message.stop_reason == "error" and message.text == "Partial an"
    assert last.error.partial is message


def test_default_in_stream_error_event_and_complete_raising(run: Run) -> None:
    error = FakeError(in_stream=True, after_events=3)
    with FakeProvider([error, error], api=API, require_key=False) as fake:
        events, _ = run(fake.model(), llmkit.Context(messages=[llmkit.user("hi")]))
        assert isinstance(events[-1], llmkit.ErrorEvent)
        assert isinstance(events[-1].error, llmkit.ServerError)
        with pytest.raises(llmkit.ServerError) as info:
            llmkit.complete(fake.model(), llmkit.Context(messages=[llmkit.user("hi")]))
    assert info.value.partial is not None and info.value.partial.stop_reason == "error"


def test_a_clean_eof_without_a_terminal_event_is_a_truncated_stream_A4(run: Run) -> None:
    replies = [FakeReply("never finished", omit_done=True), FakeReply("cut", drop_after=5)]
    with FakeProvider(replies, api=API, require_key=False) as fake:
        ctx = llmkit.Context(messages=[llmkit.user("hi")])
        events, message = run(fake.model(), ctx)  # the body ends, no response.completed
        assert isinstance(events[-1], llmkit.ErrorEvent)
        assert isinstance(events[-1].error, llmkit.StreamError)
        assert (message.stop_reason, message.text) == ("error", "never finished")
        assert [d.kind for d in message.diagnostics] == ["stream_truncated"]
        events, message = run(fake.model(), ctx)  # the connection drops mid-body
        assert isinstance(events[-1], llmkit.ErrorEvent) and message.stop_reason == "error"


def test_incomplete_for_max_output_tokens_is_length(run: Run) -> None:
    reply = FakeReply("Cut sh", finish_reason="max_output_tokens", usage={"input": 5, "output": 2})
    with FakeProvider([reply], api=API, require_key=False) as fake:
        events, message = run(fake.model(), llmkit.Context(messages=[llmkit.user("hi")]))
    assert isinstance(events[-1], llmkit.Done)
    assert (message.stop_reason, message.raw_stop_reason) == ("length", "max_output_tokens")


def test_wrong_key_is_an_authentication_error() -> None:
    with FakeProvider([], api=API) as fake:
        with pytest.raises(llmkit.AuthenticationError):
            llmkit.complete(
                fake.model(), llmkit.Context(messages=[llmkit.user("hi")]), api_key="wrong"
            )


def test_non_streamed_body_parses_like_the_stream() -> None:
    reply = FakeReply(
        "Hello",
        thinking="Hmm.",
        tool_calls=[FakeToolCall("get_weather", {"city": "Oslo"}, id="call_9")],
        usage={"input": 3, "output": 4},
    )
    with FakeProvider([reply, reply], api=API, require_key=False) as fake:
        model = fake.model("gpt-5", reasoning=True)
        streamed = llmkit.complete(model, llmkit.Context(messages=[llmkit.user("hi")]))
        with httpx.Client() as client:
            body = client.post(
                f"{fake.base_url}/responses",
                json={"model": "gpt-5", "input": "hi", "include": ["reasoning.encrypted_content"]},
                headers={"authorization": f"Bearer {fake.api_key}"},
            ).content
    whole = llmkit.parse_response(model, body)
    drop = {"response_id", "diagnostics"}
    strip = {"replay"}  # ids differ per response number: compare the rest
    a, b = streamed.model_dump(exclude=drop), whole.model_dump(exclude=drop)
    for part in (*a["content"], *b["content"]):
        for key in strip:
            part.pop(key, None)
    assert a["provider_data"].pop("message_ids") == ["msg_fake1_1"]
    assert b["provider_data"].pop("message_ids") == ["msg_fake2_1"]
    # the fake's clock: a fixed start plus the request's number
    assert (a["provider_data"].pop("created_at"), b["provider_data"].pop("created_at")) == (
        CLOCK + 1,
        CLOCK + 2,
    )
    assert a == b


def test_the_official_sdk_reads_what_the_fake_scripted() -> None:
    reply = FakeReply(
        "Bonjour 😀 \u2028 ok",
        thinking="Think.",
        tool_calls=[FakeToolCall("get_weather", {"city": "Nice"}, id="call_7")],
        usage={"input": 12, "output": 9, "cache_read": 4, "cache_write": 2, "reasoning": 3},
        delta_size=2,
        chunk_size=5,
    )
    with FakeProvider([reply, reply], api=API) as fake:
        client = openai.OpenAI(
            base_url=fake.base_url,
            api_key=fake.api_key,
            max_retries=0,
            http_client=httpx.Client(verify=False),
        )
        with client.responses.stream(
            model="gpt-5", input="hi", include=["reasoning.encrypted_content"]
        ) as stream:
            deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
            streamed = stream.get_final_response()
        created = client.responses.create(model="gpt-5", input="hi")
        client.close()
    for response in (streamed, created):
        assert response.output_text == "Bonjour 😀 \u2028 ok"
        kinds = [o.type for o in response.output]
        assert kinds == ["reasoning", "message", "function_call"]
        call = response.output[2]
        assert (call.call_id, call.name, json.loads(call.arguments)) == (  # type: ignore[union-attr]
            "call_7",
            "get_weather",
            {"city": "Nice"},
        )
        assert response.usage is not None and response.usage.input_tokens == 12
    assert "".join(deltas) == "Bonjour 😀 \u2028 ok" and len(deltas) > 1
    assert streamed.output[0].encrypted_content  # type: ignore[union-attr]
    assert created.output[0].encrypted_content is None  # type: ignore[union-attr]  # not asked
