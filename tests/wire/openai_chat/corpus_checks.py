"""The checks that replay recorded Chat Completions responses through ``llmkit.parse_stream``.

Every 200 ``text/event-stream`` exchange under ``tests/fixtures/openai-chat/`` is decoded by
llmkit after being cut into pieces several ways (random offsets with 5 seeds, 1-byte pieces, one
piece), and the result is compared with what ``corpus.expected_openai_chat`` reads from the same
bytes without llmkit.  Non-streamed JSON bodies go through ``llmkit.parse_response``.

The checks are plain functions (``check_*``); ``test_corpus.py`` runs them over the OpenAI
recordings and the OpenAI-compatible servers' ones. Each test id names the check and the
exchange: ``test_stream[text-openai-chat/<file>#<n>]``.

HTTP error exchanges (401, 404, 429 …) are not replayed here; they belong to transport tests.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

import llmkit
from tests.support.corpus import (
    CorpusSkip,
    Exchange,
    Expected,
    corpus_files,
    expected_openai_chat,
    expected_openai_chat_json,
    fixture_id,
    load_exchanges,
    rechunk,
)

SEEDS = (0, 1, 2, 3, 4)
# How the body is cut before it is fed to parse_stream.  "seed0" is the run whose content
# is checked in detail; all of them must give the same final message.
CHUNKINGS = (*(f"seed{s}" for s in SEEDS), "bytes1", "whole")
PRIMARY = "seed0"


# --------------------------------------------------------------------------- collection


def exchange_params(wire: str, want: Callable[[Exchange], bool]) -> list[Any]:
    """``pytest.param`` per exchange of every recording under ``fixtures/<wire>/``.

    A recording that cannot be decoded here (brotli without the package) becomes one skipped
    case whose reason says why, instead of vanishing from the run.
    """
    params = []
    for path in corpus_files(wire):
        try:
            exchanges = load_exchanges(path)
        except CorpusSkip as skip:
            params.append(
                pytest.param(None, id=fixture_id(path), marks=pytest.mark.skip(reason=str(skip)))
            )
            continue
        params.extend(pytest.param(ex, id=ex.source) for ex in exchanges if want(ex))
    return params


def is_sse_200(exchange: Exchange) -> bool:
    return exchange.status == 200 and exchange.is_sse


def is_json_200(exchange: Exchange) -> bool:
    return exchange.status == 200 and exchange.is_json


# --------------------------------------------------------------------------- running llmkit


def model_for(exchange: Exchange) -> llmkit.Model:
    """The model a caller would have configured for this recording.

    The provider is the server's folder (``openai-compatible/<server>``), ``llamacpp`` for
    this project's own llama-server captures (``llama-server/``), or ``openai``; the base URL
    comes from the recorded request when there is one.
    """
    parts = exchange.source.split("/")
    provider = {"openai-compatible": parts[1], "llama-server": "llamacpp"}.get(parts[0], "openai")
    base_url = "https://api.openai.com/v1" if provider == "openai" else "http://127.0.0.1:8000/v1"
    request = exchange.request or {}
    if request.get("url"):
        url = urlsplit(request["url"])
        # llama-stack records a doubled "/v1/v1"; its "endpoint" is the real path (format F8).
        path = request.get("endpoint") or url.path
        base_url = f"{url.scheme}://{url.netloc}{path.removesuffix('/chat/completions')}"
    return llmkit.Model(
        provider=provider, id=_model_id(exchange), api="openai-chat", base_url=base_url
    )


def _model_id(exchange: Exchange) -> str:
    body = (exchange.request or {}).get("body")
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return body["model"]
    return "gpt-4o"


def cut(body: bytes, chunking: str) -> list[bytes]:
    if chunking == "whole":
        return [body]
    if chunking == "bytes1":
        return [body[i : i + 1] for i in range(len(body))]
    return rechunk(body, random.Random(int(chunking.removeprefix("seed"))))


@dataclass(frozen=True)
class Replay:
    events: list[Any]

    @property
    def message(self) -> llmkit.AssistantMessage:
        return self.events[-1].message

    def of_type(self, *types: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, types)]


_replays: dict[tuple[str, str], Replay] = {}


def replay(exchange: Exchange, chunking: str = PRIMARY) -> Replay:
    """Feed the body, cut as ``chunking`` says, through parse_stream (memoised per run)."""
    key = (exchange.source, chunking)
    if key not in _replays:
        # A one-shot iterator: parse_stream must not need to iterate its input twice.
        chunks = iter(cut(exchange.body, chunking))
        _replays[key] = Replay(list(llmkit.parse_stream(model_for(exchange), chunks)))
    return _replays[key]


_expected: dict[str, Expected] = {}


def expected(exchange: Exchange) -> Expected:
    """What the recording holds, read without llmkit (memoised per exchange)."""
    if exchange.source not in _expected:
        _expected[exchange.source] = expected_openai_chat(exchange.body)
    return _expected[exchange.source]


def expected_stop_reason(exp: Expected) -> str:
    """The normalised stop reason the recording means."""
    if exp.error is not None or not exp.done:
        return "error"  # in-stream error (A5, A7, D6) or EOF without [DONE] (A4)
    if exp.finish_reason == "length":
        return "length"  # a "length" reply may carry a cut-off call: still "length"
    if exp.tool_calls:
        # Derived from the calls, not the label: Ollama says "stop" with a call, OpenRouter/
        # Novita sends no finish_reason at all (QUIRKS E1).
        return "tool_use"
    if exp.finish_reason == "content_filter":
        return "content_filter"
    if exp.refusal:
        # OpenAI streams a refusal as delta.refusal with finish_reason "stop"; the turn is a
        # refusal, which llmkit's closed set names (docs/design.md stop reasons, QUIRKS E3).
        return "refusal"
    return "stop"


def arguments_status(arguments: str) -> str:
    """``complete`` when the text is a JSON object or empty (no-argument call, QUIRKS D3)."""
    if not arguments.strip():
        return "complete"
    try:
        return "complete" if isinstance(json.loads(arguments), dict) else "invalid"
    except ValueError:
        return "recovered"  # a call cut off at max_tokens (llama-server/tool-call-cut-off.sse)


# --------------------------------------------------------------------------- stream checks


def check_terminal(exchange: Exchange) -> None:
    """Exactly one Done/ErrorEvent, last, after a leading Start, however the body is cut."""
    exp = expected(exchange)
    terminal_type = llmkit.ErrorEvent if expected_stop_reason(exp) == "error" else llmkit.Done
    for chunking in CHUNKINGS:
        events = replay(exchange, chunking).events
        assert events, f"{chunking}: no events"
        assert isinstance(events[0], llmkit.Start), f"{chunking}: first event {events[0]!r}"
        terminals = [
            i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))
        ]
        assert terminals == [len(events) - 1], f"{chunking}: terminal events at {terminals}"
        assert isinstance(events[-1], terminal_type), (
            f"{chunking}: ended with {type(events[-1]).__name__}, expected "
            f"{terminal_type.__name__} (error={exp.error!r}, [DONE] seen={exp.done})"
        )


def check_text(exchange: Exchange) -> None:
    """The message text is the concatenated ``delta.content``.

    A refusal (``delta.refusal``) is what the model said instead of an answer.  docs/design.md's
    AssistantMessage has no refusal part and nothing may be dropped silently, so the refusal
    sentence is kept as text, and the turn is marked ``stop_reason="refusal"``
    (``check_stop_reason``).  OpenAI sends either content or a refusal, never both.
    """
    assert replay(exchange).message.text == expected(exchange).text_and_refusal


def check_reasoning(exchange: Exchange) -> None:
    """Reasoning fields (reasoning_content / reasoning, QUIRKS F8) become thinking, verbatim;
    a stream without them produces no thinking text."""
    exp = expected(exchange)
    thinking = replay(exchange).message.thinking
    if exp.has_reasoning_fields:
        assert thinking == exp.reasoning
    else:
        assert not thinking


def check_tool_calls(exchange: Exchange) -> None:
    """Same calls, in order, with the same names and arguments; ``complete`` where the
    arguments are a JSON object, ``recovered`` where they were cut off."""
    exp = expected(exchange)
    calls = replay(exchange).message.tool_calls
    assert [c.name for c in calls] == [e.name for e in exp.tool_calls]
    for call, want in zip(calls, exp.tool_calls, strict=True):
        assert call.status == arguments_status(want.arguments), call.name
        if call.status == "complete":
            assert call.arguments == want.parsed_arguments, call.name
        if not want.arguments_were_object:
            # raw_arguments is "the exact text received"; for object arguments (D2) the text
            # is a serialisation, so only the parsed value is compared.
            assert call.raw_arguments == want.arguments, call.name


def check_tool_call_ids(exchange: Exchange) -> None:
    """Provider ids are kept when usable; otherwise ids are non-empty, distinct, and the
    provider's value is kept in ``provider_id`` (QUIRKS B2, B5; docs/design.md stable ids)."""
    exp = expected(exchange)
    calls = replay(exchange).message.tool_calls
    assert len(calls) == len(exp.tool_calls)
    if exp.provider_ids_usable:
        assert [c.id for c in calls] == [e.id for e in exp.tool_calls]
        return
    ids = [c.id for c in calls]
    assert all(ids), ids
    assert len(set(ids)) == len(ids), ids
    for call, want in zip(calls, exp.tool_calls, strict=True):
        if want.id and call.id != want.id:
            assert call.provider_id == want.id


