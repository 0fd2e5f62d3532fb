"""Fuzzing the stream side with hypothesis: bytes no server should send, in any chunks.

Three generators, one set of properties:

* **Mutated real streams.** Every recorded 200 ``text/event-stream`` body of each wire API in
  ``tests/fixtures`` (``openai-compatible/`` counts as ``openai-chat``), with hypothesis-drawn
  mutations: whole SSE events deleted, duplicated or swapped; a JSON value inside a ``data:``
  payload replaced by a value of another type, a key dropped, a string made huge (bounded);
  non-JSON ``data:`` lines injected; bytes flipped or inserted; line breaks swapped between
  CR, LF and CRLF; the body truncated at any byte.
* **Random streams.** Plausible-but-random events in each wire's shapes (block/item/choice
  structure, random ids, indexes, names, finish reasons, usage, argument fragments, field
  types), interleaved in random orders, then mutated the same way.
* **The SSE decoder alone.** Random bytes rich in SSE syntax must decode, in any chunking
  (empty chunks included), exactly as an independent WHATWG reading does; the only exception
  allowed is ``EventTooLarge``.

Properties checked on every stream (:func:`check_stream`): ``parse_stream`` never raises; the
event contract holds (``check_contract`` from the conformance suite when no two blocks were
open at once, else the per-part version :func:`check_events`, see there why); exactly one
terminal event, last, ``ErrorEvent`` iff ``stop_reason`` is ``error``/``aborted``; every tool call
has a non-empty id, unique in the message, and a status in the closed set; ids are the same in
every event and the message; the same bytes in one chunk give the same events and message; the
message round-trips through JSON and is transcript-valid (``build_request`` to the same model).

Sizing: the number of examples per test is ``LLMKIT_FUZZ_EXAMPLES`` when set, else a CI-sized
count scaled by the active hypothesis profile (x20 under ``HYPOTHESIS_PROFILE=long``).  See
``docs/fuzzing.md``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import random
import re
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmkit
from llmkit._fake.http_server import ENCODERS
from llmkit._sse import EventTooLarge, SSEDecoder
from tests.support.contract import check_contract
from tests.support.corpus import CorpusSkip, corpus_files, load_exchanges, rechunk
from tests.support.eventstream import CONTENT_TYPE, bedrock_event, bedrock_exception, split_messages
from tests.support.fuzzing import fuzz
from tests.wire.openai_chat.corpus_checks import model_for as chat_model_for

WIRES = sorted(ENCODERS)


# --------------------------------------------------------------------------- budget


# --------------------------------------------------------------------------- models and corpus

MODELS: dict[str, list[llmkit.Model]] = {
    "openai-chat": [
        llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat", input=["text", "image"]),
        llmkit.get_model("mistral", "mistral-large-4"),
        llmkit.get_model("deepseek", "deepseek-v4-pro"),
        llmkit.Model(
            provider="vllm", id="qwen3", api="openai-chat", base_url="http://127.0.0.1:8000/v1"
        ),
    ],
    "openai-responses": [
        llmkit.Model(
            provider="openai",
            id="gpt-5",
            api="openai-responses",
            reasoning=True,
            input=["text", "image"],
        )
    ],
    "anthropic-messages": [
        llmkit.Model(
            provider="anthropic",
            id="claude-sonnet-4-5",
            api="anthropic-messages",
            reasoning=True,
            max_output_tokens=64000,
            input=["text", "image"],
        )
    ],
    "gemini": [
        llmkit.Model(
            provider="google",
            id="gemini-2.5-flash",
            api="gemini",
            reasoning=True,
            input=["text", "image"],
        ),
        llmkit.Model(provider="google", id="gemini-3-pro-preview", api="gemini", reasoning=True),
    ],
    "bedrock-converse": [
        llmkit.Model(
            provider="bedrock",
            id="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            api="bedrock-converse",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
            reasoning=True,
            input=["text", "image"],
        ),
        llmkit.Model(
            provider="bedrock",
            id="us.amazon.nova-2-lite-v1:0",
            api="bedrock-converse",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
        ),
    ],
}
EVENT_STREAM = "bedrock-converse"  # binary messages, not SSE: mutated message by message
CORPUS_DIRS = {
    "openai-chat": ("openai-chat", "openai-compatible"),
    "openai-responses": ("openai-responses",),
    "anthropic-messages": ("anthropic-messages",),
    "gemini": ("gemini",),
    "bedrock-converse": ("bedrock-converse",),
}


@cache
def recorded(wire: str) -> tuple[tuple[llmkit.Model, bytes], ...]:
    """Every recorded 200 SSE body of ``wire``, with the model a caller would have used."""
    out = []
    for path in corpus_files(*CORPUS_DIRS[wire]):
        try:
            exchanges = load_exchanges(path)
        except CorpusSkip:
            continue
        for ex in exchanges:
            streamed = ex.content_type == CONTENT_TYPE if wire == EVENT_STREAM else ex.is_sse
            if ex.status == 200 and streamed:
                model = chat_model_for(ex) if wire == "openai-chat" else MODELS[wire][0]
                out.append((model, ex.body))
    return tuple(out)


def test_every_wire_has_recorded_streams_to_mutate() -> None:
    assert set(MODELS) == set(WIRES) == set(CORPUS_DIRS)
    for wire in WIRES:
        # the Bedrock corpus is 7 streamed exchanges (tests/fixtures/bedrock-converse)
        assert len(recorded(wire)) >= (7 if wire == EVENT_STREAM else 15), wire


# --------------------------------------------------------------------------- the properties

_KINDS: dict[str, type] = {
    "text": llmkit.TextPart,
    "thinking": llmkit.ThinkingPart,
    "tool_call": llmkit.ToolCall,
}
_STATUSES = ("complete", "recovered", "invalid")


def _family(event: Any) -> str:
    name = type(event).__name__
    if name.startswith("Text"):
        return "text"
    if name.startswith("Thinking"):
        return "thinking"
    return "tool_call"


def check_events(events: list[Any]) -> tuple[llmkit.AssistantMessage, bool]:
    """The event contract, part by part; returns the message and whether blocks interleaved.

    ``check_contract`` (test_conformance.py) compares the concatenation of *all* text deltas
    with ``message.text``. That only holds when text blocks never overlap: Anthropic blocks
    and Responses output items are keyed by index, and when two are open at once (garbage
    input does that, and so may a real server) their deltas interleave in event order while
    ``message.text`` joins the parts in content order. So this version checks each part
    against its own deltas (stricter per part, equal when blocks do not interleave), plus ids
    and names in every event, and the terminal rules.
    """
    assert events, "parse_stream yielded nothing"
    assert isinstance(events[0], llmkit.Start)
    terminal = [e for e in events if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
    assert len(terminal) == 1, f"{len(terminal)} terminal events"
    assert events[-1] is terminal[0], "the terminal event is not last"
    message = terminal[0].message
    assert isinstance(message, llmkit.AssistantMessage)
    failed = message.stop_reason in ("error", "aborted")
    assert isinstance(terminal[0], llmkit.ErrorEvent) == failed, message.stop_reason
    if failed:
        assert isinstance(message.error, str) and message.error
    state: dict[int, str] = {}
    open_now: set[int] = set()
    interleaved = False
    deltas: dict[int, list[str]] = defaultdict(list)
    for event in events:
        index = event.index
        if index is None:
            continue
        name = type(event).__name__
        assert 0 <= index < len(message.content), f"{name} index {index} outside the content"
        part = message.content[index]
        assert isinstance(part, _KINDS[_family(event)]), f"{name} for a {type(part).__name__}"
        if name.endswith("Start"):
            assert index not in state, f"{name} twice for index {index}"
            assert index == len(state), "indexes are handed out in order"
            state[index] = "open"
            interleaved = interleaved or bool(open_now)
            open_now.add(index)
            if isinstance(event, llmkit.ToolCallStart):
                assert event.id == part.id, "ToolCallStart id differs from the final call's"
                assert event.name == part.name or not event.name
        elif name.endswith("End"):
            assert state.get(index) == "open", f"{name} without an open block"
            state[index] = "closed"
            open_now.discard(index)
            if isinstance(event, llmkit.TextEnd):
                assert event.text == part.text
            elif isinstance(event, llmkit.ThinkingEnd):
                assert event.thinking == part.thinking
            else:
                assert event.tool_call.id == part.id
                assert event.tool_call.name == part.name
                assert event.tool_call.raw_arguments == part.raw_arguments
        else:
            assert state.get(index) == "open", f"{name} outside its block"
            if isinstance(event, llmkit.ToolCallDelta):
                assert event.id == part.id, "ToolCallDelta id differs from the final call's"
                partial = event.partial_arguments  # lazily parsed: must never raise
                json.dumps(partial)
                deltas[index].append(event.arguments_delta)
            else:
                deltas[index].append(event.delta)
    assert all(s == "closed" for s in state.values()), "every block ends"
    assert len(state) == len(message.content), "every part was announced by events"
    for index, part in enumerate(message.content):
        joined = "".join(deltas[index])
        if isinstance(part, llmkit.TextPart):
            assert joined == part.text
        elif isinstance(part, llmkit.ThinkingPart):
            assert joined == part.thinking
        else:
            assert joined == part.raw_arguments
    return message, interleaved


def check_message(model: llmkit.Model, message: llmkit.AssistantMessage) -> None:
    """Tool-call ids and statuses, the JSON round trip, and transcript validity."""
    ids = [c.id for c in message.tool_calls]
    for call in message.tool_calls:
        assert isinstance(call.id, str) and call.id, f"empty tool call id: {call!r}"
        assert call.status in _STATUSES
        assert isinstance(call.arguments, dict)
    assert len(set(ids)) == len(ids), f"duplicate tool call ids: {ids}"
    # the message is built without validation (model_construct): every field must still have
    # its declared type, or serialising it warns and the JSON round trip fails
    for field in ("raw_stop_reason", "provider", "api", "model", "response_id", "error"):
        value = getattr(message, field)
        assert value is None or isinstance(value, str), f"{field} is {value!r}"
    for count in ("input", "output", "cache_read", "cache_write", "reasoning"):
        value = getattr(message.usage, count)
        assert value is None or type(value) is int, f"usage.{count} is {value!r}"
    dumped = message.model_dump_json()
    assert llmkit.AssistantMessage.model_validate_json(dumped) == message
    results = [llmkit.tool_result(c, "ok") for c in message.tool_calls]
    context = llmkit.Context(messages=[llmkit.user("Go on."), message, *results])
    request = llmkit.build_request(model, context, api_key="k")
    assert isinstance(json.loads(request.content), dict)
    # and with the calls left unanswered (the builder answers them itself)
    context = llmkit.Context(messages=[llmkit.user("Go on."), message, llmkit.user("Next.")])
    json.loads(llmkit.build_request(model, context, api_key="k").content)


def check_stream(model: llmkit.Model, body: bytes, chunks: list[bytes]) -> llmkit.AssistantMessage:
    """Every property of this file, for one body cut into ``chunks``."""
    assert b"".join(chunks) == body
    events = list(llmkit.parse_stream(model, iter(chunks)))  # never raises
    message, interleaved = check_events(events)
    if not interleaved:
        check_contract(events)  # the conformance suite's own check, where it applies
    whole = list(llmkit.parse_stream(model, [body]))
    assert [type(e) for e in whole] == [type(e) for e in events], "chunking changed the events"
    assert [getattr(e, "id", None) for e in whole] == [getattr(e, "id", None) for e in events]
    check_message(model, message)
    assert whole[-1].message == message, "chunking changed the message"  # type: ignore[union-attr]
    return message


# --------------------------------------------------------------------------- SSE surgery

_BREAK = re.compile(rb"\r\n|\r|\n")
_SEPARATOR = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")


def split_events(body: bytes) -> tuple[list[bytes], bytes]:
    """The SSE events of ``body`` (raw, without their blank-line separator) and the line
    break the body uses."""
    first = _BREAK.search(body)
    newline = first.group() if first else b"\n"
    return [e for e in _SEPARATOR.split(body) if e], newline


def join_events(events: list[bytes], newline: bytes) -> bytes:
    return b"".join(e + newline + newline for e in events)


class _Raw:
    """The text of a ``data:`` payload that is not JSON."""

    def __init__(self, text: bytes) -> None:
        self.text = text


def _payload(event: bytes) -> tuple[list[bytes], int, Any]:
    """An event's lines (its data lines folded into the first), the position of that line
    (-1: none) and the data parsed as JSON (:class:`_Raw` when it is not JSON)."""
    lines = _BREAK.split(event)
    data = [i for i, line in enumerate(lines) if line.startswith(b"data")]
    if not data:
        return lines, -1, None
    text = b"\n".join(lines[i].partition(b":")[2].removeprefix(b" ") for i in data)
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = _Raw(text)
    return [line for i, line in enumerate(lines) if i not in data[1:]], data[0], value


def _with_payload(lines: list[bytes], at: int, value: Any, newline: bytes) -> bytes:
    text = value.text if isinstance(value, _Raw) else json.dumps(value, ensure_ascii=False).encode()
    lines = list(lines)
    lines[at] = b"data: " + text
    return newline.join(lines)


def _locate(root: Any, path: list[int]) -> tuple[Any, Any]:
    """Walk ``root`` by ``path`` (each step picks a key or element modulo the size); returns
    the container and key of the node reached (``(None, None)`` for the root itself)."""
    parent: Any = None
    key: Any = None
    node = root
    for step in path:
        if isinstance(node, dict) and node:
            k: Any = list(node)[step % len(node)]
        elif isinstance(node, list) and node:
            k = step % len(node)
        else:
            break
        parent, key, node = node, k, node[k]
    return parent, key


def _replace(root: Any, path: list[int], new: Any) -> Any:
    parent, key = _locate(root, path)
    if parent is None:
        return new
    parent[key] = new
    return root


def _drop(root: Any, path: list[int]) -> Any:
    parent, key = _locate(root, path)
    if isinstance(parent, dict):
        del parent[key]
    elif isinstance(parent, list):
        parent.pop(key)
    return root


def _string_at(root: Any, path: list[int], size: int, char: str) -> Any:
    return _replace(root, path, (char * size)[:size])


def apply_event_op(events: list[bytes], op: tuple[Any, ...], newline: bytes) -> list[bytes]:
    kind = op[0]
    if kind == "inject":  # a non-JSON (or odd) data line as an event of its own
        at = op[1] % (len(events) + 1)
        return [*events[:at], op[2], *events[at:]]
    if not events:
        return events
    i = op[1] % len(events)
    if kind == "delete":
        return events[:i] + events[i + 1 :]
    if kind == "duplicate":
        return events[: i + 1] + events[i:]
    if kind == "swap":
        j = op[2] % len(events)
        events = list(events)
        events[i], events[j] = events[j], events[i]
        return events
    lines, at, value = _payload(events[i])
    if at < 0:
        return events
    if isinstance(value, _Raw):
        value = value.text.decode("utf-8", "replace")  # mutate non-JSON data as a string
    if kind == "retype":
        value = _replace(value, op[2], op[3])
    elif kind == "drop":
        value = _drop(value, op[2])
    elif kind == "huge":
        value = _string_at(value, op[2], op[3], op[4])
    else:  # pragma: no cover - the strategies produce only the kinds above
        raise AssertionError(kind)
    events = list(events)
    events[i] = _with_payload(lines, at, value, newline)
    return events


def apply_byte_op(body: bytes, op: tuple[Any, ...]) -> bytes:
    kind = op[0]
    if kind == "truncate":
        return body[: op[1] % (len(body) + 1)]
    if kind == "flip":
        if not body:
            return body
        i = op[1] % len(body)
        return body[:i] + bytes([body[i] ^ op[2]]) + body[i + 1 :]
    if kind == "insert":
        i = op[1] % (len(body) + 1)
        return body[:i] + op[2] + body[i:]
    if kind == "eol_all":
        return _BREAK.sub(op[1], body)
    if kind == "eol_one":
        breaks = list(_BREAK.finditer(body))
        if not breaks:
            return body
        m = breaks[op[1] % len(breaks)]
        return body[: m.start()] + op[2] + body[m.end() :]
    raise AssertionError(kind)  # pragma: no cover


# --------------------------------------------------------------------------- strategies

INDEX = st.integers(min_value=0, max_value=1 << 16)
PATH = st.lists(INDEX, max_size=6)
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list('{}[]":,\\ \n\r\u2028é😀日')),
    ),
    max_size=16,
)
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(1 << 53), max_value=1 << 53),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON_ANY = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
NEWLINES = st.sampled_from([b"\n", b"\r\n", b"\r"])
GARBAGE_EVENTS = st.one_of(
    st.sampled_from(
        [
            b"data: not json",
            b"data: {",
            b'data: {"a": ',
            b"data: [DONE]",
            b"data: null",
            b"data: 42",
            b'data: "text"',
            b"data: []",
            b"data:",
            b"data",
            b": keep-alive",
            b"event: error",
            b"event: error\ndata: {}",
            b"event: ping\ndata: {}",
            b"retry: 10",
            b"id: 7",
            b"data: \xff\xfe\xc3",
        ]
    ),
    st.binary(max_size=24).map(lambda b: b"data: " + b),
    TEXT.map(lambda t: b"data: " + t.encode()),
)
EVENT_OPS = st.one_of(
    st.tuples(st.just("delete"), INDEX),
    st.tuples(st.just("duplicate"), INDEX),
    st.tuples(st.just("swap"), INDEX, INDEX),
    st.tuples(st.just("retype"), INDEX, PATH, JSON_ANY),
    st.tuples(st.just("drop"), INDEX, st.lists(INDEX, min_size=1, max_size=6)),
    st.tuples(st.just("inject"), INDEX, GARBAGE_EVENTS),
    st.tuples(
        st.just("huge"),
        INDEX,
        PATH,
        st.integers(min_value=1_000, max_value=200_000),
        st.sampled_from(["a", '"', "\\", "é", "😀", "{", " "]),
    ),
)
BYTE_OPS = st.one_of(
    st.tuples(st.just("truncate"), st.integers(min_value=0)),
    st.tuples(st.just("flip"), st.integers(min_value=0), st.integers(min_value=1, max_value=255)),
    st.tuples(st.just("insert"), st.integers(min_value=0), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("eol_all"), NEWLINES),
    st.tuples(st.just("eol_one"), st.integers(min_value=0), NEWLINES),
)


CHUNKING = st.tuples(st.integers(min_value=0, max_value=1 << 32), st.sampled_from([0, 0, 0, 1]))


def chunked(body: bytes, how: tuple[int, int]) -> list[bytes]:
    """``body`` as network chunks: tests/support/corpus.rechunk with the drawn seed, and with an
    empty chunk after every piece when the second number is 1."""
    pieces = rechunk(body, random.Random(how[0]))
    if how[1]:
        pieces = [p for piece in pieces for p in (piece, b"")]
    return pieces or [b""]


def mutate(draw: Callable[..., Any], body: bytes, max_ops: int = 6) -> bytes:
    """``body`` after drawn event-level operations, then byte-level ones."""
    events, newline = split_events(body)
    for op in draw(st.lists(EVENT_OPS, max_size=max_ops), label="event ops"):
        events = apply_event_op(events, op, newline)
    out = join_events(events, newline)
    for op in draw(st.lists(BYTE_OPS, max_size=3), label="byte ops"):
        out = apply_byte_op(out, op)
    return out


def mutate_messages(draw: Callable[..., Any], body: bytes, max_ops: int = 6) -> bytes:
    """An event-stream body after drawn message-level operations (the same ops as SSE events:
    delete, duplicate, swap, a JSON value retyped, a key dropped, a huge string, a garbage
    message injected; each message re-framed with valid CRCs, so the JSON is what is fuzzed),
    then byte-level ones on the binary (truncation anywhere, flips and inserts: CRC errors)."""
    messages = [bedrock_event(h.get(":event-type", ""), p) for h, p in split_messages(body)]
    for op in draw(st.lists(EVENT_OPS, max_size=max_ops), label="message ops"):
        kind = op[0]
        if kind == "inject":
            at = op[1] % (len(messages) + 1)
            name = draw(st.sampled_from(["contentBlockDelta", "metadata", "messageStop", "x"]))
            messages.insert(at, bedrock_event(name, op[2]))
        elif kind in ("delete", "duplicate", "swap"):
            messages = [m[6:] for m in apply_event_op([b"data: " + m for m in messages], op, b"\n")]
        elif messages:
            i = op[1] % len(messages)
            [(headers, payload)] = split_messages(messages[i])
            event = b"data: " + payload
            [mutated] = apply_event_op([event], (op[0], 0, *op[2:]), b"\n")
            messages[i] = bedrock_event(headers[":event-type"], mutated.partition(b"data: ")[2])
    out = b"".join(messages)
    for op in draw(st.lists(BYTE_OPS, max_size=3), label="byte ops"):
        if op[0] in ("truncate", "flip", "insert"):
            out = apply_byte_op(out, op)
    return out


def mutate_for(wire: str) -> Callable[..., bytes]:
    return mutate_messages if wire == EVENT_STREAM else mutate


# --------------------------------------------------------------------------- mutated real streams


@pytest.mark.parametrize("wire", WIRES)
@fuzz(ci=60)
@given(data=st.data())
def test_mutated_recorded_streams(wire: str, data: st.DataObject) -> None:
    streams = recorded(wire)
    model, original = streams[data.draw(st.integers(0, len(streams) - 1), label="recording")]
    body = mutate_for(wire)(data.draw, original)
    check_stream(model, body, chunked(body, data.draw(CHUNKING, label="chunking")))


# --------------------------------------------------------------------------- random streams


def odd(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly ``strategy``; sometimes any JSON value (a field of the wrong type)."""
    return st.one_of(strategy, strategy, strategy, strategy, JSON_ANY)


