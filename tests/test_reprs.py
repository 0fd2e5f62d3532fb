"""Informative reprs that never show a key: ``EventStream``/``AsyncEventStream`` (model, where
the request goes, how far the stream got), ``FakeProvider`` and ``Client``."""

from __future__ import annotations

import asyncio

import llmkit
from llmkit.testing import FakeProvider, FakeReply

KEY = "sk-live-0123456789abcdefghijKEY"


def test_event_stream_repr_follows_the_stream() -> None:
    with FakeProvider([FakeReply("Hello there")], api="gemini", api_key=KEY) as fake:
        model = fake.model()
        events = llmkit.stream(model, "Hi", api_key=KEY)
        assert "not started" in repr(events)
        with events:
            assert repr(events).startswith("<llmkit.EventStream fake/fake-model (gemini) POST ")
            assert "streaming" in repr(events)
            list(events)
        assert "ended, stop_reason='stop'" in repr(events)
        for shown in (repr(events), repr(fake)):
            assert KEY not in shown and "0123456789" not in shown
        assert repr(fake).startswith("<llmkit.testing.FakeProvider gemini at http://127.0.0.1:")
        assert "1 request received" in repr(fake)


def test_async_event_stream_repr() -> None:
    async def go() -> list[str]:
        with FakeProvider([FakeReply("Hello")], api="anthropic-messages") as fake:
            events = llmkit.astream(fake.model(), "Hi", api_key=fake.api_key)
            shown = [repr(events)]
            async with events:
                async for _ in events:
                    pass
            return [*shown, repr(events)]

    before, after = asyncio.run(go())
    assert before.startswith("<llmkit.AsyncEventStream fake/fake-model (anthropic-messages) POST")
    assert before.endswith("/messages: not started>") and "stop_reason='stop'" in after


def test_fake_provider_repr_before_it_starts() -> None:
    fake = FakeProvider(lambda request: FakeReply("x"), emulate="ollama")
    assert repr(fake) == (
        "<llmkit.testing.FakeProvider openai-chat emulating ollama not started, "
        "answering from a responder, 0 requests received>"
    )


def test_client_repr() -> None:
    client = llmkit.Client(api_key=KEY, temperature=0.5, headers={"X-Api-Key": KEY, "X-A": "b"})
    assert repr(client) == (
        "llmkit.Client(api_key='***', headers={'X-Api-Key': '***', 'X-A': 'b'}, temperature=0.5)"
    )
