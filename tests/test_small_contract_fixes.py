"""The smaller items of the caller's contract, each pinned by a test."""

from __future__ import annotations

import functools

import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


def test_an_empty_error_body_says_its_status_once() -> None:
    with FakeProvider([FakeError(404, body="")]) as fake:
        with pytest.raises(llmkit.NotFoundError) as info:
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key)
    assert str(info.value) == "HTTP 404" and info.value.message == "HTTP 404"


def test_reading_message_inside_the_block_after_break_says_how_to_end_the_stream() -> None:
    with FakeProvider([FakeReply("one two three four", delta_size=3)]) as fake:
        with llmkit.stream(fake.model(), CONTEXT, api_key=fake.api_key) as events:
            for event in events:
                if isinstance(event, llmkit.TextDelta):
                    break
            with pytest.raises(RuntimeError, match=r"leave the `with`.*close\(\)"):
                _ = events.message
        assert events.message.stop_reason == "aborted"  # left the block: now it has ended


def test_anthropic_max_tokens_not_given_is_reported_as_not_given() -> None:
    model = llmkit.Model(
        provider="anthropic", id="claude-unknown", api="anthropic-messages", max_output_tokens=None
    )
    request = llmkit.build_request(model, CONTEXT, api_key="k")
    [d] = [
        d
        for d in request.extensions["llmkit.diagnostics"]
        if d.details.get("option") == "max_tokens"
    ]
    assert "not given" in d.message and "not sent as given" not in d.message
    assert d.details["given"] is None and d.details["sent"] == 4096
    given = llmkit.build_request(model, CONTEXT, api_key="k", max_tokens=300)
    assert not [
        d for d in given.extensions["llmkit.diagnostics"] if d.details.get("option") == "max_tokens"
    ]


def test_a_partial_function_tool_reads_the_wrapped_functions_docstring() -> None:
    def forecast(city: str, units: str) -> str:
        """Get a weather forecast.

        Args:
            city: The city name.
            units: metric or imperial.
        """
        return city

    tool = llmkit.tool_from_function(functools.partial(forecast, units="metric"), name="g")
    assert tool.description == "Get a weather forecast."
    assert tool.parameters["properties"]["city"]["description"] == "The city name."
    assert tool.parameters["properties"]["units"]["default"] == "metric"
