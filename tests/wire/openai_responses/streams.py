"""Realistic OpenAI Responses SSE bodies, shaped like api.openai.com's (and its imitators').

Two front ends share one generator, as in :mod:`tests.wire.openai_chat.streams` (the
vocabularies and JSON-argument generator are the shared ones of :mod:`tests.support.streams`):

* :func:`responses_streams` -- a hypothesis strategy of :class:`ResponsesStream`; every choice
  goes through hypothesis, so failures shrink towards a short plain stream;
* :func:`generate_stream` / :func:`generate_body` -- the same streams from an integer seed.

The shape follows the recordings in ``tests/fixtures/openai-responses`` (gpt-4o, gpt-5, gpt-5.5
go-vcr/vcrpy cassettes, vercel/ai captures): ``event: <type>`` + compact ``data:`` JSON with a
``sequence_number``; ``response.created`` / ``response.in_progress`` with the response object;
per output item ``output_item.added`` … ``output_item.done``; ``response.completed`` (or
``response.incomplete``) carrying the whole ``output`` and ``usage``. What varies:

* reasoning items (gpt-5 styles): 0-3 summary parts streamed as summary-text deltas, with or
  without ``encrypted_content`` (a different value on ``.added`` than on ``.done``, as the real
  API sends), first in the output or interleaved before each call;
* messages: output text (the chat generator's tokens: CJK, emoji, U+2028, escapes, ...), a
  ``commentary`` message before calls (gpt-5.5 sends ``phase``), or a refusal;
* 0-3 function calls whose argument deltas carry ``item_id``/``output_index`` but no
  ``call_id`` (QUIRKS F5), or no deltas at all, only ``.done`` (LM Studio, DeepSeek);
* ``response.incomplete`` for ``max_output_tokens`` (the last item cut short: text, reasoning or
  a call's arguments) or ``content_filter``;
* usage with cached and reasoning tokens (and ``cache_write_tokens`` on newer models);
* LF or CRLF framing, ``data:`` before ``event:`` (Bedrock), ``: keepalive`` comments.

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
    "ItemSpec",
    "ResponsesStream",
    "build_stream",
    "generate_body",
    "generate_stream",
    "responses_streams",
]


@dataclass(frozen=True)
class ItemSpec:
    """One output item as the server finally reported it (``output_item.done``).

    Attributes:
        kind: ``reasoning``, ``message`` or ``function_call``.
        id: The item id (``rs_``, ``msg_``, ``fc_``).
        summaries: Reasoning summary texts.
        encrypted: The final ``encrypted_content`` (``None`` when not requested).
        text: Message text (or the refusal sentence when ``refusal``).
        refusal: The message is a refusal.
        phase: ``commentary`` / ``final_answer`` / ``None``.
        call_id: The call's ``call_...`` id (what tool results answer).
        name: Function name.
        arguments: The value the model meant (for a cut call, the whole one).
        arguments_text: The argument text actually sent.
        deltas: Text/argument deltas were streamed (else only ``.done`` events).
        truncated: Cut short by ``max_output_tokens`` (status ``incomplete``).
    """

    kind: str
    id: str
    summaries: tuple[str, ...] = ()
    encrypted: str | None = None
    text: str = ""
    refusal: bool = False
    phase: str | None = None
    call_id: str = ""
    name: str = ""
    arguments: dict[str, Any] | None = None
    arguments_text: str = ""
    deltas: bool = True
    truncated: bool = False


@dataclass(frozen=True)
class ResponsesStream:
    """A generated body and what it holds.

    Attributes:
        body: The raw SSE bytes.
        response_id: The ``resp_...`` id.
        model: The ``model`` of the response object.
        items: The output items, in output order.
        status: ``completed`` or ``incomplete``.
        incomplete_reason: ``max_output_tokens`` / ``content_filter`` / ``None``.
        usage: The wire usage object of the terminal event.
        events: The event payloads, in order.
        newline: ``"\\n"`` or ``"\\r\\n"``.
    """

    body: bytes
    response_id: str
    model: str
    items: tuple[ItemSpec, ...]
    status: str
    incomplete_reason: str | None
    usage: dict[str, Any]
    events: tuple[dict[str, Any], ...]
    newline: str

    @property
    def calls(self) -> tuple[ItemSpec, ...]:
        return tuple(i for i in self.items if i.kind == "function_call")


# fmt: off
SUMMARY_TOKENS: tuple[str, ...] = (
    "**Planning**", "\n\n", "I", " need", " to", " call", " the", " tool", ".", " The",
    " user", " wants", " 😀", " 日本", "\u2028", ' "x"', "\\", " step", " 2", ":",
)
STYLES: tuple[dict[str, Any], ...] = (
    {"model": "gpt-4o-2024-08-06", "reasoning": False, "phase": False, "obfuscation": False,
     "cache_write": False},
    {"model": "gpt-5-2025-08-07", "reasoning": True, "phase": False, "obfuscation": True,
     "cache_write": False},
    {"model": "gpt-5.5-2026-04-23", "reasoning": True, "phase": True, "obfuscation": True,
     "cache_write": True},
)
# fmt: on


def _text(c: Chooser, vocab: tuple[str, ...], lo: int, hi: int) -> list[str]:
    return [c.choice(vocab) for _ in range(c.integer(lo, hi))]


def build_stream(c: Chooser, limits: Limits = DEFAULT_LIMITS) -> ResponsesStream:
    """Generate one stream, every decision taken from ``c``."""
    style = c.choice(STYLES)
    filler = random.Random(c.integer(0, 2**32 - 1))  # ids, blobs: no shrinking value
    hexid = "0123456789abcdef"
    response_id = "resp_" + token(filler, 50, hexid)
    encrypted_on = style["reasoning"] and c.chance(0.6)
    status = "completed"
    reason: str | None = None
    if c.chance(0.2):
        status, reason = "incomplete", c.choice(("max_output_tokens", "content_filter"))

    # -- the items, each as a list of tokens/pieces so that truncation cuts at a delta ------
    plan: list[dict[str, Any]] = []  # {"spec": ItemSpec fields, "pieces": [...]}

    def reasoning_item() -> None:
        parts = [_text(c, SUMMARY_TOKENS, 1, 12) for _ in range(c.integer(0, 3))]
        plan.append({"kind": "reasoning", "id": "rs_" + token(filler, 50, hexid), "parts": parts})

    def message(vocab: tuple[str, ...], *, phase: str | None, refusal: bool = False) -> None:
        tokens = _text(c, vocab, 1, limits.max_text_tokens)
        plan.append(
            {
                "kind": "message",
                "id": "msg_" + token(filler, 50, hexid),
                "tokens": tokens,
                "phase": phase if style["phase"] else None,
                "refusal": refusal,
                "deltas": c.chance(0.9),
            }
        )

    if style["reasoning"] and c.chance(0.8):
        reasoning_item()
    if c.chance(0.1):
        message(REFUSAL_TOKENS, phase="final_answer", refusal=True)
    else:
        n_calls = c.integer(0, min(3, limits.max_tools))
        if n_calls and c.chance(0.3):
            message(TEXT_TOKENS, phase="commentary")
        for k in range(n_calls):
            if k and style["reasoning"] and c.chance(0.3):
                reasoning_item()  # reasoning between calls (QUIRKS F4)
            value = json_object(c, limits, 0)
            text = serialise_arguments(c, value)
            plan.append(
                {
                    "kind": "function_call",
                    "id": "fc_" + token(filler, 50, hexid),
                    "call_id": "call_" + token(filler, 24),
                    "name": c.choice(TOOL_NAMES),
                    "value": value,
                    "pieces": delta_pieces(c, text),
                    "deltas": c.chance(0.9),
                }
            )
        if not n_calls or c.chance(0.15):
            message(TEXT_TOKENS, phase="final_answer")

    # max_output_tokens cuts the last item short (at a delta boundary, as a model would stop).
    cut_last = reason == "max_output_tokens"
    items: list[ItemSpec] = []
    for n, p in enumerate(plan):
        last = cut_last and n == len(plan) - 1
        if p["kind"] == "reasoning":
            parts = ["".join(ts) for ts in p["parts"]]
            if last and parts:
                parts[-1] = "".join(p["parts"][-1][: c.integer(1, len(p["parts"][-1]))])
            items.append(
                ItemSpec(
                    "reasoning",
                    p["id"],
                    summaries=tuple(parts),
                    encrypted="gAAAAA" + token(filler, 40) if encrypted_on else None,
                    truncated=last,
                )
            )
        elif p["kind"] == "message":
            tokens = p["tokens"][: c.integer(1, len(p["tokens"]))] if last else p["tokens"]
            items.append(
                ItemSpec(
                    "message",
                    p["id"],
                    text="".join(tokens),
                    refusal=p["refusal"],
                    phase=p["phase"],
                    deltas=p["deltas"],
                    truncated=last,
                )
            )
            p["tokens"] = tokens
        else:
            pieces = p["pieces"]
            if last and pieces:
                # cut inside the text: keep a proper prefix of the arguments
                joined = "".join(pieces)
                keep = c.integer(1, max(1, len(joined) - 1))
                pieces = _recut(pieces, keep)
                p["pieces"] = pieces
            items.append(
                ItemSpec(
                    "function_call",
                    p["id"],
                    call_id=p["call_id"],
                    name=p["name"],
                    arguments=p["value"],
                    arguments_text="".join(pieces),
                    deltas=p["deltas"],
                    truncated=last,
                )
            )

    # -- the events ---------------------------------------------------------------------
    created = filler.randint(1_700_000_000, 1_790_000_000)
    usage = _usage(c, filler, style)
    events: list[dict[str, Any]] = []

    def emit(payload: dict[str, Any], *, obfuscate: bool = False) -> None:
        if obfuscate and style["obfuscation"]:
            payload["obfuscation"] = token(filler, filler.randint(1, 15))
        payload["sequence_number"] = len(events)
        events.append(payload)

    pending = _response(response_id, style["model"], created, "in_progress", [], None, None)
    emit({"type": "response.created", "response": pending})
    emit({"type": "response.in_progress", "response": pending})
    final_items: list[dict[str, Any]] = []
    for index, (p, spec) in enumerate(zip(plan, items, strict=True)):
        where = {"item_id": spec.id, "output_index": index}
        done_item = _item(spec)
        final_items.append(done_item)
        if spec.kind == "reasoning":
            added: dict[str, Any] = {"id": spec.id, "type": "reasoning", "summary": []}
            if spec.encrypted is not None:
                # .added carries a different (incomplete) blob than .done, as observed
                added = {
                    "id": spec.id,
                    "type": "reasoning",
                    "content": [],
                    "encrypted_content": "gAAAAA" + token(filler, 24),
                    "summary": [],
                }
            emit({"type": "response.output_item.added", "item": added, "output_index": index})
            for si, text in enumerate(spec.summaries):
                part = {"type": "summary_text", "text": ""}
                emit(
                    {
                        "type": "response.reasoning_summary_part.added",
                        **where,
                        "part": part,
                        "summary_index": si,
                    }
                )
                tokens = p["parts"][si]
                sent = ""
                for tok in tokens:
                    if len(sent) >= len(text):
                        break
                    piece = tok[: len(text) - len(sent)]
                    sent += piece
                    emit(
                        {
                            "type": "response.reasoning_summary_text.delta",
                            **where,
                            "delta": piece,
                            "summary_index": si,
                        },
                        obfuscate=True,
                    )
                emit(
                    {
                        "type": "response.reasoning_summary_text.done",
                        **where,
                        "summary_index": si,
                        "text": text,
                    }
                )
                emit(
                    {
                        "type": "response.reasoning_summary_part.done",
                        **where,
                        "part": {"type": "summary_text", "text": text},
                        "summary_index": si,
                    }
                )
        elif spec.kind == "message":
            head: dict[str, Any] = {
                "id": spec.id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            }
            if spec.phase is not None:
                head["phase"] = spec.phase
            emit({"type": "response.output_item.added", "item": head, "output_index": index})
            at = {**where, "content_index": 0}
            if spec.refusal:
                emit(
                    {
                        "type": "response.content_part.added",
                        **at,
                        "part": {"type": "refusal", "refusal": ""},
                    }
                )
                if spec.deltas:
                    for tok in p["tokens"]:
                        emit({"type": "response.refusal.delta", **at, "delta": tok})
                emit({"type": "response.refusal.done", **at, "refusal": spec.text})
                emit(
                    {
                        "type": "response.content_part.done",
                        **at,
                        "part": {"type": "refusal", "refusal": spec.text},
                    }
                )
            else:
                empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
                emit({"type": "response.content_part.added", **at, "part": empty})
                if spec.deltas:
                    for tok in p["tokens"]:
                        emit(
                            {
                                "type": "response.output_text.delta",
                                **at,
                                "delta": tok,
                                "logprobs": [],
                            },
                            obfuscate=True,
                        )
                emit({"type": "response.output_text.done", **at, "text": spec.text, "logprobs": []})
                emit(
                    {
                        "type": "response.content_part.done",
                        **at,
                        "part": {**empty, "text": spec.text},
                    }
                )
        else:
            head = {
                "id": spec.id,
                "type": "function_call",
                "status": "in_progress",
                "arguments": "",
                "call_id": spec.call_id,
                "name": spec.name,
            }
            emit({"type": "response.output_item.added", "item": head, "output_index": index})
            if spec.deltas:
                for piece in p["pieces"]:
                    emit(
                        {"type": "response.function_call_arguments.delta", **where, "delta": piece},
                        obfuscate=True,
                    )
            emit(
                {
                    "type": "response.function_call_arguments.done",
                    **where,
                    "arguments": spec.arguments_text,
                }
            )
        emit({"type": "response.output_item.done", "item": done_item, "output_index": index})
    final = _response(
        response_id,
        style["model"],
        created,
        status,
        final_items,
        usage,
        {"reason": reason} if reason else None,
    )
    emit({"type": f"response.{status}", "response": final})

    # -- the bytes ----------------------------------------------------------------------
    nl = "\r\n" if c.chance(0.15) else "\n"
    data_first = c.chance(0.05)  # Bedrock's Responses endpoint writes data: before event:
    out: list[str] = []
    for payload in events:
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        lines = [f"event: {payload['type']}", f"data: {data}"]
        if data_first:
            lines.reverse()
        out.append(nl.join(lines) + nl + nl)
        if c.chance(0.03):
            out.append(f": keepalive{nl}{nl}")
    return ResponsesStream(
        body="".join(out).encode("utf-8"),
        response_id=response_id,
        model=style["model"],
        items=tuple(items),
        status=status,
        incomplete_reason=reason,
        usage=usage,
        events=tuple(events),
        newline=nl,
    )


def _recut(pieces: list[str], keep: int) -> list[str]:
    """The first ``keep`` characters of the joined pieces, keeping the piece boundaries."""
    out: list[str] = []
    for piece in pieces:
        if keep <= 0:
            break
        out.append(piece[:keep])
        keep -= len(piece)
    return out


def _item(spec: ItemSpec) -> dict[str, Any]:
    """The item as ``output_item.done`` (and the terminal ``output``) report it."""
    status = "incomplete" if spec.truncated else "completed"
    if spec.kind == "reasoning":
        item: dict[str, Any] = {"id": spec.id, "type": "reasoning"}
        if spec.encrypted is not None:
            item["content"] = []
            item["encrypted_content"] = spec.encrypted
        item["summary"] = [{"type": "summary_text", "text": t} for t in spec.summaries]
        return item
    if spec.kind == "message":
        part: dict[str, Any] = (
            {"type": "refusal", "refusal": spec.text}
            if spec.refusal
            else {"type": "output_text", "annotations": [], "logprobs": [], "text": spec.text}
        )
        item = {"id": spec.id, "type": "message", "status": status, "content": [part]}
        if spec.phase is not None:
            item["phase"] = spec.phase
        item["role"] = "assistant"
        return item
    return {
        "id": spec.id,
        "type": "function_call",
        "status": status,
        "arguments": spec.arguments_text,
        "call_id": spec.call_id,
        "name": spec.name,
    }


def _response(
    response_id: str,
    model: str,
    created: int,
    status: str,
    output: list[dict[str, Any]],
    usage: dict[str, Any] | None,
    incomplete: dict[str, Any] | None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": incomplete,
        "instructions": None,
        "max_output_tokens": None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }


def _usage(c: Chooser, filler: random.Random, style: dict[str, Any]) -> dict[str, Any]:
    prompt = filler.randint(1, 50_000)
    cached = filler.randint(1, prompt // 128) * 128 if prompt >= 1024 and c.chance(0.4) else 0
    reasoning = filler.randint(64, 4096) if style["reasoning"] and c.chance(0.7) else 0
    output = reasoning + filler.randint(1, 2000)
    details: dict[str, Any] = {"cached_tokens": cached}
    if style["cache_write"]:
        details["cache_write_tokens"] = filler.randint(0, prompt - cached)
    return {
        "input_tokens": prompt,
        "input_tokens_details": details,
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": prompt + output,
    }


# --------------------------------------------------------------------------- front ends


@st.composite
def responses_streams(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> ResponsesStream:
    """Hypothesis strategy: realistic OpenAI Responses streams."""
    return build_stream(DrawChooser(draw), limits)


def generate_stream(seed: int, limits: Limits = DEFAULT_LIMITS) -> ResponsesStream:
    """The stream for ``seed``: deterministic (same seed, same bytes), for benchmarks."""
    return build_stream(RandomChooser(random.Random(seed)), limits)


def generate_body(seed: int, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The raw SSE body of :func:`generate_stream`."""
    return generate_stream(seed, limits).body
