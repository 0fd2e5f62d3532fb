"""Replay every recorded OpenAI Responses exchange through llmkit (``api="openai-responses"``).

Each 200 ``text/event-stream`` exchange under ``tests/fixtures/openai-responses/`` is decoded by
``llmkit.parse_stream`` after being cut several ways (random offsets with 5 seeds, 1-byte
pieces, one piece) and compared with what :func:`expected_responses` reads from the same bytes
without llmkit: the *final* items of ``response.output_item.done`` (falling back to the terminal
event's ``output``), not the deltas llmkit assembles. Non-streamed bodies go through
``llmkit.parse_response``; HTTP error bodies and in-stream errors must become typed errors.

The recordings cover: reasoning summaries and encrypted reasoning (QUIRKS F4), argument deltas
without ``call_id`` (F5), argument text only in ``.done`` (LM Studio, DeepSeek), item ids that
rotate between events (GitHub Copilot), ``data:`` before ``event:`` (Bedrock), a custom tool,
image generation (a hosted-tool item, kept whole in place for replay, docs/design.md §5), and
``error`` + ``response.failed``.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

import llmkit
from llmkit._wire.openai_responses.decode import KNOWN_HOSTED
from llmkit.testing import FakeError, FakeProvider
from tests.support.corpus import (
    CorpusSkip,
    Exchange,
    corpus_files,
    fixture_id,
    load_exchanges,
    rechunk,
    sse_events,
)

WIRE = "openai-responses"
SEEDS = (0, 1, 2, 3, 4)
CHUNKINGS = (*(f"seed{s}" for s in SEEDS), "bytes1", "whole")
PRIMARY = "seed0"
TERMINAL = ("response.completed", "response.incomplete", "response.failed", "error")
MULTI = "vercel-ai__openai-reasoning-encrypted-content"  # four responses in one file


def model_for(exchange: Exchange) -> llmkit.Model:
    """What a caller would configure: the recorded model id, OpenAI's Responses endpoint."""
    body = (exchange.request or {}).get("body")
    model_id = body.get("model") if isinstance(body, dict) else None
    return llmkit.Model(
        provider="openai",
        id=model_id if isinstance(model_id, str) else "gpt-5",
        api=WIRE,
        reasoning=True,
        strict_tools=True,
        input=["text", "image"],
    )


# --------------------------------------------------------------------------- collection


def split_responses(exchange: Exchange) -> list[Exchange]:
    """vercel/ai's recorder wrote all four responses of a multi-step run into one file: cut it
    at each ``response.created`` so that each response is replayed as the body it was."""
    marker = b"event: response.created\n"
    body = exchange.body
    starts = [i for i in range(len(body)) if body.startswith(marker, i)]
    bounds = [*starts, len(body)]
    return [
        replace(exchange, body=body[a:b], source=f"{exchange.source}.{k}")
        for k, (a, b) in enumerate(itertools.pairwise(bounds))
    ]


def exchanges(want: Callable[[Exchange], bool]) -> list[Any]:
    params = []
    for path in corpus_files(WIRE):
        try:
            loaded = load_exchanges(path)
        except CorpusSkip as skip:  # pragma: no cover - no compressed bodies here today
            params.append(pytest.param(None, marks=pytest.mark.skip(reason=str(skip))))
            continue
        for ex in loaded:
            if not want(ex):
                continue
            parts = split_responses(ex) if MULTI in ex.source else [ex]
            params.extend(pytest.param(p, id=p.source) for p in parts)
    return params


def is_stream(ex: Exchange) -> bool:
    return ex.status == 200 and ex.is_sse


def is_json(ex: Exchange) -> bool:
    return ex.status == 200 and ex.is_json


def is_http_error(ex: Exchange) -> bool:
    return ex.status >= 400


STREAMS = exchanges(is_stream)
JSON_BODIES = exchanges(is_json)
HTTP_ERRORS = exchanges(is_http_error)


# --------------------------------------------------------------------------- independent reading


@dataclass
class Call:
    id: str
    name: str
    arguments: str
    custom: bool = False


