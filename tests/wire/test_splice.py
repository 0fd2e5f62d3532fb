"""The splice fast path (``llmkit._wire.splice``) against the full path it stands in for.

A splice decodes a stream's dominant event (an argument delta) by its learnt shape instead of
``json.loads``; these tests hold it to the contract that makes that safe: a match gives exactly
the string ``json.loads`` would, anything unusual is not a match, and a whole stream decodes to
the same events and message with splices as without them — on fuzzed streams full of escapes,
unicode, raw control characters, extra keys, nulls, changing ids, invalid literals and events
split across chunks anywhere.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmkit
from llmkit._events import ToolCallDelta
from llmkit._pipeline import Pipeline
from llmkit._sse import SSEEvent
from llmkit._wire import splice
from llmkit._wire.anthropic_messages import decode as anthropic_decode
from llmkit._wire.bedrock_converse import decode as bedrock_decode
from llmkit._wire.gemini import decode as gemini_decode
from llmkit._wire.gemini import template as gemini_template
from llmkit._wire.openai_chat import decode as chat_decode
from llmkit._wire.openai_responses import decode as responses_decode
from tests.support.eventstream import bedrock_event, encode

FRAGMENTS = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "\\", "\n", "\t", "\x00", "\x1f", "\u2028", "\U0001f9e9", "{", "}"]),
    ),
    max_size=12,
)


def _literals(fragment: str, variant: int) -> str:
    """A JSON string literal for ``fragment`` as some provider might write it, or a broken one."""
    return [
        json.dumps(fragment, ensure_ascii=False),
        json.dumps(fragment),
        '"' + fragment + '"',  # raw: invalid when it holds a quote, backslash or control char
        '"\\ud800"',  # a lone surrogate escape (json.loads accepts it)
        "123",
        "null",
        '"' + fragment,  # unterminated
        json.dumps(fragment) + " ",  # trailing whitespace: json.loads allows it
        json.dumps(fragment) + "x",
        '"\\x"',  # a bad escape
    ][variant]


# -- the splice itself ------------------------------------------------------------------------


class _Learnt:
    """A learnt splice, and what it delivers for another event's text."""

    def __init__(self) -> None:
        self.delivered: list[tuple[Any, str]] = []
        self.splice: splice.Splice | None = None

    def deliver(self, tag: Any, value: str) -> None:
        self.delivered.append((tag, value))

    @property
    def tag(self) -> Any:
        assert self.splice is not None
        return self.splice.tag

    def match(self, data: str) -> str | None:
        """The string the splice delivers for an SSE event of ``data``; ``None``: no match."""
        assert self.splice is not None
        self.delivered.clear()
        if not self.splice.take(SSEEvent("message", data)):
            assert not self.delivered
            return None
        ((tag, value),) = self.delivered
        assert tag == self.tag
        return value


def _learn(data: str, check: Any, ignored: tuple[str, ...] = ()) -> _Learnt | None:
    """A splice learnt from an SSE event of ``data``, or ``None``."""
    learnt = _Learnt()
    frame = SSEEvent("message", data)
    learnt.splice = splice.learn(frame, json.loads(data), check, learnt.deliver, ignored)
    return learnt if learnt.splice is not None else None


def _chat_check(event: Any) -> tuple[int, str] | None:
    return chat_decode._argument_delta(event)  # the Chat decoder's check


CHAT_EVENT = (
    '{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
    '{"arguments":%s}}]},"finish_reason":null}],"usage":null}'
)


def test_a_splice_is_learnt_where_the_decoder_reads_the_value() -> None:
    data = CHAT_EVENT % '"ab"'
    learnt = _learn(data, _chat_check)
    assert learnt is not None and learnt.tag == 0
    assert learnt.match(CHAT_EVENT % '"x\\"y"') == 'x"y'
    assert learnt.match(CHAT_EVENT % "1") is None
    assert learnt.match(data.replace('"c1"', '"c2"')) is None


def test_no_splice_when_the_value_is_equal_to_another_string_only() -> None:
    # The arguments "c1" also appear earlier as the id: rfind finds the right one; a value
    # written with escapes no encoder produces is not found at all (no splice, full path).
    data = CHAT_EVENT % '"c1"'
    learnt = _learn(data, _chat_check)
    assert learnt is not None and learnt.match(CHAT_EVENT % '"zz"') == "zz"
    odd = CHAT_EVENT % '"\\u0061"'
    assert _learn(odd, _chat_check) is None


