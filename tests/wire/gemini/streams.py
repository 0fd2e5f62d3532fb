"""Realistic Gemini ``streamGenerateContent?alt=sse`` bodies, byte for byte as Google sends them.

Two front ends share one generator: :func:`gemini_streams` (a hypothesis strategy; every choice
shrinks towards a short plain stream) and :func:`generate_stream` (the same streams from an
integer seed, for benchmarks and quick reproduction).

The shape follows the recordings in ``tests/fixtures/gemini/`` (AI Studio: charmbracelet-fantasy,
pydantic-ai, vercel-ai; Vertex AI: fantasy's vertex cassette and vercel-ai's partialArgs
captures): each event a whole ``GenerateContentResponse`` as ``data: <JSON>\\r\\n\\r\\n``, JSON
written with ``","`` between items and ``": "`` after keys, raw UTF-8. What varies:

* AI Studio style (``"role": "model"`` after the parts, ``"index": 0``, usage on every chunk)
  or Vertex style (role first, no index, ``createTime``, usage only ``trafficType`` until the
  last chunk);
* thought parts (``thought: true``) before the answer, sometimes the last one signed;
* text in pieces (words, CJK, emoji, U+2028, quotes, backslashes, control characters),
  several parts in one chunk or one per chunk;
* 0-4 function calls, each whole in one part (args of nested JSON values), with Gemini 3 ids
  or without ids (Gemini 2.5), the first one carrying a ``thoughtSignature``; on the Vertex
  style some calls stream their arguments as ``partialArgs`` JSON-path fragments with
  ``willContinue`` (strings cut in pieces, no-op ``{"willContinue": true}`` parts, a ``{}``
  terminator or none — QUIRKS D8);
* a signature on the first text part (Gemini 2.5 on Vertex) or on a trailing empty text part
  (Gemini 3, QUIRKS F2);
* ``finishReason`` ``STOP`` (also with calls, QUIRKS E1), ``MAX_TOKENS``, ``SAFETY``,
  ``RECITATION``, or ``MALFORMED_FUNCTION_CALL`` with no content (QUIRKS E4), on the last chunk
  or on a final chunk of its own with an empty text part;
* usage with thoughts and, sometimes, cached tokens.

This module does not import llmkit.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.support.streams import Chooser, DrawChooser, Limits, RandomChooser

__all__ = [
    "CallSpec",
    "GeminiStream",
    "Limits",
    "build_stream",
    "gemini_streams",
    "generate_stream",
]


@dataclass(frozen=True)
class CallSpec:
    """One function call as the model made it.

    Attributes:
        id: Gemini 3's ``functionCall.id``, or ``None`` (Gemini 2.5 sends none).
        name: The function name.
        args: The arguments.
        signature: The ``thoughtSignature`` on its part (the first call only).
        streamed: The arguments came as Vertex ``partialArgs``.
    """

    id: str | None
    name: str
    args: dict[str, Any]
    signature: str | None
    streamed: bool


@dataclass(frozen=True)
class GeminiStream:
    """A generated body and what it holds.

    Attributes:
        body: The raw SSE bytes.
        chunks: The ``GenerateContentResponse`` payloads, in order.
        response_id: The ``responseId`` on every chunk.
        text: The answer text (non-thought parts) joined.
        thinking: The thought parts joined.
        calls: The calls, in order.
        signatures: Every ``thoughtSignature``, in part order.
        finish_reason: The ``finishReason`` of the last chunk.
        usage: The last ``usageMetadata`` with counts.
        vertex: Vertex AI style.
    """

    body: bytes
    chunks: tuple[dict[str, Any], ...]
    response_id: str
    text: str
    thinking: str
    calls: tuple[CallSpec, ...]
    signatures: tuple[str, ...]
    finish_reason: str
    usage: dict[str, Any]
    vertex: bool


# Gemini's size knobs: shorter texts and lists than the shared defaults.
DEFAULT_LIMITS = Limits(max_text_tokens=30, max_list=3)


# fmt: off
TEXT_TOKENS: tuple[str, ...] = (
    "Hello", " world", ".", " The", " sum", " of", " 2", " and", " 3", " is", " 5", ",", "\n",
    "\n\n", " **", "bold", "**", " `code`", " Paris", "?", ' "quoted"', "\\", " C:\\tmp",
    "\t", "\r\n", "'", ' {"k": [1]}', "\x00", "\x1b[0m", "\x7f", "\u2028", "\u2029", "\x85",
    " café", " Ünïcödé", " €", "你好", "世界", "。", " 한국어", "\ufeff", "\u00a0", "😀",
    " 👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "\U0001d518", " 🚀",
)
THOUGHT_TOKENS: tuple[str, ...] = (
    "**Planning**", "\n\n", "I", " need", " the", " weather", " tool", ".", " Let", " me",
    " think", " about", " 日本", " 🤔", ' "x"', "\\",
)
TOOL_NAMES: tuple[str, ...] = (
    "get_weather", "add", "multiply", "read_file", "search-docs", "lookup_user_2", "x", "a" * 64,
)
KEYS: tuple[str, ...] = (
    "city", "days", "units", "query", "path", "items", "qty", "options", "nested", "名前",
    "emoji_😀", "with space", 'quote"key', "back\\slash", "", "a.b", "line\nbreak", "\u2028",
)
PATH_KEYS: tuple[str, ...] = ("city", "days", "units", "query", "items", "qty", "nested", "note")
STRINGS: tuple[str, ...] = (
    "Paris", "New York City", "", "celsius", 'He said "hi"', "C:\\Users\\me", "line1\nline2",
    "tab\tsep", "emoji 😀 inside", "中文字符", "\u2028sep\u2029", "\x00nul", "}", '"}', "\\",
    "👨\u200d👩\u200d👧", "a" * 40, "\x85",
)
NUMBERS: tuple[int | float, ...] = (0, 1, 3, -7, 42, 2**31, 0.5, -1.25, 3.14159, 1e-07, 2.5e20)
FINISH_WITH_TEXT: tuple[str, ...] = ("STOP", "MAX_TOKENS", "SAFETY", "RECITATION")
# fmt: on

_ALNUM = string.ascii_lowercase + string.digits


def _signature(c: Chooser) -> str:
    size = c.integer(4, 40)
    raw = bytes((c.integer(0, 255) if i < 3 else (i * 37 + size) % 256) for i in range(size))
    return base64.b64encode(raw).decode()


def _value(c: Chooser, limits: Limits, depth: int, simple: bool) -> Any:
    kinds = ["string", "number", "bool", "null"]
    if depth < limits.max_depth:
        kinds += ["object", "list"]
    kind = c.choice(kinds)
    if kind == "string":
        return c.choice(STRINGS)
    if kind == "number":
        return c.choice(NUMBERS)
    if kind == "bool":
        return c.chance(0.5)
    if kind == "null":
        return None
    if kind == "object":
        return _object(c, limits, depth + 1, simple)
    return [_value(c, limits, depth + 1, simple) for _ in range(c.integer(1, limits.max_list))]


def _object(c: Chooser, limits: Limits, depth: int, simple: bool) -> dict[str, Any]:
    # Streamed arguments need plain keys (they travel inside JSON paths) and no empty
    # containers (partialArgs only carry leaves).
    keys = PATH_KEYS if simple else KEYS
    size = c.integer(1 if simple else 0, limits.max_keys)
    return {c.choice(keys): _value(c, limits, depth, simple) for _ in range(size)}


def _pieces(c: Chooser, text: str) -> list[str]:
    if not text:
        return [text]
    out, pos = [], 0
    while pos < len(text):
        size = c.integer(1, 12)
        out.append(text[pos : pos + size])
        pos += size
    return out


def _leaves(value: Any, path: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path, value)]


def _fragments(c: Chooser, args: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``partialArgs`` fragments Vertex streams for ``args``, in document order."""
    out: list[dict[str, Any]] = []
    for path, value in _leaves(args, "$"):
        if isinstance(value, str):
            pieces = _pieces(c, value)
            for n, piece in enumerate(pieces):
                last = n == len(pieces) - 1
                if last and c.chance(0.7):  # Vertex closes with an empty piece (recordings)
                    out.append({"jsonPath": path, "stringValue": piece, "willContinue": True})
                    out.append({"jsonPath": path, "stringValue": ""})
                elif last:
                    out.append({"jsonPath": path, "stringValue": piece})
                else:
                    out.append({"jsonPath": path, "stringValue": piece, "willContinue": True})
        elif isinstance(value, bool):
            out.append({"jsonPath": path, "boolValue": value})
        elif value is None:
            out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
        else:
            out.append({"jsonPath": path, "numberValue": value})
    return out