@dataclass
class Expected:
    """What one Responses body holds, read from the final items (no llmkit)."""

    text: str = ""
    refusal: str = ""
    thinking: list[str] = field(default_factory=list)  # per reasoning item
    encrypted: list[str | None] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    hosted: list[dict[str, Any]] = field(default_factory=list)  # hosted-tool items, in order
    terminal: str | None = None
    status: str | None = None
    incomplete_reason: str | None = None
    usage: dict[str, Any] | None = None
    response_id: str | None = None
    response_ids: set[str] = field(default_factory=set)  # of every lifecycle event
    error: dict[str, Any] | None = None
    delta_text: str = ""  # the output_text deltas joined (a property of the recording)


def read_items(items: list[dict[str, Any]], exp: Expected) -> None:
    for item in items:
        kind = item.get("type")
        if kind == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    exp.text += part.get("text") or ""
                elif part.get("type") == "refusal":
                    exp.refusal += part.get("refusal") or ""
        elif kind == "reasoning":
            texts = [s.get("text") or "" for s in item.get("summary") or []]
            texts += [c.get("text") or "" for c in item.get("content") or []]
            exp.thinking.append("\n\n".join(t for t in texts if t))
            exp.encrypted.append(item.get("encrypted_content") or None)
        elif kind == "function_call":
            exp.calls.append(Call(item["call_id"], item["name"], item.get("arguments") or ""))
        elif kind == "custom_tool_call":
            exp.calls.append(Call(item["call_id"], item["name"], item.get("input") or "", True))
        else:
            exp.hosted.append(item)


def expected_responses(body: bytes) -> Expected:
    """Read a Responses SSE body up to its first terminal event, without llmkit."""
    exp = Expected()
    done_items: dict[int, dict[str, Any]] = {}
    terminal_response: dict[str, Any] = {}
    for _, data in sse_events(body):
        event = json.loads(data)
        etype = event.get("type")
        response = event.get("response") or {}
        if response.get("id"):
            exp.response_id = exp.response_id or response["id"]
            exp.response_ids.add(response["id"])
        if etype == "response.output_item.done":
            done_items[event["output_index"]] = event["item"]
        elif etype == "response.output_text.delta":
            exp.delta_text += event["delta"]
        elif etype in TERMINAL:
            exp.terminal = etype
            terminal_response = response
            if etype == "error":
                exp.error = event.get("error") or event
            elif etype == "response.failed":
                exp.error = response.get("error")
            break
    final = terminal_response.get("output") or []
    items = [done_items.get(i, final[i] if i < len(final) else {}) for i in sorted(done_items)]
    if not done_items:
        items = final
    read_items(items, exp)
    exp.status = terminal_response.get("status")
    exp.incomplete_reason = (terminal_response.get("incomplete_details") or {}).get("reason")
    exp.usage = terminal_response.get("usage")
    return exp


def expected_stop(exp: Expected) -> str:
    if exp.terminal in (None, "error", "response.failed"):
        return "error"
    if exp.terminal == "response.incomplete":
        return {"max_output_tokens": "length", "content_filter": "content_filter"}.get(
            exp.incomplete_reason or "", "stop"
        )
    if exp.calls:
        return "tool_use"
    return "refusal" if exp.refusal else "stop"


# --------------------------------------------------------------------------- running llmkit


def cut(body: bytes, chunking: str) -> list[bytes]:
    if chunking == "whole":
        return [body]
    if chunking == "bytes1":
        return [body[i : i + 1] for i in range(len(body))]
    return rechunk(body, random.Random(int(chunking.removeprefix("seed"))))


_runs: dict[tuple[str, str], list[Any]] = {}


def run(exchange: Exchange, chunking: str = PRIMARY) -> list[Any]:
    key = (exchange.source, chunking)
    if key not in _runs:
        chunks = iter(cut(exchange.body, chunking))  # a one-shot iterator
        _runs[key] = list(llmkit.parse_stream(model_for(exchange), chunks))
    return _runs[key]


def message(exchange: Exchange) -> llmkit.AssistantMessage:
    return run(exchange)[-1].message  # type: ignore[no-any-return]


_expected: dict[str, Expected] = {}