IDS = st.one_of(
    st.none(),
    st.just(""),
    st.sampled_from(["call_1", "call_1", "toolu_01A", "functions.get_weather:0", "0", "a1b2c3d4e"]),
    st.text(min_size=1, max_size=12),
)
NAMES = st.one_of(st.sampled_from(["get_weather", "get_time", "search", ""]), st.text(max_size=8))
B64 = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode())
COUNT = st.integers(min_value=0, max_value=1 << 20)


@st.composite
def fragments(draw: st.DrawFn) -> list[str]:
    """Tool arguments as the pieces a server streams: whole JSON, cut short, or not JSON."""
    value = draw(st.dictionaries(st.text(max_size=6), JSON_ANY, max_size=4))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    mode = draw(st.sampled_from(["whole", "whole", "cut", "garbage", "empty"]))
    if mode == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif mode == "garbage":
        text = draw(TEXT)
    elif mode == "empty":
        text = ""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def interleave(draw: st.DrawFn, tracks: list[list[Any]]) -> list[Any]:
    """Merge ``tracks`` in a drawn order, keeping each track's own order."""
    tracks = [list(t) for t in tracks if t]
    out: list[Any] = []
    while tracks:
        i = draw(st.integers(0, len(tracks) - 1))
        out.append(tracks[i].pop(0))
        if not tracks[i]:
            tracks.pop(i)
    return out


