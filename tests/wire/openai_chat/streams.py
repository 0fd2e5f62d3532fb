"""Realistic OpenAI Chat Completions SSE bodies, byte for byte as api.openai.com sends them.

Two front ends share one generator, so what the property tests explore is exactly what the
benchmarks measure:

* :func:`chat_streams` -- a hypothesis strategy of :class:`ChatStream` (:func:`chat_stream_bodies`
  for the bare bytes). Every choice goes through hypothesis, so failures shrink towards a short
  ASCII text stream.
* :func:`generate_stream` / :func:`generate_body` -- the same streams from a plain integer seed
  (``random.Random``), deterministic across runs and machines, for benchmarks.

The shape follows the recorded bodies in the corpus (``openai-python__*.bin`` from
``api.openai.com``, and the 2025 go-vcr recordings of gpt-4o-mini / gpt-5): compact JSON with
raw UTF-8, ``chatcmpl-`` / ``call_`` ids, ``object``/``created``/``model``/
``system_fingerprint`` (``null`` on gpt-5), ``service_tier`` and ``obfuscation`` on the newer
models, ``logprobs`` on the older ones, a role-only or role+first-call first delta,
``"usage": null`` on every chunk and a final ``"choices": []`` usage chunk when usage is
requested, and ``data: [DONE]``. What varies:

* text: words, CJK, emoji (4-byte, ZWJ sequences, flags), U+2028/U+2029/U+0085, quotes,
  backslashes, newlines, control characters (JSON-escaped); or a refusal;
* 0-4 tool calls with nested JSON arguments (strings with unicode, quotes, backslashes,
  newlines), written compact, spaced (gpt-5) or indented, with or without ``\\uXXXX`` escapes,
  and cut into deltas of 1-16 characters; the first delta of a call carries ``"arguments": ""``,
  the first piece, or the whole text; sometimes several calls' entries share one delta's
  ``tool_calls`` list (QUIRKS C4), always with distinct indexes;
* text before tool calls; ``finish_reason`` ``stop`` / ``tool_calls`` / ``length`` consistent
  with the content: ``length`` cuts the text or (usually) the last call's arguments short;
  ``stop`` with one call is what a named ``tool_choice`` gets from OpenAI;
* usage on or off, with ``prompt_tokens_details.cached_tokens`` and
  ``completion_tokens_details.reasoning_tokens``;
* LF or CRLF framing, ``: keepalive`` comment lines between events.

Nothing quirky: quirky servers are tested from the corpus and ``test_assembler.py``.
This module does not import llmkit.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.support.streams import (
    DEFAULT_LIMITS,
    REFUSAL_TOKENS,
    TEXT_TOKENS,
    TOOL_NAMES,
    Chooser,
    DrawChooser,
    Limits,
    RandomChooser,
    delta_pieces,
    json_object,
    serialise_arguments,
    token,
)

__all__ = [
    "ChatStream",
    "Limits",
    "ToolCallSpec",
    "build_stream",
    "chat_stream_bodies",
    "chat_streams",
    "generate_body",
    "generate_stream",
]


# --------------------------------------------------------------------------- what was generated


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call as the model wrote it.

    Attributes:
        id: The ``call_...`` id.
        name: The function name.
        arguments: The value the model meant (for a truncated call, the whole value it was
            writing when it hit the token limit).
        arguments_text: The argument text actually sent (all deltas joined).
        truncated: The text is a proper prefix of the serialised ``arguments``
            (``finish_reason == "length"``).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_text: str
    truncated: bool = False


@dataclass(frozen=True)
class ChatStream:
    """A generated response body and what it holds.

    Attributes:
        body: The raw SSE bytes.
        response_id: The ``chatcmpl-...`` id on every chunk.
        model: The ``model`` field of the chunks.
        text: The content (or, when ``refusal``, the refusal text) joined.
        refusal: The text came as ``delta.refusal``.
        tool_calls: The calls, in index order.
        finish_reason: ``stop``, ``tool_calls`` or ``length``.
        usage: The wire ``usage`` object of the final chunk, or ``None`` when usage was off.
        chunks: The JSON payloads, in order (``[DONE]`` excluded).
        newline: ``"\\n"`` or ``"\\r\\n"``.
    """

    body: bytes
    response_id: str
    model: str
    text: str
    refusal: bool
    tool_calls: tuple[ToolCallSpec, ...]
    finish_reason: str
    usage: dict[str, Any] | None
    chunks: tuple[dict[str, Any], ...]
    newline: str


# fmt: off
# Per-model wire style (from the recordings; see the module docstring).
STYLES: tuple[dict[str, Any], ...] = (
    {  # gpt-4o, 2024 (openai-python .bin recordings)
        "model": "gpt-4o-2024-08-06", "service_tier": False, "fingerprint": True,
        "logprobs": True, "usage_null": False, "obfuscation": False,
        "role_with_first_call": True, "details": "2024",
    },
    {  # gpt-4o-mini, 2025 (charmbracelet-fantasy recordings)
        "model": "gpt-4o-mini-2024-07-18", "service_tier": True, "fingerprint": True,
        "logprobs": True, "usage_null": True, "obfuscation": True,
        "role_with_first_call": False, "details": "2025",
    },
    {  # gpt-4.1, 2025
        "model": "gpt-4.1-2025-04-14", "service_tier": True, "fingerprint": True,
        "logprobs": True, "usage_null": True, "obfuscation": True,
        "role_with_first_call": True, "details": "2025",
    },
    {  # gpt-5: no logprobs key, system_fingerprint null
        "model": "gpt-5-2025-08-07", "service_tier": True, "fingerprint": False,
        "logprobs": False, "usage_null": True, "obfuscation": True,
        "role_with_first_call": False, "details": "2025",
    },
)
# fmt: on


# --------------------------------------------------------------------------- the generator


def build_stream(c: Chooser, limits: Limits = DEFAULT_LIMITS) -> ChatStream:
    """Generate one stream, every decision taken from ``c``."""
    style = c.choice(STYLES)
    filler = random.Random(c.integer(0, 2**32 - 1))  # ids, timestamps: no shrinking value
    response_id = "chatcmpl-" + token(filler, 29)
    created = filler.randint(1_700_000_000, 1_790_000_000)
    fingerprint = "fp_" + token(filler, 10, "0123456789abcdef") if style["fingerprint"] else None
    include_usage = c.chance(0.75)
    newline = "\r\n" if c.chance(0.3) else "\n"
    logprobs = style["logprobs"] and c.chance(0.15)

    finish = c.choice(("stop", "tool_calls", "length"))
    refusal = forced = False
    if finish == "stop":
        refusal = c.chance(0.2)
        # A named tool_choice forces one call, and OpenAI then says "stop", not "tool_calls".
        forced = not refusal and c.chance(0.15)
    n_tools = 0
    if finish == "tool_calls" or (finish == "length" and c.chance(0.5)):
        n_tools = c.integer(1, limits.max_tools)
    elif forced:
        n_tools = 1
    # At the token limit the last call is usually cut short, but may just have ended.
    truncate_last = finish == "length" and n_tools > 0 and not c.chance(0.15)
    with_text = refusal or n_tools == 0 or (not forced and c.chance(0.3))

    # -- the content --------------------------------------------------------------------
    text_tokens: list[str] = []
    if with_text:
        vocab = REFUSAL_TOKENS if refusal else TEXT_TOKENS
        # "content": "" then nothing is a real (empty) answer, or an empty prelude to calls.
        low = 1 if refusal or (finish == "length" and not n_tools) else 0
        text_tokens = [c.choice(vocab) for _ in range(c.integer(low, limits.max_text_tokens))]

    calls: list[ToolCallSpec] = []
    # (call index, tool_calls entry) in the order the server writes them
    fragments: list[tuple[int, dict[str, Any]]] = []
    used_ids: set[str] = set()
    for k in range(n_tools):
        call_id = "call_" + token(filler, 24)
        while call_id in used_ids:
            call_id = "call_" + token(filler, 24)
        used_ids.add(call_id)
        name = c.choice(TOOL_NAMES)
        value = json_object(c, limits, 0)
        full = serialise_arguments(c, value)
        truncated = truncate_last and k == n_tools - 1
        text = full[: c.integer(1, len(full) - 1)] if truncated else full
        calls.append(ToolCallSpec(call_id, name, value, text, truncated))

        mode = c.choice(("empty_first", "first_piece", "whole"))
        pieces = [text] if mode == "whole" else delta_pieces(c, text)
        head_args = "" if mode == "empty_first" else pieces.pop(0)
        head = {
            "index": k,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": head_args},
        }
        fragments.append((k, head))
        fragments.extend((k, {"index": k, "function": {"arguments": p}}) for p in pieces)

    # -- the deltas ---------------------------------------------------------------------
    deltas: list[tuple[dict[str, Any], Any]] = []  # (delta, logprobs)
    field = "refusal" if refusal else "content"

    def token_logprobs(tok: str) -> Any:
        entry = {
            "token": tok,
            "logprob": -round(filler.random() * 3, 9),
            "bytes": list(tok.encode("utf-8")),
            "top_logprobs": [],
        }
        if refusal:
            return {"content": None, "refusal": [entry]}
        return {"content": [entry], "refusal": None}

    if with_text:
        if refusal:
            first: dict[str, Any] = {"role": "assistant", "content": None, "refusal": ""}
            first_lp: Any = {"content": None, "refusal": []}
        else:
            first = {"role": "assistant", "content": "", "refusal": None}
            first_lp = {"content": [], "refusal": None}
        deltas.append((first, first_lp if logprobs else None))
        for tok in text_tokens:
            deltas.append(({field: tok}, token_logprobs(tok) if logprobs else None))

    i = 0
    while i < len(fragments):
        group = [fragments[i]]
        i += 1
        # Several calls' entries in one delta (QUIRKS C4), never two of the same call.
        while i < len(fragments) and len(group) < 3 and c.chance(0.2):
            if fragments[i][0] in {k for k, _ in group}:
                break
            group.append(fragments[i])
            i += 1
        entries = [entry for _, entry in group]
        if not deltas:  # the first delta of a tools-only response
            if style["role_with_first_call"]:
                delta = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": entries,
                    "refusal": None,
                }
                deltas.append((delta, None))
                continue
            deltas.append(({"role": "assistant", "content": None}, None))
        deltas.append(({"tool_calls": entries}, None))

    # -- the chunks ---------------------------------------------------------------------
    def chunk(
        choices: list[dict[str, Any]], usage: Any = None, last: bool = False
    ) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": response_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": style["model"],
        }
        if style["service_tier"]:
            out["service_tier"] = "default"
        out["system_fingerprint"] = fingerprint
        usage_first = include_usage and style["usage_null"] and not last and filler.random() < 0.5
        if usage_first:
            out["usage"] = None
        out["choices"] = choices
        if last:
            out["usage"] = usage
        elif include_usage and style["usage_null"] and not usage_first:
            out["usage"] = None
        if style["obfuscation"]:
            out["obfuscation"] = token(filler, filler.randint(0, 16))
        return out

    def choice(delta: dict[str, Any], lp: Any = None, reason: str | None = None) -> dict[str, Any]:
        ch: dict[str, Any] = {"index": 0, "delta": delta}
        if style["logprobs"]:
            ch["logprobs"] = lp
        ch["finish_reason"] = reason
        return ch

    chunks = [chunk([choice(d, lp)]) for d, lp in deltas]
    chunks.append(chunk([choice({}, None, finish)]))

    usage: dict[str, Any] | None = None
    if include_usage:
        usage = _usage(c, filler, style)
        chunks.append(chunk([], usage, last=True))

    # -- the bytes ----------------------------------------------------------------------
    nl = newline
    keepalive = f": keepalive{nl}{nl}"
    parts: list[str] = []
    if c.chance(0.1):
        parts.append(keepalive)
    for payload in chunks:
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"data: {data}{nl}{nl}")
        if c.chance(0.05):
            parts.append(keepalive)
    parts.append(f"data: [DONE]{nl}{nl}")

    return ChatStream(
        body="".join(parts).encode("utf-8"),
        response_id=response_id,
        model=style["model"],
        text="".join(text_tokens),
        refusal=refusal,
        tool_calls=tuple(calls),
        finish_reason=finish,
        usage=usage,
        chunks=tuple(chunks),
        newline=newline,
    )


def _usage(c: Chooser, filler: random.Random, style: dict[str, Any]) -> dict[str, Any]:
    prompt = filler.randint(1, 50_000)
    cached = 0
    if prompt >= 1024 and c.chance(0.4):
        cached = filler.randint(1, prompt // 128) * 128  # cache hits come in 128-token steps
    reasoning = 0
    if style["model"].startswith("gpt-5") and c.chance(0.7):
        reasoning = filler.randint(64, 4096)
    completion = reasoning + filler.randint(1, 2000)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if style["details"] == "2024":
        if c.chance(0.5):  # the 2024-10 API added prompt_tokens_details
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    else:
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    return usage


# --------------------------------------------------------------------------- front ends


@st.composite
def chat_streams(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> ChatStream:
    """Hypothesis strategy: realistic OpenAI Chat Completions streams."""
    return build_stream(DrawChooser(draw), limits)


def chat_stream_bodies(limits: Limits = DEFAULT_LIMITS) -> st.SearchStrategy[bytes]:
    """Hypothesis strategy: the raw SSE bodies of :func:`chat_streams`."""
    return chat_streams(limits).map(lambda s: s.body)


def generate_stream(seed: int, limits: Limits = DEFAULT_LIMITS) -> ChatStream:
    """The stream for ``seed``: deterministic (same seed, same bytes), for benchmarks."""
    return build_stream(RandomChooser(random.Random(seed)), limits)


def generate_body(seed: int, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The raw SSE body of :func:`generate_stream`."""
    return generate_stream(seed, limits).body
