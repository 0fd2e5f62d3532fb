"""The caller's options (docs/design.md §3): every value is checked before anything is sent.

A bad value raises ``InvalidRequestError`` naming the option and what it accepts; the fake
provider counts the requests that reached it: zero. ``on_response`` sees each attempt's response
head. Over real loopback sockets, sync and async.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import fields
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import llmkit
from llmkit import _options
from llmkit._options import Options
from llmkit.testing import FakeError, FakeProvider, FakeReply

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])
SEND_ONLY = ("timeout", "max_retries", "max_retry_delay", "max_event_size", "on_response")


class Answer(BaseModel):
    text: str


BAD: dict[str, list[Any]] = {
    "timeout": ["abc", -1, 0, {"total": 1}, (1, 2), float("nan"), True, llmkit.Timeouts(idle=-1)],
    "temperature": ["hot", -1, 2.5, float("inf"), True],
    "top_p": [2, -0.1, "1"],
    "max_tokens": [0, -5, 1.5, "100", True],
    "max_retries": [-1, 1.5, "2", False],
    "max_retry_delay": [-1, "x"],
    "max_event_size": [0, "big"],
    "stop": ["", [""], [1], 5, ("a",)],
    "tool_choice": ["any", {"tool": "x"}, {"name": 1}, 3],
    "parallel_tool_calls": ["yes", 1],
    "reasoning": ["maximum", 3, True],
    "response_format": ["json", 5, Answer(text="x")],
    "provider_options": [[1], "x"],
    "api_key": ["", 5],
    "base_url": ["ftp://x", "localhost:8000", 5],
    "headers": [{"a": 1}, [("a", "b")]],
    "on_request": ["not callable"],
    "on_response": [5],
    "cache": ["forever", True, 1],
    "cache_key": ["", 5],
    "stream_tool_arguments": ["yes", 1],
    "region": ["US East", "us_east_1", 5],
}


@pytest.mark.parametrize(("option", "value"), [(o, v) for o, values in BAD.items() for v in values])
def test_a_bad_value_is_refused_before_anything_is_sent(option: str, value: Any) -> None:
    with FakeProvider([FakeReply("never")] * 3) as fake:
        options: dict[str, Any] = {"api_key": fake.api_key, option: value}
        for call in (llmkit.complete, llmkit.build_request):
            started = time.monotonic()
            with pytest.raises(llmkit.InvalidRequestError) as info:
                call(fake.model(), CONTEXT, **options)
            assert time.monotonic() - started < 1, "refused at once, not retried"
            message = str(info.value)
            assert option.split(".")[0] in message, message
            if call is llmkit.build_request and option in SEND_ONLY:
                assert "no effect" in message, message  # refused whatever its value
            else:
                assert "takes" in message, message  # it says what the option accepts
        with pytest.raises(llmkit.InvalidRequestError):
            asyncio.run(llmkit.acomplete(fake.model(), CONTEXT, **options))
        assert fake.requests == []


def test_a_refused_key_is_never_echoed() -> None:
    secret = b"sk-live-SECRET-bytes-not-str"
    with pytest.raises(llmkit.InvalidRequestError) as info:
        llmkit.build_request(llmkit.get_model("openai", "gpt-4.1-mini"), CONTEXT, api_key=secret)  # type: ignore[typeddict-item]
    assert "SECRET" not in str(info.value) and "api_key" in str(info.value)


def test_an_unknown_option_lists_the_known_ones() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="max_tokenz") as info:
        llmkit.build_request(
            llmkit.get_model("openai", "gpt-4.1-mini"),
            CONTEXT,
            api_key="k",
            max_tokenz=5,  # type: ignore[call-arg]
        )
    assert "max_tokens" in str(info.value)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("temperature", 0),
        ("temperature", 2),
        ("top_p", 1),
        ("stop", "END"),
        ("stop", []),
        ("max_tokens", 1),
        ("response_format", Answer),
        ("response_format", {"type": "object"}),
        ("tool_choice", "required"),
        ("reasoning", "off"),
        ("max_tokens", None),  # None is "not given", for every option
    ],
)
def test_good_values_are_accepted(option: str, value: Any) -> None:
    model = llmkit.get_model("openai", "gpt-4.1-mini")
    request = llmkit.build_request(model, CONTEXT, api_key="k", **{option: value})
    assert request.method == "POST"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("timeout", 2.5),
        ("timeout", 3),
        ("timeout", llmkit.Timeouts(connect=1, total=30)),
        ("max_retries", 0),
    ],
)
def test_good_transport_values_are_accepted_by_the_calls(option: str, value: Any) -> None:
    with FakeProvider([FakeReply("ok")]) as fake:
        reply = llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, **{option: value})
    assert reply.text == "ok"


def test_options_are_a_typed_dict_listed_in_help() -> None:
    keys = set(llmkit.RequestOptions.__annotations__)
    assert {"max_tokens", "timeout", "on_request", "on_response", "client"} <= keys
    for call in (llmkit.complete, llmkit.stream):  # acomplete/astream: "the same options"
        assert "RequestOptions" in (call.__doc__ or ""), call.__name__


def test_the_typed_dict_and_the_checked_options_name_the_same_options() -> None:
    assert set(llmkit.RequestOptions.__annotations__) == {f.name for f in fields(Options)}


def test_an_unknown_option_suggests_the_closest_one() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="did you mean max_tokens") as info:
        Options.check({"max_tokenz": 5})
    assert "max_tokenz" in str(info.value)
    with pytest.raises(llmkit.InvalidRequestError) as info:
        Options.check({"zzzz": 5})
    assert "did you mean" not in str(info.value)


def test_a_call_option_replaces_the_default_and_headers_merge_by_name() -> None:
    defaults = Options.check(
        {"temperature": 0.5, "max_tokens": 10, "headers": {"X-Trace": "a", "X-Team": "t"}}
    )
    call = Options.check({"temperature": 1.0, "headers": {"x-trace": "b", "X-New": "n"}})
    merged = defaults.merged(call)
    assert merged.temperature == 1.0 and merged.max_tokens == 10
    assert merged.headers == {"X-Team": "t", "x-trace": "b", "X-New": "n"}
    assert defaults.merged(Options()).given() == defaults.given()
    assert Options().merged(call).given() == call.given()


def test_send_only_options_are_the_ones_that_act_when_llmkit_sends() -> None:
    assert set(_options.SEND_ONLY) == {
        "timeout",
        "max_retries",
        "max_retry_delay",
        "client",
        "on_response",
        "max_event_size",
        "telemetry",
    }
    given = Options.check({"timeout": 5, "max_tokens": 3, "max_retries": 0})
    assert given.send_only() == ["timeout", "max_retries"]
    assert Options.check({"api_key": "k", "headers": {"a": "b"}}).send_only() == []


def test_transport_defaults_are_applied_once() -> None:
    transport = Options().transport_options("openai", None)
    assert (transport.max_retries, transport.max_retry_delay) == (2, 60.0)
    assert transport.timeouts == llmkit.Timeouts()
    given = Options.check({"max_retries": 0, "max_retry_delay": 0, "timeout": 3})
    transport = given.transport_options("openai", None)
    assert (transport.max_retries, transport.max_retry_delay) == (0, 0)
    assert transport.timeouts == llmkit.Timeouts(connect=3, first_byte=3, idle=3)


def test_the_repr_shows_no_key_and_no_header_value() -> None:
    shown = repr(
        Options.check({"api_key": "sk-SECRET", "headers": {"Authorization": "Bearer TOKEN"}})
    )
    assert "SECRET" not in shown and "TOKEN" not in shown
    assert "api_key" in shown and "Authorization" in shown


def test_on_response_sees_every_attempts_head() -> None:
    seen: list[tuple[int, str | None]] = []

    def hook(response: httpx.Response) -> None:
        assert not response.is_closed and not response.is_stream_consumed
        seen.append((response.status_code, response.headers.get("content-type")))

    replies = [FakeError(503, "busy", headers={"retry-after": "0"}), FakeReply("ok")]
    with FakeProvider(replies) as fake:
        reply = llmkit.complete(
            fake.model(), CONTEXT, api_key=fake.api_key, on_response=hook, max_retries=1
        )
    assert reply.text == "ok"
    assert [status for status, _ in seen] == [503, 200]
    assert seen[1][1] is not None and seen[1][1].startswith("text/event-stream")


def test_on_response_may_be_async_with_acomplete() -> None:
    seen: list[int] = []

    async def hook(response: httpx.Response) -> None:
        await asyncio.sleep(0)
        seen.append(response.status_code)

    with FakeProvider([FakeReply("ok")]) as fake:
        reply = asyncio.run(
            llmkit.acomplete(fake.model(), CONTEXT, api_key=fake.api_key, on_response=hook)
        )
    assert reply.text == "ok" and seen == [200]


def test_an_async_on_response_is_refused_by_a_sync_call() -> None:
    async def hook(response: httpx.Response) -> None: ...

    with FakeProvider([FakeReply("ok")]) as fake:
        with pytest.raises(llmkit.InvalidRequestError, match="acomplete"):
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, on_response=hook)


def test_an_exception_in_on_response_is_the_callers_and_propagates() -> None:
    class Mine(Exception):
        pass

    def hook(response: httpx.Response) -> None:
        raise Mine("from the hook")

    with FakeProvider([FakeReply("ok")]) as fake:
        with pytest.raises(Mine):
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, on_response=hook)


def test_on_request_receives_the_body_dict_and_may_replace_it() -> None:
    bodies: list[dict[str, Any]] = []

    def hook(body: dict[str, Any]) -> dict[str, Any]:
        bodies.append(body)
        return {**body, "user": "tester"}

    with FakeProvider([FakeReply("ok")]) as fake:
        llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, on_request=hook)
        sent = fake.requests[0].body
    assert bodies and isinstance(bodies[0], dict) and "messages" in bodies[0]
    assert sent["user"] == "tester"
