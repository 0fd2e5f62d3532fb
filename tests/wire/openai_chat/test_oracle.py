"""llmkit against the official OpenAI SDK's own stream accumulator, on generated streams.

Each body from :mod:`tests.wire.openai_chat.streams` (realistic api.openai.com Chat Completions
streams) is cut at hypothesis-drawn byte offsets -- inside multi-byte UTF-8 characters and
between the CR and LF of a CRLF too -- and decoded twice by ``llmkit.parse_stream`` (two
different chunkings). Independently, the openai SDK decodes the same bytes with its own SSE
decoder (``openai._streaming.SSEDecoder``, what ``openai.Stream`` uses), validates every payload
as ``ChatCompletionChunk`` and accumulates them with ``ChatCompletionStreamState`` (what
``client.chat.completions.stream()`` uses). The properties:

1. **Oracle**: llmkit's final message equals the SDK's completion: text (refusal text
   included), tool calls (id, name, raw argument text, parsed arguments, status), finish
   reason and its mapping, usage, response id.
2. **Generator intent**: the SDK's completion is what the generator meant to send (so the
   oracle comparison is never vacuous), and the only diagnostics llmkit reports on a clean
   stream are the expected ones (``usage_missing``, a truncated call's recovery).
3. **Event contract**: ``Start`` first, exactly one terminal event and it is last (``Done``);
   per block ``XStart`` < deltas < ``XEnd``; block indexes are positions in
   ``message.content``; text deltas join to the text; argument deltas join to
   ``raw_arguments``; every ``partial_arguments`` is prefix-consistent with the final arguments
   (and with the next delta's), and reading it late gives the value read on time.
4. **Chunking does not matter**: both chunkings give equal events and an identical
   ``message.model_dump()``; ``aparse_stream`` gives the same events as ``parse_stream``.

Named regression tests below pin the cases the generator rarely hits exactly.

Runs are reproducible (``derandomize=True``, no example database). ``LLMKIT_ORACLE_EXAMPLES``
sets the number of examples (default below, sized for < 30 s in CI); the count actually run is
printed at the end of the module and recorded as the ``oracle_examples`` junit property.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from openai import LengthFinishReasonError
from openai._streaming import SSEDecoder  # private, but it is exactly what openai.Stream runs
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

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
from tests.wire.openai_chat.streams import ChatStream, ToolCallSpec, chat_streams

MODEL = llmkit.Model(provider="openai", id="gpt-4o", api="openai-chat")

EXAMPLES = oracle_examples(250)
ASYNC_EXAMPLES = max(1, EXAMPLES // 10)

SETTINGS = oracle_settings(EXAMPLES)

RUN_COUNT: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_example_counts(
    request: pytest.FixtureRequest, record_testsuite_property: Any
) -> Iterator[None]:
    yield
    if not RUN_COUNT:
        return
    summary = ", ".join(f"{name}={n}" for name, n in sorted(RUN_COUNT.items()))
    record_testsuite_property("oracle_examples", summary)
    plugins = request.config.pluginmanager
    reporter = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # not swallowed by output capture
            reporter.write_line(f"\noracle examples run: {summary}")


# ------------------------------------------------------------------------------ cases


@dataclass(frozen=True)
class Case:
    """A generated stream and two ways the network cut it (short repr for failure reports)."""

    stream: ChatStream
    cuts_a: tuple[int, ...]
    cuts_b: tuple[int, ...]

    def __repr__(self) -> str:
        return (
            f"Case(body={self.stream.body!r},\n     cuts_a={self.cuts_a!r},\n"
            f"     cuts_b={self.cuts_b!r})"
        )


@st.composite
def cases(draw: st.DrawFn) -> Case:
    stream = draw(chat_streams())
    return Case(stream, draw(cut_points(stream.body)), draw(cut_points(stream.body)))


# --------------------------------------------------------------------------- the two readers


def sdk_completion(chunks: list[bytes]) -> Any:
    """The SDK's reading of the body: its SSE decoder, its chunk type, its accumulator."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    # input_tools / response_format stay omitted: llmkit does no schema-driven parsing
    # either, and with them given the SDK would raise on "length" before the end.
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.data.startswith("[DONE]"):  # as openai.Stream.__stream__
            break
        state.handle_chunk(ChatCompletionChunk.model_validate(json.loads(sse.data)))
    try:
        return state.get_final_completion()
    except LengthFinishReasonError:
        # The SDK's helper refuses to *parse* a length-truncated completion (a convenience
        # of its structured-output helper); the accumulated snapshot is the data.
        return state.current_completion_snapshot