def test_no_splice_for_an_event_the_check_refuses() -> None:
    data = (CHAT_EVENT % '"a"').replace('"usage":null', '"usage":{"prompt_tokens":1}')
    assert _learn(data, _chat_check) is None


def _full_path(event: str, check: Any) -> Any:
    """What the decoder's full path reads in ``event`` (``json.loads``, then its check)."""
    try:
        parsed = json.loads(event)
    except ValueError:
        return None
    return check(parsed)


@given(fragment=FRAGMENTS, variant=st.integers(0, 9))
def test_a_match_is_exactly_json_loads(fragment: str, variant: int) -> None:
    data = CHAT_EVENT % '"seed"'
    learnt = _learn(data, _chat_check)
    assert learnt is not None
    event = CHAT_EVENT % _literals(fragment, variant)
    expected = _full_path(event, _chat_check)
    got = learnt.match(event)
    if got is not None:  # a match is what the full path reads; a miss is always allowed
        assert expected == (0, got)


RESPONSES_EVENT = (
    '{"type":"response.function_call_arguments.delta","sequence_number":%s,'
    '"item_id":"fc_1","output_index":0,"delta":%s,"obfuscation":%s}'
)


def _responses_check(event: Any) -> tuple[str, str] | None:
    if not isinstance(event, dict) or set(event) - {"sequence_number", "obfuscation"} != {
        "type",
        "item_id",
        "output_index",
        "delta",
    }:
        return None
    delta = event["delta"]
    return (event["item_id"], delta) if isinstance(delta, str) else None


@given(
    fragment=FRAGMENTS,
    variant=st.integers(0, 9),
    padding=FRAGMENTS,
    padding_variant=st.integers(0, 9),
    number=st.sampled_from(["0", "12", "007", "-3", "1.0"]),
)
def test_a_match_with_ignored_holes_is_exactly_json_loads(
    fragment: str, variant: int, padding: str, padding_variant: int, number: str
) -> None:
    # Several holes (the value, a counter, padding): one compiled pattern decides the match.
    data = RESPONSES_EVENT % ("3", '"seed"', '"pad"')
    learnt = _learn(data, _responses_check, ("sequence_number", "obfuscation"))
    assert learnt is not None
    event = RESPONSES_EVENT % (
        number,
        _literals(fragment, variant),
        _literals(padding, padding_variant),
    )
    expected = _full_path(event, _responses_check)
    got = learnt.match(event)
    if got is not None:
        assert expected == ("fc_1", got)
    elif (
        variant in (0, 1, 3)
        and (fragment or variant == 3)  # an empty string is never a match: the full path's
        and padding_variant in (0, 1, 3)
        and number in ("0", "12")
    ):
        raise AssertionError(f"a valid event took the full path: {event!r}")  # never too strict


@pytest.mark.parametrize("literal", ['"\\u12"', '"\\uZZZZ"', '"a\\u00e"', '"\\'])
def test_a_bad_unicode_escape_in_any_hole_is_no_match(literal: str) -> None:
    data = RESPONSES_EVENT % ("3", '"seed"', '"pad"')
    learnt = _learn(data, _responses_check, ("sequence_number", "obfuscation"))
    assert learnt is not None
    assert learnt.match(RESPONSES_EVENT % ("4", literal, '"p"')) is None
    assert learnt.match(RESPONSES_EVENT % ("4", '"v"', literal)) is None
    assert learnt.match(RESPONSES_EVENT % ("4", '"\\u00e9\\n"', '"\\ud83e\\udde9"')) == "\u00e9\n"


@given(number=st.sampled_from(["0", "7", "00", "07", "-1", "1e3", "1.5", "٣", "9" * 30, ""]))
def test_a_gap_holds_only_a_json_integer(number: str) -> None:
    shape = '{"type":"t","sequence_number":%s,"delta":"%s"}'
    data = shape % ("5", "seed")

    def check(event: Any) -> tuple[str, str] | None:
        return ("t", event["delta"]) if isinstance(event, dict) else None

    learnt = _learn(data, check, ("sequence_number",))
    assert learnt is not None
    event = shape % (number, "v")
    got = learnt.match(event)
    valid = number.isascii() and number.isdigit() and (number == "0" or number[0] != "0")
    assert (got == "v") if valid and len(number) < 24 else (got is None)
    if got is not None:
        assert json.loads(event)["delta"] == got