def expected(exchange: Exchange) -> Expected:
    if exchange.source not in _expected:
        _expected[exchange.source] = expected_responses(exchange.body)
    return _expected[exchange.source]


def status_of(arguments: str) -> str:
    try:
        return "complete" if isinstance(json.loads(arguments), dict) else "invalid"
    except ValueError:
        return "invalid"


# --------------------------------------------------------------------------- stream checks


def check_terminal(exchange: Exchange) -> None:
    """Exactly one Done/ErrorEvent, last, after Start, however the body is cut; ErrorEvent
    exactly when the recording failed (error / response.failed) or has no terminal event
    (QUIRKS A4)."""
    want = llmkit.ErrorEvent if expected_stop(expected(exchange)) == "error" else llmkit.Done
    for chunking in CHUNKINGS:
        events = run(exchange, chunking)
        assert isinstance(events[0], llmkit.Start), chunking
        terminals = [
            i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))
        ]
        assert terminals == [len(events) - 1], chunking
        assert isinstance(events[-1], want), chunking


def check_text(exchange: Exchange) -> None:
    """The text is the final output_text (and refusal) text, which the deltas also spell."""
    exp = expected(exchange)
    assert message(exchange).text == exp.text + exp.refusal
    if exp.delta_text:
        assert exp.delta_text == exp.text  # a recording property: deltas and .done agree


def check_thinking(exchange: Exchange) -> None:
    """One ThinkingPart per reasoning item: summary/reasoning-text parts joined by a blank
    line; replay carries the item id and the *final* encrypted content (QUIRKS F4)."""
    exp = expected(exchange)
    parts = [
        p
        for p in message(exchange).content
        if isinstance(p, llmkit.ThinkingPart) and "item" not in (p.replay or {})
    ]
    assert [p.thinking for p in parts] == exp.thinking
    for part, encrypted in zip(parts, exp.encrypted, strict=True):
        assert part.replay is not None and part.replay["id"]
        assert part.replay.get("encrypted_content") == encrypted


def check_hosted_items(exchange: Exchange) -> None:
    """Every hosted-tool item is kept whole (its final version), in order, as an opaque part
    for replay to the same model (docs/design.md §5)."""
    kept = [
        p.replay["item"]
        for p in message(exchange).content
        if isinstance(p, llmkit.ThinkingPart) and "item" in (p.replay or {})
    ]
    assert kept == expected(exchange).hosted


def check_tool_calls(exchange: Exchange) -> None:
    """Same calls in order: id = call_id (F5: mapped from output_item.added), name, the exact
    argument text, and the fc_/ct_ item id kept as replay data."""
    exp = expected(exchange)
    calls = message(exchange).tool_calls
    assert [(c.id, c.name, c.raw_arguments) for c in calls] == [
        (e.id, e.name, e.arguments) for e in exp.calls
    ]
    for call, want in zip(calls, exp.calls, strict=True):
        # a custom tool's input is plain text, whole (docs/design.md §6)
        assert call.status == ("complete" if want.custom else status_of(want.arguments))
        if want.custom:
            assert call.arguments == {}
        elif call.status == "complete":
            assert call.arguments == json.loads(want.arguments)
        assert call.replay is not None and call.replay["item_id"]
        assert (call.replay.get("type") == "custom_tool_call") == want.custom


def check_order(exchange: Exchange) -> None:
    """Content order is output order: a reasoning item stays before the call it belongs to."""
    body_items = []
    for _, data in sse_events(exchange.body):
        event = json.loads(data)
        if event.get("type") in TERMINAL:
            break
        if event.get("type") == "response.output_item.done":
            body_items.append(event["item"]["type"])
    kinds = {"reasoning": "thinking", "function_call": "tool_call", "custom_tool_call": "tool_call"}
    want = [kinds.get(k, "text" if k == "message" else "thinking") for k in body_items]
    got = [p.type for p in message(exchange).content]
    # a message whose text is empty produces no part
    assert [k for k in want if k != "text"] == [k for k in got if k != "text"]
    assert got.count("text") <= want.count("text")