# --------------------------------------------------------------------------- value helpers


def test_prefix_consistent_helper() -> None:
    final = {"a": "hello", "b": [1, {"c": "xy"}], "d": True}
    for ok in (
        None,
        {},
        {"a": ""},
        {"a": "he"},
        {"a": "hello", "b": []},
        {"a": "hello", "b": [1, {}]},
        {"a": "hello", "b": [1, {"c": "x"}]},
        final,
    ):
        assert prefix_consistent(ok, final), ok
    for bad in (
        {"b": []},
        {"a": "hx"},
        {"a": "he", "b": []},
        {"a": "hello", "b": [2]},
        {"a": "hello", "b": [1, {"c": "xy"}], "d": 1},
        {"a": "hello", "z": 1},
        [],
    ):
        assert not prefix_consistent(bad, final), bad
    assert not same_json({"x": True}, {"x": 1})
    assert not same_json({"x": 1}, {"x": 1.0})


# --------------------------------------------------------------------------- the checks

BLOCK_EVENTS = {
    llmkit.TextStart: ("text", "start"),
    llmkit.TextDelta: ("text", "delta"),
    llmkit.TextEnd: ("text", "end"),
    llmkit.ToolCallStart: ("tool_call", "start"),
    llmkit.ToolCallDelta: ("tool_call", "delta"),
    llmkit.ToolCallEnd: ("tool_call", "end"),
}