def shuffled(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """The same keys in a drawn order (some decoders walk keys in order)."""
    return dict(draw(st.permutations(list(obj.items()))))


def sse(events: list[tuple[str | None, Any]], newline: bytes = b"\n") -> bytes:
    """SSE framing: an ``event:`` line when a name is given, one ``data:`` line (JSON unless
    already text), a blank line."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        head = f"event: {name}{newline.decode()}" if name is not None else ""
        out.append(f"{head}data: {text}".encode() + newline + newline)
    return b"".join(out)


@st.composite
def chat_stream(draw: st.DrawFn) -> bytes:
    """Chat Completions chunks: text, reasoning (each field name), refusal, Mistral's typed
    parts, OpenRouter's reasoning_details and tool calls (indexed or not, ids repeated, blank
    or changing, arguments as text fragments or an object) interleaved; a finish chunk, usage,
    an in-stream error, ``[DONE]`` none/once/twice."""
    rid = draw(odd(st.sampled_from(["chatcmpl-1", "", "gen-9"])))

    def chunk(delta: dict[str, Any], finish: Any = None, **extra: Any) -> dict[str, Any]:
        choice: dict[str, Any] = {
            "index": draw(odd(st.just(0))),
            "delta": draw(odd(st.just(delta))),
        }
        if finish is not None or draw(st.booleans()):
            choice["finish_reason"] = finish
        return shuffled(
            draw, {"id": rid, "object": "chat.completion.chunk", "choices": [choice], **extra}
        )

    tracks: list[list[Any]] = []
    for kind in draw(
        st.lists(
            st.sampled_from(["text", "reasoning", "tool", "refusal", "parts", "details"]),
            max_size=5,
        )
    ):
        if kind == "text":
            tracks.append(
                [chunk({"content": draw(odd(TEXT))}) for _ in range(draw(st.integers(1, 4)))]
            )
        elif kind == "reasoning":
            field = draw(st.sampled_from(["reasoning_content", "reasoning", "reasoning_text"]))
            tracks.append([chunk({field: draw(odd(TEXT))}) for _ in range(draw(st.integers(1, 3)))])
        elif kind == "refusal":
            tracks.append([chunk({"refusal": draw(odd(TEXT))})])
        elif kind == "parts":
            parts = [
                {"type": "text", "text": draw(TEXT)},
                {"type": "thinking", "thinking": [{"type": "text", "text": draw(TEXT)}]},
            ]
            tracks.append([chunk({"content": draw(st.permutations(parts))})])
        elif kind == "details":
            detail = {
                "type": "reasoning.text",
                "text": draw(TEXT),
                "index": draw(odd(st.just(0))),
                "signature": draw(odd(B64)),
            }
            tracks.append([chunk({"reasoning_details": [detail]})])
        else:
            index = draw(st.one_of(st.none(), st.integers(0, 3), JSON_ANY))
            call_id, name = draw(IDS), draw(NAMES)
            pieces = draw(fragments())
            track = []
            for n, piece in enumerate(pieces or [""]):
                entry: dict[str, Any] = {"function": {"arguments": piece}}
                if index is not None:
                    entry["index"] = index
                if n == 0 or draw(st.booleans()):
                    entry["id"] = call_id if n == 0 else draw(st.sampled_from([call_id, "", None]))
                    entry["type"] = "function"
                    entry["function"]["name"] = (
                        name if n == 0 else draw(st.sampled_from([name, ""]))
                    )
                if n == 0 and draw(st.booleans()) and pieces:
                    with contextlib.suppress(ValueError):  # arguments as an object (D2)
                        entry["function"]["arguments"] = json.loads("".join(pieces))
                track.append(chunk({"tool_calls": draw(odd(st.just([shuffled(draw, entry)])))}))
            tracks.append(track)
    events = interleave(draw, tracks)
    finish = draw(
        odd(
            st.sampled_from(
                [
                    "stop",
                    "length",
                    "tool_calls",
                    "content_filter",
                    "function_call",
                    "error",
                    "eos",
                    "weird",
                ]
            )
        )
    )
    if draw(st.booleans()):
        events.append(chunk({}, finish=finish))
    if draw(st.booleans()):
        usage = {
            "prompt_tokens": draw(odd(COUNT)),
            "completion_tokens": draw(odd(COUNT)),
            "total_tokens": draw(odd(COUNT)),
            "prompt_tokens_details": draw(
                odd(st.fixed_dictionaries({"cached_tokens": odd(COUNT)}))
            ),
            "completion_tokens_details": draw(
                odd(st.fixed_dictionaries({"reasoning_tokens": odd(COUNT)}))
            ),
        }
        events.append({"id": rid, "choices": [], "usage": shuffled(draw, usage)})
    if draw(st.integers(0, 9)) == 0:
        events.append({"error": {"message": draw(TEXT), "code": draw(odd(COUNT))}})
    tail = draw(st.sampled_from(["done", "done", "none", "twice"]))
    body = [(None, e) for e in events]
    if tail != "none":
        body.append((None, "[DONE]"))
    if tail == "twice":
        body.append((None, "[DONE]"))
    return sse(body, draw(NEWLINES))


ANTHROPIC_BLOCKS = (
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "web_search_tool_result",
    "mystery",
)


@st.composite
def anthropic_stream(draw: st.DrawFn) -> bytes:
    """Anthropic events: ``message_start``; content blocks of every type (text, thinking with
    signature deltas, redacted, tool_use and server blocks with input_json fragments, unknown
    ones) at drawn indexes, interleaved, some never stopped; pings; ``message_delta``;
    ``message_stop``, an ``error`` event or nothing. ``event:`` names sometimes missing or
    wrong."""
    message = {
        "id": draw(odd(st.sampled_from(["msg_01", ""]))),
        "type": "message",
        "role": "assistant",
        "content": draw(odd(st.just([]))),
        "model": "claude-x",
        "stop_reason": None,
        "usage": {"input_tokens": draw(odd(COUNT)), "output_tokens": draw(odd(COUNT))},
    }
    head = [("message_start", {"type": "message_start", "message": shuffled(draw, message)})]
    tracks = []
    blocks = draw(st.lists(st.sampled_from(ANTHROPIC_BLOCKS), max_size=5))
    for n, kind in enumerate(blocks):
        index = draw(st.one_of(st.just(n), st.just(n), st.integers(0, 4), JSON_ANY))
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": draw(odd(TEXT))}
                for _ in range(draw(st.integers(0, 3)))
            ]
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": draw(odd(TEXT))}
                for _ in range(draw(st.integers(0, 3)))
            ]
            deltas.append({"type": "signature_delta", "signature": draw(odd(B64))})
        elif kind == "redacted_thinking":
            block = {"type": "redacted_thinking", "data": draw(odd(B64))}
        elif kind in ("tool_use", "server_tool_use"):
            block = {
                "type": kind,
                "id": draw(odd(IDS)),
                "name": draw(odd(NAMES)),
                "input": draw(odd(st.just({}))),
            }
            deltas = [
                {"type": "input_json_delta", "partial_json": draw(odd(st.just(p)))}
                for p in ["", *draw(fragments())]
            ]
        elif kind == "web_search_tool_result":
            block = {"type": kind, "tool_use_id": draw(IDS), "content": draw(JSON_ANY)}
        else:
            block = {"type": draw(st.sampled_from(["mystery", "citations"])), "x": draw(JSON_ANY)}
            deltas = [{"type": "citations_delta", "citation": draw(JSON_ANY)}]
        track = [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": draw(odd(st.just(shuffled(draw, block)))),
                },
            )
        ]
        track += [
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": draw(odd(st.just(d)))},
            )
            for d in deltas
        ]
        if draw(st.integers(0, 5)):
            track.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        tracks.append(track)
    events = head + interleave(draw, tracks)
    for _ in range(draw(st.integers(0, 2))):
        events.insert(draw(st.integers(0, len(events))), ("ping", {"type": "ping"}))
    if draw(st.booleans()):
        reason = draw(
            odd(
                st.sampled_from(
                    [
                        "end_turn",
                        "tool_use",
                        "max_tokens",
                        "stop_sequence",
                        "refusal",
                        "pause_turn",
                        "weird",
                    ]
                )
            )
        )
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reason, "stop_sequence": draw(odd(st.none()))},
                    "usage": {"output_tokens": draw(odd(COUNT))},
                },
            )
        )
    ending = draw(st.sampled_from(["stop", "stop", "none", "error", "stop_done"]))
    if ending == "error":
        events.append(
            (
                "error",
                {"type": "error", "error": {"type": "overloaded_error", "message": draw(TEXT)}},
            )
        )
    elif ending.startswith("stop"):
        events.append(("message_stop", {"type": "message_stop"}))
        if ending == "stop_done":
            events.append((None, "[DONE]"))
    named = [
        (draw(st.sampled_from([name, name, name, None, "mystery"])), data) for name, data in events
    ]
    return sse(named, draw(NEWLINES))


RESPONSES_ITEMS = ("message", "reasoning", "function_call", "custom_tool_call", "web_search_call")


@st.composite
def responses_stream(draw: st.DrawFn) -> bytes:
    """Responses events: ``response.created``; output items (message, reasoning, function and
    custom tool calls, an ignored web search) with their added/delta/done events at drawn
    output indexes and item ids, interleaved; a terminal completed/incomplete/failed/error
    event or none, whose ``output`` back-fills the items."""
    rid = draw(odd(st.sampled_from(["resp_1", ""])))
    response = {"id": rid, "object": "response", "status": "in_progress", "output": []}
    head = [{"type": "response.created", "response": response}]
    tracks = []
    finals: list[Any] = []
    for n, kind in enumerate(draw(st.lists(st.sampled_from(RESPONSES_ITEMS), max_size=4))):
        index = draw(st.one_of(st.just(n), st.just(n), st.integers(0, 4), JSON_ANY))
        item_id = draw(odd(st.sampled_from([f"it_{n}", "it_0", ""])))
        base = {"type": kind, "id": item_id}
        track: list[dict[str, Any]] = []
        where = {"output_index": index, "item_id": item_id}
        if kind == "message":
            texts = [draw(TEXT) for _ in range(draw(st.integers(0, 3)))]
            seg = draw(st.sampled_from(["output_text", "refusal"]))
            added = {**base, "role": "assistant", "content": [], "phase": draw(odd(st.none()))}
            track.append({"type": "response.output_item.added", **where, "item": added})
            track.append(
                {
                    "type": "response.content_part.added",
                    **where,
                    "content_index": 0,
                    "part": {"type": seg, "text": ""},
                }
            )
            track += [
                {
                    "type": f"response.{seg}.delta",
                    **where,
                    "content_index": draw(odd(st.just(0))),
                    "delta": draw(odd(st.just(t))),
                }
                for t in texts
            ]
            full = "".join(texts) + draw(st.sampled_from(["", "", "tail"]))
            key = "text" if seg == "output_text" else "refusal"
            track.append(
                {
                    "type": f"response.{seg}.done",
                    **where,
                    "content_index": 0,
                    key: draw(odd(st.just(full))),
                }
            )
            done = {**base, "role": "assistant", "content": [{"type": seg, key: full}]}
        elif kind == "reasoning":
            parts = [draw(TEXT) for _ in range(draw(st.integers(0, 3)))]
            track.append(
                {"type": "response.output_item.added", **where, "item": {**base, "summary": []}}
            )
            track += [
                {
                    "type": "response.reasoning_summary_text.delta",
                    **where,
                    "summary_index": draw(odd(st.integers(0, 1))),
                    "delta": p,
                }
                for p in parts
            ]
            done = {
                **base,
                "summary": [{"type": "summary_text", "text": "".join(parts)}],
                "encrypted_content": draw(odd(B64)),
            }
        elif kind in ("function_call", "custom_tool_call"):
            pieces = draw(fragments())
            key = "arguments" if kind == "function_call" else "input"
            call = {**base, "call_id": draw(odd(IDS)), "name": draw(odd(NAMES)), key: ""}
            track.append(
                {"type": "response.output_item.added", **where, "item": shuffled(draw, call)}
            )
            event = (
                "function_call_arguments" if kind == "function_call" else "custom_tool_call_input"
            )
            track += [{"type": f"response.{event}.delta", **where, "delta": p} for p in pieces]
            track.append(
                {
                    "type": f"response.{event}.done",
                    **where,
                    key: draw(odd(st.just("".join(pieces)))),
                }
            )
            done = {**call, key: "".join(pieces)}
        else:
            done = {**base, "status": "completed"}
            track.append({"type": "response.output_item.added", **where, "item": done})
            track.append({"type": "response.web_search_call.completed", **where})
        if draw(st.integers(0, 5)):
            track.append(
                {"type": "response.output_item.done", **where, "item": draw(odd(st.just(done)))}
            )
        finals.append(done)
        tracks.append(track)
    events = head + interleave(draw, tracks)
    end = draw(st.sampled_from(["completed", "completed", "incomplete", "failed", "error", "none"]))
    usage = {
        "input_tokens": draw(odd(COUNT)),
        "output_tokens": draw(odd(COUNT)),
        "input_tokens_details": draw(odd(st.fixed_dictionaries({"cached_tokens": odd(COUNT)}))),
        "output_tokens_details": draw(odd(st.just({"reasoning_tokens": 1}))),
    }
    final = {
        **response,
        "status": draw(odd(st.just(end))),
        "output": draw(odd(st.just(finals))),
        "usage": draw(odd(st.just(usage))),
    }
    if end == "incomplete":
        final["incomplete_details"] = {
            "reason": draw(odd(st.sampled_from(["max_output_tokens", "content_filter", "weird"])))
        }
    if end == "failed":
        final["error"] = draw(odd(st.just({"code": "server_error", "message": "boom"})))
    if end == "error":
        events.append({"type": "error", "code": draw(odd(st.just("x"))), "message": draw(TEXT)})
    elif end != "none":
        events.append({"type": f"response.{end}", "response": shuffled(draw, final)})
    named = [
        (draw(st.sampled_from([e["type"], e["type"], None, "mystery"])), shuffled(draw, e))
        for e in events
    ]
    return sse(named, draw(NEWLINES))


@st.composite
def gemini_part(draw: st.DrawFn) -> dict[str, Any]:
    """One Gemini part: text, a thought, a whole or streamed (``partialArgs``) functionCall, a
    signature-only part, or a part type llmkit does not model; signatures anywhere."""
    kind = draw(
        st.sampled_from(["text", "text", "thought", "call", "streamed_call", "signature", "other"])
    )
    part: dict[str, Any]
    if kind == "text":
        part = {"text": draw(odd(TEXT))}
    elif kind == "thought":
        part = {"text": draw(TEXT), "thought": draw(odd(st.just(True)))}
    elif kind == "call":
        call = {
            "name": draw(odd(NAMES)),
            "args": draw(odd(st.dictionaries(st.text(max_size=5), JSON_ANY, max_size=3))),
        }
        if draw(st.booleans()):
            call["id"] = draw(odd(IDS))
        part = {"functionCall": shuffled(draw, call)}
    elif kind == "streamed_call":
        path = draw(st.sampled_from(["$.a", "$.b[0]", "$.c.d", "$['e f']", "$", "a", "$.b[2]"]))
        value = draw(
            st.sampled_from(
                [
                    {"stringValue": draw(TEXT)},
                    {"numberValue": draw(odd(st.integers()))},
                    {"boolValue": True},
                    {"nullValue": None},
                    {},
                ]
            )
        )
        frag = {
            "jsonPath": draw(odd(st.just(path))),
            **value,
            "willContinue": draw(odd(st.booleans())),
        }
        call = {
            "name": draw(st.sampled_from(["", "f"])),
            "partialArgs": draw(odd(st.just([frag]))),
            "willContinue": draw(odd(st.booleans())),
        }
        part = {"functionCall": call}
    elif kind == "signature":
        part = {"text": "", "thoughtSignature": draw(B64)}
    else:
        part = {draw(st.sampled_from(["executableCode", "inlineData", "mystery"])): draw(JSON_ANY)}
    if kind != "signature" and draw(st.integers(0, 3)) == 0:
        part["thoughtSignature"] = draw(odd(B64))
    return shuffled(draw, part)


@st.composite
def gemini_stream(draw: st.DrawFn) -> bytes:
    """Gemini chunks of parts with usage, then a finish reason (known, failing or new), a
    blocked prompt, an error chunk or nothing (Gemini has no terminal event)."""
    rid = draw(odd(st.sampled_from(["resp-g", ""])))
    chunks = []
    for _ in range(draw(st.integers(0, 6))):
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": draw(odd(st.lists(gemini_part(), max_size=3)))}
        }
        if draw(st.integers(0, 7)) == 0:
            candidate["index"] = draw(odd(st.integers(0, 1)))
        chunk: dict[str, Any] = {
            "candidates": draw(odd(st.just([candidate]))),
            "responseId": rid,
            "modelVersion": "gemini-x",
        }
        if draw(st.booleans()):
            chunk["usageMetadata"] = {
                "promptTokenCount": draw(odd(COUNT)),
                "candidatesTokenCount": draw(odd(COUNT)),
                "thoughtsTokenCount": draw(odd(COUNT)),
                "totalTokenCount": draw(odd(COUNT)),
            }
        chunks.append(shuffled(draw, chunk))
    end = draw(st.sampled_from(["finish", "finish", "none", "blocked", "error"]))
    if end == "finish":
        reason = draw(
            odd(
                st.sampled_from(
                    [
                        "STOP",
                        "MAX_TOKENS",
                        "SAFETY",
                        "MALFORMED_FUNCTION_CALL",
                        "OTHER",
                        "TOO_MANY_TOOL_CALLS",
                        "NEW_REASON",
                    ]
                )
            )
        )
        chunks.append(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": reason}
                ],
                "responseId": rid,
            }
        )
    elif end == "blocked":
        chunks.append(
            {"promptFeedback": {"blockReason": draw(odd(st.just("SAFETY")))}, "responseId": rid}
        )
    elif end == "error":
        chunks.append(
            {
                "error": {
                    "code": draw(odd(st.just(500))),
                    "message": draw(TEXT),
                    "status": "INTERNAL",
                }
            }
        )
    return sse([(None, c) for c in chunks], draw(st.sampled_from([b"\r\n", b"\n"])))


@st.composite
def bedrock_stream(draw: st.DrawFn) -> bytes:
    """Converse events: text, reasoning (text, signature, redacted, bad base64), tool calls
    (started or not, input fragments), server tools, stops at any index, then a stop reason
    (known, failing or new), metadata with odd usage, an exception message, or nothing."""
    tracks: list[list[tuple[str, Any]]] = []
    for index in range(draw(st.integers(0, 4))):
        at = draw(odd(st.just(index)))
        kind = draw(st.sampled_from(["text", "reasoning", "tool", "tool", "server", "other"]))
        track: list[tuple[str, Any]] = []
        if kind == "text":
            track = [
                ("contentBlockDelta", {"contentBlockIndex": at, "delta": {"text": draw(odd(TEXT))}})
            ]
        elif kind == "reasoning":
            field = draw(st.sampled_from(["text", "signature", "redactedContent"]))
            value = draw(st.one_of(TEXT, B64)) if field != "redactedContent" else draw(odd(B64))
            track = [
                (
                    "contentBlockDelta",
                    {"contentBlockIndex": at, "delta": {"reasoningContent": {field: value}}},
                )
            ]
        elif kind in ("tool", "server"):
            tool = {"toolUseId": draw(odd(IDS)), "name": draw(odd(NAMES))}
            if kind == "server":
                tool["type"] = "server_tool_use"
            if draw(st.integers(0, 3)):
                track.append(
                    (
                        "contentBlockStart",
                        {"contentBlockIndex": at, "start": {"toolUse": draw(odd(st.just(tool)))}},
                    )
                )
            track += [
                ("contentBlockDelta", {"contentBlockIndex": at, "delta": {"toolUse": {"input": f}}})
                for f in draw(fragments())
            ]
        else:
            track = [("contentBlockDelta", {"contentBlockIndex": at, "delta": draw(JSON_ANY)})]
        if draw(st.integers(0, 4)):
            track.append(("contentBlockStop", {"contentBlockIndex": at}))
        tracks.append(track)
    events = [("messageStart", {"role": "assistant"}), *interleave(draw, tracks)]
    end = draw(st.sampled_from(["stop", "stop", "exception", "none", "metadata-only"]))
    reason = draw(
        odd(
            st.sampled_from(
                [
                    "end_turn",
                    "tool_use",
                    "max_tokens",
                    "guardrail_intervened",
                    "malformed_tool_use",
                    "new_reason",
                ]
            )
        )
    )
    usage = {
        "inputTokens": draw(odd(COUNT)),
        "outputTokens": draw(odd(COUNT)),
        "cacheReadInputTokens": draw(odd(COUNT)),
    }
    if end == "stop":
        events.append(("messageStop", {"stopReason": reason}))
    if end in ("stop", "metadata-only"):
        events.append(
            ("metadata", {"usage": draw(odd(st.just(usage))), "metrics": {"latencyMs": 1}})
        )
    out = [
        bedrock_event(n, json.dumps(shuffled(draw, p) if isinstance(p, dict) else p).encode())
        for n, p in events
    ]
    if end == "exception":
        name = draw(
            st.sampled_from(
                [
                    "throttlingException",
                    "modelStreamErrorException",
                    "validationException",
                    "mysteryException",
                ]
            )
        )
        out.append(
            bedrock_exception(
                name, {"message": draw(TEXT), "originalStatusCode": draw(odd(st.just(429)))}
            )
        )
    return b"".join(out)


RANDOM_STREAMS: dict[str, Callable[[], st.SearchStrategy[bytes]]] = {
    "openai-chat": chat_stream,
    "openai-responses": responses_stream,
    "anthropic-messages": anthropic_stream,
    "gemini": gemini_stream,
    "bedrock-converse": bedrock_stream,
}


@pytest.mark.parametrize("wire", WIRES)
@fuzz(ci=50)
@given(data=st.data())
def test_random_streams(wire: str, data: st.DataObject) -> None:
    model = MODELS[wire][data.draw(st.integers(0, len(MODELS[wire]) - 1), label="MODELS[wire]")]
    body = data.draw(RANDOM_STREAMS[wire](), label="stream")
    body = mutate_for(wire)(data.draw, body, max_ops=2)
    check_stream(model, body, chunked(body, data.draw(CHUNKING, label="chunking")))


# --------------------------------------------------------------------------- the SSE decoder


def reference_sse(body: bytes) -> list[tuple[str, str]]:
    """An independent SSE reading (WHATWG "event stream interpretation") with llmkit's
    documented end-of-input rule: a final unterminated line is completed and a final event
    without its blank line is dispatched (``SSEDecoder.flush``). Text is decoded as UTF-8
    with replacement; a leading BOM is skipped, as the standard says."""
    text = body.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    events: list[tuple[str, str]] = []
    event_type, data = "", []
    for line in [*re.split("\r\n|\r|\n", text), ""]:
        if line == "":
            if data:
                events.append((event_type or "message", "\n".join(data)))
            event_type, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
    return events


def decode_all(chunks: list[bytes], limit: int = 1 << 30) -> list[tuple[str, str]]:
    decoder = SSEDecoder(limit)
    out = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.flush())
    return [(e.event, e.data) for e in out]


SSE_TOKENS = st.sampled_from(
    [
        b"data:",
        b"data: ",
        b"data",
        b"event:",
        b"event: x",
        b"event",
        b":",
        b": ping",
        b"id: 1",
        b"retry: 5",
        b"\r",
        b"\n",
        b"\r\n",
        b"\n\n",
        b" ",
        b"x",
        b"{}",
        "é".encode(),
        "😀".encode(),
        "\u2028".encode(),
        b"\xc3",
        b"\xa9",
        b"\xf0\x9f",
        b"\xff",
        b"\x00",
        b"\xef\xbb\xbf",
    ]
)
SSE_BYTES = st.lists(st.one_of(SSE_TOKENS, SSE_TOKENS, st.binary(max_size=6)), max_size=50).map(
    b"".join
)


SSE_LINES = st.lists(
    st.tuples(
        st.sampled_from([b"data: ", b"data:", b"data", b"event: ", b"event:", b": ", b"id: ", b""]),
        st.lists(SSE_TOKENS.filter(lambda t: b"\r" not in t and b"\n" not in t), max_size=4),
        st.sampled_from([b"\n", b"\r\n", b"\r"]),
    ).map(lambda t: t[0] + b"".join(t[1]) + t[2]),
    max_size=12,
).map(b"".join)
SSE_BODIES = st.tuples(
    st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf"]),
    st.one_of(SSE_LINES, SSE_LINES, SSE_BYTES),  # lines (events) or a soup of SSE bytes
).map(b"".join)
CUTS = st.one_of(
    st.lists(st.integers(min_value=0), max_size=10),  # cut points (repeats: empty chunks)
    st.sampled_from(["bytes", "bytes+empty", "bytes+empty"]),  # single bytes, b"" between?
)


def cut(body: bytes, how: list[int] | str) -> list[bytes]:
    """``body`` cut at points (modulo its length), or into single bytes."""
    if isinstance(how, str):
        single = [body[i : i + 1] for i in range(len(body))]
        return [p for b in single for p in (b, b"")] if how == "bytes+empty" else single
    marks = sorted(p % (len(body) + 1) for p in how)
    return [body[a:b] for a, b in zip([0, *marks], [*marks, len(body)], strict=True)]


@fuzz(ci=300)
@given(body=SSE_BODIES, how=CUTS)
def test_sse_decoder_equals_the_reference_for_any_chunking(body: bytes, how: Any) -> None:
    assert decode_all(cut(body, how)) == reference_sse(body)


@fuzz(ci=200)
@given(body=SSE_BODIES, how=CUTS, limit=st.integers(min_value=1, max_value=64))
def test_sse_decoder_with_a_small_limit_raises_only_event_too_large(
    body: bytes, how: Any, limit: int
) -> None:
    try:
        events = decode_all(cut(body, how), limit)
    except EventTooLarge:
        return
    assert events == reference_sse(body)


# --------------------------------------------------------------------------- regressions
# Minimal inputs for the bugs the fuzzers found, kept as plain tests that assert the right
# behaviour: a provider (or a proxy) sending a field of an unexpected JSON type must give a
# stream that ends normally, with the field ignored or reported (event_malformed), never an
# exception out of parse_stream. Each case fails until llmkit is fixed (docs/fuzzing.md).


def _chat(*chunks: bytes) -> bytes:
    return b"".join(b"data: " + c + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def _call(entry: bytes) -> bytes:
    return _chat(b'{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[' + entry + b"]}}]}")


def _anthropic(*events: bytes, start: bytes = b'{"id":"msg_1","content":[]}') -> bytes:
    head = b'event: message_start\ndata: {"type":"message_start","message":' + start + b"}\n\n"
    body = b"".join(b"data: " + e + b"\n\n" for e in events)
    return head + body + b'event: message_stop\ndata: {"type":"message_stop"}\n\n'


def _tool_use(block: bytes) -> bytes:
    start = b'{"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
    return _anthropic(start + block + b"}}", b'{"type":"content_block_stop","index":0}')


_DONE = b'{"type":"response.completed","response":{"id":"r","status":"completed","output":[]}}'


def _responses(*events: bytes) -> bytes:
    return b"".join(b"data: " + e + b"\n\n" for e in events)


def _item(item: bytes) -> bytes:
    added = b'{"type":"response.output_item.added","output_index":0,"item":' + item + b"}"
    return _responses(added, _DONE)


def _completed(response: bytes) -> bytes:
    return _responses(b'{"type":"response.completed","response":' + response + b"}")


MALFORMED: dict[str, tuple[str, bytes]] = {
    # openai-chat
    "chat-id-a-number": (
        "openai-chat",
        _chat(b'{"id":1,"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}'),
    ),
    "chat-finish_reason-a-number": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":1}]}'),
    ),
    "chat-finish_reason-an-object": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":{"a":1}}]}'),
    ),
    "chat-choices-not-a-list": ("openai-chat", _chat(b'{"id":"c","choices":true}')),
    "chat-delta-not-an-object": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":1}]}'),
    ),
    "chat-refusal-not-a-string": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":{"refusal":[1]}}]}'),
    ),
    "chat-tool_calls-not-a-list": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":{"tool_calls":1}}]}'),
    ),
    "chat-call-function-not-an-object": (
        "openai-chat",
        _call(b'{"index":0,"id":"call_1","function":"f"}'),
    ),
    "chat-call-id-a-number": (
        "openai-chat",
        _call(b'{"index":0,"id":7,"function":{"name":"f","arguments":"{}"}}'),
    ),
    "chat-call-id-an-object": (
        "openai-chat",
        _call(b'{"index":0,"id":{"a":1},"function":{"name":"f","arguments":"{}"}}'),
    ),
    "chat-call-name-a-number": (
        "openai-chat",
        _call(b'{"index":0,"id":"call_1","function":{"name":7,"arguments":"{}"}}'),
    ),
    "chat-call-index-a-list": (
        "openai-chat",
        _call(b'{"index":[],"id":"call_1","function":{"name":"f","arguments":"{}"}}'),
    ),
    "chat-call-arguments-a-number": (
        "openai-chat",
        _call(b'{"index":0,"id":"call_1","function":{"name":"f","arguments":5}}'),
    ),
    "chat-call-arguments-a-list": (
        "openai-chat",
        _call(b'{"index":0,"id":"call_1","function":{"name":"f","arguments":[1]}}'),
    ),
    "chat-reasoning_details-index-an-object": (
        "openai-chat",
        _chat(
            b'{"id":"c","choices":[{"index":0,"delta":{"reasoning_details":'
            b'[{"type":"reasoning.text","text":"t","index":{"a":1}}]}}]}'
        ),
    ),
    "chat-usage-not-an-object": ("openai-chat", _chat(b'{"id":"c","choices":[],"usage":5}')),
    "chat-usage-count-a-word": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[],"usage":{"prompt_tokens":"many"}}'),
    ),
    "chat-usage-count-a-fraction": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[],"usage":{"prompt_tokens":1.5}}'),
    ),
    "chat-usage-details-not-an-object": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[],"usage":{"prompt_tokens":1,"prompt_tokens_details":7}}'),
    ),
    "chat-choice-usage-not-an-object": (
        "openai-chat",
        _chat(b'{"id":"c","choices":[{"index":0,"delta":{},"usage":1}]}'),
    ),
    "chat-x_groq-not-an-object": ("openai-chat", _chat(b'{"id":"c","choices":[],"x_groq":1}')),
    # anthropic-messages
    "anthropic-message-id-not-a-string": (
        "anthropic-messages",
        _anthropic(start=b'{"id":true,"content":[]}'),
    ),
    "anthropic-message-content-not-a-list": (
        "anthropic-messages",
        _anthropic(start=b'{"id":"msg_1","content":1}'),
    ),
    "anthropic-tool_use-id-a-number": (
        "anthropic-messages",
        _tool_use(b'"id":5,"name":"f","input":{}'),
    ),
    "anthropic-tool_use-id-an-object": (
        "anthropic-messages",
        _tool_use(b'"id":{"a":1},"name":"f","input":{}'),
    ),
    "anthropic-tool_use-name-a-list": (
        "anthropic-messages",
        _tool_use(b'"id":"toolu_1","name":[1],"input":{}'),
    ),
    # openai-responses
    "responses-response-not-an-object": ("openai-responses", _completed(b'"x"')),
    "responses-usage-count-a-word": (
        "openai-responses",
        _completed(b'{"id":"r","status":"completed","output":[],"usage":{"input_tokens":"x"}}'),
    ),
    "responses-usage-details-not-an-object": (
        "openai-responses",
        _completed(
            b'{"id":"r","status":"completed","output":[],'
            b'"usage":{"input_tokens":1,"input_tokens_details":[1]}}'
        ),
    ),
    "responses-item_id-an-object": (
        "openai-responses",
        _responses(b'{"type":"response.output_text.delta","item_id":{"a":1},"delta":"x"}', _DONE),
    ),
    "responses-output-item-id-an-object": (
        "openai-responses",
        _completed(b'{"id":"r","status":"completed","output":[{"type":"message","id":{"a":1}}]}'),
    ),
    "responses-call_id-a-number": (
        "openai-responses",
        _item(b'{"type":"function_call","id":"fc_1","call_id":5,"name":"f","arguments":""}'),
    ),
    "responses-call-name-a-number": (
        "openai-responses",
        _item(b'{"type":"function_call","id":"fc_1","call_id":"call_1","name":5,"arguments":""}'),
    ),
    "responses-message-content-not-a-list": (
        "openai-responses",
        _item(b'{"type":"message","id":"msg_1","content":1}'),
    ),
    "responses-reasoning-summary-not-a-list": (
        "openai-responses",
        _item(b'{"type":"reasoning","id":"rs_1","summary":1}'),
    ),
    # gemini
    "gemini-responseId-not-a-string": (
        "gemini",
        b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},'
        b'"finishReason":"STOP"}],"responseId":1}\r\n\r\n',
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_field_of_the_wrong_type_does_not_break_the_stream(case: str) -> None:
    wire, body = MALFORMED[case]
    check_stream(MODELS[wire][0], body, [body])


def test_sse_an_empty_chunk_between_cr_and_lf_is_still_one_line_break() -> None:
    # "data: a" CRLF "data: b" is one event "a\nb"; an empty chunk (b"") fed between the CR
    # and the LF clears the decoder's pending-CR flag, so the LF is read as a second line
    # break, a blank line, and the event is split in two.
    assert decode_all([b"data: a\r", b"", b"\ndata: b\n\n"]) == [("message", "a\nb")]


def test_sse_a_leading_byte_order_mark_is_skipped() -> None:
    # WHATWG: a UTF-8 BOM at the start of the stream is removed (as tests/support/corpus.sse_events
    # does);
    # llmkit reads the first line as a field named "\ufeffdata" and drops the first event.
    assert decode_all([b"\xef\xbb\xbfdata: a\n\n"]) == [("message", "a")]