# -- whole streams: the same events and message with and without splices ----------------------


def _chat_stream(rng: random.Random, fragments: list[str]) -> str:
    def sse(data: str) -> str:
        return f"data: {data}\n\n"

    padded = rng.randrange(2) == 0  # gpt-5 pads every chunk with a random obfuscation string

    def delta(tc: str, extra: str = "", cid: str = "c1", finish: str = "null") -> str:
        pad = f',"obfuscation":{json.dumps(fragments[rng.randrange(len(fragments))])}'
        return sse(
            f'{{"id":"{cid}","object":"chat.completion.chunk","choices":[{{"index":0,'
            f'"delta":{{{extra}"tool_calls":[{tc}]}},"logprobs":null,"finish_reason":{finish}}}],'
            f'"usage":null{pad if padded else ""}}}'
        )

    out = [sse('{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}')]
    index = 0
    for i, fragment in enumerate(fragments):
        kind = rng.randrange(14)
        literal = _literals(fragment, rng.randrange(10) if kind == 1 else rng.randrange(2))
        hot = f'{{"index":{index},"function":{{"arguments":{literal}}}}}'
        if i == 0 or kind == 2:
            index += i > 0
            opening = (
                f'{{"index":{index},"id":"call_{index}","type":"function",'
                f'"function":{{"name":"f{index}","arguments":""}}}}'
            )
            out.append(delta(opening))
        elif kind == 3:
            out.append(delta(hot.replace('"function"', '"type":"function","function"')))
        elif kind == 4:
            out.append(delta(hot, cid="c2"))  # a chunk id that changes (QUIRKS A9)
        elif kind == 5:
            out.append(delta(hot, extra='"content":null,"refusal":null,'))
        elif kind == 6:
            out.append(delta(hot, extra='"content":"hi",'))
        elif kind == 7:
            out.append(delta(hot.replace('{"index"', '{"id":null,"index"')))
        elif kind == 8:
            out.append(delta(hot.replace(f'"index":{index}', '"index":"0"')))
        elif kind == 9:
            out.append(": keepalive\n\n")
        else:
            out.append(delta(hot))
    out.append(delta(f'{{"index":{index},"function":{{"arguments":""}}}}', finish='"tool_calls"'))
    out.append(sse("[DONE]"))
    return "".join(out)


def _anthropic_stream(rng: random.Random, fragments: list[str]) -> str:
    def sse(event: str, data: str) -> str:
        return f"event: {event}\ndata: {data}\n\n"

    def hot(index: int, literal: str) -> str:
        return (
            f'{{"type":"content_block_delta","index":{index},'
            f'"delta":{{"type":"input_json_delta","partial_json":{literal}}}}}'
        )

    out = [sse("message_start", '{"type":"message_start","message":{"id":"msg_1"}}')]
    index = -1
    for i, fragment in enumerate(fragments):
        kind = rng.randrange(14)
        literal = _literals(fragment, rng.randrange(10) if kind == 1 else rng.randrange(2))
        if i == 0 or kind == 2:
            if index >= 0:
                out.append(
                    sse("content_block_stop", f'{{"type":"content_block_stop","index":{index}}}')
                )
            index += 1
            tool = "server_tool_use" if rng.randrange(4) == 0 else "tool_use"
            block = f'{{"type":"{tool}","id":"t{index}","name":"f","input":{{}}}}'
            start = f'{{"type":"content_block_start","index":{index},"content_block":{block}}}'
            out.append(sse("content_block_start", start))
        elif kind == 3:
            out.append(sse("error", hot(index, literal)))  # the event name says error (A6)
        elif kind == 4:
            out.append(sse("content_block_delta", hot(index + 1, literal)))
        elif kind == 5:
            out.append(sse("ping", '{"type":"ping"}'))
        elif kind == 6:
            text = hot(index, literal).replace("input_json_delta", "text_delta")
            out.append(sse("content_block_delta", text.replace("partial_json", "text")))
        elif kind == 7:
            out.append(sse("content_block_delta", hot(index, literal)[:-1] + ',"extra":1}'))
        else:
            out.append(sse("content_block_delta", hot(index, literal)))
    out.append(sse("content_block_stop", f'{{"type":"content_block_stop","index":{index}}}'))
    end = '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}'
    out.append(sse("message_delta", end))
    out.append(sse("message_stop", '{"type":"message_stop"}'))
    return "".join(out)