def check_event_contract(run: Run) -> None:
    events, msg = run.events, run.message
    assert isinstance(events[0], llmkit.Start)
    assert events[0].provider == "openai"
    terminal = [i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
    assert terminal == [len(events) - 1]

    # A clean OpenAI stream has no thinking, and block events follow Start < deltas < End.
    phase: dict[int, str] = {}
    kind: dict[int, str] = {}
    started: list[int] = []
    texts: dict[int, list[str]] = {}
    args: dict[int, list[str]] = {}
    heads: dict[int, llmkit.ToolCallStart] = {}
    deltas: list[llmkit.ToolCallDelta] = []
    diagnostics: list[llmkit.Diagnostic] = []
    usages: list[llmkit.Usage] = []
    for ev in events[1:-1]:
        if isinstance(ev, llmkit.DiagnosticEvent):
            diagnostics.append(ev.diagnostic)
            continue
        if isinstance(ev, llmkit.UsageEvent):
            usages.append(ev.usage)
            continue
        assert type(ev) in BLOCK_EVENTS, f"unexpected event {ev!r}"
        block, step = BLOCK_EVENTS[type(ev)]
        i = ev.index
        if step == "start":
            assert i not in phase, f"block {i} started twice"
            phase[i], kind[i] = "open", block
            started.append(i)
        else:
            assert phase.get(i) == "open", f"{ev!r} outside an open block"
            assert kind[i] == block, f"{ev!r} in a {kind[i]} block"
            if step == "end":
                phase[i] = "closed"
        if isinstance(ev, llmkit.TextStart):
            texts[i] = []
        elif isinstance(ev, llmkit.TextDelta):
            assert ev.delta
            texts[i].append(ev.delta)
        elif isinstance(ev, llmkit.TextEnd):
            assert ev.text == "".join(texts[i])
        elif isinstance(ev, llmkit.ToolCallStart):
            heads[i] = ev
            args[i] = []
        elif isinstance(ev, llmkit.ToolCallDelta):
            # id and name are final from the start and never change (docs/design.md §4).
            assert (ev.id, ev.name) == (heads[i].id, heads[i].name)
            assert ev.arguments_delta
            args[i].append(ev.arguments_delta)
            deltas.append(ev)
        elif isinstance(ev, llmkit.ToolCallEnd):
            assert ev.tool_call == msg.content[i]
            assert ev.tool_call.raw_arguments == "".join(args[i])

    # Indexes are positions in message.content, handed out in order.
    assert started == list(range(len(msg.content)))
    assert all(p == "closed" for p in phase.values())
    assert [kind[i] for i in started] == [p.type for p in msg.content]
    for i, part in enumerate(msg.content):
        if isinstance(part, llmkit.TextPart):
            assert part.text == "".join(texts[i])
        else:
            assert isinstance(part, llmkit.ToolCall)
            assert (part.id, part.name) == (heads[i].id, heads[i].name)
    assert "".join("".join(t) for t in texts.values()) == msg.text
    assert diagnostics == msg.diagnostics
    if usages:
        assert usages[-1].model_dump(exclude={"cost"}) == msg.usage.model_dump(exclude={"cost"})

    # partial_arguments: prefix-consistent with the final arguments, and with the next
    # delta's value for the same call (a reader never sees a value taken back).
    assert len(run.partials) == len(deltas)
    previous: dict[int, Any] = {}
    for ev, partial in zip(deltas, run.partials, strict=True):
        final = msg.content[ev.index]
        assert isinstance(final, llmkit.ToolCall)
        target = final.arguments
        assert prefix_consistent(partial, target), (partial, target)
        if ev.index in previous:
            assert prefix_consistent(previous[ev.index], partial if partial is not None else {})
        previous[ev.index] = partial


def check_against_sdk(msg: llmkit.AssistantMessage, completion: Any, stream: ChatStream) -> None:
    (choice,) = completion.choices
    sdk = choice.message

    # Text. llmkit has no separate refusal field: the refusal text is the message text and
    # the stop reason says "refusal" (docs/design.md stop reasons), where the SDK keeps
    # message.refusal apart from message.content.
    assert msg.text == (sdk.content or "") + (sdk.refusal or "")

    # Tool calls, in index order.
    sdk_calls = sdk.tool_calls or []
    assert len(msg.tool_calls) == len(sdk_calls)
    for call, sdk_call, spec in zip(msg.tool_calls, sdk_calls, stream.tool_calls, strict=True):
        assert sdk_call.type == "function"
        assert call.id == sdk_call.id
        assert call.provider_id is None  # the provider's id was kept as is
        assert call.name == sdk_call.function.name
        assert call.raw_arguments == sdk_call.function.arguments
        if spec.truncated:
            # The SDK hands the truncated text over as is (json.loads would raise); llmkit
            # recovers what was complete and says so.
            assert call.status == "recovered"
            assert prefix_consistent(call.arguments, spec.arguments)
        else:
            # The SDK leaves the arguments as text (it parses only for strict input_tools);
            # json.loads of that text is the reference for llmkit's parsed dict.
            assert call.status == "complete"
            assert same_json(call.arguments, json.loads(sdk_call.function.arguments))

    # Finish reason: raw kept, mapped per docs/design.md.
    assert msg.raw_stop_reason == choice.finish_reason
    expected_stop = {"stop": "stop", "tool_calls": "tool_use", "length": "length"}[
        choice.finish_reason
    ]
    if sdk.refusal:
        expected_stop = "refusal"
    elif expected_stop == "stop" and sdk_calls:
        # A named tool_choice makes OpenAI answer "stop" with a call. llmkit derives
        # "tool_use" from the calls present (QUIRKS E1, reported as stop_reason_inferred);
        # the SDK only keeps the raw value, which raw_stop_reason matches above.
        expected_stop = "tool_use"
    assert msg.stop_reason == expected_stop

    # Usage: OpenAI's prompt_tokens already includes cached tokens and completion_tokens
    # includes reasoning tokens -- llmkit's convention, so the numbers carry over unchanged.
    u = completion.usage
    if u is None:
        # The SDK has usage=None; llmkit always has a Usage, each count None when not
        # reported (docs/design.md: "never guessed").
        assert msg.usage.model_dump() == llmkit.Usage().model_dump()
    else:
        pd, cd = u.prompt_tokens_details, u.completion_tokens_details
        assert msg.usage.input == u.prompt_tokens
        assert msg.usage.output == u.completion_tokens
        assert msg.usage.cache_read == (pd.cached_tokens if pd else None)
        assert msg.usage.reasoning == (cd.reasoning_tokens if cd else None)
        assert msg.usage.cache_write is None  # OpenAI reports no cache writes

    assert msg.response_id == completion.id
    # llmkit records the model as requested (docs/design.md: "Model id (as requested)"); the SDK
    # keeps the snapshot name the server answered with (gpt-4o-2024-08-06).
    assert (msg.provider, msg.api, msg.model) == ("openai", "openai-chat", MODEL.id)
    assert msg.error is None


def check_generator_intent(
    completion: Any, msg: llmkit.AssistantMessage, stream: ChatStream
) -> None:
    """The SDK read what the generator meant to send, and llmkit reported only what it must."""
    (choice,) = completion.choices
    sdk = choice.message
    assert (sdk.refusal if stream.refusal else sdk.content or "") == stream.text
    assert completion.id == stream.response_id
    assert completion.model == stream.model
    assert choice.finish_reason == stream.finish_reason
    calls = sdk.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [
        (s.id, s.name, s.arguments_text) for s in stream.tool_calls
    ]
    assert (completion.usage is None) == (stream.usage is None)

    expected: Counter[str] = Counter()
    if stream.usage is None:
        expected["usage_missing"] += 1
    if stream.finish_reason == "stop" and stream.tool_calls:
        expected["stop_reason_inferred"] += 1  # "stop" with a (forced) call -> "tool_use"
    for spec in stream.tool_calls:
        if spec.truncated:
            expected["tool_arguments_recovered"] += 1
    assert Counter(d.kind for d in msg.diagnostics) == expected, msg.diagnostics
    for d in msg.diagnostics:
        if d.kind == "tool_arguments_recovered":
            assert d.details["mode"] == "partial"


def check_stream(stream: ChatStream, cuts_a: tuple[int, ...], cuts_b: tuple[int, ...]) -> None:
    """Every property, for one body and two chunkings of it (plus one chunk per event)."""
    chunks_a = split(stream.body, cuts_a)
    run_a = read_with_llmkit(MODEL, chunks_a, read_on_time=True)
    run_b = read_with_llmkit(MODEL, split(stream.body, cuts_b), read_on_time=False)
    run_c = read_with_llmkit(MODEL, split(stream.body, event_cuts(stream.body)), read_on_time=True)
    completion = sdk_completion(chunks_a)

    for run in (run_a, run_b, run_c):
        check_event_contract(run)
    check_against_sdk(run_a.message, completion, stream)
    check_generator_intent(completion, run_a.message, stream)

    # Chunking does not matter, and partial_arguments read late equals the value read on
    # time (run_c reads every one incrementally; run_a as its chunks come; run_b only late).
    dump = run_a.message.model_dump()
    keys = [event_key(e) for e in run_a.events]
    for other in (run_b, run_c):
        assert other.message.model_dump() == dump
        assert [event_key(e) for e in other.events] == keys
        assert len(other.partials) == len(run_a.partials)
        for mine, theirs in zip(run_a.partials, other.partials, strict=True):
            assert same_json(mine, theirs) or (mine is None and theirs is None)


# --------------------------------------------------------------------------- the properties


@SETTINGS
@given(case=cases())
def test_llmkit_matches_openai_sdk_on_generated_streams(case: Case) -> None:
    RUN_COUNT["sdk_oracle"] += 1
    s = case.stream
    event(f"finish={s.finish_reason}{'+refusal' if s.refusal else ''}")
    event(f"tool_calls={len(s.tool_calls)}")
    event(f"usage={'on' if s.usage else 'off'}, newline={s.newline!r}")
    event(f"chunks={'whole' if not case.cuts_a else 'cut'}")
    if s.finish_reason == "stop" and s.tool_calls:
        event("stop with a forced tool call")
    if any(spec.truncated for spec in s.tool_calls):
        event("a tool call cut short by length")
    if any(
        len(ch["choices"][0]["delta"].get("tool_calls") or ()) > 1
        for ch in s.chunks
        if ch["choices"]
    ):
        event("several tool calls in one delta (C4)")
    if b": keepalive" in s.body:
        event("keepalive comments")
    check_stream(s, case.cuts_a, case.cuts_b)


async def _achunks(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for c in chunks:
        yield c


async def _acollect(chunks: list[bytes]) -> list[llmkit.Event]:
    return [ev async for ev in llmkit.aparse_stream(MODEL, _achunks(chunks))]


@settings(SETTINGS, max_examples=ASYNC_EXAMPLES)
@given(case=cases())
def test_aparse_stream_matches_parse_stream(case: Case) -> None:
    RUN_COUNT["async_parity"] += 1
    chunks = split(case.stream.body, case.cuts_a)
    sync_events = list(llmkit.parse_stream(MODEL, chunks))
    async_events = asyncio.run(_acollect(chunks))
    assert [event_key(e) for e in async_events] == [event_key(e) for e in sync_events]


# --------------------------------------------------------------------------- named regressions


def _frame(payloads: list[dict[str, Any]], newline: str = "\n") -> bytes:
    out = [
        f"data: {json.dumps(p, ensure_ascii=False, separators=(',', ':'))}{newline}{newline}"
        for p in payloads
    ]
    out.append(f"data: [DONE]{newline}{newline}")
    return "".join(out).encode("utf-8")


def _chunk(delta: dict[str, Any] | None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    """A chunk shaped like the recorded gpt-4o ones."""
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    )
    return {
        "id": "chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62",
        "object": "chat.completion.chunk",
        "created": 1727346182,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_143bb8492c",
        "choices": choices,
        **top,
    }


USAGE = {
    "prompt_tokens": 2048,
    "completion_tokens": 37,
    "total_tokens": 2085,
    "prompt_tokens_details": {"cached_tokens": 1920},
    "completion_tokens_details": {"reasoning_tokens": 0},
}


def _stream(
    payloads: list[dict[str, Any]],
    *,
    text: str = "",
    calls: tuple[ToolCallSpec, ...] = (),
    finish: str,
    newline: str = "\n",
) -> ChatStream:
    return ChatStream(
        body=_frame(payloads, newline),
        response_id="chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62",
        model="gpt-4o-2024-08-06",
        text=text,
        refusal=False,
        tool_calls=calls,
        finish_reason=finish,
        usage=USAGE,
        chunks=tuple(payloads),
        newline=newline,
    )


def _every_cut_inside(body: bytes, needle: bytes) -> list[tuple[int, ...]]:
    """One chunking per offset inside each occurrence of ``needle`` (plus all of them at once)."""
    singles: list[tuple[int, ...]] = []
    start = body.find(needle)
    assert start >= 0
    while start >= 0:
        singles.extend((start + k,) for k in range(1, len(needle)))
        start = body.find(needle, start + 1)
    return [*singles, tuple(sorted({c for (c,) in singles}))]


def test_four_byte_emoji_split_across_chunks_inside_tool_arguments_A1() -> None:
    args = {"note": "ship it 😀 now", "tags": ["🚀", "x😀y"]}
    text = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    pieces = [text[:9], text[9:13], text[13:20], text[20:]]  # the emoji sits inside a piece
    call = ToolCallSpec("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", args, text)
    payloads = [
        _chunk(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }
                ],
                "refusal": None,
            }
        ),
        *(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces),
        _chunk({}, "tool_calls"),
        _chunk(None, usage=USAGE),
    ]
    stream = _stream(payloads, calls=(call,), finish="tool_calls")
    emoji = "😀".encode()
    assert len(emoji) == 4
    for cuts in _every_cut_inside(stream.body, emoji):
        check_stream(stream, cuts, ())
        msg = read_with_llmkit(MODEL, split(stream.body, cuts), read_on_time=True).message
        assert msg.tool_calls[0].arguments == args