def check_stop_reason(exchange: Exchange) -> None:
    exp = expected(exchange)
    msg = message(exchange)
    assert msg.stop_reason == expected_stop(exp)
    if exp.terminal == "response.completed":
        assert msg.raw_stop_reason == "completed"


def check_usage(exchange: Exchange) -> None:
    """input includes cached tokens, output includes reasoning tokens (one convention)."""
    exp = expected(exchange)
    usage = message(exchange).usage
    if not exp.usage:
        assert (usage.input, usage.output) == (None, None)
        return
    assert usage.input == exp.usage["input_tokens"]
    assert usage.output == exp.usage["output_tokens"]
    details = exp.usage.get("input_tokens_details") or {}
    assert usage.cache_read == details.get("cached_tokens")
    assert usage.cache_write == details.get("cache_write_tokens")
    assert usage.reasoning == (exp.usage.get("output_tokens_details") or {}).get("reasoning_tokens")


def check_response_id(exchange: Exchange) -> None:
    assert message(exchange).response_id == expected(exchange).response_id


def check_errors(exchange: Exchange) -> None:
    """An in-stream error ends the stream with a typed error carrying the partial message."""
    exp = expected(exchange)
    last = run(exchange)[-1]
    if exp.error is None:
        assert isinstance(last, llmkit.Done)
        return
    assert isinstance(last, llmkit.ErrorEvent)
    assert isinstance(last.error, llmkit.APIError)
    assert last.error.partial is last.message
    assert exp.error["message"] in str(last.error)
    if exp.error.get("code") == "insufficient_quota":
        assert isinstance(last.error, llmkit.RateLimitError)


def check_diagnostics(exchange: Exchange) -> None:
    """Only what the recording makes necessary is reported: an item type llmkit does not know
    (once per type; known hosted-tool items are kept silently), a function call's non-JSON
    arguments (a custom tool's input is plain text, not reported), missing usage, a response id
    that changes between lifecycle events (once). A clean stream reports nothing."""
    exp = expected(exchange)
    msg = message(exchange)
    unknown = {str(i.get("type")) for i in exp.hosted} - KNOWN_HOSTED
    want = [("event_unknown", t) for t in sorted(unknown)]
    want += [
        ("tool_arguments_invalid", c.id)
        for c in exp.calls
        if not c.custom and status_of(c.arguments) != "complete"
    ]
    if not exp.usage and exp.error is None:
        want.append(("usage_missing", None))
    if len(exp.response_ids) > 1:
        want.append(("event_malformed", None))
    got = [
        (d.kind, d.details.get("item_type") if d.kind == "event_unknown" else d.tool_call_id)
        for d in msg.diagnostics
    ]
    assert sorted(got, key=str) == sorted(want, key=str)


def check_events_match_message(exchange: Exchange) -> None:
    """The events tell the message's story: deltas join to the parts, indexes point at them."""
    events = run(exchange)
    msg = events[-1].message
    text = "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta))
    assert text == msg.text
    thinking = "".join(e.delta for e in events if isinstance(e, llmkit.ThinkingDelta))
    assert thinking == msg.thinking
    for e in events:
        if isinstance(e, (llmkit.TextStart, llmkit.TextDelta, llmkit.TextEnd)):
            assert msg.content[e.index].type == "text"
        elif isinstance(e, (llmkit.ThinkingStart, llmkit.ThinkingDelta, llmkit.ThinkingEnd)):
            assert msg.content[e.index].type == "thinking"
        elif isinstance(e, llmkit.ToolCallEnd):
            assert msg.content[e.index] == e.tool_call
    for index, part in enumerate(msg.content):
        if isinstance(part, llmkit.ToolCall):
            deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta) and e.index == index]
            assert "".join(d.arguments_delta for d in deltas) == part.raw_arguments
            assert {d.id for d in deltas} <= {part.id}


def check_rechunking_invariance(exchange: Exchange) -> None:
    """However the bytes are cut (inside UTF-8 characters too, QUIRKS A1), same message."""
    reference = run(exchange, PRIMARY)[-1].message.model_dump()
    for chunking in CHUNKINGS:
        assert run(exchange, chunking)[-1].message.model_dump() == reference, chunking


