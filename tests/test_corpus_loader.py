"""Tests of ``tests/support/corpus.py``: the recording loader, ``rechunk``, and the expectations.

The replay tests are only as good as these helpers, so the helpers are checked against the
corpus's own PROVENANCE.md (exchange counts, statuses, tool-call counts), against the raw files,
and on small hand-written streams for each quirk the expectation code handles.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.corpus import (
    FIXTURES,
    CorpusSkip,
    Exchange,
    corpus_files,
    detect_format,
    expected_openai_chat,
    expected_openai_chat_json,
    fixture_id,
    load_exchanges,
    rechunk,
    splits_inside_utf8,
    sse_events,
    wire_of,
)

ALL_FILES = corpus_files("openai-chat", "openai-compatible")


def fixture(name: str) -> Path:
    """The one recording whose file name contains ``name``."""
    (path,) = [p for p in ALL_FILES if name in p.name]
    return path


# --------------------------------------------------------------------------- PROVENANCE.md


def provenance_rows() -> dict[str, dict[str, str]]:
    rows = {}
    pattern = re.compile(
        r"^\| `(?P<file>[^`]+)` \| (?P<repo>[^|]+) \| `(?P<path>[^`]+)`"
        r" \| `(?P<commit>[0-9a-f]{40})` \| (?P<licence>[^|]+) \| (?P<fmt>F\d)"
        r" \| (?P<size>\d+) \| (?P<desc>.*) \|$"
    )
    for line in (FIXTURES / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        if match := pattern.match(line):
            rows[match["file"]] = match.groupdict()
    return rows


PROVENANCE = provenance_rows()


def test_provenance_lists_exactly_the_copied_files() -> None:
    assert sorted(PROVENANCE) == [fixture_id(p) for p in ALL_FILES]
    assert len(ALL_FILES) == 62


@pytest.mark.parametrize("path", ALL_FILES, ids=fixture_id)
def test_file_is_byte_identical_in_size_to_the_recorded_one(path: Path) -> None:
    assert path.stat().st_size == int(PROVENANCE[fixture_id(path)]["size"])


# One exchange in PROVENANCE's description: "stream HTTP 200, 2 tool calls (…) [reasoning, usage]"
_EXCHANGE = re.compile(
    r"(?P<kind>stream|json) HTTP (?P<status>\d{3})(?:, (?P<calls>\d+) tool calls?)?"
    r"(?: \([^)]*\))?(?: \[(?P<flags>[^\]]*)\])?$"
)


@pytest.mark.parametrize("path", ALL_FILES, ids=fixture_id)
def test_recording_decodes_as_provenance_describes(path: Path) -> None:
    """Format, exchange count, statuses, stream-or-JSON, tool-call count and usage all agree
    with the corpus's independent description of the file."""
    row = PROVENANCE[fixture_id(path)]
    assert detect_format(path) == row["fmt"]
    match = re.search(r"(\d+) exchange\(s\): ([^;]*)", row["desc"])
    assert match, row["desc"]
    described = [_EXCHANGE.match(part.strip()) for part in match[2].split(" / ")]
    exchanges = load_exchanges(path)
    assert len(exchanges) == int(match[1]) == len(described)
    for exchange, want in zip(exchanges, described, strict=True):
        assert want, match[2]
        assert exchange.status == int(want["status"])
        assert exchange.is_sse == (want["kind"] == "stream"), exchange.content_type
        assert exchange.source.startswith(fixture_id(path) + "#")
        assert "content-length" not in exchange.headers
        assert "transfer-encoding" not in exchange.headers
        assert "content-encoding" not in exchange.headers
        if exchange.status != 200:
            continue
        read = expected_openai_chat if exchange.is_sse else expected_openai_chat_json
        exp = read(exchange.body)
        flags = set((want["flags"] or "").split(", "))
        assert len(exp.tool_calls) == int(want["calls"] or 0)
        assert (exp.usage is not None) == ("usage" in flags)
        if exp.has_reasoning_fields:
            # Not the converse: "reasoning" also flags encrypted reasoning_details (OpenRouter)
            # and Qwen3 <think> text inside content (vLLM), which carry no reasoning field.
            assert "reasoning" in flags


# --------------------------------------------------------------------------- formats