def test_u2028_u2029_and_nel_inside_text_do_not_cut_the_event_A2() -> None:
    tokens = ["Line\u2028", "para\u2029", "nel\x85", " end 😀"]
    payloads = [
        _chunk({"role": "assistant", "content": "", "refusal": None}),
        *(_chunk({"content": t}) for t in tokens),
        _chunk({}, "stop"),
        _chunk(None, usage=USAGE),
    ]
    for newline in ("\n", "\r\n"):
        stream = _stream(payloads, text="".join(tokens), finish="stop", newline=newline)
        assert "\u2028".encode() in stream.body  # raw on the wire, not \u2028-escaped
        for cuts in _every_cut_inside(stream.body, "\u2028".encode()):
            check_stream(stream, cuts, (len(stream.body) // 2,))
        msg = read_with_llmkit(MODEL, [stream.body], read_on_time=True).message
        assert msg.text == "Line\u2028para\u2029nel\x85 end 😀"


def test_one_delta_carrying_two_tool_calls_C4() -> None:
    a = ToolCallSpec("call_CTf1nWJLqSeRgDqaCG27xZ74", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}')
    m = ToolCallSpec(
        "call_HEZOX3JzspqFubADMNdWn12E", "multiply", {"a": 2, "b": 3}, '{"a": 2, "b": 3}'
    )
    s = ToolCallSpec("call_Nob2SzTcxIjro1HvSBPQS6XG", "search-docs", {"q": "日本"}, '{"q":"日本"}')

    def head(k: int, spec: ToolCallSpec, arguments: str) -> dict[str, Any]:
        return {
            "index": k,
            "id": spec.id,
            "type": "function",
            "function": {"name": spec.name, "arguments": arguments},
        }

    def more(k: int, arguments: str) -> dict[str, Any]:
        return {"index": k, "function": {"arguments": arguments}}

    payloads = [
        _chunk({"role": "assistant", "content": "", "refusal": None}),
        _chunk({"content": "Both:"}),
        # two whole calls in one delta's list
        _chunk({"tool_calls": [head(0, a, a.arguments_text), head(1, m, "")]}),
        # the end of one call and the start of the next in one list
        _chunk({"tool_calls": [more(1, m.arguments_text[:7]), head(2, s, "")]}),
        _chunk({"tool_calls": [more(1, m.arguments_text[7:]), more(2, s.arguments_text)]}),
        _chunk({}, "tool_calls"),
        _chunk(None, usage=USAGE),
    ]
    stream = _stream(payloads, text="Both:", calls=(a, m, s), finish="tool_calls")
    check_stream(stream, (), (1, 2, 3))
    check_stream(stream, tuple(range(5, len(stream.body), 5)), ())
    msg = read_with_llmkit(MODEL, [stream.body], read_on_time=True).message
    assert [(c.id, c.name, c.arguments) for c in msg.tool_calls] == [
        (a.id, "add", {"a": 2, "b": 3}),
        (m.id, "multiply", {"a": 2, "b": 3}),
        (s.id, "search-docs", {"q": "日本"}),
    ]
    assert msg.stop_reason == "tool_use"
    assert [p.type for p in msg.content] == ["text", "tool_call", "tool_call", "tool_call"]


def test_partial_arguments_read_in_stream_order_cost_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/design.md §3: "partial_arguments is computed lazily and incrementally: total cost over a
    call is linear in the argument length, whatever the number of deltas".

    A UI reads ``event.partial_arguments`` for every ``ToolCallDelta`` as ``stream()`` yields
    it. A real network read (here 16 KiB) carries dozens of small deltas, and all of them are
    decoded before the first is yielded, so each read but the last of a read comes "late".
    The work must still be linear: every argument character parsed a bounded number of
    times. Measured as the text fed to llmkit's JSON parsers (``PartialJSON.feed``, the one
    entry point of both the incremental parser and a from-scratch re-parse).
    """
    from llmkit._json import partial as _partial_json

    fed = Counter[str]()
    original_feed = _partial_json.PartialJSON.feed

    def counting_feed(self: _partial_json.PartialJSON, text: str) -> None:
        fed["chars"] += len(text)
        original_feed(self, text)

    monkeypatch.setattr(_partial_json.PartialJSON, "feed", counting_feed)

    content = "".join(f'line {i}: "naïve" \\ 日本 😀\n' for i in range(300))
    args = {"path": "notes.md", "content": content}
    text = json.dumps(args, ensure_ascii=False)
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    call = ToolCallSpec("call_c91SqDXlYFuETYv8mUHzz6pp", "write_file", args, text)
    head = {"index": 0, "id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": ""}}  # fmt: skip
    payloads = [
        _chunk({"role": "assistant", "content": None, "tool_calls": [head], "refusal": None}),
        *(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces),
        _chunk({}, "tool_calls"),
        _chunk(None, usage=USAGE),
    ]
    body = _frame(payloads)
    network_reads = split(body, tuple(range(16384, len(body), 16384)))

    run = read_with_llmkit(MODEL, network_reads, read_on_time=True)

    assert run.message.tool_calls[0].arguments == args
    assert len(run.partials) == len(pieces)
    assert fed["chars"] <= 3 * len(text), (
        f"{fed['chars']:,} characters parsed for {len(text):,} characters of arguments "
        f"in {len(pieces):,} deltas: quadratic"
    )