def _responses_stream(rng: random.Random, fragments: list[str]) -> str:
    kind_name = "response.function_call_arguments.delta"

    def sse(data: str) -> str:
        return f"data: {data}\n\n"

    out = [sse('{"type":"response.created","response":{"id":"resp_1"}}')]
    index = -1
    seq = 2
    for i, fragment in enumerate(fragments):
        kind = rng.randrange(14)
        literal = _literals(fragment, rng.randrange(10) if kind == 1 else rng.randrange(2))
        seq += 1
        number = str(seq)
        if kind == 3:
            number = rng.choice(["007", "-1", "1e2", "99999999999999999999999999", "0"])
        hot = (
            f'{{"type":"{kind_name}","sequence_number":{number},"item_id":"fc_{index}",'
            f'"output_index":{index},"delta":{literal}}}'
        )
        if i == 0 or kind == 2:
            index += 1
            item_kind = "message" if rng.randrange(5) == 0 else "function_call"
            item = f'{{"id":"fc_{index}","type":"{item_kind}","call_id":"call_{index}","name":"f"}}'
            out.append(
                sse(f'{{"type":"response.output_item.added","output_index":{index},"item":{item}}}')
            )
        elif kind == 4:
            out.append(sse(hot.replace(f'"output_index":{index}', f'"output_index":{index + 1}')))
        elif kind == 5:
            out.append(sse(hot[:-1] + ',"obfuscation":"xy"}'))
        elif kind == 6:
            out.append(sse(hot.replace(f',"sequence_number":{number}', "")))
        elif kind == 7:
            done = f'{{"type":"response.output_item.done","output_index":{index},"item":{{}}}}'
            out.append(sse(done))
        else:
            out.append(sse(hot))
    out.append(sse('{"type":"response.completed","response":{"id":"resp_1","status":"completed"}}'))
    return "".join(out)


def _bedrock_stream(rng: random.Random, fragments: list[str]) -> bytes:
    def event(name: str, body: str, pad: bool = True) -> bytes:
        if pad:  # Bedrock's random-length padding, any string
            body = body[:-1] + f',"p":{json.dumps(fragments[rng.randrange(len(fragments))])}}}'
        return bedrock_event(name, body.encode("utf-8", "surrogatepass"))

    out = [event("messageStart", '{"role":"assistant"}')]
    index = -1
    for i, fragment in enumerate(fragments):
        kind = rng.randrange(14)
        literal = _literals(fragment, rng.randrange(10) if kind == 1 else rng.randrange(2))
        hot = f'{{"contentBlockIndex":{index},"delta":{{"toolUse":{{"input":{literal}}}}}}}'
        if i == 0 or kind == 2:
            if index >= 0:
                out.append(event("contentBlockStop", f'{{"contentBlockIndex":{index}}}'))
            index += 1
            start = f'{{"toolUse":{{"toolUseId":"t{index}","name":"f"}}}}'
            if rng.randrange(4) == 0:
                start = (
                    f'{{"toolUse":{{"toolUseId":"t{index}","name":"f","type":"server_tool_use"}}}}'
                )
            out.append(
                event("contentBlockStart", f'{{"contentBlockIndex":{index},"start":{start}}}')
            )
        elif kind == 3:
            out.append(event("contentBlockDelta", hot, pad=False))
        elif kind == 4:
            out.append(event("contentBlockDelta", hot.replace(f":{index},", f":{index + 1},", 1)))
        elif kind == 5:
            out.append(event("contentBlockDelta", hot.replace('"toolUse"', '"text":"x","toolUse"')))
        elif kind == 6:
            out.append(event("contentBlockDelta", hot.replace('{"input"', '{"x":1,"input"')))
        elif kind == 7:
            out.append(event("contentBlockDelta", hot.replace("}}}", '}},"p":"a"}', 1)))
        else:
            out.append(event("contentBlockDelta", hot))
    out.append(event("contentBlockStop", f'{{"contentBlockIndex":{index}}}'))
    out.append(event("messageStop", '{"stopReason":"tool_use"}'))
    out.append(event("metadata", '{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}'))
    return b"".join(out)


