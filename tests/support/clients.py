"""Running llmkit's client against the fake provider, sync and async alike.

``run_sync``/``run_async`` stream a request and return its events and final message; the
``run`` and ``complete`` fixtures (registered in ``conftest.py``) parametrize a test over both
pumps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import llmkit

Run = Callable[..., tuple[list[llmkit.Event], llmkit.AssistantMessage]]
Complete = Callable[..., llmkit.AssistantMessage]


def run_sync(
    model: llmkit.Model, context: llmkit.Context, **options: Any
) -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
    with llmkit.stream(model, context, **options) as events:
        collected = list(events)
    return collected, events.message


def run_async(
    model: llmkit.Model, context: llmkit.Context, **options: Any
) -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
    async def go() -> tuple[list[llmkit.Event], llmkit.AssistantMessage]:
        async with llmkit.astream(model, context, **options) as events:
            collected = [e async for e in events]
        return collected, events.message

    return asyncio.run(go())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Run:
    return run_sync if request.param == "sync" else run_async


@pytest.fixture(params=["sync", "async"])
def complete(request: pytest.FixtureRequest) -> Complete:
    if request.param == "sync":
        return llmkit.complete
    return lambda *a, **k: asyncio.run(llmkit.acomplete(*a, **k))