def _text_parts(c: Chooser, tokens: tuple[str, ...], n: int, **extra: Any) -> list[dict[str, Any]]:
    text = "".join(c.choice(tokens) for _ in range(n))
    return [{"text": piece, **extra} for piece in _pieces(c, text)] if text else []


def build_stream(c: Chooser, limits: Limits = DEFAULT_LIMITS) -> GeminiStream:
    """Generate one stream from a source of choices."""
    vertex = c.chance(0.35)
    gemini3 = c.chance(0.5)
    model = (
        c.choice(("gemini-3-pro-preview", "gemini-3-flash-preview"))
        if gemini3
        else c.choice(("gemini-2.5-flash", "gemini-2.5-pro"))
    )
    response_id = "".join(c.choice(_ALNUM + "-_") for _ in range(23))
    malformed = c.chance(0.05)

    # What the model says, as a list of groups; each group becomes one chunk's parts.
    groups: list[list[dict[str, Any]]] = []
    calls: list[CallSpec] = []
    thought_parts = (
        _text_parts(c, THOUGHT_TOKENS, c.integer(1, 12), thought=True)
        if not malformed and c.chance(0.4)
        else []
    )
    if thought_parts and c.chance(0.25):
        thought_parts[-1]["thoughtSignature"] = _signature(c)
    text_parts = (
        _text_parts(c, TEXT_TOKENS, c.integer(1, limits.max_text_tokens))
        if not malformed and c.chance(0.7)
        else []
    )
    if text_parts and vertex and not gemini3 and c.chance(0.5):
        text_parts[0]["thoughtSignature"] = _signature(c)  # Gemini 2.5 on Vertex
    for parts in (thought_parts, text_parts):
        while parts:
            take = c.integer(1, 3) if c.chance(0.2) else 1
            groups.append(parts[:take])
            parts = parts[take:]

    n_calls = 0 if malformed else c.integer(0, limits.max_tools)
    signed_calls = gemini3 or bool(thought_parts) or c.chance(0.5)
    parallel: list[dict[str, Any]] = []
    for n in range(n_calls):
        streamed = vertex and gemini3 and c.chance(0.5)
        args = _object(c, limits, 1, simple=streamed)
        call_id = "".join(c.choice(_ALNUM) for _ in range(8)) if gemini3 and not vertex else None
        sig = _signature(c) if n == 0 and signed_calls else None
        name = c.choice(TOOL_NAMES)
        calls.append(CallSpec(call_id, name, args, sig, streamed))
        head: dict[str, Any] = {"name": name}
        if call_id:
            head["id"] = call_id
        if not streamed:
            part: dict[str, Any] = {"functionCall": {**head, "args": args}}
            if sig:
                part["thoughtSignature"] = sig
            if c.chance(0.4):  # parallel calls in one chunk
                parallel.append(part)
            else:
                if parallel:
                    groups.append(parallel)
                    parallel = []
                groups.append([part])
            continue
        if parallel:
            groups.append(parallel)
            parallel = []
        first: dict[str, Any] = {"functionCall": {**head, "willContinue": True}}
        if sig:
            first["thoughtSignature"] = sig
        groups.append([first])
        fragments = _fragments(c, args)
        for i, fragment in enumerate(fragments):
            last = i == len(fragments) - 1
            if c.chance(0.15):  # a no-op part between fragments (nested recording)
                groups.append([{"functionCall": {"willContinue": True}}])
            terminator = c.chance(0.7)
            piece: dict[str, Any] = {"partialArgs": [fragment]}
            if not last or terminator:
                piece["willContinue"] = True
            groups.append([{"functionCall": piece}])
            if last and terminator:
                groups.append([{"functionCall": {}}])
        if not fragments:  # pragma: no cover - streamed args always have a leaf
            groups.append([{"functionCall": {}}])
    if parallel:
        groups.append(parallel)

    trailing_signature = None
    if gemini3 and not calls and not malformed and c.chance(0.8):
        trailing_signature = _signature(c)  # Gemini 3: on a trailing empty text part (F2)

    if malformed:
        finish = "MALFORMED_FUNCTION_CALL"
    elif calls:
        finish = c.choice(("STOP", "STOP", "STOP", "MAX_TOKENS"))
    else:
        finish = c.choice(FINISH_WITH_TEXT) if c.chance(0.3) else "STOP"
    if trailing_signature or not groups or c.chance(0.3):
        final: dict[str, Any] = {"text": ""}
        if trailing_signature:
            final["thoughtSignature"] = trailing_signature
        groups.append([final])
    if malformed:
        groups = [[]]

    prompt = c.integer(1, 5000)
    cached = c.integer(0, prompt) if c.chance(0.2) else None
    thoughts = c.integer(1, 2000) if thought_parts or (signed_calls and calls) else None
    candidates_total = c.integer(1, 3000)

    chunks: list[dict[str, Any]] = []
    signatures: list[str] = []
    for n, parts in enumerate(groups):
        last = n == len(groups) - 1
        for part in parts:
            if part.get("thoughtSignature"):
                signatures.append(part["thoughtSignature"])
        content: dict[str, Any]
        if vertex:
            content = {"role": "model", "parts": parts}
        else:
            content = {"parts": parts, "role": "model"}
        candidate: dict[str, Any] = {} if malformed else {"content": content}
        if last:
            candidate["finishReason"] = finish
            if malformed:
                candidate["finishMessage"] = "Malformed function call: print(default_api.x("
        if not vertex:
            candidate["index"] = 0
        usage: dict[str, Any] = {}
        if not vertex or last:
            usage["promptTokenCount"] = prompt
            share = candidates_total * (n + 1) // len(groups)
            if share:
                usage["candidatesTokenCount"] = share
            usage["totalTokenCount"] = prompt + share + (thoughts or 0)
            if cached is not None:
                usage["cachedContentTokenCount"] = cached
            usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
            if thoughts is not None:
                usage["thoughtsTokenCount"] = thoughts
        if vertex:
            usage["trafficType"] = "ON_DEMAND"
        chunk: dict[str, Any] = {"candidates": [candidate], "usageMetadata": usage}
        chunk["modelVersion"] = model
        if vertex:
            chunk["createTime"] = "2026-04-07T16:49:58.333958Z"
        chunk["responseId"] = response_id
        chunks.append(chunk)

    body = b"".join(
        b"data: "
        + json.dumps(ch, ensure_ascii=False, separators=(",", ": ")).encode("utf-8")
        + b"\r\n\r\n"
        for ch in chunks
    )
    text = "".join(p["text"] for g in groups for p in g if "text" in p and not p.get("thought"))
    thinking = "".join(p["text"] for g in groups for p in g if p.get("thought"))
    return GeminiStream(
        body=body,
        chunks=tuple(chunks),
        response_id=response_id,
        text=text,
        thinking=thinking,
        calls=tuple(calls),
        signatures=tuple(signatures),
        finish_reason=finish,
        usage=chunks[-1]["usageMetadata"],
        vertex=vertex,
    )


@st.composite
def gemini_streams(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> GeminiStream:
    """A hypothesis strategy of :class:`GeminiStream`."""
    return build_stream(DrawChooser(draw), limits)


def generate_stream(seed: int, limits: Limits = DEFAULT_LIMITS) -> GeminiStream:
    """The stream for ``seed`` (deterministic across runs and machines)."""
    return build_stream(RandomChooser(random.Random(seed)), limits)