def _gemini_stream(rng: random.Random, fragments: list[str]) -> str:
    def sse(call: str, extra: str = "", part: str = "") -> str:
        return (
            f'data: {{"candidates":[{{"content":{{"role":"model","parts":[{{{part}"functionCall":'
            f'{call}}}]}}{extra}}}],"usageMetadata":{{"trafficType":"ON_DEMAND"}},'
            '"responseId":"r1"}\n\n'
        )

    out = []
    n = 0
    path = "$.content"
    for i, fragment in enumerate(fragments):
        kind = rng.randrange(14)
        literal = _literals(fragment, rng.randrange(10) if kind == 1 else rng.randrange(2))
        piece = f'{{"jsonPath":"{path}","stringValue":{literal},"willContinue":true}}'
        hot = f'{{"partialArgs":[{piece}],"willContinue":true}}'
        if i == 0 or kind == 2:
            n += 1
            path = f"$.c{n}"
            out.append(sse(f'{{"name":"f","id":"g{n}","willContinue":true}}'))
        elif kind == 3:
            out.append(sse(hot.replace('"willContinue":true}]', "}]")))  # the string ends
        elif kind == 4:
            out.append(sse(hot, part='"thoughtSignature":"sig",'))
        elif kind == 5:
            out.append(sse(hot, extra=',"finishReason":"STOP"'))
        elif kind == 6:
            out.append(sse(hot.replace('{"partialArgs"', '{"id":"x","partialArgs"')))
        elif kind == 7:
            out.append(sse(hot.replace(f'"{path}"', '"$.other"')))
        elif kind == 8:
            out.append(
                sse('{"partialArgs":[{"jsonPath":"$.n","numberValue":1}],"willContinue":true}')
            )
        elif kind == 9:
            out.append(sse('{"willContinue":false}'))
        else:
            out.append(sse(hot))
    out.append(sse('{"willContinue":false}'))
    end = (
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},'
        '"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"totalTokenCount":2}}\n\n'
    )
    return "".join(out) + end


STREAMS = {
    "gemini": (_gemini_stream, gemini_decode),
    "bedrock-converse": (_bedrock_stream, bedrock_decode),
    "openai-chat": (_chat_stream, chat_decode),
    "anthropic-messages": (_anthropic_stream, anthropic_decode),
    "openai-responses": (_responses_stream, responses_decode),
}


def _decode(api: str, chunks: list[bytes]) -> list[Any]:
    pipeline = Pipeline(llmkit.Model(provider="x", id="m", api=api, base_url="http://x"))
    events = pipeline.drain()
    for chunk in chunks:
        events += pipeline.feed(chunk)
    events += pipeline.eof()
    out: list[Any] = []
    for event in events:
        if isinstance(event, ToolCallDelta):
            out.append(("delta", event.index, event.id, event.arguments_delta))
        else:
            out.append(repr(event))
    message = pipeline.asm.message
    assert message is not None
    out.append(repr(message))  # not JSON: a lone surrogate escape does not encode
    return out


def _split(body: bytes, rng: random.Random) -> list[bytes]:
    chunks, at = [], 0
    while at < len(body):
        size = rng.choice([1, 2, 3, 7, 50, 300])
        chunks.append(body[at : at + size])
        at += size
    return chunks