def check_response_id(exchange: Exchange) -> None:
    """The response id is the first non-empty chunk id (ids may vary per chunk, QUIRKS A9)."""
    assert replay(exchange).message.response_id == (expected(exchange).response_id or None)


def check_stop_reason(exchange: Exchange) -> None:
    """The stop reason follows the recording; the provider's own value is kept raw."""
    exp = expected(exchange)
    msg = replay(exchange).message
    assert msg.stop_reason == expected_stop_reason(exp)
    if exp.finish_reason is not None and exp.error is None:
        assert msg.raw_stop_reason == exp.finish_reason


def check_usage(exchange: Exchange) -> None:
    """Usage equals the last reported usage object; nothing is invented when none came."""
    exp = expected(exchange)
    usage = replay(exchange).message.usage
    if exp.usage is None:
        assert usage is None or (usage.input is None and usage.output is None)
        return
    assert usage.input == exp.input_tokens
    assert usage.output == exp.output_tokens
    if exp.reasoning_tokens is not None:
        assert usage.reasoning == exp.reasoning_tokens


_CALL_FINISH_REASONS = ("tool_calls", "function_call", "length")


def check_quirk_diagnostics(exchange: Exchange) -> None:
    """Each misbehaviour llmkit had to work around is reported (docs/design.md: report, never
    guess silently).  Only the diagnostics the recording makes necessary are required."""
    exp = expected(exchange)
    msg = replay(exchange).message
    kinds = {d.kind for d in msg.diagnostics}
    required = set()
    if "C1" in exp.quirks:
        required.add("tool_call_index_missing")
    if "C2" in exp.quirks:
        required.add("tool_call_index_reused")
    if any(not c.id for c in exp.tool_calls):
        required.add("tool_call_id_synthesized")
    ids = [c.id for c in exp.tool_calls if c.id]
    if len(set(ids)) != len(ids):
        required.add("tool_call_id_duplicate")
    if exp.error is None and exp.tool_calls and exp.finish_reason not in _CALL_FINISH_REASONS:
        required.add("stop_reason_inferred")  # E1: tool_use derived from the calls
    assert required <= kinds, f"missing {sorted(required - kinds)}; got {sorted(kinds)}"
    # A diagnostic that concerns a call must name a call of this message.
    call_ids = {c.id for c in msg.tool_calls}
    for diagnostic in msg.diagnostics:
        assert diagnostic.tool_call_id is None or diagnostic.tool_call_id in call_ids