def test_f1_rebuilds_openai_sse_framing_with_done() -> None:
    path = fixture("groq-tool-call.chunks.txt")
    lines = path.read_text(encoding="utf-8").split("\n")
    (exchange,) = load_exchanges(path)
    assert exchange.headers == {"content-type": "text/event-stream"}
    assert exchange.request is None
    want = "".join(f"data: {line}\n\n" for line in lines) + "data: [DONE]\n\n"
    assert exchange.body == want.encode("utf-8")
    # The JSON text is served as recorded, not re-serialised.
    assert [data for _, data in sse_events(exchange.body)] == [*lines, "[DONE]"]


def test_f3_body_is_the_file() -> None:
    path = fixture("openai-python__4cc50a61")
    (exchange,) = load_exchanges(path)
    assert exchange.body == path.read_bytes()
    assert exchange.body.endswith(b"data: [DONE]\n\n")


def test_f4_gzip_body_is_decompressed_and_encoding_header_dropped() -> None:
    path = fixture("simonw-llm__test_tool_use_chain_of_two_calls")
    raw = yaml.safe_load(path.read_bytes())["interactions"][0]["response"]
    assert raw["headers"]["Content-Encoding"] == ["gzip"]
    assert raw["body"]["string"][:2] == b"\x1f\x8b"  # stored compressed, as !!binary
    exchanges = load_exchanges(path)
    assert exchanges[0].body == gzip.decompress(raw["body"]["string"])
    assert json.loads(exchanges[0].body)["object"] == "chat.completion"
    assert exchanges[0].is_json
    assert exchanges[0].request is not None
    assert exchanges[0].request["body"]["model"] == "gpt-4o-mini"


def test_f4_gzip_error_body() -> None:
    exchanges = load_exchanges(fixture("mirascope__test_model_not_found_stream"))
    assert [e.status for e in exchanges] == [404, 404]
    assert json.loads(exchanges[0].body)["error"]["code"] == "model_not_found"


def test_f5_parsed_body_is_served_as_json_dumps() -> None:
    path = fixture("pydantic-ai__test_openrouter_errors_raised")
    parsed = yaml.safe_load(path.read_bytes())["interactions"][0]["response"]["parsed_body"]
    exchanges = load_exchanges(path)
    assert [e.status for e in exchanges] == [429, 429, 429]
    assert exchanges[0].body == json.dumps(parsed).encode("utf-8")


def test_f5_event_stream_body_is_verbatim() -> None:
    exchanges = load_exchanges(fixture("pydantic-ai__test_tool_use_failed_error_streaming.yaml"))
    assert [e.status for e in exchanges] == [200, 200, 200]
    assert b"event: error\ndata: " in exchanges[0].body


def test_f6_go_vcr_status_headers_request() -> None:
    path = fixture("TestOpenAICommon--openai-gpt-5--multi_tool_streaming")
    first, second = load_exchanges(path)
    assert first.status == second.status == 200
    assert first.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert first.request is not None
    assert first.request["url"] == "https://api.openai.com/v1/chat/completions"
    assert first.request["body"]["stream"] is True
    assert first.body.startswith(b"data: {")
    assert first.body.endswith(b"data: [DONE]\n\n")


def test_f8_llama_stack_chunks_become_sse() -> None:
    path = fixture("llama-stack__caf6ba16")
    recorded = json.loads(path.read_bytes())["response"]["body"]
    (exchange,) = load_exchanges(path)
    payloads = [data for _, data in sse_events(exchange.body)]
    assert payloads[-1] == "[DONE]"
    assert [json.loads(p) for p in payloads[:-1]] == [item["__data__"] for item in recorded]
    assert exchange.request is not None
    assert exchange.request["endpoint"] == "/v1/chat/completions"


def test_names_with_brackets_and_spaces(tmp_path: Path) -> None:
    source = fixture("magentic__test_openai_chat_model_complete_ollama[")
    assert "[" in source.name
    assert "]" in source.name
    folder = tmp_path / "openai-compatible" / "ollama"
    folder.mkdir(parents=True)
    odd = folder / "magentic__a [b] c*?.yaml"
    shutil.copyfile(source, odd)
    assert wire_of(odd) == "openai-compatible"
    assert [e.body for e in load_exchanges(odd)] == [e.body for e in load_exchanges(source)]