@pytest.mark.parametrize("api", sorted(STREAMS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragments=st.lists(FRAGMENTS, min_size=1, max_size=40), seed=st.integers(0, 2**32))
def test_a_stream_decodes_the_same_with_and_without_splices(
    api: str, fragments: list[str], seed: int
) -> None:
    make = STREAMS[api][0]
    body = make(random.Random(seed), fragments)
    body = body if isinstance(body, bytes) else body.encode()
    chunks = _split(body, random.Random(seed))
    fast = _decode(api, chunks)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(splice, "BUDGET", 0)  # no hole is ever learnt: every frame the full path
        full = _decode(api, chunks)
    assert fast == full


@pytest.mark.parametrize("api", sorted(STREAMS))
def test_the_fast_path_is_taken_on_a_plain_stream(api: str) -> None:
    make = STREAMS[api][0]

    class Plain(random.Random):
        def randrange(self, stop: int, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
            return stop - 1  # a plain tool call, its deltas written as json.dumps writes them

    body = make(Plain(), ["{", '"a"', ":", " 1", "}"] * 4)
    body = body if isinstance(body, bytes) else body.encode()
    seen = []
    # Gemini's hole is a template around the whole partialArgs fragment (template.py).
    cls: Any = gemini_template.Template if api == "gemini" else splice.Splice
    original = cls.take

    def take(self: Any, frame: Any) -> bool:
        got: bool = original(self, frame)
        seen.append(got)
        return got

    with pytest.MonkeyPatch.context() as m:
        m.setattr(cls, "take", take)
        _decode(api, [body])
    assert sum(seen) >= 15


def test_learning_stops_when_splices_never_match(monkeypatch: pytest.MonkeyPatch) -> None:
    # A chunk id that changes in every event (QUIRKS A9): no splice can match, so learning
    # (one more decode per event) stops after splice.BUDGET of them.
    learnt = []
    original = splice.learn

    def counting(*args: Any, **kwargs: Any) -> splice.Splice | None:
        learnt.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(splice, "learn", counting)
    opening = '{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}'
    events = [CHAT_EVENT.replace('{"index":0,"function":{"arguments":%s}}', opening)]
    events += [(CHAT_EVENT % json.dumps(str(i))).replace('"c1"', f'"c{i}"') for i in range(50)]
    body = "".join(f"data: {e}\n\n" for e in [*events, "[DONE]"]).encode()
    message = _decode("openai-chat", [body])[-1]
    assert len(learnt) == 1 + splice.BUDGET  # the opening event, then BUDGET splices
    assert "0123456789" in message.replace("\\", "")


# -- the mechanism: SplicedDecoder's state machine ---------------------------------------------


class _Sink:
    """What the toy decoder below writes to: argument text by tag, and how it got there."""

    def __init__(self) -> None:
        self.ended = False
        self.deltas: list[tuple[Any, str]] = []
        self.skipped: list[str] = []

    def arguments(self, index: Any, text: str) -> None:
        self.deltas.append((index, text))

    def malformed(self, message: str, **details: Any) -> None:
        self.skipped.append(details["excerpt"])


class _Toy(splice.SplicedDecoder):
    """A wire whose frames are ``{"slot": S, "args": A}`` (argument text ``A`` for slot ``S``,
    when ``S`` is an integer) or anything else (meaning nothing); ``"pad"`` is never read."""

    IGNORED = ("pad",)

    def __init__(self, sink: _Sink) -> None:
        super().__init__(sink)  # type: ignore[arg-type]
        self.full: list[str] = []  # the frames that took the full path

    def _full_path(self, frame: Any) -> Any:
        self.full.append(frame.data)
        payload = self._object(frame.data)
        check = self._argument_delta(payload)
        if check is not None:
            self._sink.arguments(*check)
        return payload

    def _argument_delta(self, payload: Any) -> tuple[int, str] | None:
        if not isinstance(payload, dict) or set(payload) - {"pad"} != {"slot", "args"}:
            return None
        slot, args = payload["slot"], payload["args"]
        ok = isinstance(slot, int) and isinstance(args, str)
        return (slot, args) if ok else None


def _toy(*frames: str | tuple[str, str]) -> tuple[_Toy, _Sink]:
    sink = _Sink()
    decoder = _Toy(sink)
    for frame in frames:
        event, data = frame if isinstance(frame, tuple) else ("message", frame)
        decoder.feed(SSEEvent(event, data))
    return decoder, sink


def _args(slot: Any, text: str, pad: str = "") -> str:
    fields = {"slot": slot, "args": text} | ({"pad": pad} if pad else {})
    return json.dumps(fields, separators=(",", ":"))


def test_frames_that_fit_the_hole_learnt_take_no_full_path() -> None:
    frames = [_args(0, "a"), _args(0, 'b"'), _args(0, "c", pad="x"), _args(0, "d", pad="yy")]
    decoder, sink = _toy(*frames[:2], _args(0, "c"), _args(0, "d"))
    assert sink.deltas == [(0, "a"), (0, 'b"'), (0, "c"), (0, "d")]
    assert decoder.full == [frames[0]]  # learnt from the first, the others taken by its hole
    padded, sink = _toy(*frames[2:], _args(0, "e", pad="z" * 9))
    assert sink.deltas == [(0, "c"), (0, "d"), (0, "e")]
    assert padded.full == [frames[2]]  # the padding is a hole of its own


@pytest.mark.parametrize(
    "odd",
    [
        _args(1, "x"),  # another slot: the learnt text around the hole differs
        _args("0", "x"),  # looks like a delta; the check refuses it
        '{"slot": 0, "args": "x"}',  # the same frame written another way
        _args(0, "x")[:-1] + ', "more": 1}',  # one more field
        _args(0, ""),  # empty: what it means is the full path's to say
        _args(0, "x") + " ",  # trailing bytes
        '{"slot":0,"args":"\\x"}',  # a bad escape: not JSON
        ("update", _args(0, "x")),  # the same text in another kind of frame
    ],
)
def test_a_frame_that_does_not_fit_takes_the_full_path_and_ends_the_hole(
    odd: str | tuple[str, str],
) -> None:
    data = odd if isinstance(odd, str) else odd[1]
    frames = (_args(0, "a"), _args(0, "b"), odd, _args(0, "c"), _args(0, "d"))
    decoder, sink = _toy(*frames)
    assert decoder.full[:2] == [_args(0, "a"), data]  # b by the hole, then the odd one
    with pytest.MonkeyPatch.context() as m:
        m.setattr(splice, "BUDGET", 0)  # the full path alone
        plain, full = _toy(*frames)
    assert len(plain.full) == len(frames)
    assert sink.deltas == full.deltas and sink.skipped == full.skipped


def test_no_hole_is_learnt_from_a_frame_the_check_refuses() -> None:
    refused = _args("0", "a")  # the shape of a delta, a slot that is not an integer
    decoder, sink = _toy(refused, refused, refused)
    assert decoder.full == [refused] * 3 and sink.deltas == []
    decoder, sink = _toy("[1]", "[1]")
    assert decoder.full == ["[1]"] * 2 and sink.skipped == ["[1]"] * 2


def test_no_hole_is_learnt_once_the_stream_ended() -> None:
    sink = _Sink()
    decoder = _Toy(sink)
    sink.ended = True
    for text in "abc":
        decoder.feed(SSEEvent("message", _args(0, text)))
    assert len(decoder.full) == 3


def test_learning_stops_after_budget_holes_that_took_nothing() -> None:
    # Every frame differs outside the hole (its slot): each hole learnt takes nothing.
    frames = [_args(n, "x") for n in range(3 * splice.BUDGET)]
    decoder, sink = _toy(*frames)
    assert len(decoder.full) == len(frames) and len(sink.deltas) == len(frames)
    assert decoder._budget == 0 and decoder._hole is None
    # A hole that took frames does not count against the budget.
    decoder, _ = _toy(*[_args(n // 2, "x") for n in range(4 * splice.BUDGET)])
    assert decoder._budget == splice.BUDGET and decoder._hole is not None


def test_an_anthropic_error_event_is_never_taken_as_a_delta() -> None:
    # The event name says error (QUIRKS A6): the full path fails the stream, whatever the data.
    delta = (
        '{"type":"content_block_delta","index":0,'
        '"delta":{"type":"input_json_delta","partial_json":%s}}'
    )
    start = (
        '{"type":"content_block_start","index":0,'
        '"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}'
    )
    body = "".join(
        f"event: {name}\ndata: {data}\n\n"
        for name, data in [
            ("message_start", '{"type":"message_start","message":{"id":"m"}}'),
            ("content_block_start", start),
            ("content_block_delta", delta % '"{\\"a\\""'),
            ("content_block_delta", delta % '":1"'),
            ("error", delta % '"}"'),
        ]
    )
    events = _decode("anthropic-messages", [body.encode()])
    assert [e[-1] for e in events if isinstance(e, tuple)] == ['{"a"', ":1"]
    assert "stream_truncated" not in events[-1] and "Error(" in events[-2]


def test_a_bedrock_exception_is_never_taken_as_a_delta() -> None:
    # An exception may name itself anything, even contentBlockDelta: it fails the stream.
    delta = '{"contentBlockIndex":0,"delta":{"toolUse":{"input":%s}}}'
    body = b"".join(
        [
            bedrock_event("messageStart", b'{"role":"assistant"}'),
            bedrock_event(
                "contentBlockStart",
                b'{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}',
            ),
            bedrock_event("contentBlockDelta", (delta % '"{\\"a\\""').encode()),
            bedrock_event("contentBlockDelta", (delta % '":1"').encode()),
            encode(  # bedrock_exception's headers, the payload written as the events are
                {
                    ":exception-type": (7, "contentBlockDelta"),
                    ":content-type": (7, "application/json"),
                    ":message-type": (7, "exception"),
                },
                (delta % '"}"').encode(),
            ),
        ]
    )
    events = _decode("bedrock-converse", [body])
    deltas = [e for e in events if isinstance(e, tuple)]
    assert [d[-1] for d in deltas] == ['{"a"', ":1"]
    assert "stream_truncated" not in events[-1] and "Error(" in events[-2]
