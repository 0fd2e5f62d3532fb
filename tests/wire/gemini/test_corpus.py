"""Replay every recorded Gemini exchange in ``tests/fixtures/gemini/`` through llmkit.

Each 200 ``text/event-stream`` exchange (CRLF framing, QUIRKS A4/A10) is decoded by
``llmkit.parse_stream`` after being cut several ways (random offsets with 5 seeds, 1-byte
pieces, one piece) and compared with what :func:`expected_gemini` reads from the same bytes
without llmkit. JSON bodies (``generateContent``, and the JSON array ``streamGenerateContent``
returns without ``alt=sse``) go through ``llmkit.parse_response`` and through the client over an
``httpx.MockTransport`` that serves the recorded status, headers and bytes; the recorded HTTP
errors (400 ``API_KEY_INVALID``, 404) must come back as typed errors, not retried.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

import llmkit
from tests.support.corpus import (
    CorpusSkip,
    Exchange,
    corpus_files,
    fixture_id,
    load_exchanges,
    rechunk,
    sse_events,
)

SEEDS = (0, 1, 2, 3, 4)
CHUNKINGS = (*(f"seed{s}" for s in SEEDS), "bytes1", "whole")
PRIMARY = "seed0"
FAILED = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"}


# --------------------------------------------------------------------------- independent reading


@dataclass
class Call:
    """One call as the recording means it."""

    id: str
    name: str
    args: dict[str, Any]
    signature: str | None


@dataclass
class Expected:
    """What a Gemini response holds for candidate 0, read without llmkit."""

    text: str = ""
    thinking: str = ""
    calls: list[Call] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)  # every thoughtSignature, in order
    finish: str | None = None
    usage: dict[str, Any] | None = None
    response_id: str = ""
    error: dict[str, Any] | None = None
    unknown_parts: set[str] = field(default_factory=set)


def _set_path(root: dict[str, Any], path: str, fragment: dict[str, Any]) -> None:
    """Apply one Vertex ``partialArg`` to a plain object (QUIRKS D8): strings with the same
    path are concatenated, other values set. Written as simply as possible on purpose."""
    keys: list[str | int] = []
    for piece in path.removeprefix("$.").replace("]", "").replace("[", ".").split("."):
        keys.append(int(piece) if piece.isdigit() else piece)
    node: Any = root
    for key, nxt in itertools.pairwise(keys):
        if isinstance(node, list):
            while len(node) <= key:  # type: ignore[operator]
                node.append(None)
            if node[key] is None:  # type: ignore[index]
                node[key] = [] if isinstance(nxt, int) else {}  # type: ignore[index]
            node = node[key]  # type: ignore[index]
        else:
            node = node.setdefault(key, [] if isinstance(nxt, int) else {})
    last = keys[-1]
    if "stringValue" in fragment:
        value: Any = fragment["stringValue"]
    elif "numberValue" in fragment:
        value = fragment["numberValue"]
    elif "boolValue" in fragment:
        value = fragment["boolValue"]
    else:
        value = None
    if isinstance(node, list):
        while len(node) <= last:  # type: ignore[operator]
            node.append(None)
        old = node[last]  # type: ignore[index]
        node[last] = old + value if isinstance(old, str) and isinstance(value, str) else value  # type: ignore[index]
    else:
        old = node.get(last)
        node[last] = old + value if isinstance(old, str) and isinstance(value, str) else value


def expected_gemini(chunks: list[dict[str, Any]]) -> Expected:
    """Read ``GenerateContentResponse`` chunks the straightforward way."""
    exp = Expected()
    streaming: Call | None = None
    for chunk in chunks:
        if "error" in chunk:
            exp.error = chunk["error"]
            break
        if not exp.response_id and chunk.get("responseId"):
            exp.response_id = chunk["responseId"]
        usage = chunk.get("usageMetadata") or {}
        if "promptTokenCount" in usage:  # Vertex sends only trafficType until the end
            exp.usage = usage
        for cand in chunk.get("candidates") or []:
            if cand.get("index", 0) != 0:
                continue
            for part in (cand.get("content") or {}).get("parts") or []:
                if part.get("thoughtSignature"):
                    exp.signatures.append(part["thoughtSignature"])
                fc = part.get("functionCall")
                if fc is not None:
                    if fc.get("name"):
                        streaming = Call(
                            fc.get("id") or "",
                            fc["name"],
                            dict(fc.get("args") or {}),
                            part.get("thoughtSignature"),
                        )
                        exp.calls.append(streaming)
                    for fragment in fc.get("partialArgs") or []:
                        assert streaming is not None
                        _set_path(streaming.args, fragment["jsonPath"], fragment)
                elif "text" in part:
                    if part.get("thought"):
                        exp.thinking += part["text"]
                    else:
                        exp.text += part["text"]
                else:
                    exp.unknown_parts.update(k for k in part if k != "thoughtSignature")
            if exp.finish is None and cand.get("finishReason"):
                exp.finish = cand["finishReason"]
    return exp


def chunks_of(exchange: Exchange) -> list[dict[str, Any]]:
    if exchange.is_sse:
        return [json.loads(data) for _, data in sse_events(exchange.body)]
    doc = json.loads(exchange.body)
    return doc if isinstance(doc, list) else [doc]


# --------------------------------------------------------------------------- running llmkit


def model_for(exchange: Exchange) -> llmkit.Model:
    """The model a caller would have configured (its id from the recorded URL)."""
    url = str((exchange.request or {}).get("url") or "")
    model_id = url.rsplit("/models/", 1)[1].split(":", 1)[0] if "/models/" in url else ""
    if not model_id:
        model_id = next(
            (str(c["modelVersion"]) for c in chunks_of(exchange) if c.get("modelVersion")),
            "gemini-2.5-flash",
        )
    return llmkit.Model(
        provider="google", id=model_id, api="gemini", reasoning=True, input=["text", "image"]
    )


def cut(body: bytes, chunking: str) -> list[bytes]:
    if chunking == "whole":
        return [body]
    if chunking == "bytes1":
        return [body[i : i + 1] for i in range(len(body))]
    return rechunk(body, random.Random(int(chunking.removeprefix("seed"))))


_replays: dict[tuple[str, str], list[llmkit.Event]] = {}


def replay(exchange: Exchange, chunking: str = PRIMARY) -> list[llmkit.Event]:
    key = (exchange.source, chunking)
    if key not in _replays:
        chunks = iter(cut(exchange.body, chunking))  # one-shot: never iterated twice
        _replays[key] = list(llmkit.parse_stream(model_for(exchange), chunks))
    return _replays[key]


def message(exchange: Exchange) -> llmkit.AssistantMessage:
    last = replay(exchange)[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    return last.message


def expected_stop(exp: Expected) -> str:
    if exp.error is not None or exp.finish is None or exp.finish in FAILED:
        return "error"  # EOF without a finish reason is a truncated stream (QUIRKS A4)
    if exp.finish == "MAX_TOKENS":
        return "length"
    if exp.calls:
        return "tool_use"  # Gemini says STOP with calls (QUIRKS E1)
    return {"STOP": "stop", "SAFETY": "content_filter"}.get(exp.finish, "stop")


def signatures_of(msg: llmkit.AssistantMessage) -> list[str]:
    out: list[str] = []
    for part in msg.content:
        if isinstance(part, llmkit.ToolCall) and part.replay:
            out.append(part.replay["thoughtSignature"])
        elif isinstance(part, llmkit.ThinkingPart) and part.signature:
            out.append(part.signature)
    return out


# --------------------------------------------------------------------------- checks


def check_terminal(exchange: Exchange, exp: Expected) -> None:
    """Start first, exactly one Done/ErrorEvent and it is last, for every way of cutting."""
    terminal = llmkit.ErrorEvent if expected_stop(exp) == "error" else llmkit.Done
    for chunking in CHUNKINGS:
        events = replay(exchange, chunking)
        assert isinstance(events[0], llmkit.Start)
        ends = [i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
        assert ends == [len(events) - 1], chunking
        assert isinstance(events[-1], terminal), chunking


def check_text_and_thinking(exchange: Exchange, exp: Expected) -> None:
    """Consecutive text parts join into the text; ``thought: true`` parts into thinking."""
    msg = message(exchange)
    assert msg.text == exp.text
    assert msg.thinking == exp.thinking


def check_tool_calls(exchange: Exchange, exp: Expected) -> None:
    """Same calls in order; arguments whole (QUIRKS D1) or rebuilt from partialArgs (D8);
    provider ids verbatim, missing ones synthesised and reported (B4)."""
    msg = message(exchange)
    calls = msg.tool_calls
    assert [(c.name, c.arguments, c.status) for c in calls] == [
        (e.name, e.args, "complete") for e in exp.calls
    ]
    for call, want in zip(calls, exp.calls, strict=True):
        if want.id:
            assert call.id == want.id and call.provider_id is None
        else:
            assert call.id.startswith("call_") and call.provider_id == ""
            assert any(d.kind == "tool_call_id_synthesized" for d in msg.diagnostics_for(call.id))
        assert (call.replay or {}).get("thoughtSignature") == want.signature
        assert json.loads(call.raw_arguments or "{}") == want.args
    assert len({c.id for c in calls}) == len(calls)


def check_signatures_kept(exchange: Exchange, exp: Expected) -> None:
    """Every thoughtSignature survives, in order, including one on a trailing empty text part
    (QUIRKS F2)."""
    assert signatures_of(message(exchange)) == exp.signatures


def check_stop_reason(exchange: Exchange, exp: Expected) -> None:
    msg = message(exchange)
    assert msg.stop_reason == expected_stop(exp)
    assert msg.raw_stop_reason == exp.finish


def check_usage(exchange: Exchange, exp: Expected) -> None:
    """promptTokenCount (cached included) → input; candidates + thoughts → output."""
    usage = message(exchange).usage
    u = exp.usage
    if u is None:
        assert usage.input is None and usage.output is None
        return
    assert usage.input == u["promptTokenCount"] + u.get("toolUsePromptTokenCount", 0)
    assert usage.output == u.get("candidatesTokenCount", 0) + u.get("thoughtsTokenCount", 0)
    assert usage.reasoning == u.get("thoughtsTokenCount")
    assert usage.cache_read == u.get("cachedContentTokenCount")


def check_response_id(exchange: Exchange, exp: Expected) -> None:
    assert message(exchange).response_id == (exp.response_id or None)


def check_events_match_message(exchange: Exchange, exp: Expected) -> None:
    """Deltas join to the parts; block indexes point at the right parts; call ids are final
    in every event; argument deltas join to ``raw_arguments``."""
    events = replay(exchange)
    msg = message(exchange)
    text = "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta))
    assert text == msg.text
    for e in events:
        if isinstance(e, (llmkit.TextStart, llmkit.TextDelta, llmkit.TextEnd)):
            assert msg.content[e.index].type == "text"
        if isinstance(e, (llmkit.ThinkingStart, llmkit.ThinkingDelta, llmkit.ThinkingEnd)):
            assert msg.content[e.index].type == "thinking"
    for index, part in enumerate(msg.content):
        if not isinstance(part, llmkit.ToolCall):
            continue
        deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta) and e.index == index]
        ends = [e for e in events if isinstance(e, llmkit.ToolCallEnd) and e.index == index]
        assert [e.tool_call for e in ends] == [part]
        assert {d.id for d in deltas} <= {part.id}
        assert "".join(d.arguments_delta for d in deltas) == part.raw_arguments


def check_rechunking_invariance(exchange: Exchange, exp: Expected) -> None:
    """However the bytes are cut — inside UTF-8 characters and CRLF pairs too (QUIRKS A1) —
    the final message is identical, synthesised ids included (QUIRKS B6)."""
    reference = message(exchange).model_dump()
    for chunking in CHUNKINGS:
        last = replay(exchange, chunking)[-1]
        assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
        assert last.message.model_dump() == reference, chunking


def check_unknown_parts_reported(exchange: Exchange, exp: Expected) -> None:
    """Parts llmkit does not model are reported, never dropped silently."""
    kinds = {
        d.details.get("part") for d in message(exchange).diagnostics if d.kind == "event_unknown"
    }
    assert exp.unknown_parts <= kinds


STREAM_CHECKS: dict[str, Callable[[Exchange, Expected], None]] = {
    fn.__name__.removeprefix("check_"): fn
    for fn in (
        check_terminal,
        check_text_and_thinking,
        check_tool_calls,
        check_signatures_kept,
        check_stop_reason,
        check_usage,
        check_response_id,
        check_events_match_message,
        check_rechunking_invariance,
        check_unknown_parts_reported,
    )
}


# --------------------------------------------------------------------------- collection


def params(want: Callable[[Exchange], bool]) -> list[Any]:
    out = []
    for path in corpus_files("gemini"):
        try:
            exchanges = load_exchanges(path)
        except CorpusSkip as skip:  # pragma: no cover - brotli bodies are not in this corpus
            out.append(pytest.param(None, id=fixture_id(path), marks=pytest.mark.skip(str(skip))))
            continue
        out.extend(pytest.param(ex, id=ex.source) for ex in exchanges if want(ex))
    return out


STREAMS = params(lambda ex: ex.status == 200 and ex.is_sse)
BODIES = params(lambda ex: ex.status == 200 and not ex.is_sse)
ERRORS = params(lambda ex: ex.status >= 400)


@pytest.mark.parametrize("exchange", STREAMS)
@pytest.mark.parametrize("check", list(STREAM_CHECKS))
def test_stream(check: str, exchange: Exchange) -> None:
    STREAM_CHECKS[check](exchange, expected_gemini(chunks_of(exchange)))


def test_streams_use_crlf_framing() -> None:
    """The recordings really are CRLF-framed (so the replays above exercise it)."""
    for param in STREAMS:
        exchange = param.values[0]
        assert b"\r\n\r\n" in exchange.body and b"\n\n" not in exchange.body.replace(b"\r\n", b"")


@pytest.mark.parametrize("exchange", BODIES)
def test_json_body(exchange: Exchange) -> None:
    """``parse_response`` reads a whole body (also the no-``alt=sse`` JSON array, QUIRKS A10)
    as the chunks say; the client takes the same body from the wire."""
    exp = expected_gemini(chunks_of(exchange))
    msg = llmkit.parse_response(model_for(exchange), exchange.body)
    assert (msg.text, msg.thinking) == (exp.text, exp.thinking)
    assert [(c.name, c.arguments) for c in msg.tool_calls] == [(e.name, e.args) for e in exp.calls]
    assert signatures_of(msg) == exp.signatures
    assert msg.stop_reason == expected_stop(exp) and msg.raw_stop_reason == exp.finish
    assert msg.response_id == exp.response_id
    assert msg.usage.input == (exp.usage or {}).get("promptTokenCount")
    kinds = {d.details.get("part") for d in msg.diagnostics if d.kind == "event_unknown"}
    assert exp.unknown_parts <= kinds

    over_wire = _complete(exchange)
    assert over_wire.model_dump(exclude={"diagnostics"}) == msg.model_dump(exclude={"diagnostics"})


def _transport(exchange: Exchange, seen: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(exchange.status, headers=exchange.headers, content=exchange.body)

    return httpx.MockTransport(handler)


def _complete(exchange: Exchange, seen: list[httpx.Request] | None = None) -> Any:
    seen = [] if seen is None else seen
    with httpx.Client(transport=_transport(exchange, seen)) as client:
        return llmkit.complete(
            model_for(exchange),
            llmkit.Context(messages=[llmkit.user("hi")]),
            api_key="test-key",
            client=client,
            max_retries=2,
        )


@pytest.mark.parametrize("exchange", ERRORS)
def test_recorded_errors_are_typed_and_not_retried(exchange: Exchange) -> None:
    """Gemini's 404 (with ``Content-Type: text/event-stream`` on an ``alt=sse`` request) and
    400 ``API_KEY_INVALID`` come back as typed errors carrying Google's status and message."""
    seen: list[httpx.Request] = []
    body = json.loads(exchange.body)["error"]
    with pytest.raises(llmkit.APIError) as info:
        _complete(exchange, seen)
    assert len(seen) == 1  # 4xx other than 408/409/429 are never retried
    err = info.value
    assert err.status == exchange.status and err.code == body["status"]
    assert body["message"] in str(err)
    if exchange.status == 404:
        assert isinstance(err, llmkit.NotFoundError)
    assert "test-key" not in str(err)


def test_invalid_api_key_is_an_authentication_error() -> None:
    # Gemini answers a bad key with HTTP 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
    (exchange,) = [p.values[0] for p in ERRORS if p.values[0].status == 400]
    with pytest.raises(llmkit.AuthenticationError):
        _complete(exchange)


def test_corpus_is_not_empty() -> None:
    # A path mistake must not silently collect zero cases.
    assert len(corpus_files("gemini")) == 16
    assert len(STREAMS) >= 15 and len(BODIES) >= 5 and len(ERRORS) == 3
