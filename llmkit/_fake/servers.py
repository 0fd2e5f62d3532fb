"""Named server emulations for the fake OpenAI Chat wire (``FakeProvider(emulate=...)``).

Many servers speak "OpenAI-compatible" Chat Completions, each bent in its own way: where the
tool-call id goes, whether ``index`` is sent, which field carries reasoning, where usage lands.
A :class:`ServerProfile` is those bends as data, one frozen switch set per server, so the
encoder (``openai_chat.py``) stays one readable code path. Every switch names the row of
``docs/quirks.md`` it reproduces, and the shapes are copied from real recordings
(``tests/fixtures/openai-compatible/<server>/``, ``tests/fixtures/openai-chat/*Azure*``) or,
where none exists, from the captures quoted in the cited issues.

Everything here is deterministic: ids are derived from the request's arrival number and the
per-provider call counter by hashing, so a test sees the same bytes on every run.
"""

from __future__ import annotations

import base64
import hashlib
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["PROFILES", "ServerProfile", "profile", "token"]

_ALNUM = string.ascii_letters + string.digits
_LOWER_ALNUM = string.ascii_lowercase + string.digits
_HEX = "0123456789abcdef"


def token(seed: str, length: int, alphabet: str = _ALNUM) -> str:
    """A deterministic random-looking string: ``length`` characters of ``alphabet``.

    Real servers mint ids at random; the fake derives them from ``seed`` so tests are
    repeatable. Up to ~40 alphanumerics (the 256 bits of one SHA-256).
    """
    value = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(length):
        value, digit = divmod(value, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _uuid(seed: str) -> str:
    h = token(seed, 32, _HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _signature(seed: str) -> str:
    """An opaque base64 blob standing in for a thought signature (QUIRKS F3, F7)."""
    return base64.b64encode(hashlib.sha256(seed.encode()).digest() * 2).decode()


# -- usage objects, one function per server's shape ------------------------------------------
# Each takes the scripted usage (llmkit's keys: input, output, cache_read, cache_write,
# reasoning) and returns what that server puts under "usage". Only scripted counts are sent.


def openai_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """api.openai.com: totals plus ``*_tokens_details`` for cached and reasoning tokens."""
    out: dict[str, Any] = {}
    if "input" in usage:
        out["prompt_tokens"] = usage["input"]
    if "output" in usage:
        out["completion_tokens"] = usage["output"]
    if "input" in usage and "output" in usage:
        out["total_tokens"] = usage["input"] + usage["output"]
    if "cache_read" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": usage["cache_read"]}
    if "reasoning" in usage:
        out["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
    # Chat Completions has no cache-write count; "cache_write" is deliberately not sent.
    return out


def totals_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """Ollama, llama.cpp, Gemini: ``prompt_tokens``, ``completion_tokens``, ``total_tokens``
    only (cached and reasoning counts are not reported)."""
    return {k: v for k, v in openai_usage(usage).items() if not k.endswith("_details")}


def vllm_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """vLLM: totals, ``prompt_tokens_details`` always present (``null`` without a cache hit)."""
    out = openai_usage(usage)
    out.setdefault("prompt_tokens_details", None)
    return out


def deepseek_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """DeepSeek: OpenAI's fields plus ``prompt_cache_hit_tokens``/``prompt_cache_miss_tokens``
    (hit + miss = prompt tokens), as in the corpus recordings."""
    out = openai_usage(usage)
    hit = usage.get("cache_read", 0)
    out.setdefault("prompt_tokens_details", {"cached_tokens": hit})
    out["prompt_cache_hit_tokens"] = hit
    if "input" in usage:
        out["prompt_cache_miss_tokens"] = usage["input"] - hit
    return out


def groq_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """Groq: counts interleaved with queue/prompt/completion/total timings in seconds."""
    totals = totals_usage(usage)
    out: dict[str, Any] = {"queue_time": 0.0125}
    if "prompt_tokens" in totals:
        out["prompt_tokens"] = totals["prompt_tokens"]
    out["prompt_time"] = 0.0225
    if "completion_tokens" in totals:
        out["completion_tokens"] = totals["completion_tokens"]
    out["completion_time"] = 0.1125
    if "total_tokens" in totals:
        out["total_tokens"] = totals["total_tokens"]
    out["total_time"] = 0.135
    if "reasoning" in usage:
        out["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
    if "cache_read" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": usage["cache_read"]}
    return out


def mistral_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """Mistral: ``prompt_tokens``, ``total_tokens``, ``completion_tokens`` (in that order)."""
    totals = totals_usage(usage)
    order = ("prompt_tokens", "total_tokens", "completion_tokens")
    out: dict[str, Any] = {k: totals[k] for k in order if k in totals}
    if "cache_read" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": usage["cache_read"]}
    return out


def openrouter_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """OpenRouter: totals, ``cost``/``is_byok``, and detail objects that are always complete."""
    out: dict[str, Any] = totals_usage(usage)
    out["cost"] = 0.001
    out["is_byok"] = False
    out["prompt_tokens_details"] = {
        "cached_tokens": usage.get("cache_read", 0),
        "cache_write_tokens": usage.get("cache_write", 0),
        "audio_tokens": 0,
        "video_tokens": 0,
    }
    out["cost_details"] = {
        "upstream_inference_cost": 0.001,
        "upstream_inference_prompt_cost": 0.0004,
        "upstream_inference_completions_cost": 0.0006,
    }
    out["completion_tokens_details"] = {
        "reasoning_tokens": usage.get("reasoning", 0),
        "image_tokens": 0,
        "audio_tokens": 0,
    }
    return out


def azure_usage(usage: Mapping[str, int]) -> dict[str, Any]:
    """Azure OpenAI: OpenAI's counts with every detail field filled in."""
    out: dict[str, Any] = totals_usage(usage)
    out["completion_tokens_details"] = {
        "accepted_prediction_tokens": 0,
        "audio_tokens": 0,
        "reasoning_tokens": usage.get("reasoning", 0),
        "rejected_prediction_tokens": 0,
    }
    out["prompt_tokens_details"] = {"audio_tokens": 0, "cached_tokens": usage.get("cache_read", 0)}
    return out


# -- the profile --------------------------------------------------------------------------

Layout = Literal["streamed", "whole", "together"]
IndexMode = Literal["position", "zero", "none"]
StopWithTools = Literal["never", "named_choice", "always"]
UsageWhere = Literal["own_chunk", "finish_chunk", "groq", "repeat_finish"]


@dataclass(frozen=True)
class ServerProfile:
    """How one server shapes Chat Completions chunks: the switches the encoder reads.

    Defaults are api.openai.com's behaviour, so a profile lists only where its server differs.

    Attributes:
        name: The ``emulate=`` name.
        quirks: The docs/quirks.md ids the profile reproduces (documentation and tests).
        chunk_id: ``(request number, created) -> chunk id``.
        fingerprint: ``system_fingerprint`` value; ``None`` leaves the key out.
        head_extra: Constant top-level keys on every chunk (e.g. OpenRouter's ``provider``);
            a ``usage: None`` here is replaced on the chunk that carries usage.
        x_groq: Groq's ``x_groq`` object: ``{id, seed}`` on the first chunk, ``{id, usage}``
            on the finish chunk (with ``usage_where="groq"``).
        choice_logprobs: Put ``"logprobs": null`` in every choice.
        choice_extra: Constant keys on every choice (Azure's ``content_filter_results``).
        sort_keys: Serialise chunks with sorted keys (Azure and Gemini emit protobuf-style
            alphabetical JSON).
        preamble: Events written before the first chunk: ``bytes`` verbatim (SSE comments),
            mappings framed as JSON (QUIRKS A3, A8).
        stream_content_type: The ``content-type`` of a streamed response.
        role_delta: The delta of a first, role-only chunk; ``None``: no such chunk, the role
            rides on the content deltas instead (``text_extra`` etc.).
        role_delta_tool_only: The role delta when the reply has tool calls and no text.
        text_extra: Keys added to every text delta.
        reasoning_fields: The delta fields each reasoning piece is sent in, all at once (QUIRKS
            F8: vLLM's transition sends both names); empty: reasoning is not sent at all.
        reasoning_extra: Keys added to every reasoning delta.
        reasoning_details_format: Send OpenRouter's ``reasoning_details`` list next to
            ``reasoning`` with this ``format``, and a closing signature detail (QUIRKS F7).
        content_parts: Mistral magistral: reasoning and (after it) text as typed content parts.
        tool_layout: ``streamed``: a first delta with id and name, then argument pieces;
            ``whole``: each call complete in one chunk (QUIRKS D1); ``together``: every call
            complete in one delta list (C4).
        tool_index: ``position`` (0, 1, ...), ``zero`` for every call (C2), or ``none`` (C1).
        tool_type: Send ``"type": "function"`` with the id.
        tool_extra: Keys added to every tool-call delta.
        repeat_identity: Repeat ``id``, ``type`` and ``function.name`` on every delta (B1).
        llamacpp_legacy: ``function.name`` on every delta, the id inside ``function`` on the
            first one, no ``type`` (D4, llama.cpp before PR #13800).
        empty_first_arguments: The identity delta carries ``arguments: ""`` and the pieces
            follow; ``False``: the first piece rides on the identity delta.
        object_arguments: Send arguments scripted as a mapping as a JSON object (D2).
        empty_ids: Send ``"id": ""`` on every call, whatever was scripted (B2).
        thought_signature: Put ``extra_content.google.thought_signature`` on the first call
            (F3; Gemini signs only the first of parallel calls).
        call_id: ``(seed, index) -> id`` for calls scripted without one; ``seed`` is the
            provider's ``call_<n>`` counter value, so ids are unique per provider.
        stop_with_tools: When ``finish_reason`` is ``"stop"`` despite tool calls (E1):
            ``never``, ``named_choice`` (the request named a function in ``tool_choice``), or
            ``always``.
        finish_delta: The delta of the finish chunk.
        finish_choice_extra: Keys added to the finish chunk's choice (vLLM's ``stop_reason``).
        finish_merge: Put ``finish_reason`` on the last content chunk instead of a chunk of its
            own: ``never``, ``tool_calls`` (only after tool calls) or ``always``.
        native_finish: Add ``native_finish_reason`` to every choice, mapped from
            ``finish_reason`` by this table (unlisted values map to themselves) (E5).
        usage_always: Send usage without ``stream_options.include_usage`` (J1 does not hold).
        usage_where: ``own_chunk``: a chunk with ``choices: []`` (A8); ``finish_chunk``: on
            the finish chunk; ``groq``: in ``x_groq.usage`` and ``usage`` of the finish chunk,
            plus an own chunk when requested; ``repeat_finish``: a second finish chunk.
        usage_fields: The usage object's shape.
        usage_chunk_extra: Keys added to the chunk that carries usage (llama.cpp ``timings``).
        error_style: In-stream errors as OpenAI's ``{"error": ...}`` (A5) or OpenRouter's
            chunk with ``error`` and ``finish_reason: "error"`` (A7).
        error_event_name: An SSE ``event:`` line before an in-stream error (Groq: ``error``).
    """

    name: str
    quirks: tuple[str, ...] = ()
    # -- the chunk envelope
    chunk_id: Callable[[int, int], str] = lambda number, created: f"chatcmpl-fake{number}"
    fingerprint: str | None = "fp_fake"
    head_extra: Mapping[str, Any] = field(default_factory=dict)
    x_groq: bool = False
    choice_logprobs: bool = True
    choice_extra: Mapping[str, Any] = field(default_factory=dict)
    sort_keys: bool = False
    preamble: tuple[bytes | Mapping[str, Any], ...] = ()
    stream_content_type: str = "text/event-stream; charset=utf-8"
    # -- role, text and reasoning deltas
    role_delta: Mapping[str, Any] | None = field(
        default_factory=lambda: {"role": "assistant", "content": "", "refusal": None}
    )
    role_delta_tool_only: Mapping[str, Any] | None = field(
        default_factory=lambda: {"role": "assistant", "content": None}
    )
    text_extra: Mapping[str, Any] = field(default_factory=dict)
    reasoning_fields: tuple[str, ...] = ("reasoning_content",)
    reasoning_extra: Mapping[str, Any] = field(default_factory=dict)
    reasoning_details_format: str | None = None
    content_parts: bool = False
    # -- tool calls
    tool_layout: Layout = "streamed"
    tool_index: IndexMode = "position"
    tool_type: bool = True
    tool_extra: Mapping[str, Any] = field(default_factory=dict)
    repeat_identity: bool = False
    llamacpp_legacy: bool = False
    empty_first_arguments: bool = True
    object_arguments: bool = False
    empty_ids: bool = False
    thought_signature: bool = False
    call_id: Callable[[str, int], str] = lambda seed, index: seed
    # -- finish
    stop_with_tools: StopWithTools = "never"
    finish_delta: Mapping[str, Any] = field(default_factory=dict)
    finish_choice_extra: Mapping[str, Any] = field(default_factory=dict)
    finish_merge: Literal["never", "tool_calls", "always"] = "never"
    native_finish: Mapping[str, str] | None = None
    # -- usage
    usage_always: bool = False
    usage_where: UsageWhere = "own_chunk"
    usage_fields: Callable[[Mapping[str, int]], dict[str, Any]] = openai_usage
    usage_chunk_extra: Mapping[str, Any] = field(default_factory=dict)
    # -- errors
    error_style: Literal["openai", "openrouter"] = "openai"
    error_event_name: str | None = None

    def thought_signature_for(self, seed: str) -> str:
        """The base64 thought signature sent with the call whose id seed is ``seed``."""
        return _signature(f"{self.name}:{seed}")

    def request_id(self, number: int) -> str:
        """The server-side request id of request ``number`` (Groq's ``x_groq.id``)."""
        return "req_" + token(f"{self.name}:req:{number}", 26, _LOWER_ALNUM)

    def signature_detail(self, number: int) -> str:
        """The signature closing OpenRouter's ``reasoning_details`` for request ``number``."""
        return _signature(f"{self.name}:reasoning:{number}")


OPENAI = ServerProfile(name="openai")
"""api.openai.com, the well-behaved baseline (the fake's default)."""

VLLM = ServerProfile(
    name="vllm",
    quirks=("B1", "E1", "F8", "J1"),
    chunk_id=lambda n, created: "chatcmpl-" + token(f"vllm:{n}", 32, _HEX),
    fingerprint=None,
    role_delta={"role": "assistant", "content": ""},
    role_delta_tool_only={"role": "assistant", "content": ""},
    # Newer vLLM sends `reasoning`; during the rename it sent both names with the same text
    # (corpus: llama-stack vLLM recording 66c64647), which doubles reasoning in clients that
    # concatenate every field they know (F8).
    reasoning_fields=("reasoning", "reasoning_content"),
    repeat_identity=True,  # B1: id, type and name on every delta (spring-ai PR #5973)
    call_id=lambda seed, index: "chatcmpl-tool-" + token(f"vllm:{seed}", 32, _HEX),
    stop_with_tools="named_choice",  # E1: guided decoding for a named tool_choice says "stop"
    finish_delta={"content": ""},
    finish_choice_extra={"stop_reason": None},
    usage_fields=vllm_usage,  # J1: only with stream_options.include_usage, like OpenAI
)

OLLAMA = ServerProfile(
    name="ollama",
    quirks=("C2", "D1", "E1", "F8"),
    chunk_id=lambda n, created: f"chatcmpl-{100 + n}",
    fingerprint="fp_ollama",
    choice_logprobs=False,
    stream_content_type="text/event-stream",
    # Ollama repeats the role on every delta and never sends a role-only chunk.
    role_delta=None,
    role_delta_tool_only=None,
    text_extra={"role": "assistant"},
    reasoning_fields=("reasoning",),  # F8
    reasoning_extra={"role": "assistant", "content": ""},
    tool_layout="whole",  # D1: each call complete in one chunk
    tool_index="zero",  # C2: every call at index 0, told apart only by its new id
    tool_extra={"role": "assistant", "content": ""},
    call_id=lambda seed, index: "call_" + token(f"ollama:{seed}", 8, _LOWER_ALNUM),
    stop_with_tools="always",  # E1 (magentic recording: tool call, then finish_reason "stop")
    finish_delta={"role": "assistant", "content": ""},
    usage_fields=totals_usage,
)

LLAMACPP = ServerProfile(
    name="llamacpp",
    quirks=("D2", "D4", "F8"),
    chunk_id=lambda n, created: "chatcmpl-" + token(f"llamacpp:{n}", 32),
    fingerprint="b5490-fake",
    choice_logprobs=False,
    role_delta={"role": "assistant", "content": None},
    role_delta_tool_only={"role": "assistant", "content": None},
    reasoning_fields=("reasoning_content",),  # F8 (`--reasoning-format deepseek`)
    llamacpp_legacy=True,  # D4
    empty_first_arguments=False,
    object_arguments=True,  # D2
    call_id=lambda seed, index: token(f"llamacpp:{seed}", 32),
    usage_fields=totals_usage,
    usage_chunk_extra={
        "timings": {
            "prompt_n": 1,
            "prompt_ms": 8.5,
            "predicted_n": 40,
            "predicted_ms": 340.0,
        }
    },
)

MISTRAL = ServerProfile(
    name="mistral",
    quirks=("B5", "C1", "C4", "D1"),
    chunk_id=lambda n, created: token(f"mistral:{n}", 32, _HEX),
    fingerprint=None,
    role_delta={"role": "assistant", "content": ""},
    role_delta_tool_only={"role": "assistant", "content": ""},
    content_parts=True,  # magistral: thinking and text as typed content parts
    tool_layout="together",  # every call whole, in one delta list
    tool_index="none",  # C1
    tool_type=False,
    tool_extra={"content": None},
    call_id=lambda seed, index: token(f"mistral:{seed}", 9),  # B5: exactly 9 alphanumerics
    finish_delta={"content": ""},
    finish_merge="tool_calls",  # the tool-call chunk itself says "tool_calls"
    usage_always=True,
    usage_where="finish_chunk",
    usage_fields=mistral_usage,
)


GROQ = ServerProfile(
    name="groq",
    quirks=("D1", "F8", "J1"),
    chunk_id=lambda n, created: "chatcmpl-" + _uuid(f"groq:{n}"),
    fingerprint="fp_05df423bab",
    x_groq=True,
    stream_content_type="text/event-stream",
    role_delta={"role": "assistant", "content": ""},
    reasoning_fields=("reasoning",),  # F8
    reasoning_extra={"channel": "analysis"},
    tool_layout="whole",  # D1: one chunk per call
    call_id=lambda seed, index: "fc_" + _uuid(f"groq:{seed}"),
    usage_always=True,
    usage_where="groq",
    usage_fields=groq_usage,
    usage_chunk_extra={"service_tier": "on_demand"},
    error_event_name="error",
)

DEEPSEEK = ServerProfile(
    name="deepseek",
    quirks=("F6", "F8", "J1"),
    chunk_id=lambda n, created: _uuid(f"deepseek:{n}"),
    fingerprint="fp_eaab8d114b_prod0820_fp8_kvcache",
    head_extra={"usage": None},
    role_delta={"role": "assistant", "content": None, "reasoning_content": ""},
    role_delta_tool_only={"role": "assistant", "content": None, "reasoning_content": ""},
    text_extra={"reasoning_content": None},
    reasoning_fields=("reasoning_content",),  # F6: reasoning_content deltas before content
    reasoning_extra={"content": None},
    call_id=lambda seed, index: f"call_{index:02d}_" + token(f"deepseek:{seed}", 24),
    finish_delta={"content": "", "reasoning_content": None},
    usage_where="finish_chunk",
    usage_fields=deepseek_usage,
)

OPENROUTER = ServerProfile(
    name="openrouter",
    quirks=("A3", "A7", "E5", "F7"),
    chunk_id=lambda n, created: f"gen-{created}-" + token(f"openrouter:{n}", 20),
    fingerprint=None,
    head_extra={"provider": "Amazon Bedrock"},
    choice_logprobs=False,
    preamble=(b": OPENROUTER PROCESSING\n\n", b": OPENROUTER PROCESSING\n\n"),  # A3
    stream_content_type="text/event-stream",
    role_delta=None,
    role_delta_tool_only=None,
    text_extra={"role": "assistant"},
    reasoning_fields=("reasoning",),
    reasoning_extra={"content": "", "role": "assistant"},
    reasoning_details_format="anthropic-claude-v1",  # F7
    tool_extra={"content": None, "role": "assistant"},
    call_id=lambda seed, index: "toolu_bdrk_01" + token(f"openrouter:{seed}", 22),
    finish_delta={"content": "", "role": "assistant", "reasoning": None},
    # E5: the upstream's own reason (here Anthropic's) next to the normalised one.
    native_finish={"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"},
    usage_always=True,
    usage_where="repeat_finish",
    usage_fields=openrouter_usage,
    error_style="openrouter",  # A7
)

GEMINI_OPENAI = ServerProfile(
    name="gemini-openai",
    quirks=("B2", "C1", "E1", "F3"),
    chunk_id=lambda n, created: token(f"gemini:{n}", 22),
    fingerprint=None,
    choice_logprobs=False,
    sort_keys=True,
    stream_content_type="text/event-stream",
    role_delta=None,
    role_delta_tool_only=None,
    text_extra={"role": "assistant"},
    # Thought text is not streamed unless the request opts in (include_thoughts); none here.
    reasoning_fields=(),
    tool_layout="together",  # one candidate carries every functionCall, args whole
    tool_index="none",  # C1
    tool_extra={"role": "assistant"},
    empty_ids=True,  # B2
    thought_signature=True,  # F3
    stop_with_tools="always",  # E1: streaming says "stop" (googleapis/python-genai#2868)
    finish_merge="always",  # finishReason rides on the last candidate chunk
    usage_where="finish_chunk",
    usage_fields=totals_usage,
)

AZURE = ServerProfile(
    name="azure",
    quirks=("A8",),
    chunk_id=lambda n, created: "chatcmpl-" + token(f"azure:{n}", 29),
    fingerprint=None,
    head_extra={"service_tier": "default", "system_fingerprint": None, "usage": None},
    choice_extra={"content_filter_results": {}},
    sort_keys=True,
    # A8: a content-filter preamble with empty choices, id, model and object.
    preamble=(
        {
            "choices": [],
            "created": 0,
            "id": "",
            "model": "",
            "object": "",
            "prompt_filter_results": [
                {
                    "prompt_index": 0,
                    "content_filter_results": {
                        "hate": {"filtered": False, "severity": "safe"},
                        "jailbreak": {"filtered": False, "detected": False},
                        "self_harm": {"filtered": False, "severity": "safe"},
                        "sexual": {"filtered": False, "severity": "safe"},
                        "violence": {"filtered": False, "severity": "safe"},
                    },
                }
            ],
        },
    ),
    call_id=lambda seed, index: "call_" + token(f"azure:{seed}", 24),
    usage_fields=azure_usage,
)

PROFILES: dict[str, ServerProfile] = {
    p.name: p
    for p in (
        OPENAI,
        VLLM,
        OLLAMA,
        LLAMACPP,
        MISTRAL,
        GROQ,
        DEEPSEEK,
        OPENROUTER,
        GEMINI_OPENAI,
        AZURE,
    )
}
"""Every emulation, by the name ``FakeProvider(emulate=...)`` takes."""


def profile(name: str) -> ServerProfile:
    """The profile called ``name``.

    Raises:
        ValueError: No server of that name is emulated.
    """
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"FakeProvider emulates {sorted(PROFILES)}, not {name!r}") from None