STREAM_CHECKS: dict[str, Callable[[Exchange], None]] = {
    fn.__name__.removeprefix("check_"): fn
    for fn in (
        check_terminal,
        check_text,
        check_thinking,
        check_hosted_items,
        check_tool_calls,
        check_order,
        check_stop_reason,
        check_usage,
        check_response_id,
        check_errors,
        check_diagnostics,
        check_events_match_message,
        check_rechunking_invariance,
    )
}


@pytest.mark.parametrize("exchange", STREAMS)
@pytest.mark.parametrize("check", list(STREAM_CHECKS))
def test_stream(check: str, exchange: Exchange) -> None:
    STREAM_CHECKS[check](exchange)


# --------------------------------------------------------------------------- other exchanges


@pytest.mark.parametrize("exchange", JSON_BODIES)
def test_json_response_walks_output_items_like_a_stream(exchange: Exchange) -> None:
    doc = json.loads(exchange.body)
    exp = Expected(response_id=doc["id"], usage=doc.get("usage"), status=doc["status"])
    read_items(doc["output"], exp)
    exp.terminal = "response.completed"
    msg = llmkit.parse_response(model_for(exchange), exchange.body)
    assert msg.text == exp.text
    assert [p.thinking for p in msg.content if isinstance(p, llmkit.ThinkingPart)] == exp.thinking
    assert [(c.id, c.name, c.raw_arguments) for c in msg.tool_calls] == [
        (c.id, c.name, c.arguments) for c in exp.calls
    ]
    assert msg.stop_reason == expected_stop(exp)
    assert msg.response_id == exp.response_id
    assert (msg.usage.input, msg.usage.output) == (
        exp.usage["input_tokens"],
        exp.usage["output_tokens"],
    )
    # reasoning items interleave with the calls they precede (QUIRKS F4)
    kinds = [
        {"reasoning": "thinking", "function_call": "tool_call"}[i["type"]] for i in doc["output"]
    ]
    assert [p.type for p in msg.content] == kinds


@pytest.mark.parametrize("exchange", HTTP_ERRORS)
def test_http_error_recordings_raise_typed_errors(exchange: Exchange) -> None:
    """The recorded error body, served with its status by the fake provider, raises the
    typed error carrying the provider's message; parse_response of the body raises too."""
    doc = json.loads(exchange.body)
    headers = {k: v for k, v in exchange.headers.items() if k.startswith(("x-", "retry-"))}
    with FakeProvider(
        [FakeError(exchange.status, exchange.body, headers=headers)], api=WIRE
    ) as fake:
        model = fake.model("gpt-4o", reasoning=True)
        with pytest.raises(llmkit.APIError) as info:
            llmkit.complete(
                model, llmkit.Context(messages=[llmkit.user("hi")]), api_key=fake.api_key
            )
    assert info.value.status == exchange.status
    assert doc["error"]["message"] in str(info.value)
    with pytest.raises(llmkit.APIError, match="^" + doc["error"]["message"][:20]):
        llmkit.parse_response(model_for(exchange), exchange.body)


def test_one_body_holding_several_responses_ends_at_the_first_terminal_event() -> None:
    (path,) = [p for p in corpus_files(WIRE) if MULTI in p.name]
    (whole,) = load_exchanges(path)
    parts = split_responses(whole)
    assert len(parts) == 4
    events = list(llmkit.parse_stream(model_for(whole), rechunk(whole.body, random.Random(7))))
    assert sum(isinstance(e, (llmkit.Done, llmkit.ErrorEvent)) for e in events) == 1
    first = message(parts[0])
    assert events[-1].message.model_dump() == first.model_dump()


def test_the_corpus_is_all_here() -> None:
    # Guards against a path mistake that would silently collect nothing.
    files = corpus_files(WIRE)
    assert len(files) == 18
    names = (f"`{fixture_id(p).split('/', 1)[1]}`" for p in files)
    provenance = (files[0].parent / "PROVENANCE.md").read_text(encoding="utf-8")
    assert all(name in provenance for name in names)
    assert len(STREAMS) >= 22 and len(JSON_BODIES) == 4 and len(HTTP_ERRORS) == 3