def test_wire_of_understands_both_layouts() -> None:
    assert wire_of(Path("corpus/openai-compatible-groq/x.yaml")) == "openai-compatible"
    assert wire_of(Path("fixtures/openai-compatible/groq/x.yaml")) == "openai-compatible"
    assert wire_of(Path("corpus/openai-chat/x.bin")) == "openai-chat"
    with pytest.raises(ValueError, match="wire API"):
        wire_of(Path("elsewhere/x.bin"))


def test_detect_format_refuses_unknown_names() -> None:
    for name in ("notes.txt", "openai-python__x.yaml", "unknown__x.json"):
        with pytest.raises(ValueError, match="format"):
            detect_format(Path(name))


# Synthetic files for formats and encodings the copied corpus does not contain.


def _write_cassette(path: Path, body: bytes, encoding: str) -> Path:
    cassette = {
        "interactions": [
            {
                "request": {"body": None, "headers": {}, "method": "POST", "uri": "http://x/v1"},
                "response": {
                    "body": {"string": body},
                    "headers": {"Content-Encoding": [encoding], "Content-Length": ["9"]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        ],
        "version": 1,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some servers send
    ],
)
def test_content_encodings(tmp_path: Path, encoding: str, compress: Any) -> None:
    path = _write_cassette(tmp_path / "openai-chat" / "magentic__x.yaml", compress(b"{}"), encoding)
    (exchange,) = load_exchanges(path)
    assert exchange.body == b"{}"
    assert exchange.headers == {}


def test_brotli_without_the_package_is_a_clear_skip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "brotli", None)  # makes `import brotli` fail
    path = _write_cassette(tmp_path / "openai-chat" / "mirascope__br.yaml", b"\x8b\x00", "br")
    with pytest.raises(CorpusSkip, match=r"brotli-compressed.*not installed"):
        load_exchanges(path)


def test_unknown_content_encoding_is_an_error(tmp_path: Path) -> None:
    path = _write_cassette(tmp_path / "openai-chat" / "mirascope__z.yaml", b"x", "zstd")
    with pytest.raises(ValueError, match="zstd"):
        load_exchanges(path)


def test_f1_framing_for_the_other_wires(tmp_path: Path) -> None:
    lines = ['{"type":"message_start","x":"é"}', '{"type":"message_stop"}']
    text = "\n".join(lines)  # the recorder joins with "\n", no trailing newline
    for wire in ("anthropic-messages", "openai-responses", "gemini"):
        path = tmp_path / wire / "vercel-ai__x.chunks.txt"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
        (exchange,) = load_exchanges(path)
        if wire == "gemini":
            want = "".join(f"data: {line}\r\n\r\n" for line in lines)
        else:
            want = "".join(f"event: {json.loads(x)['type']}\ndata: {x}\n\n" for x in lines)
        assert exchange.body == want.encode("utf-8"), wire  # and no [DONE] for these wires


def test_f1_bedrock_lines_become_event_stream_frames(tmp_path: Path) -> None:
    path = tmp_path / "bedrock-converse" / "vercel-ai__x.chunks.txt"
    path.parent.mkdir()
    path.write_text('{"messageStart":{"role":"assistant"}}\n{"messageStop":{}}', encoding="utf-8")
    (exchange,) = load_exchanges(path)
    assert exchange.content_type == "application/vnd.amazon.eventstream"
    body, frames = exchange.body, []
    while body:
        total, headers_len, prelude_crc = struct.unpack(">III", body[:12])
        frame, body = body[:total], body[total:]
        assert zlib.crc32(frame[:8]) == prelude_crc
        assert zlib.crc32(frame[:-4]) == struct.unpack(">I", frame[-4:])[0]
        headers, payload = frame[12 : 12 + headers_len], frame[12 + headers_len : -4]
        frames.append((headers, json.loads(payload)))
    assert [p for _, p in frames] == [{"role": "assistant"}, {}]
    assert b":event-type\x07\x00\x0cmessageStart" in frames[0][0]


def test_f2_and_f7(tmp_path: Path) -> None:
    f2 = tmp_path / "openai-chat" / "vercel-ai__x.json"
    f2.parent.mkdir()
    f2.write_text('{\n  "id": "x"\n}', encoding="utf-8")
    (exchange,) = load_exchanges(f2)
    assert (exchange.status, exchange.content_type) == (200, "application/json")
    assert json.loads(exchange.body) == {"id": "x"}

    f7 = tmp_path / "anthropic-messages" / "anthropic-sdk-python__x.json"
    f7.parent.mkdir()
    snapshot = [
        {
            "request": {"method": "POST", "url": "u", "headers": {}, "body": {}},
            "response": {
                "status_code": 200,
                "headers": {"content-type": "text/event-stream; charset=utf-8"},
                "body": "event: ping\ndata: {}   \n\n",
            },
        },
        {"request": {}, "response": {"status_code": 400, "headers": {}, "body": {"e": 1}}},
    ]
    f7.write_text(json.dumps(snapshot), encoding="utf-8")
    first, second = load_exchanges(f7)
    assert first.body == b"event: ping\ndata: {}   \n\n"
    assert first.is_sse
    assert (second.status, json.loads(second.body)) == (400, {"e": 1})


def test_exchange_content_type_helpers() -> None:
    exchange = Exchange(200, {"content-type": "Text/Event-Stream; charset=utf-8"}, b"", None, "s")
    assert exchange.content_type == "text/event-stream"
    assert exchange.is_sse
    assert not exchange.is_json


# --------------------------------------------------------------------------- rechunk


def test_rechunk_joins_back_and_is_deterministic() -> None:
    body = bytes(range(256)) * 40
    for seed in range(20):
        chunks = rechunk(body, random.Random(seed))
        assert b"".join(chunks) == body
        assert all(chunks)
        assert chunks == rechunk(body, random.Random(seed))
    assert rechunk(b"", random.Random(0)) == []


def test_rechunk_sizes_mostly_small_with_single_byte_runs_and_large_pieces() -> None:
    body = b"x" * 200_000
    chunks = rechunk(body, random.Random(7))
    sizes = [len(c) for c in chunks]
    assert sum(1 <= s <= 64 for s in sizes) / len(sizes) > 0.8
    assert max(sizes) > 64
    runs = sum(1 for a, b in itertools.pairwise(sizes) if a == b == 1)
    assert runs > 10  # consecutive 1-byte pieces occur


def test_rechunk_splits_inside_multibyte_utf8() -> None:
    # QUIRKS A1: a character cut between two chunks must be reassembled by the decoder.
    body = ('data: {"content":"北京 🎒 \u2019 é"}\n\n' * 50).encode("utf-8")
    for seed in range(5):  # the seeds the replay tests use
        chunks = rechunk(body, random.Random(seed))
        assert splits_inside_utf8(body, chunks) > 0, seed
        undecodable = 0
        for chunk in chunks:
            try:
                chunk.decode("utf-8")
            except UnicodeDecodeError:
                undecodable += 1
        assert undecodable > 0


def test_replay_seeds_split_characters_of_real_recordings() -> None:
    # The same happens to the corpus bodies the replay tests feed to llmkit (curly quotes,
    # CJK, emoji in real responses), not only to the synthetic body above.
    (exchange,) = load_exchanges(fixture("pydantic-ai__test_openrouter_stream_with_reasoning"))
    assert "\u2019".encode() in exchange.body  # RIGHT SINGLE QUOTATION MARK
    splits = [
        splits_inside_utf8(exchange.body, rechunk(exchange.body, random.Random(s)))
        for s in range(5)
    ]
    assert all(n > 0 for n in splits), splits


def test_splits_inside_utf8_counts_only_cuts_inside_characters() -> None:
    body = "aé".encode()  # b"a\xc3\xa9"
    assert splits_inside_utf8(body, [b"a", b"\xc3\xa9"]) == 0
    assert splits_inside_utf8(body, [b"a\xc3", b"\xa9"]) == 1


# --------------------------------------------------------------------------- SSE parsing


def test_sse_events_split_on_cr_lf_crlf_only() -> None:
    lf = b"data: a\n\nevent: error\ndata: b\n\n"
    assert sse_events(lf) == [("message", "a"), ("error", "b")]
    assert sse_events(lf.replace(b"\n", b"\r\n")) == sse_events(lf)
    assert sse_events(lf.replace(b"\n", b"\r")) == sse_events(lf)
    # QUIRKS A2: U+2028 / U+2029 / U+0085 inside JSON are not line breaks.
    odd = '{"t":"a\u2028b\u2029c\u0085d\x0be\x0cf"}'
    assert sse_events(f"data: {odd}\n\n".encode()) == [("message", odd)]


def test_sse_events_fields() -> None:
    body = b": OPENROUTER PROCESSING\n\ndata:x\ndata:  two spaces  \n\nid: 1\nretry: 5\n\n"
    # Comments ignored (A3); one optional space removed, trailing spaces kept; data lines join
    # with "\n"; an event without data is not dispatched.
    assert sse_events(body) == [("message", "x\n two spaces  ")]


def test_sse_events_at_eof() -> None:
    assert sse_events(b"data: a\n\ndata: [DONE]\n") == [("message", "a")]
    assert sse_events(b"data: a\n\ndata: [DONE]\n", flush_at_eof=True) == [
        ("message", "a"),
        ("message", "[DONE]"),
    ]
    assert sse_events(b"data: a\n\ndata: [DO", flush_at_eof=True) == [("message", "a")]


# --------------------------------------------------------------------------- expectations


def sse(*payloads: Any, done: bool = True) -> bytes:
    """An OpenAI-style SSE body from chunk dicts (or raw ``(event, data)`` pairs)."""
    out = []
    for payload in payloads:
        if isinstance(payload, tuple):
            out.append(f"event: {payload[0]}\ndata: {payload[1]}\n\n")
        else:
            out.append(f"data: {json.dumps(payload)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8")


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> Any:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"id": "chatcmpl-1", "choices": [choice], **top}