def check_events_match_message(exchange: Exchange) -> None:
    """The events tell the same story as the final message: deltas join to the parts, block
    indexes point at the right parts, and tool-call ids are the final ids in every event."""
    run = replay(exchange)
    msg = run.message
    assert "".join(e.delta for e in run.of_type(llmkit.TextDelta)) == msg.text
    assert "".join(e.delta for e in run.of_type(llmkit.ThinkingDelta)) == msg.thinking
    content = msg.content
    for event in run.of_type(llmkit.TextStart, llmkit.TextDelta, llmkit.TextEnd):
        assert content[event.index].type == "text", event
    for event in run.of_type(llmkit.TextEnd):
        assert event.text == content[event.index].text
    for event in run.of_type(llmkit.ThinkingStart, llmkit.ThinkingDelta, llmkit.ThinkingEnd):
        assert content[event.index].type == "thinking", event
    for event in run.of_type(llmkit.ThinkingEnd):
        assert event.thinking == content[event.index].thinking
    for index, call in enumerate(content):
        if call.type != "tool_call":
            continue
        starts = [e for e in run.of_type(llmkit.ToolCallStart) if e.index == index]
        deltas = [e for e in run.of_type(llmkit.ToolCallDelta) if e.index == index]
        ends = [e for e in run.of_type(llmkit.ToolCallEnd) if e.index == index]
        assert len(starts) == 1, f"call {index}: {len(starts)} ToolCallStart events"
        assert len(ends) == 1, f"call {index}: {len(ends)} ToolCallEnd events"
        assert {starts[0].id, *(d.id for d in deltas), ends[0].tool_call.id} == {call.id}
        assert "".join(d.arguments_delta for d in deltas) == call.raw_arguments
        assert ends[0].tool_call == call


