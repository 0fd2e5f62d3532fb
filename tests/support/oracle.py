"""What the SDK-oracle suites (``tests/wire/*/test_oracle.py``) share: their Hypothesis
settings, llmkit's reading of a body (with ``partial_arguments`` read as each delta is yielded,
or only after the end), and the cut points of one network chunk per SSE event."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings

import llmkit


def oracle_examples(default: int) -> int:
    """Examples for one oracle suite: ``LLMKIT_ORACLE_EXAMPLES`` if set, else ``default``
    (each suite's is sized for < 30 s in CI)."""
    return int(os.environ.get("LLMKIT_ORACLE_EXAMPLES", str(default)))


def oracle_settings(examples: int) -> settings:
    """Settings for an oracle suite: ``examples`` examples, the same on every run and machine
    (derandomized, no example database), no deadline."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@dataclass
class Run:
    """llmkit's reading of one body."""

    events: list[llmkit.Event]
    message: llmkit.AssistantMessage
    partials: list[Any]  # partial_arguments per ToolCallDelta, in event order


def read_with_llmkit(model: llmkit.Model, chunks: Iterable[bytes], *, read_on_time: bool) -> Run:
    """``parse_stream``; with ``read_on_time`` every ``partial_arguments`` is read as soon as
    its event is yielded, else only after the stream ended (the "read late" path). The stream
    must end with ``Done``."""
    events: list[llmkit.Event] = []
    partials: list[Any] = []
    for ev in llmkit.parse_stream(model, chunks):
        events.append(ev)
        if read_on_time and isinstance(ev, llmkit.ToolCallDelta):
            partials.append(ev.partial_arguments)
    if not read_on_time:
        partials = [e.partial_arguments for e in events if isinstance(e, llmkit.ToolCallDelta)]
    last = events[-1]
    assert isinstance(last, llmkit.Done), f"stream ended with {last!r}"
    return Run(events, last.message, partials)


def event_key(ev: llmkit.Event) -> Any:
    """An event, comparable across runs (a terminal event by its message's data)."""
    if isinstance(ev, (llmkit.Done, llmkit.ErrorEvent)):
        return (ev.type, ev.message.model_dump())
    return ev


def event_cuts(body: bytes) -> tuple[int, ...]:
    """One network chunk per SSE event: every ``partial_arguments`` read as its event is
    yielded then takes the incremental path (nothing fed after it yet)."""
    return tuple(m.end() for m in re.finditer(rb"\r?\n\r?\n", body) if m.end() < len(body))