def call(
    index: int | None = None, id: str | None = None, name: str | None = None, args: Any = None
):
    entry: dict[str, Any] = {"function": {}}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    if name is not None:
        entry["function"]["name"] = name
    if args is not None:
        entry["function"]["arguments"] = args
    return entry


def calls_of(body: bytes) -> list[tuple[str, str, str]]:
    return [(c.id, c.name, c.arguments) for c in expected_openai_chat(body).tool_calls]


def test_expected_well_behaved_stream() -> None:
    body = sse(
        {"id": "", "choices": [], "prompt_filter_results": []},  # Azure preamble (A8)
        chunk({"role": "assistant", "content": "", "reasoning_content": "hm"}),
        chunk({"content": "Hi "}, id="chatcmpl-2"),  # a later, different chunk id (A9)
        chunk({"content": "there", "refusal": None}),
        chunk({"tool_calls": [call(0, "call_a", "add", ""), call(1, "call_b", "mul", '{"a"')]}),
        chunk({"tool_calls": [call(0, args='{"a": 1}'), call(1, args=": 2}")]}),
        chunk({}, "tool_calls", usage=None),
        {"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7}},
    )
    exp = expected_openai_chat(body)
    assert (exp.text, exp.reasoning, exp.has_reasoning_fields) == ("Hi there", "hm", True)
    assert exp.text_and_refusal == "Hi there"
    assert calls_of(body) == [("call_a", "add", '{"a": 1}'), ("call_b", "mul", '{"a": 2}')]
    assert exp.finish_reason == "tool_calls"
    assert exp.usage == {"prompt_tokens": 5, "completion_tokens": 7}
    assert (exp.input_tokens, exp.output_tokens) == (5, 7)
    assert exp.response_id == "chatcmpl-1"
    assert exp.done
    assert exp.error is None
    assert exp.quirks == set()
    assert exp.provider_ids_usable


def test_expected_calls_without_index_are_one_call_per_id() -> None:
    # Mistral (C1): two calls in one delta, no index; an id-less entry continues the last one.
    body = sse(
        chunk({"tool_calls": [call(id="A1", name="plus", args="{}"), call(id="B2", name="minus")]}),
        chunk({"tool_calls": [call(args='{"a": 1}')]}),
        chunk({}, "tool_calls"),
    )
    assert calls_of(body) == [("A1", "plus", "{}"), ("B2", "minus", '{"a": 1}')]
    assert expected_openai_chat(body).quirks == {"C1"}


def test_expected_new_id_at_an_occupied_index_is_a_new_call() -> None:
    # Ollama 0.20 / litellm (C2): every call at index 0, each with its own id.
    body = sse(
        chunk({"tool_calls": [call(0, "c1", "read", '{"path":"a.rs"}')]}),
        chunk({"tool_calls": [call(0, "c2", "read", '{"path":"b.rs"}')]}),
    )
    assert calls_of(body) == [("c1", "read", '{"path":"a.rs"}'), ("c2", "read", '{"path":"b.rs"}')]
    assert "C2" in expected_openai_chat(body).quirks


def test_expected_repeated_id_and_name_are_one_call() -> None:
    # OpenRouter/Novita (B1, D4): id "0" and the name on every delta; "" then "{}".
    body = sse(
        chunk({"tool_calls": [call(0, "0", "llm_version", "")]}),
        chunk({"tool_calls": [call(0, "0", "llm_version", "{}")]}),
    )
    assert calls_of(body) == [("0", "llm_version", "{}")]
    assert expected_openai_chat(body).quirks == {"B1", "D4"}


def test_expected_empty_id_on_continuations_and_index_starting_at_one() -> None:
    # Alibaba sends "id": "" on continuations (B2); the anthropic gateway starts at index 1.
    body = sse(
        chunk({"tool_calls": [call(1, "call_x", "weather", "")]}),
        chunk({"tool_calls": [call(1, "", args='{"city": ')]}),
        chunk({"tool_calls": [call(1, "", args='"Paris"}')]}),
    )
    assert calls_of(body) == [("call_x", "weather", '{"city": "Paris"}')]


def test_expected_missing_and_duplicate_ids_make_provider_ids_unusable() -> None:
    assert not expected_openai_chat(
        sse(chunk({"tool_calls": [call(0, None, "f", "{}")]}))
    ).provider_ids_usable
    twice = sse(chunk({"tool_calls": [call(0, "x", "f", "{}"), call(1, "x", "g", "{}")]}))
    assert calls_of(twice) == [("x", "f", "{}"), ("x", "g", "{}")]
    assert not expected_openai_chat(twice).provider_ids_usable


def test_expected_object_arguments_are_serialised() -> None:
    # llama.cpp / Ollama (D2): arguments as a JSON object.
    body = sse(chunk({"tool_calls": [call(0, "c", "f", {"city": "Zürich"})]}))
    exp = expected_openai_chat(body)
    (tool_call,) = exp.tool_calls
    assert tool_call.arguments_were_object
    assert exp.quirks == {"D2"}
    assert tool_call.parsed_arguments == {"city": "Zürich"}


def test_expected_empty_arguments_mean_no_arguments() -> None:
    (tool_call,) = expected_openai_chat(sse(chunk({"tool_calls": [call(0, "c", "f")]}))).tool_calls
    assert tool_call.arguments == ""
    assert tool_call.parsed_arguments == {}


def test_expected_reads_choice_zero_only_and_survives_null_choices() -> None:
    body = sse(
        {"id": "r", "choices": None},  # OpenRouter/Groq (A7)
        {"id": "r", "choices": [{"index": 1, "delta": {"content": "other"}}]},  # n=3
        {"id": "r", "choices": [{"index": 0, "delta": {"content": "mine"}}]},
        {"id": "r", "choices": [{"index": 2, "delta": {}, "finish_reason": "length"}]},
    )
    exp = expected_openai_chat(body)
    assert (exp.text, exp.finish_reason) == ("mine", None)


def test_expected_refusal_is_kept_apart_and_in_order() -> None:
    body = sse(chunk({"content": "", "refusal": None}), chunk({"refusal": "I'm sorry"}))
    exp = expected_openai_chat(body)
    assert (exp.text, exp.refusal, exp.text_and_refusal) == ("", "I'm sorry", "I'm sorry")


def test_expected_first_finish_reason_wins() -> None:
    body = sse(chunk({}, "tool_calls"), chunk({}, "stop"))  # two terminal chunks (E2)
    assert expected_openai_chat(body).finish_reason == "tool_calls"


def test_expected_in_stream_errors() -> None:
    groq = sse(
        chunk({"reasoning": "thinking"}),
        chunk({"content": "maybe"}),
        ("error", '{"error":{"code":"tool_use_failed","failed_generation":""}}'),
        done=False,
    )
    exp = expected_openai_chat(groq)
    assert exp.error == {"code": "tool_use_failed", "failed_generation": ""}
    assert (exp.text, exp.reasoning, exp.done) == ("maybe", "thinking", False)

    openai = sse(chunk({"content": "a"}), {"error": {"type": "server_error"}}, done=False)
    assert expected_openai_chat(openai).error == {"type": "server_error"}  # A5

    openrouter = sse(chunk({"content": "a"}, "error"))
    assert expected_openai_chat(openrouter).error == {"finish_reason": "error"}  # A7, E5


def test_expected_mistral_content_parts() -> None:
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "2+2"}]}
    body = sse(chunk({"content": [thinking]}), chunk({"content": [{"type": "text", "text": "4"}]}))
    exp = expected_openai_chat(body)
    assert (exp.text, exp.reasoning, exp.has_reasoning_fields) == ("4", "2+2", True)


