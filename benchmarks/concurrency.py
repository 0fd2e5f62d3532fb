"""Scenario 2: many concurrent slow streams in one process.

``python -m benchmarks.concurrency <mode> <slow url> --streams 1000`` starts ``--streams``
streams at once (one task each, created in one go) against the loopback server's slow route
(one small text event every 50-100 ms per stream, until released), and measures, in this
process:

- resident memory per open stream: (RSS while every stream is open - RSS before) / streams,
  the median of 8 samples taken 0.25 s apart once every stream has received text;
- event-loop stalls: a ticker task sleeps 5 ms at a time and records how late it wakes up,
  per phase: ``launch`` (from creating the tasks until every stream has received text: every
  call's synchronous setup and connection happen here), ``steady`` (all streams open, events
  flowing) and ``drain`` (the server was told to finish; the streams end).

Then it tells the server to end the streams (``POST /release/<token>``) and checks every
stream's text.

Modes: ``llmkit-default`` (``llmkit.astream`` without ``client=``: llmkit's default, the event
loop's shared client, which keeps no connection past a call), ``llmkit-shared`` (one
``httpx.AsyncClient(limits=httpx.Limits(max_connections=2000))`` passed as ``client=``), and
``floor-shared`` (httpx + httpx-sse with the same shared client: the reference).
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

from .measure import rss_bytes
from .server import raise_fd_limit
from .streams import slow_text

MODES = ("llmkit-default", "llmkit-shared", "floor-shared")
TICK = 0.005  # the ticker's sleep (s)


class Ticker:
    """Measures event-loop lag: how late each 5 ms sleep wakes up, per phase."""

    def __init__(self) -> None:
        self.phase = "launch"
        self.lags: dict[str, list[float]] = {"launch": [], "steady": [], "drain": []}
        self.running = True

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running:
            phase = self.phase  # a tick belongs to the phase it started in
            before = loop.time()
            await asyncio.sleep(TICK)
            self.lags[phase].append(loop.time() - before - TICK)

    def summary(self, phase: str) -> dict[str, float]:
        lags = sorted(self.lags[phase]) or [0.0]
        return {"max": lags[-1], "p99": lags[int(0.99 * (len(lags) - 1))], "ticks": len(lags)}


class GCPauses:
    """Records how long each garbage collection takes, per phase of the ticker: a stall of
    the event loop is often a full (generation 2) collection of everything the streams hold."""

    def __init__(self, ticker: Ticker) -> None:
        self.ticker = ticker
        self.pauses: dict[str, list[tuple[int, float]]] = {}
        self._start = 0.0

    def start(self) -> GCPauses:
        gc.callbacks.append(self._callback)
        return self

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            pause = time.perf_counter() - self._start
            self.pauses.setdefault(self.ticker.phase, []).append((info["generation"], pause))

    def summary(self, phase: str) -> dict[str, float]:
        pauses = self.pauses.get(phase, [])
        return {
            "max": max((p for _g, p in pauses), default=0.0),
            "collections": len(pauses),
            "full": sum(1 for g, _p in pauses if g == 2),
        }


class Progress:
    """Counts text events across all streams, and how many streams have received text."""

    def __init__(self, streams: int) -> None:
        self.streams = streams
        self.opened = 0
        self.events = 0
        self.all_open = asyncio.Event()

    def text(self, first: bool) -> None:
        self.events += 1
        if first:
            self.opened += 1
            if self.opened == self.streams:
                self.all_open.set()


OneStream = Callable[[str, Progress], Coroutine[Any, Any, str]]


def _contestant(mode: str) -> tuple[OneStream, Any]:
    """The coroutine that runs one stream and returns its text, and the shared client to close
    at the end (or None)."""
    import httpx

    shared = None
    if mode != "llmkit-default":
        shared = httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=2000))
    if mode == "floor-shared":
        assert shared is not None
        from httpx_sse import aconnect_sse

        body = {
            "model": "gpt-4.1-mini",
            "stream": True,
            "messages": [{"role": "user", "content": "Say something slowly."}],
        }
        headers = {"authorization": "Bearer sk-bench"}

        async def floor(url: str, progress: Progress) -> str:
            parts: list[str] = []
            async with aconnect_sse(
                shared, "POST", url + "/v1/chat/completions", json=body, headers=headers
            ) as source:
                async for sse in source.aiter_sse():
                    if sse.data == "[DONE]":
                        break
                    delta = json.loads(sse.data)["choices"][0]["delta"].get("content")
                    if delta:
                        progress.text(not parts)
                        parts.append(delta)
            return "".join(parts)

        return floor, shared

    import llmkit

    context = llmkit.Context(messages=[llmkit.user("Say something slowly.")])
    options: dict[str, Any] = {"api_key": "sk-bench", "max_retries": 0}
    if shared is not None:
        options["client"] = shared
    TextDelta = llmkit.TextDelta

    async def one(url: str, progress: Progress) -> str:
        model = llmkit.Model(
            provider="openai", id="gpt-4.1-mini", api="openai-chat", base_url=url + "/v1"
        )
        first = True
        async with llmkit.astream(model, context, **options) as events:
            async for event in events:
                if type(event) is TextDelta:
                    progress.text(first)
                    first = False
        message = events.message
        if message.stop_reason != "stop":
            raise RuntimeError(f"stop_reason {message.stop_reason}: {message.error!r}")
        return message.text

    return one, shared


async def _release(root: str, token: str) -> None:
    """Tell the server to end the slow streams of ``token``."""
    import httpx

    async with httpx.AsyncClient(timeout=60) as client:  # the server may be busy
        await client.post(f"{root}/release/{token}")


async def scenario(mode: str, url: str, streams: int) -> dict[str, Any]:
    """Run the scenario against ``url`` (``<server>/slow/<token>/<min>/<max>``)."""
    one, shared = _contestant(mode)
    root, rest = url.split("/slow/")
    token = rest.split("/")[0]
    # Warm up (lazy imports, the SSL context, the adapter) on a stream released in advance.
    await _release(root, "warm-up")
    await one(f"{root}/slow/warm-up/1/2", Progress(1))
    gc.collect()
    before = rss_bytes()

    ticker = Ticker()
    gc_pauses = GCPauses(ticker).start()
    tick_task = asyncio.create_task(ticker.run())
    await asyncio.sleep(0.1)  # a few quiet ticks first
    progress = Progress(streams)
    start = time.perf_counter()
    tasks = [asyncio.create_task(one(url, progress)) for _ in range(streams)]
    with contextlib.suppress(asyncio.TimeoutError):  # reported: opened < streams
        await asyncio.wait_for(progress.all_open.wait(), timeout=120)
    open_seconds = time.perf_counter() - start

    ticker.phase = "steady"
    samples = []
    steady_start, events_start = time.perf_counter(), progress.events
    for _ in range(8):  # every stream stays open until released below
        samples.append(rss_bytes())
        await asyncio.sleep(0.25)
    steady_seconds = time.perf_counter() - steady_start
    steady_events = progress.events - events_start

    ticker.phase = "drain"
    await _release(root, token)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    ticker.running = False
    await tick_task
    gc_pauses.stop()
    if shared is not None:
        await shared.aclose()

    errors = [r for r in results if isinstance(r, BaseException)]
    texts = [r for r in results if isinstance(r, str)]
    right = sum(1 for text in texts if text == slow_text(len(text.split())))
    during = statistics.median(samples)
    return {
        "mode": mode,
        "streams": streams,
        "opened": progress.opened,
        "open_seconds": open_seconds,
        "rss_before": before,
        "rss_open": during,
        "per_stream": (during - before) / streams,
        "steady_seconds": steady_seconds,
        "events_per_second": steady_events / steady_seconds,
        "stalls": {phase: ticker.summary(phase) for phase in ticker.lags},
        "gc": {phase: gc_pauses.summary(phase) for phase in ticker.lags},
        "completed": right,
        "errors": sorted({f"{type(e).__name__}: {e}"[:200] for e in errors}),
        "wrong": len(texts) - right,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Concurrent slow streams (see module doc).")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("url", help="the server's slow route: .../slow/<token>/<min>/<max>")
    parser.add_argument("--streams", type=int, default=1000)
    args = parser.parse_args(argv)
    raise_fd_limit()
    result = asyncio.run(scenario(args.mode, args.url, args.streams))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
