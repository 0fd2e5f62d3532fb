"""Realistic Anthropic Messages SSE bodies, byte for byte as api.anthropic.com sends them.

Two front ends share one generator: :func:`anthropic_streams` (a hypothesis strategy whose
failures shrink towards a short text stream) and :func:`generate_stream` (the same streams from
an integer seed, for benchmarks).

The shape follows the recorded bodies in the corpus (anthropic-sdk-python SSE captures,
charmbracelet-fantasy, pydantic-ai, simonw-llm-anthropic and vercel/ai recordings of
claude-3-7 … claude-sonnet-4-6): ``event: <type>`` + ``data: <compact JSON>`` + a blank line;
``message_start`` with the message shell and usage (input and cache counts, ``output_tokens``
so far, ``service_tier``); per block ``content_block_start`` → deltas → ``content_block_stop``;
``ping`` events (one right after the first block starts, sometimes more); ``message_delta`` with
``stop_reason``, ``stop_sequence`` and cumulative usage (older models: ``output_tokens`` only;
newer ones repeat the input and cache counts); ``message_stop``. What varies:

* blocks: thinking (``thinking_delta``s, then one ``signature_delta``) and redacted thinking
  first, then text and ``tool_use`` blocks in any order; text with CJK, emoji, U+2028,
  quotes, backslashes, control characters (the shared vocabulary of
  :mod:`tests.support.streams`);
* tool calls: nested JSON input written compact or spaced, streamed as ``input_json_delta``
  fragments of 1-16 characters starting with ``partial_json: ""`` (QUIRKS D3), or sent whole
  in ``content_block_start.input`` (no deltas), or empty (a no-argument tool);
* stop reasons consistent with the content: ``end_turn``, ``stop_sequence``, ``tool_use``,
  ``max_tokens`` (cutting the last text or, usually, the last call's JSON mid-way, D6/E3),
  ``pause_turn``, ``refusal``;
* framing: trailing spaces after the JSON (as the real API pads some events), LF or CRLF.

Nothing here imports llmkit.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

# The choice sources and vocabularies are the ones every generator shares, so all explore the
# same hard text and JSON (unicode, escapes, line separators).
from tests.support.streams import (
    DEFAULT_LIMITS,
    TEXT_TOKENS,
    Chooser,
    DrawChooser,
    Limits,
    RandomChooser,
    delta_pieces,
    json_object,
    token,
)

__all__ = [
    "BlockSpec",
    "MessageStream",
    "anthropic_streams",
    "build_stream",
    "generate_stream",
]

MODELS = (
    "claude-3-7-sonnet-20250219",
    "claude-sonnet-4-20250514",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-5-20251101",
    "claude-sonnet-4-6",
)
TOOL_NAMES = (
    "get_weather",
    "add",
    "multiply",
    "make_file",
    "rollDie",
    "search-docs",
    "x",
    "a" * 64,
)
THINKING_TOKENS = ("Let", " me", " think", " about", " this", ".", " The user", " wants", "\n\n")
_B64 = string.ascii_letters + string.digits + "+/"


@dataclass(frozen=True)
class BlockSpec:
    """One content block as the model wrote it.

    Attributes:
        kind: ``text``, ``thinking``, ``redacted_thinking`` or ``tool_use``.
        text: Text or thinking text (as sent, i.e. cut short when truncated).
        signature: The thinking block's signature (``""`` when the stream cut it off).
        data: The redacted block's opaque data.
        id: The ``toolu_...`` id.
        name: The tool name.
        arguments: The input value the model meant (for a truncated call: what it was
            writing).
        arguments_text: The input text actually sent as deltas (``""`` when sent whole).
        whole: The input came whole in ``content_block_start`` (no deltas).
        truncated: ``max_tokens`` cut this block short.
    """

    kind: str
    text: str = ""
    signature: str = ""
    data: str = ""
    id: str = ""
    name: str = ""
    arguments: Any = None
    arguments_text: str = ""
    whole: bool = False
    truncated: bool = False


@dataclass(frozen=True)
class MessageStream:
    """A generated response body and what it holds.

    Attributes:
        body: The raw SSE bytes.
        message_id: The ``msg_...`` id.
        model: The model id in ``message_start``.
        blocks: The content blocks, in index order.
        stop_reason: Anthropic's ``stop_reason``.
        usage: The usage the SDK ends with: ``message_start``'s merged with
            ``message_delta``'s (QUIRKS J2).
        newline: ``"\\n"`` or ``"\\r\\n"``.
    """

    body: bytes
    message_id: str
    model: str
    blocks: tuple[BlockSpec, ...]
    stop_reason: str
    usage: dict[str, Any]
    newline: str

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.blocks if b.kind == "text")

    @property
    def tool_calls(self) -> tuple[BlockSpec, ...]:
        return tuple(b for b in self.blocks if b.kind == "tool_use")


def build_stream(c: Chooser, limits: Limits = DEFAULT_LIMITS) -> MessageStream:
    """Generate one stream, every decision taken from ``c``."""
    filler = random.Random(c.integer(0, 2**32 - 1))  # ids, signatures: no shrinking value
    model = c.choice(MODELS)
    message_id = "msg_01" + token(filler, 22)
    newline = "\r\n" if c.chance(0.2) else "\n"
    stop = c.choice(
        ("end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal")
    )

    # -- the blocks ---------------------------------------------------------------------
    kinds: list[str] = []
    if c.chance(0.3):
        kinds.append("thinking")
    if c.chance(0.1):
        kinds += ["redacted_thinking"] * c.integer(1, 2)
    body_kinds = ["text"] * c.integer(0, 2)
    # Client tool calls come with stop_reason tool_use, or max_tokens when cut short.
    if stop == "tool_use":
        n_tools = c.integer(1, limits.max_tools)
    else:
        n_tools = c.integer(0, 1) if stop == "max_tokens" else 0
    body_kinds += ["tool_use"] * n_tools
    if len(body_kinds) > 1 and c.chance(0.3):
        filler.shuffle(body_kinds)  # text between calls happens (pptx-skill recording)
    if not body_kinds and not kinds:
        body_kinds = ["text"]
    kinds += body_kinds
    if stop == "tool_use" and "tool_use" not in kinds:
        stop = "end_turn"
    if stop == "max_tokens" and kinds[-1] not in ("text", "tool_use"):
        stop = "end_turn"

    blocks: list[BlockSpec] = []
    used: set[str] = set()
    for n, kind in enumerate(kinds):
        last = n == len(kinds) - 1
        truncated = stop == "max_tokens" and last and not c.chance(0.15)
        if kind == "thinking":
            tokens = [c.choice(THINKING_TOKENS + TEXT_TOKENS) for _ in range(c.integer(1, 12))]
            signature = "Eq" + token(filler, filler.randint(40, 200), _B64) + "=="
            blocks.append(BlockSpec("thinking", text="".join(tokens), signature=signature))
        elif kind == "redacted_thinking":
            data = "Eq" + token(filler, filler.randint(40, 300), _B64) + "="
            blocks.append(BlockSpec("redacted_thinking", data=data))
        elif kind == "text":
            low = 1 if truncated else 0
            tokens = [c.choice(TEXT_TOKENS) for _ in range(c.integer(low, limits.max_text_tokens))]
            text = "".join(tokens)
            blocks.append(BlockSpec("text", text=text, truncated=truncated and bool(text)))
        else:
            call_id = "toolu_01" + token(filler, 22)
            while call_id in used:
                call_id = "toolu_01" + token(filler, 22)
            used.add(call_id)
            value = json_object(c, limits, 0) if c.chance(0.9) else {}
            whole = not truncated and bool(value) and c.chance(0.15)
            full = (
                json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                if c.chance(0.5)
                else json.dumps(value, ensure_ascii=False)
            )
            if not value and c.chance(0.5):
                full = ""  # no-argument tool: no input text at all (QUIRKS D3)
            text = full
            if truncated and len(full) > 2:
                text = full[: c.integer(1, len(full) - 1)]
            blocks.append(
                BlockSpec(
                    "tool_use",
                    id=call_id,
                    name=c.choice(TOOL_NAMES),
                    arguments=value,
                    arguments_text="" if whole else text,
                    whole=whole,
                    truncated=truncated and text != full,
                )
            )

    # -- the events ---------------------------------------------------------------------
    usage_start: dict[str, Any] = {"input_tokens": filler.randint(1, 40_000)}
    cached = c.chance(0.6)  # 2025 API: cache fields always present (often 0)
    if cached:
        usage_start["cache_creation_input_tokens"] = c.choice((0, 0, filler.randint(1, 9000)))
        usage_start["cache_read_input_tokens"] = c.choice((0, 0, filler.randint(1, 9000)))
    usage_start["output_tokens"] = filler.randint(1, 8)
    if c.chance(0.5):
        usage_start["service_tier"] = "standard"
    shell = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage_start,
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": shell}]
    for index, block in enumerate(blocks):
        events += _block_events(c, index, block)
        if index == 0:
            events.insert(2, {"type": "ping"})
    if not blocks:
        events.append({"type": "ping"})
    usage_delta: dict[str, Any] = {
        "output_tokens": usage_start["output_tokens"] + filler.randint(1, 900)
    }
    if c.chance(0.5):  # newer models repeat the input counts in message_delta
        usage_delta = {
            k: v for k, v in usage_start.items() if k != "service_tier" and k != "output_tokens"
        } | usage_delta
    if c.chance(0.15):
        usage_delta["output_tokens_details"] = {"thinking_tokens": filler.randint(0, 50)}
    stop_sequence = "\n\nHuman:" if stop == "stop_sequence" else None
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": stop_sequence},
            "usage": usage_delta,
        }
    )
    events.append({"type": "message_stop"})
    usage = dict(usage_start)
    usage.update({k: v for k, v in usage_delta.items() if v is not None})

    # -- the bytes ----------------------------------------------------------------------
    nl = newline
    pad = c.chance(0.3)
    parts = []
    for event in events:
        data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        if event["type"] == "ping":
            data = '{"type": "ping"}'  # the API writes pings with a space
        elif pad and filler.random() < 0.7:
            data += " " * filler.randint(1, 15)  # the padding real captures show
        parts.append(f"event: {event['type']}{nl}data: {data}{nl}{nl}")
        if c.chance(0.03):
            parts.append(f'event: ping{nl}data: {{"type": "ping"}}{nl}{nl}')
    return MessageStream(
        body="".join(parts).encode("utf-8"),
        message_id=message_id,
        model=model,
        blocks=tuple(blocks),
        stop_reason=stop,
        usage=usage,
        newline=newline,
    )


def _block_events(c: Chooser, index: int, block: BlockSpec) -> list[dict[str, Any]]:
    def delta(d: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": d}

    deltas: list[dict[str, Any]] = []
    if block.kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": p}) for p in delta_pieces(c, block.text)]
    elif block.kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            delta({"type": "thinking_delta", "thinking": p}) for p in delta_pieces(c, block.text)
        ]
        deltas.append(delta({"type": "signature_delta", "signature": block.signature}))
    elif block.kind == "redacted_thinking":
        start = {"type": "redacted_thinking", "data": block.data}
    else:
        start = {
            "type": "tool_use",
            "id": block.id,
            "name": block.name,
            "input": block.arguments if block.whole else {},
        }
        if not block.whole:
            pieces = ["", *delta_pieces(c, block.arguments_text)]  # always an empty first one (D3)
            deltas = [delta({"type": "input_json_delta", "partial_json": p}) for p in pieces]
    events = [{"type": "content_block_start", "index": index, "content_block": start}, *deltas]
    if not block.truncated:
        events.append({"type": "content_block_stop", "index": index})
    return events


# --------------------------------------------------------------------------- front ends


@st.composite
def anthropic_streams(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> MessageStream:
    """Hypothesis strategy: realistic Anthropic Messages streams."""
    return build_stream(DrawChooser(draw), limits)


def generate_stream(seed: int, limits: Limits = DEFAULT_LIMITS) -> MessageStream:
    """The stream for ``seed``: deterministic (same seed, same bytes), for benchmarks."""
    return build_stream(RandomChooser(random.Random(seed)), limits)
