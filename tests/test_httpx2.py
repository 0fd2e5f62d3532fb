"""llmkit and httpx2 (docs/httpx2.md).

CI runs the client, chaos and conformance suites twice: as usual, and with ``LLMKIT_HTTPX2=1``,
where ``tests/conftest.py`` calls ``httpx2.alias_httpx()`` before anything imports httpx. The
tests here check that each run is what it claims to be, and what ``client=`` does with an httpx2
client in both.
"""

from __future__ import annotations

import asyncio
import os

import httpx
import pytest

import llmkit
from llmkit.testing import FakeProvider, FakeReply

httpx2 = pytest.importorskip("httpx2")  # Python >= 3.11

ALIASED = os.environ.get("LLMKIT_HTTPX2") == "1"
CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


def test_the_run_uses_the_http_library_it_claims() -> None:
    assert (httpx is httpx2) is ALIASED
    request = llmkit.build_request(llmkit.get_model("openai", "gpt-4.1-mini"), CONTEXT, api_key="k")
    assert isinstance(request, httpx2.Request) is ALIASED  # what llmkit itself imported


@pytest.mark.skipif(not ALIASED, reason="httpx2 is aliased only in the LLMKIT_HTTPX2=1 run")
def test_aliased_httpx2_clients_are_accepted_sync_and_async() -> None:
    async def go(fake: FakeProvider) -> str:
        async with httpx2.AsyncClient() as client:
            reply = await llmkit.acomplete(
                fake.model(), CONTEXT, api_key=fake.api_key, client=client
            )
            assert not client.is_closed
        return reply.text

    with FakeProvider([FakeReply("sync"), FakeReply("async")]) as fake:
        with httpx2.Client() as client:
            reply = llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, client=client)
            assert reply.text == "sync" and not client.is_closed
        assert asyncio.run(go(fake)) == "async"


@pytest.mark.skipif(ALIASED, reason="without alias_httpx() only")
def test_an_unaliased_httpx2_client_is_refused_before_sending() -> None:
    # httpx2's own classes would fail deep inside (an httpx request stream is not an httpx2
    # one; httpx2's exceptions escape llmkit's mapping): refuse them up front, saying why.
    with FakeProvider([FakeReply("never")]) as fake:
        with httpx2.Client() as client, pytest.raises(llmkit.InvalidRequestError) as sync:
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, client=client)

        async def go() -> None:
            async with httpx2.AsyncClient() as client:
                await llmkit.acomplete(fake.model(), CONTEXT, api_key=fake.api_key, client=client)

        with pytest.raises(llmkit.InvalidRequestError) as aio:
            asyncio.run(go())
        assert fake.requests == []
    assert str(sync.value) == (
        "stream()/complete() need an httpx.Client as client=; this is httpx2's Client, which "
        "llmkit accepts once httpx2.alias_httpx() has run before anything imported httpx"
    )
    assert "need an httpx.AsyncClient as client=; this is httpx2's AsyncClient" in str(aio.value)
