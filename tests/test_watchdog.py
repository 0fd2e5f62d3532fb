"""Async streams enforce their idle and total timeouts with one watchdog timer per stream
(llmkit/_watchdog.py), not with httpcore's per-read timers: httpcore's body reads get no read
timeout at all, so each test here would hang (the fake stalls for 30 s) or fail if the
watchdog did not fire. All over real loopback HTTP (llmkit.testing.FakeProvider). A caller's
cancellation while the watchdog waits is tests/test_client.py's
``test_cancelling_astream_closes_the_socket_and_aborts[read-waiting-under-the-watchdog]``."""

from __future__ import annotations

import asyncio
import time

import llmkit
from llmkit._transport import Timeouts, TransportOptions, start_body
from llmkit._watchdog import Watchdog
from llmkit.testing import FakeProvider, FakeReply

CONTEXT = llmkit.Context(messages=[llmkit.user("Hi")])


async def _collect(fake: FakeProvider, timeout: Timeouts) -> tuple[list[llmkit.Event], float]:
    started = time.monotonic()
    async with llmkit.astream(
        fake.model(), CONTEXT, api_key=fake.api_key, max_retries=0, timeout=timeout
    ) as stream:
        events = [event async for event in stream]
    return events, time.monotonic() - started


def _timeout_phase(events: list[llmkit.Event]) -> str:
    last = events[-1]
    assert isinstance(last, llmkit.ErrorEvent), last
    assert isinstance(last.error, llmkit.APITimeoutError), last.error
    return last.error.phase


def test_body_reads_get_no_httpcore_timer() -> None:
    # What makes the watchdog the only thing that can end a stalled async stream.
    import httpx

    request = httpx.Request("POST", "http://127.0.0.1/")
    request.extensions["timeout"] = {"read": 5.0}
    opts = TransportOptions(timeouts=Timeouts(idle=1.0))
    start_body(request, opts, watched=True)
    assert request.extensions["timeout"]["read"] is None
    start_body(request, opts)  # the sync stream keeps httpx's read timeout
    assert request.extensions["timeout"]["read"] == 1.0


def test_idle_timeout_fires_on_a_stalled_async_stream() -> None:
    reply = FakeReply("slow text", delta_size=1, stall_after=2, stall_seconds=30)
    with FakeProvider([reply]) as fake:
        events, elapsed = asyncio.run(_collect(fake, Timeouts(first_byte=5, idle=0.4)))
        assert fake.wait_for_disconnects(1)  # the timed-out read closed the connection
    assert _timeout_phase(events) == "idle"
    assert 0.3 < elapsed < 5
    assert any(isinstance(e, llmkit.TextDelta) for e in events)  # it had started


def test_total_timeout_fires_during_a_stall_before_the_idle_one() -> None:
    reply = FakeReply("slow text", delta_size=1, stall_after=2, stall_seconds=30)
    with FakeProvider([reply]) as fake:
        events, elapsed = asyncio.run(_collect(fake, Timeouts(idle=20, total=0.8)))
        assert fake.wait_for_disconnects(1)
    assert _timeout_phase(events) == "total"
    assert 0.5 < elapsed < 5


def test_idle_timeout_is_rearmed_by_steady_reads() -> None:
    # Reads every 50 ms for ~1.5 s against a 0.4 s idle timeout: the timer fires early, is
    # moved to the latest read's deadline, and never ends a stream that keeps sending.
    reply = FakeReply("x" * 30, delta_size=1, delay=0.05)
    with FakeProvider([reply]) as fake:
        events, elapsed = asyncio.run(_collect(fake, Timeouts(idle=0.4)))
    assert isinstance(events[-1], llmkit.Done), events[-1]
    assert elapsed > 0.8


def test_time_spent_between_reads_is_not_idle() -> None:
    # The idle timeout bounds a read's wait, not the caller's own work between events.
    async def go(fake: FakeProvider) -> llmkit.AssistantMessage:
        async with llmkit.astream(
            fake.model(), CONTEXT, api_key=fake.api_key, timeout=Timeouts(idle=0.3)
        ) as stream:
            async for event in stream:
                if isinstance(event, llmkit.TextDelta):
                    await asyncio.sleep(0.5)
        return stream.message

    with FakeProvider([FakeReply("abc", delta_size=1)]) as fake:
        message = asyncio.run(go(fake))
    assert (message.stop_reason, message.text) == ("stop", "abc")


def test_the_watchdog_moves_no_timer_while_reads_keep_coming() -> None:
    async def go() -> tuple[int, bool]:
        loop = asyncio.get_running_loop()
        armed = 0
        call_at = loop.call_at

        def counting(when: float, callback: object, *args: object) -> asyncio.TimerHandle:
            nonlocal armed
            armed += 1
            return call_at(when, callback, *args)  # type: ignore[arg-type]

        loop.call_at = counting  # type: ignore[method-assign]
        dog = Watchdog(idle=60, total_deadline=None)
        for _ in range(1000):
            dog.reading()
            await asyncio.sleep(0)
            dog.rested()
        dog.close()
        return armed, dog.fired

    armed, fired = asyncio.run(go())
    assert (armed, fired) == (1, False)


def test_a_watchdog_without_deadlines_arms_nothing() -> None:
    async def go() -> bool:
        dog = Watchdog(idle=None, total_deadline=None)
        dog.reading()
        armed = dog._handle is not None
        dog.close()
        return armed

    assert asyncio.run(go()) is False