def check_rechunking_invariance(exchange: Exchange) -> None:
    """However the bytes are cut (including inside UTF-8 characters, QUIRKS A1), the final
    message is identical, synthesised ids included (docs/design.md: same bytes in, same ids out)."""
    dumps = {chunking: replay(exchange, chunking).message.model_dump() for chunking in CHUNKINGS}
    reference = dumps[PRIMARY]
    for chunking, dump in dumps.items():
        assert dump == reference, f"{chunking} differs from {PRIMARY}"


STREAM_CHECKS: dict[str, Callable[[Exchange], None]] = {
    fn.__name__.removeprefix("check_"): fn
    for fn in (
        check_terminal,
        check_text,
        check_reasoning,
        check_tool_calls,
        check_tool_call_ids,
        check_response_id,
        check_stop_reason,
        check_usage,
        check_quirk_diagnostics,
        check_events_match_message,
        check_rechunking_invariance,
    )
}


# --------------------------------------------------------------------------- JSON checks


def check_json_response(exchange: Exchange) -> None:
    """parse_response reads a non-streamed body as the JSON says: text, calls, ids, usage."""
    exp = expected_openai_chat_json(exchange.body)
    msg = llmkit.parse_response(model_for(exchange), exchange.body)
    assert msg.text == exp.text_and_refusal  # see check_text
    assert [c.name for c in msg.tool_calls] == [e.name for e in exp.tool_calls]
    for call, want in zip(msg.tool_calls, exp.tool_calls, strict=True):
        assert call.arguments == want.parsed_arguments, call.name
        assert call.status == arguments_status(want.arguments), call.name
    if exp.provider_ids_usable:
        assert [c.id for c in msg.tool_calls] == [e.id for e in exp.tool_calls]
    assert msg.response_id == (exp.response_id or None)
    assert msg.stop_reason == expected_stop_reason(exp)
    assert msg.usage.input == exp.input_tokens
    assert msg.usage.output == exp.output_tokens
