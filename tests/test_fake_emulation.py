"""``FakeProvider(emulate=...)``: the fake streams like a named OpenAI-compatible server.

Two kinds of check per server. On the wire, with a plain httpx client and an SSE parser of this
file's own, the quirk the profile claims is really there (cited by docs/quirks.md id), and where the
shared corpus has a recording of that server, the shapes match it key for key. Through llmkit,
``complete()`` must still return exactly what was scripted: that is the point of emulation, a
tool loop tested against "a vLLM-like stream" and not only against OpenAI's.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import httpx
import pytest

import llmkit
from llmkit.testing import EMULATED_SERVERS, FakeError, FakeProvider, FakeReply, FakeToolCall
from tests.support.corpus import FIXTURES, load_exchanges, sse_events

CALLS = (
    FakeToolCall("get_weather", {"city": "Paris"}),
    FakeToolCall("get_weather", {"city": "Rome"}),
)
USAGE = {"input": 12, "output": 7, "cache_read": 4, "reasoning": 2}
REPLY = FakeReply(
    "Sunny in both.",
    thinking="Two cities, two calls.",
    tool_calls=CALLS,
    usage=USAGE,
    delta_size=5,
)
CONTEXT = llmkit.Context(
    messages=[llmkit.user("hi")],
    tools=[
        llmkit.Tool(
            name="get_weather",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)
WITH_USAGE: dict[str, Any] = {"stream_options": {"include_usage": True}}
MISTRAL_TOOL_CALL = "openai-compatible/mistral/vercel-ai__mistral-tool-call.chunks.txt"
DEEPSEEK_TOOL_CALL = "openai-compatible/deepseek/vercel-ai__deepseek-tool-call.chunks.txt"


class Wire:
    """A streamed response as parsed here: comments, named events and JSON chunks."""

    def __init__(self, response: httpx.Response) -> None:
        self.headers = response.headers
        self.raw = response.content
        self.comments: list[str] = []
        self.events: list[tuple[str, str]] = []  # (event name, data)
        for block in re.split(rb"\r\n\r\n|\n\n|\r\r", self.raw):
            name, data = "message", []
            for line in block.decode().splitlines():
                if line.startswith(":"):
                    self.comments.append(line)
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
            if data:
                self.events.append((name, "\n".join(data)))
        assert self.events[-1][1] == "[DONE]" or "error" in self.events[-1][1]
        self.chunks: list[dict[str, Any]] = [
            json.loads(data) for _, data in self.events if data != "[DONE]"
        ]

    @property
    def choices(self) -> list[dict[str, Any]]:
        """The first choice of every chunk that has one."""
        return [c["choices"][0] for c in self.chunks if c.get("choices")]

    @property
    def deltas(self) -> list[dict[str, Any]]:
        return [choice["delta"] for choice in self.choices]

    @property
    def tool_entries(self) -> list[dict[str, Any]]:
        """Every ``tool_calls[]`` entry of every delta, in order."""
        return [entry for d in self.deltas for entry in d.get("tool_calls") or ()]

    @property
    def finish_reasons(self) -> list[str]:
        return [c["finish_reason"] for c in self.choices if c.get("finish_reason")]

    def usage_chunks(self) -> list[dict[str, Any]]:
        return [c for c in self.chunks if c.get("usage")]


def stream(emulate: str, reply: FakeReply | FakeError = REPLY, **body: Any) -> Wire:
    """POST one streamed request to a fresh fake emulating ``emulate``; the parsed answer."""
    with (
        FakeProvider([reply], emulate=emulate) as fake,
        httpx.Client(verify=False, timeout=5) as client,
    ):
        response = client.post(
            f"{fake.base_url}/chat/completions",
            headers={"authorization": f"Bearer {fake.api_key}"},
            json={"model": "m", "messages": [], "stream": True, **body},
        )
    assert response.status_code == 200
    return Wire(response)


def recorded_chunks(relative: str) -> list[dict[str, Any]]:
    """The JSON chunks of the first exchange of a corpus recording under tests/fixtures."""
    (exchange, *_) = load_exchanges(FIXTURES / relative)
    return [json.loads(data) for _, data in sse_events(exchange.body) if data.startswith("{")]


def arguments(entry: dict[str, Any]) -> Any:
    return entry["function"]["arguments"]


# -- each server's quirks are on the wire ---------------------------------------------------------


def test_openai_profile_is_the_default_byte_for_byte() -> None:
    def body(emulate: str | None) -> bytes:
        with FakeProvider([REPLY], emulate=emulate) as fake, httpx.Client(verify=False) as c:
            raw = c.post(
                f"{fake.base_url}/chat/completions",
                headers={"authorization": f"Bearer {fake.api_key}"},
                json={"model": "m", "stream": True, **WITH_USAGE},
            ).content
        return re.sub(rb'"created":\d+', b'"created":0', raw)

    assert body("openai") == body(None)


def test_vllm_repeats_the_call_identity_on_every_delta() -> None:
    wire = stream("vllm")
    entries = wire.tool_entries
    assert len(entries) > 4  # arguments really come in pieces
    for entry in entries:  # B1: id, type and name on every delta, not just the first
        assert set(entry) == {"index", "id", "type", "function"}
        assert entry["function"]["name"] == "get_weather"
    ids = {index: {e["id"] for e in entries if e["index"] == index} for index in (0, 1)}
    assert all(len(v) == 1 for v in ids.values())  # the same id repeated, never a new one
    assert ids[0] != ids[1]
    assert all(i.startswith("chatcmpl-tool-") for v in ids.values() for i in v)
    assert wire.finish_reasons == ["tool_calls"]


def test_vllm_says_stop_after_a_named_tool_choice_and_sends_usage_only_on_request() -> None:
    named = stream("vllm", tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert named.finish_reasons == ["stop"]  # E1
    assert named.usage_chunks() == []  # J1: not asked for
    asked = stream("vllm", **WITH_USAGE)
    (usage,) = asked.usage_chunks()
    assert usage["choices"] == []
    assert usage["usage"]["prompt_tokens"] == 12


def test_vllm_sends_reasoning_under_both_names_as_recorded() -> None:
    # F8: newer vLLM's `reasoning`, with `reasoning_content` alongside during the rename
    # (corpus: llama-stack vLLM recording 66c64647).
    recorded = recorded_chunks(
        "openai-compatible/vllm/"
        "llama-stack__66c64647aba657ff9c59b7706db88fe87905a39abcd5135850910ebd4bdc7a6e.json"
    )
    real = next(
        c["choices"][0]["delta"] for c in recorded if c["choices"][0]["delta"].get("reasoning")
    )
    ours = [d for d in stream("vllm").deltas if "reasoning" in d]
    assert "".join(d["reasoning"] for d in ours) == "Two cities, two calls."
    assert all(d["reasoning_content"] == d["reasoning"] for d in ours)
    assert real["reasoning"] == real["reasoning_content"]


def test_ollama_sends_every_call_whole_at_index_zero_with_new_ids() -> None:
    wire = stream("ollama")
    first, second = wire.tool_entries
    assert first["index"] == second["index"] == 0  # C2
    assert first["id"] != second["id"]
    assert re.fullmatch(r"call_[a-z0-9]{8}", first["id"])
    # D1: each call complete in its own delta
    assert [json.loads(arguments(e)) for e in (first, second)] == [
        {"city": "Paris"},
        {"city": "Rome"},
    ]
    assert sum(1 for d in wire.deltas if d.get("tool_calls")) == 2
    assert wire.finish_reasons == ["stop"]  # E1
    assert "".join(d.get("reasoning", "") for d in wire.deltas) == "Two cities, two calls."
    assert all(d["role"] == "assistant" for d in wire.deltas)  # the role on every delta


def test_llamacpp_repeats_the_name_and_puts_the_id_inside_function() -> None:
    reply = FakeReply(
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}), FakeToolCall("f", '{"a": 1}')],
        delta_size=3,
    )
    entries = stream("llamacpp", reply).tool_entries
    whole, *pieces = entries
    # D2: a mapping goes out as a JSON object, whole; D4: the id sits inside function
    assert whole["function"]["arguments"] == {"city": "Paris"}
    assert set(whole) == {"index", "function"}
    assert re.fullmatch(r"[A-Za-z0-9]{32}", whole["function"]["id"])
    assert len(pieces) == 3
    assert all(e["function"]["name"] == "f" and "id" not in e for e in pieces)  # D4
    assert "id" in pieces[0]["function"] and all("id" not in e["function"] for e in pieces[1:])
    assert "".join(arguments(e) for e in pieces) == '{"a": 1}'
    wire = stream("llamacpp")
    assert "".join(d.get("reasoning_content", "") for d in wire.deltas) == "Two cities, two calls."


def test_mistral_sends_calls_whole_without_index_and_nine_character_ids() -> None:
    wire = stream("mistral")  # no stream_options: Mistral sends usage anyway
    (delta,) = [d for d in wire.deltas if d.get("tool_calls")]
    first, second = delta["tool_calls"]  # every call in one delta (C4), whole (D1)
    for entry in (first, second):
        assert "index" not in entry  # C1
        assert re.fullmatch(r"[A-Za-z0-9]{9}", entry["id"])  # B5
    assert first["id"] != second["id"]
    assert [json.loads(arguments(e)) for e in (first, second)] == [
        {"city": "Paris"},
        {"city": "Rome"},
    ]
    last = wire.chunks[-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls"
    assert last["choices"][0]["delta"] == delta  # the finish rides on the tool-call chunk
    usage_keys = ["prompt_tokens", "total_tokens", "completion_tokens", "prompt_tokens_details"]
    assert list(last["usage"]) == usage_keys
    recorded = recorded_chunks(MISTRAL_TOOL_CALL)[-1]
    assert set(last) == set(recorded)
    assert set(last["choices"][0]) == set(recorded["choices"][0])


def test_groq_reports_usage_in_x_groq_and_usage_like_the_recording() -> None:
    wire = stream("groq", **WITH_USAGE)
    calls = [d["tool_calls"] for d in wire.deltas if d.get("tool_calls")]
    assert [len(c) for c in calls] == [1, 1]  # D1: one chunk per call, each whole
    assert json.loads(arguments(calls[1][0])) == {"city": "Rome"}
    recorded = recorded_chunks(
        "openai-compatible/groq/"
        "charmbracelet-fantasy__TestOpenAICompatibleCommon--groq-kimi-k2--multi_tool_streaming.yaml"
    )
    ours_finish = next(
        c for c in wire.chunks if c.get("choices") and c["choices"][0]["finish_reason"]
    )
    real_finish = next(c for c in recorded if c.get("choices") and c["choices"][0]["finish_reason"])
    assert set(ours_finish) == set(real_finish)  # ... "x_groq" and "usage" both
    assert set(ours_finish["x_groq"]) == set(real_finish["x_groq"]) == {"id", "usage"}
    assert ours_finish["x_groq"]["usage"] == ours_finish["usage"]
    # The recorded counts and timings; the detail objects only because they were scripted.
    assert set(real_finish["usage"]) <= set(ours_finish["usage"])
    # With include_usage a last chunk with empty choices repeats it, as recorded.
    ours_last, real_last = wire.chunks[-1], recorded[-1]
    assert ours_last["choices"] == real_last["choices"] == []
    assert set(ours_last) == set(real_last)
    assert set(wire.chunks[0]["x_groq"]) == set(recorded[0]["x_groq"]) == {"id", "seed"}
    assert "".join(d.get("reasoning", "") for d in wire.deltas) == "Two cities, two calls."
    # Without include_usage Groq still reports usage on the finish chunk (pydantic-ai recording).
    (plain,) = stream("groq").usage_chunks()
    assert plain["choices"][0]["finish_reason"] == "tool_calls"
    assert plain["x_groq"]["usage"]["total_tokens"] == plain["usage"]["total_tokens"] == 19


def test_deepseek_reasons_first_and_reports_cache_hits_and_misses() -> None:
    wire = stream("deepseek", **WITH_USAGE)
    kinds = [
        "reasoning" if d.get("reasoning_content") else "text"
        for d in wire.deltas
        if d.get("reasoning_content") or (isinstance(d.get("content"), str) and d["content"])
    ]
    assert kinds == sorted(kinds)  # F6: every reasoning delta before any content
    assert "reasoning" in kinds
    (chunk,) = wire.usage_chunks()
    usage = chunk["usage"]
    assert usage["prompt_cache_hit_tokens"] == 4
    assert usage["prompt_cache_hit_tokens"] + usage["prompt_cache_miss_tokens"] == 12
    recorded = recorded_chunks(DEEPSEEK_TOOL_CALL)[-1]
    assert set(usage) == set(recorded["usage"])
    assert chunk["choices"][0]["finish_reason"] == "tool_calls"  # usage rides on the finish
    assert set(chunk["choices"][0]["delta"]) == set(recorded["choices"][0]["delta"])
    assert all("usage" in c for c in wire.chunks)  # "usage": null everywhere else


def test_openrouter_comments_reasoning_details_and_native_finish_reason() -> None:
    wire = stream("openrouter")
    assert wire.comments == [": OPENROUTER PROCESSING"] * 2  # A3
    assert wire.raw.startswith(b": OPENROUTER PROCESSING\n\n")
    reasoning = [d for d in wire.deltas if d.get("reasoning_details")]
    assert "".join(d.get("reasoning", "") for d in reasoning) == "Two cities, two calls."
    recorded = recorded_chunks(
        "openai-compatible/openrouter/"
        "charmbracelet-fantasy__TestOpenRouterThinking--anthropic--thinking-streaming.yaml"
    )
    real_details = [
        c["choices"][0]["delta"]["reasoning_details"][0]
        for c in recorded
        if c["choices"] and c["choices"][0]["delta"].get("reasoning_details")
    ]
    ours_details = [d["reasoning_details"][0] for d in reasoning]
    # F7: text details, then one closing detail carrying the signature, as recorded.
    assert {frozenset(d) for d in ours_details} == {frozenset(d) for d in real_details}
    assert "signature" in ours_details[-1]
    base64.b64decode(ours_details[-1]["signature"], validate=True)
    assert all("native_finish_reason" in c for c in wire.choices)  # E5
    assert {c["native_finish_reason"] for c in wire.choices if c["finish_reason"]} == {"tool_use"}
    assert all(
        re.fullmatch(r"toolu_bdrk_01\w{22}", e["id"]) for e in wire.tool_entries if "id" in e
    )
    assert wire.usage_chunks()[-1]["usage"]["cost"] > 0  # usage always, on a repeated finish


def test_openrouter_in_stream_error_is_a_chunk_with_finish_reason_error() -> None:
    error = FakeError(
        in_stream=True,
        after_events=4,
        body={"error": {"code": 502, "message": "Upstream died"}},
        partial=FakeReply("Hello there, world"),
    )
    wire = stream("openrouter", error)
    last = wire.chunks[-1]
    assert last["error"] == {"code": 502, "message": "Upstream died"}  # A7
    assert last["choices"][0]["finish_reason"] == "error"
    assert b"[DONE]" not in wire.raw


def test_groq_names_its_in_stream_error_events() -> None:
    body = {"error": {"message": "Tool call validation failed", "code": "tool_use_failed"}}
    error = FakeError(in_stream=True, after_events=2, body=body)
    wire = stream("groq", error)
    assert wire.events[-1] == ("error", json.dumps(body, separators=(",", ":")))
    with FakeProvider([error], emulate="groq") as fake, pytest.raises(llmkit.LLMError) as exc:
        llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, max_retries=0)
    assert "Tool call validation failed" in str(exc.value)


def test_gemini_openai_sends_empty_ids_no_index_and_a_thought_signature() -> None:
    wire = stream("gemini-openai")
    first, second = wire.tool_entries
    assert first["id"] == second["id"] == ""  # B2
    assert "index" not in first and "index" not in second  # C1
    signature = first["extra_content"]["google"]["thought_signature"]  # F3
    assert base64.b64decode(signature, validate=True)
    assert "extra_content" not in second  # Gemini signs the first of parallel calls
    assert wire.finish_reasons == ["stop"]  # E1: streaming says stop despite the calls
    assert not any("reasoning" in k for d in wire.deltas for k in d)


def test_azure_starts_with_a_content_filter_chunk() -> None:
    wire = stream("azure", **WITH_USAGE)
    preamble = wire.chunks[0]
    assert preamble["choices"] == [] and preamble["id"] == preamble["model"] == ""  # A8
    assert preamble["prompt_filter_results"][0]["prompt_index"] == 0
    assert all(c["content_filter_results"] == {} for c in wire.choices)
    recorded = recorded_chunks(
        "openai-chat/charmbracelet-fantasy__TestAzureCommon--azure-gpt-5-mini--tool_streaming.yaml"
    )
    assert set(preamble) == set(recorded[0])
    assert set(wire.chunks[1]) <= set(recorded[1])  # not "obfuscation"
    assert set(wire.choices[0]) == set(recorded[1]["choices"][0])


def test_emulate_rejects_unknown_servers_and_other_apis() -> None:
    with pytest.raises(ValueError, match=r"emulates .*not 'lmstudio'"):
        FakeProvider(emulate="lmstudio")
    with pytest.raises(ValueError, match="openai-chat"):
        FakeProvider(api="anthropic-messages", emulate="vllm")
    assert FakeProvider(emulate="ollama").emulate == "ollama"
    assert "openai" in EMULATED_SERVERS and len(EMULATED_SERVERS) == 10


# -- llmkit reads every emulated server right ----------------------------------------------------


@pytest.mark.parametrize("server", EMULATED_SERVERS)
def test_llmkit_gets_the_scripted_reply_from_every_server(server: str) -> None:
    with FakeProvider([REPLY], emulate=server) as fake:
        message = llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key)
    text = "".join(p.text for p in message.content if isinstance(p, llmkit.TextPart))
    calls = [p for p in message.content if isinstance(p, llmkit.ToolCall)]
    assert text == "Sunny in both."
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert all(c.status == "complete" for c in calls)
    assert len({c.id for c in calls}) == 2 and all(c.id for c in calls)  # B2: synthesised
    assert message.stop_reason == "tool_use"  # from what arrived, despite E1's "stop"
    assert (message.usage.input, message.usage.output) == (12, 7)
    if server != "gemini-openai":  # Gemini's compat endpoint streams no thought text
        thinking = "".join(
            p.thinking for p in message.content if isinstance(p, llmkit.ThinkingPart)
        )
        assert thinking == "Two cities, two calls."


def test_llmkit_after_a_named_tool_choice_on_vllm() -> None:
    with FakeProvider([REPLY], emulate="vllm") as fake:
        message = llmkit.complete(
            fake.model(), CONTEXT, api_key=fake.api_key, tool_choice={"name": "get_weather"}
        )
        assert fake.requests[0].body["tool_choice"]["function"]["name"] == "get_weather"
    assert message.raw_stop_reason == "stop"
    assert message.stop_reason == "tool_use"
    assert len([p for p in message.content if isinstance(p, llmkit.ToolCall)]) == 2


def test_llmkit_keeps_gemini_thought_signatures_for_replay() -> None:
    with FakeProvider([REPLY], emulate="gemini-openai") as fake:
        message = llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key)
    first, second = [p for p in message.content if isinstance(p, llmkit.ToolCall)]
    assert first.replay is not None
    assert first.replay["extra_content"]["google"]["thought_signature"]
    assert second.replay is None


def test_llmkit_surfaces_an_openrouter_in_stream_error() -> None:
    error = FakeError(
        in_stream=True,
        after_events=4,
        body={"error": {"code": 502, "message": "Upstream died"}},
        partial=FakeReply("Hello there, world"),
    )
    with FakeProvider([error], emulate="openrouter") as fake, pytest.raises(llmkit.LLMError) as exc:
        llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key, max_retries=0)
    assert "Upstream died" in str(exc.value)
