"""llmkit against the official OpenAI SDK's Responses stream accumulator, on generated streams.

Each body from :mod:`tests.wire.openai_responses.streams` is cut at hypothesis-drawn byte offsets
(inside UTF-8 characters and CRLFs too) and decoded by ``llmkit.parse_stream`` (two chunkings,
plus one chunk per event). Independently, the openai SDK decodes the same bytes with its own SSE
decoder (``openai._streaming.SSEDecoder``), builds each event as ``openai.Stream`` does
(``construct_type`` into ``ResponseStreamEvent``) and accumulates them with
``ResponseStreamState`` (what ``client.responses.stream()`` runs). The properties:

1. **Oracle**: llmkit's message equals the SDK's final response: text (refusal included),
   reasoning summaries and their replay data (id, the *final* encrypted content), function
   calls (call_id, name, exact argument text, item id), stop reason, usage, response id, and
   the ``phase`` of gpt-5.x messages; and every text / argument snapshot the SDK reports while
   streaming is a state llmkit's deltas passed through, in the same order.
2. **Generator intent**: the SDK's response is what the generator meant, and llmkit reports
   only the diagnostics a clean stream needs (a cut-off call's recovery).
3. **Event contract** and **chunking does not matter** (as for openai-chat).

``LLMKIT_ORACLE_EXAMPLES`` sets the number of examples (default sized for < 30 s).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from openai._models import construct_type
from openai._streaming import SSEDecoder  # private, but it is exactly what openai.Stream runs
from openai._types import omit
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

import llmkit
from tests.support.chunking import cut_points, split
from tests.support.helpers import prefix_consistent, same_json
from tests.support.oracle import (
    Run,
    event_cuts,
    event_key,
    oracle_examples,
    oracle_settings,
    read_with_llmkit,
)
from tests.wire.openai_responses.streams import ResponsesStream, responses_streams

MODEL = llmkit.Model(
    provider="openai", id="gpt-5", api="openai-responses", reasoning=True, strict_tools=True
)
EXAMPLES = oracle_examples(150)
SETTINGS = oracle_settings(EXAMPLES)


@dataclass(frozen=True)
class Case:
    stream: ResponsesStream
    cuts_a: tuple[int, ...]
    cuts_b: tuple[int, ...]

    def __repr__(self) -> str:
        return f"Case(body={self.stream.body!r},\n  cuts_a={self.cuts_a!r}, cuts_b={self.cuts_b!r})"


@st.composite
def cases(draw: st.DrawFn) -> Case:
    stream = draw(responses_streams())
    return Case(stream, draw(cut_points(stream.body)), draw(cut_points(stream.body)))


# --------------------------------------------------------------------------- the two readers


@dataclass
class Sdk:
    response: Any  # the final Response (ParsedResponse for completed)
    text_snapshots: dict[int, list[str]]  # per output index, ResponseTextDeltaEvent.snapshot
    args_snapshots: dict[int, list[str]]


def sdk_read(chunks: list[bytes]) -> Sdk:
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    final = None
    texts: dict[int, list[str]] = defaultdict(list)
    args: dict[int, list[str]] = defaultdict(list)
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        raw = construct_type(type_=ResponseStreamEvent, value=json.loads(sse.data))
        for ev in state.handle_event(raw):  # type: ignore[arg-type]
            if ev.type == "response.output_text.delta":
                texts[ev.output_index].append(ev.snapshot)
            elif ev.type == "response.function_call_arguments.delta":
                args[ev.output_index].append(ev.snapshot)
            elif ev.type in ("response.completed", "response.incomplete"):
                final = ev.response
    assert final is not None
    return Sdk(final, dict(texts), dict(args))


# --------------------------------------------------------------------------- the checks


def check_against_sdk(run: Run, sdk: Sdk) -> None:
    msg, response = run.message, sdk.response
    items = list(response.output)
    messages = [i for i in items if i.type == "message"]
    text = "".join(c.text for m in messages for c in m.content if c.type == "output_text")
    refusal = "".join(c.refusal for m in messages for c in m.content if c.type == "refusal")
    assert msg.text == text + refusal

    reasoning = [i for i in items if i.type == "reasoning"]
    parts = [p for p in msg.content if isinstance(p, llmkit.ThinkingPart)]
    assert len(parts) == len(reasoning)
    for part, item in zip(parts, reasoning, strict=True):
        assert part.thinking == "\n\n".join(s.text for s in item.summary if s.text)
        assert part.replay is not None
        assert part.replay["id"] == item.id
        assert part.replay.get("encrypted_content") == item.encrypted_content  # from .done (F4)
        assert part.replay["summary"] == [s.to_dict() for s in item.summary]

    calls = [i for i in items if i.type == "function_call"]
    assert [(c.id, c.name, c.raw_arguments) for c in msg.tool_calls] == [
        (c.call_id, c.name, c.arguments) for c in calls
    ]
    for call, item in zip(msg.tool_calls, calls, strict=True):
        assert call.replay == {"item_id": item.id, "status": item.status}
        assert call.provider_id is None
        if item.status == "incomplete":
            assert call.status == "recovered"
        else:
            assert call.status == "complete"
            assert same_json(call.arguments, json.loads(item.arguments))

    # content order is output order (a reasoning item stays before its call, F4)
    kinds = {"reasoning": "thinking", "function_call": "tool_call", "message": "text"}
    want = [kinds[i.type] for i in items if not (i.type == "message" and not _text_of(i))]
    assert [p.type for p in msg.content] == want

    phases = [i.phase for i in messages if _text_of(i)]
    if any(phases):
        assert (msg.provider_data or {}).get("message_phases") == phases
    else:
        assert not (msg.provider_data or {}).get("message_phases")

    if response.status == "incomplete":
        reason = response.incomplete_details.reason
        assert msg.raw_stop_reason == reason
        assert msg.stop_reason == {"max_output_tokens": "length"}.get(reason, reason)
    else:
        assert msg.raw_stop_reason == "completed"
        assert msg.stop_reason == ("tool_use" if calls else "refusal" if refusal else "stop")

    u = response.usage
    assert (msg.usage.input, msg.usage.output) == (u.input_tokens, u.output_tokens)
    assert msg.usage.cache_read == u.input_tokens_details.cached_tokens
    assert msg.usage.cache_write == getattr(u.input_tokens_details, "cache_write_tokens", None)
    assert msg.usage.reasoning == u.output_tokens_details.reasoning_tokens
    assert msg.response_id == response.id

    # Streaming: every snapshot the SDK showed is a state llmkit's deltas went through.
    index_of = _part_index_by_output(items, msg)
    for output_index, snapshots in sdk.text_snapshots.items():
        states = _cumulative(run.events, llmkit.TextDelta, index_of[output_index])
        assert _subsequence(snapshots, states), (snapshots, states)
    for output_index, snapshots in sdk.args_snapshots.items():
        states = _cumulative(run.events, llmkit.ToolCallDelta, index_of[output_index])
        assert _subsequence(snapshots, states), (snapshots, states)


def _text_of(item: Any) -> str:
    return "".join(
        getattr(c, "text", None) or getattr(c, "refusal", None) or "" for c in item.content
    )


def _part_index_by_output(items: list[Any], msg: llmkit.AssistantMessage) -> dict[int, int]:
    out: dict[int, int] = {}
    position = 0
    for n, item in enumerate(items):
        if item.type == "message" and not _text_of(item):
            continue
        out[n] = position
        position += 1
    assert position == len(msg.content)
    return out


def _cumulative(events: list[llmkit.Event], kind: type, index: int) -> list[str]:
    states, acc = [], ""
    for e in events:
        if isinstance(e, kind) and e.index == index:  # type: ignore[attr-defined]
            acc += e.delta if isinstance(e, llmkit.TextDelta) else e.arguments_delta  # type: ignore[attr-defined]
            states.append(acc)
    return states


def _subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


def check_generator_intent(run: Run, sdk: Sdk, stream: ResponsesStream) -> None:
    response = sdk.response
    assert response.id == stream.response_id and response.status == stream.status
    got = []
    for item in response.output:
        if item.type == "function_call":
            got.append((item.type, item.call_id, item.name, item.arguments))
        elif item.type == "message":
            got.append((item.type, item.id, item.phase, _text_of(item)))
        else:
            got.append((item.type, item.id, tuple(s.text for s in item.summary)))
    want = []
    for spec in stream.items:
        if spec.kind == "function_call":
            want.append((spec.kind, spec.call_id, spec.name, spec.arguments_text))
        elif spec.kind == "message":
            want.append((spec.kind, spec.id, spec.phase, spec.text))
        else:
            want.append((spec.kind, spec.id, spec.summaries))
    assert got == want
    expected = Counter("tool_arguments_recovered" for s in stream.calls if s.truncated)
    assert Counter(d.kind for d in run.message.diagnostics) == expected


def check_event_contract(run: Run) -> None:
    events, msg = run.events, run.message
    assert isinstance(events[0], llmkit.Start)
    assert [type(e) for e in events].count(llmkit.Done) == 1 and events[-1].type == "done"
    state: dict[int, str] = {}
    for e in events:
        name = type(e).__name__
        index = getattr(e, "index", None)
        if name in ("TextStart", "ThinkingStart", "ToolCallStart"):
            assert index not in state
            state[index] = "open"
        elif name in ("TextDelta", "ThinkingDelta", "ToolCallDelta"):
            assert state.get(index) == "open", e
        elif name in ("TextEnd", "ThinkingEnd", "ToolCallEnd"):
            assert state.get(index) == "open", e
            state[index] = "closed"
    assert set(state.values()) <= {"closed"} and len(state) == len(msg.content)
    assert "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta)) == msg.text
    assert "".join(e.delta for e in events if isinstance(e, llmkit.ThinkingDelta)) == msg.thinking
    deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta)]
    for index, part in enumerate(msg.content):
        if isinstance(part, llmkit.ToolCall):
            mine = [d for d in deltas if d.index == index]
            assert "".join(d.arguments_delta for d in mine) == part.raw_arguments
    assert len(run.partials) == len(deltas)
    for ev, partial in zip(deltas, run.partials, strict=True):
        final = msg.content[ev.index]
        assert isinstance(final, llmkit.ToolCall)
        assert prefix_consistent(partial, final.arguments), (partial, final.arguments)


def check_stream(stream: ResponsesStream, cuts_a: tuple[int, ...], cuts_b: tuple[int, ...]) -> None:
    chunks_a = split(stream.body, cuts_a)
    run_a = read_with_llmkit(MODEL, chunks_a, read_on_time=True)
    run_b = read_with_llmkit(MODEL, split(stream.body, cuts_b), read_on_time=False)
    run_c = read_with_llmkit(MODEL, split(stream.body, event_cuts(stream.body)), read_on_time=True)
    sdk = sdk_read(chunks_a)
    for run in (run_a, run_b, run_c):
        check_event_contract(run)
    check_against_sdk(run_a, sdk)
    check_generator_intent(run_a, sdk, stream)
    keys = [event_key(e) for e in run_a.events]
    for other in (run_b, run_c):
        assert [event_key(e) for e in other.events] == keys
        for mine, theirs in zip(run_a.partials, other.partials, strict=True):
            assert same_json(mine, theirs) or (mine is None and theirs is None)


# --------------------------------------------------------------------------- the properties


@SETTINGS
@given(case=cases())
def test_llmkit_matches_openai_sdk_on_generated_responses_streams(case: Case) -> None:
    s = case.stream
    event(f"status={s.status}:{s.incomplete_reason}")
    event(f"items={'+'.join(i.kind[0] for i in s.items)}")
    if any(i.refusal for i in s.items):
        event("refusal")
    if any(not i.deltas for i in s.items):
        event("a .done without deltas (back-filled)")
    if any(i.encrypted for i in s.items):
        event("encrypted reasoning")
    if s.newline == "\r\n":
        event("CRLF")
    check_stream(s, case.cuts_a, case.cuts_b)


async def _achunks(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for c in chunks:
        yield c


async def _acollect(chunks: list[bytes]) -> list[llmkit.Event]:
    return [ev async for ev in llmkit.aparse_stream(MODEL, _achunks(chunks))]


@settings(SETTINGS, max_examples=max(1, EXAMPLES // 10))
@given(case=cases())
def test_aparse_stream_matches_parse_stream(case: Case) -> None:
    chunks = split(case.stream.body, case.cuts_a)
    sync_events = list(llmkit.parse_stream(MODEL, chunks))
    async_events = asyncio.run(_acollect(chunks))
    assert [event_key(e) for e in async_events] == [event_key(e) for e in sync_events]
