"""One timer per async stream for its idle and total timeouts, instead of httpx's per-read ones.

With a read timeout, httpcore wraps every socket read in ``anyio.fail_after``: one new timer
handle per read, cancelled when the read returns and left in the event loop's heap until the
loop sweeps it. With a thousand open streams that is a heap full of dead timers and a steady
flow of garbage-collected objects (each one a collection's worth of allocations sooner), which
the event loop pays for as lag. Here each stream keeps one ``loop.call_at`` handle, re-armed
lazily: a read only records its deadline; the handle is rescheduled when it fires early, so a
stream that keeps receiving moves no timer at all.

When the deadline passes during a read, the reading task is cancelled (as ``asyncio.timeout``
does) and the stream turns the cancellation into httpx's ``ReadTimeout``, which the transport
maps as before (``idle``, or ``total`` once the total deadline has run out). Cancelling the read
makes httpcore close the connection, as its own timeout did.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator

__all__ = ["Watchdog"]


class Watchdog:
    """The idle/total deadline of one stream's body reads."""

    __slots__ = ("_deadline", "_handle", "_idle", "_loop", "_task", "_total_at", "fired")

    def __init__(self, idle: float | None, total_deadline: float | None) -> None:
        """``idle``: seconds a read may wait; ``total_deadline``: ``time.monotonic()`` when the
        whole call must end (the transport's clock), or None."""
        self._loop = asyncio.get_running_loop()
        self._idle = math.inf if idle is None else idle
        # The loop has a clock of its own (uvloop's is not time.monotonic()): convert once.
        self._total_at = (
            math.inf
            if total_deadline is None
            else self._loop.time() + (total_deadline - time.monotonic())
        )
        self._deadline: float | None = None  # None: no read is waiting
        self._handle: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[object] | None = None
        self.fired = False

    def reading(self) -> None:
        """A read is about to wait: it must end by now + idle (and by the total deadline)."""
        deadline = min(self._loop.time() + self._idle, self._total_at)
        if deadline == math.inf:
            return
        self._deadline = deadline
        self._task = asyncio.current_task()
        if self._handle is None:
            self._handle = self._loop.call_at(deadline, self._fire)

    def rested(self) -> None:
        """The read returned: no deadline until the next one (the handle stays armed)."""
        self._deadline = None

    async def next_chunk(self, chunks: AsyncIterator[bytes]) -> bytes | None:
        """The next chunk of the body (None at its end), read under the deadline."""
        self.reading()
        try:
            return await chunks.__anext__()
        except StopAsyncIteration:
            return None
        finally:
            self.rested()

    def _fire(self) -> None:
        self._handle = None
        deadline = self._deadline
        if deadline is None:
            return  # between reads: the next read arms the timer again
        if self._loop.time() < deadline:  # reads happened since it was armed: not yet
            self._handle = self._loop.call_at(deadline, self._fire)
            return
        if self._task is not None and not self._task.done():
            self.fired = True
            self._task.cancel()

    def expired(self) -> bool:
        """Whether a ``CancelledError`` the read raised is this watchdog's doing (and only
        its: a cancellation of the task by someone else as well is left to propagate)."""
        if not self.fired:
            return False
        self.fired = False
        # Task.uncancel is Python >= 3.11's (looked up, not hasattr-narrowed: pyright checking
        # for 3.10 does not narrow a Task by hasattr).
        uncancel = getattr(self._task, "uncancel", None)  # None too while there is no task
        if uncancel is not None:
            return bool(uncancel() == 0)
        return True

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._task = None
