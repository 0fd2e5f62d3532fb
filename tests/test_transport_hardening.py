"""Transport hardening over real loopback sockets: retry hints that are not numbers, bounded
bodies, streams dropped unread. Each runs through the sync and the async pump."""

from __future__ import annotations

import asyncio

import pytest

import llmkit
from tests.loopback import Canned, Loopback, Seen

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])
CHAT_SSE = (
    b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def chat(url: str) -> llmkit.Model:
    return llmkit.Model(provider="vllm", id="m", api="openai-chat", base_url=url)


def _complete(mode: str, model: llmkit.Model, **options: object) -> llmkit.AssistantMessage:
    if mode == "sync":
        return llmkit.complete(model, CONTEXT, **options)  # type: ignore[arg-type]

    async def go() -> llmkit.AssistantMessage:  # a NaN timer never ends: bounded here
        return await asyncio.wait_for(llmkit.acomplete(model, CONTEXT, **options), 20)  # type: ignore[arg-type]

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "hint",
    [
        {"retry-after": "nan"},
        {"retry-after-ms": "NaN"},
        {"retry-after": "inf"},
        {"retry-after-ms": "-inf"},
        {"retry-after": "1e400"},
    ],
)
def test_a_retry_hint_that_is_not_a_finite_number_is_ignored(
    mode: str, hint: dict[str, str]
) -> None:
    answers = iter(
        [Canned(429, hint, b"{}"), Canned(200, {"content-type": "text/event-stream"}, CHAT_SSE)]
    )

    def answer(_: Seen) -> Canned:
        return next(answers)

    with Loopback(answer) as server:
        message = _complete(mode, chat(server.url), api_key="k", max_retries=1)
    assert message.text == "ok" and len(server.requests) == 2


@pytest.mark.parametrize("hint", [{"retry-after": "nan"}, {"retry-after-ms": "inf"}])
def test_a_non_finite_retry_hint_leaves_retry_after_unset(hint: dict[str, str]) -> None:
    with Loopback(lambda _: Canned(429, hint, b"{}")) as server:
        with pytest.raises(llmkit.RateLimitError) as info:
            llmkit.complete(chat(server.url), CONTEXT, api_key="k", max_retries=0)
    assert info.value.retry_after is None