def test_expected_counts_reasoning_once_when_both_fields_are_sent() -> None:
    # vLLM sends "reasoning" and "reasoning_content" with the same text (F8).
    body = sse(chunk({"reasoning": "a", "reasoning_content": "a"}), chunk({"reasoning": "b"}))
    assert expected_openai_chat(body).reasoning == "ab"


def test_expected_done_without_final_blank_line() -> None:
    exp = expected_openai_chat(b'data: {"id":"x","choices":[]}\n\ndata: [DONE]\n')
    assert exp.done
    assert exp.done_unterminated
    assert not expected_openai_chat(sse(chunk())).done_unterminated


def test_expected_output_tokens_include_reasoning() -> None:
    def usage(**u: Any) -> Any:
        return expected_openai_chat(sse({"id": "x", "choices": [], "usage": u}))

    details = {"reasoning_tokens": 136}
    # OpenAI: completion_tokens already includes reasoning (total = prompt + completion).
    openai = usage(
        prompt_tokens=10, completion_tokens=200, total_tokens=210, completion_tokens_details=details
    )
    assert (openai.output_tokens, openai.reasoning_tokens) == (200, 136)
    # xAI: total = prompt + completion + reasoning, so completion excludes reasoning.
    xai = usage(
        prompt_tokens=432, completion_tokens=68, total_tokens=636, completion_tokens_details=details
    )
    assert xai.output_tokens == 204
    assert usage(prompt_tokens=1).output_tokens is None


def test_expected_json_response() -> None:
    doc = {
        "id": "chatcmpl-9",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "function": {"name": "f", "arguments": '{"x": 1}'}},
                        {"id": "call_2", "function": {"name": "g", "arguments": {"y": 2}}},
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4},
    }
    exp = expected_openai_chat_json(json.dumps(doc).encode())
    assert [(c.id, c.name, c.parsed_arguments) for c in exp.tool_calls] == [
        ("call_1", "f", {"x": 1}),
        ("call_2", "g", {"y": 2}),
    ]
    assert (exp.text, exp.finish_reason, exp.response_id) == ("", "tool_calls", "chatcmpl-9")
    assert (exp.input_tokens, exp.output_tokens) == (3, 4)


def test_expected_on_quirky_recordings() -> None:
    # Mistral: two calls in one delta, no index, finish_reason on the same chunk (C1, C4).
    (mistral,) = load_exchanges(fixture("magentic__test_mistral_chat_model_complete_parallel"))
    assert calls_of(mistral.body) == [
        ("nqjf8Hqe1", "plus", '{"a": 1, "b": 2}'),
        ("ATcpCKul3", "minus", '{"a": 2, "b": 1}'),
    ]
    # OpenRouter/Novita: id "0" repeated, arguments "" then "{}", no finish_reason (B1, E1).
    variant_a = load_exchanges(fixture("simonw-llm__test_tools_streaming_variant_a"))[0]
    exp = expected_openai_chat(variant_a.body)
    assert calls_of(variant_a.body) == [("0", "llm_version", "{}")]
    assert exp.finish_reason is None
    assert exp.done
    # The gateway capture lacks the blank line after [DONE].
    (gateway,) = load_exchanges(fixture("anthropic-fallback-tool-call.sse"))
    exp = expected_openai_chat(gateway.body)
    assert exp.done
    assert exp.done_unterminated
    assert calls_of(gateway.body) == [("toolu_sanitized", "read_file", '{"path": "a.txt"}')]
    assert exp.text == "Reading it."
