"""Deterministic streams: the bytes a provider would send for K=4 parallel tool calls.

A :class:`StreamSpec` names one stream: the wire API, the argument *shape*, ``n`` = the total
number of argument deltas across the 4 calls (so each call gets ``n / 4`` deltas), and a seed.
Everything here is a pure function of the spec, so the server process, the contestant
processes and the correctness check all agree on the same bytes and the same expected calls.

Shapes (snapshot cost differs between them, so both are reported):

- ``edits``: an edit tool, ``{"path": ..., "edits": [{"line": n, "old": "...", "new": "..."},
  ...]}`` -- many short strings inside a growing array;
- ``content``: a write tool, ``{"path": ..., "content": "<long file text>"}`` -- one string that
  grows with every delta, so any snapshot of it must materialise an ever longer string.

Each call's JSON argument text is cut into deltas of 4-16 characters (what OpenAI and
Anthropic send for tool arguments). Calls stream one after another, as both providers send
parallel calls. The HTTP body is then cut at arbitrary offsets into 256-512 byte writes
(:func:`cut`), each sent as one chunk of ``Transfer-Encoding: chunked``, so SSE events and
UTF-8 sequences straddle writes the way they do on a real network.

Two wires differ: ``gemini`` is Vertex AI with ``streamFunctionCallArguments`` (Gemini's
public API sends calls whole), whose ``partialArgs`` carry JSON leaves by path rather than
text, so the same arguments go out as string pieces of 4-16 characters of their values
(:func:`gemini_fragments`), with no call ids; ``bedrock-converse`` is binary
``application/vnd.amazon.eventstream`` messages (:func:`es_message`, real CRC32s) carrying the
same 4-16 character ``toolUse.input`` fragments.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

K = 4  # parallel tool calls per stream
MIN_DELTA, MAX_DELTA = 4, 16  # characters of argument text per delta
MIN_WRITE, MAX_WRITE = 256, 512  # bytes per chunked write of the HTTP body
SHAPES = ("edits", "content")
CREATED = 1764460800  # a fixed timestamp: the bytes must not depend on the clock

# The models each wire format names (cosmetic: nothing checks them).
MODEL_IDS = {
    "openai-chat": "gpt-4.1-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic-messages": "claude-sonnet-4-5",
    "gemini": "gemini-3-pro-preview",
    "bedrock-converse": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}


@dataclass(frozen=True)
class StreamSpec:
    """One generated stream: ``n`` argument deltas in total, across the K=4 calls."""

    api: str
    shape: str
    n: int
    seed: int = 1

    @property
    def key(self) -> str:
        """A URL-safe name for the spec (the server routes on it)."""
        return f"{self.api}.{self.shape}.{self.n}.{self.seed}"

    @classmethod
    def from_key(cls, key: str) -> StreamSpec:
        api, shape, n, seed = key.split(".")
        return cls(api, shape, int(n), int(seed))


@dataclass(frozen=True)
class Call:
    """One expected tool call: what every contestant must end up with."""

    id: str
    name: str
    arguments: dict[str, Any]
    text: str  # the JSON argument text as streamed
    deltas: list[str]  # ``text`` cut into 4-16 character pieces
    item_id: str = ""  # OpenAI Responses only: the ``fc_...`` item id


# -- argument text ------------------------------------------------------------------------

# Source-like lines with the characters that make JSON strings expensive or tricky: quotes,
# backslashes, tabs, non-ASCII (escaped or multi-byte on the wire).
_CODE = [
    "def handle(request, *, timeout=30):",
    '    return {"status": "ok", "items": items}',
    "if value is None:",
    '    raise ValueError(f"bad value: {value!r}")',
    "for index, row in enumerate(rows):",
    "# naïve version → replaced, see issue #42",
    "pattern = re.compile(r'\\d+\\.\\d+')",
    "\tresult.append(transform(row))",
    'message = "Grüße aus Köln"  # greeting',
    "total = sum(price * qty for price, qty in basket)",
    "assert response.status_code == 200, response.text",
    "logger.info('processed %d rows in %.2fs', n, elapsed)",
    'path = Path(__file__).parent / "data" / "config.json"',
    "    yield from self._drain()",
    "class Cache(dict):",
]
_PROSE = [
    "The quick brown fox jumps over the lazy dog.",
    'He said "it works on my machine" and left.',
    "Prices rose 3.5% — faster than expected.",
    "Naïve café owners in Zürich serve crème brûlée.",
    "See C:\\Users\\dev\\notes.txt for the details.",
    "Step 1: clone the repo; step 2: run the tests.",
    "日本語のテキストも少し含まれています。",
    "Tabs\tand\tnewlines are escaped in JSON.",
]
_WORDS = ["alpha", "beta", "gamma", "delta", "omega", "config", "parser", "stream", "cache"]


def _code_line(rng: random.Random) -> str:
    line = rng.choice(_CODE)
    # Vary a word so that lines are not all identical (compressors and caches see real text).
    return line.replace("row", rng.choice(_WORDS), 1)


def _edit(rng: random.Random) -> dict[str, Any]:
    return {"line": rng.randint(1, 4000), "old": _code_line(rng), "new": _code_line(rng)}


def _dumps(value: Any) -> str:
    # What models emit: spaces after ':' and ',', non-ASCII characters as themselves.
    return json.dumps(value, ensure_ascii=False)


def _edits_arguments(rng: random.Random, path: str, target: int) -> dict[str, Any]:
    """An edit-tool argument object whose JSON text is about ``target`` characters long."""
    edits: list[dict[str, Any]] = []
    length = len(_dumps({"path": path, "edits": []}))
    while length < target:
        edit = _edit(rng)
        edits.append(edit)
        length += len(_dumps(edit)) + (2 if len(edits) > 1 else 0)  # ", " between items
    return {"path": path, "edits": edits}


def _content_arguments(rng: random.Random, path: str, target: int) -> dict[str, Any]:
    """A write-tool argument object whose JSON text is about ``target`` characters long."""
    lines: list[str] = []
    length = len(_dumps({"path": path, "content": ""}))
    while length < target:
        line = rng.choice(_PROSE) if rng.random() < 0.5 else _code_line(rng)
        lines.append(line)
        length += len(_dumps(line)) - 2 + 2  # the line without its quotes, plus "\n"
    return {"path": path, "content": "\n".join(lines)}


def _shrink(arguments: dict[str, Any], limit: int) -> dict[str, Any]:
    """Trim the last string until the JSON text fits in ``limit`` characters (only needed
    for tiny streams, where one more edit or line overshoots what the deltas can carry)."""
    while len(_dumps(arguments)) > limit:
        if "content" in arguments:
            arguments["content"] = arguments["content"][:-1]
        elif arguments["edits"] and arguments["edits"][-1]["new"]:
            arguments["edits"][-1]["new"] = arguments["edits"][-1]["new"][:-1]
        elif arguments["edits"]:
            arguments["edits"].pop()
        else:
            break
    return arguments


def _partition(rng: random.Random, total: int, count: int) -> list[int]:
    """``count`` delta sizes, each in [MIN_DELTA, MAX_DELTA], summing to ``total``."""
    sizes = [rng.randint(MIN_DELTA, MAX_DELTA) for _ in range(count)]
    diff = total - sum(sizes)
    while diff:
        j = rng.randrange(count)
        if diff > 0 and sizes[j] < MAX_DELTA:
            step = min(diff, MAX_DELTA - sizes[j])
        elif diff < 0 and sizes[j] > MIN_DELTA:
            step = max(diff, MIN_DELTA - sizes[j])
        else:
            continue
        sizes[j] += step
        diff -= step
    return sizes


def _token(
    rng: random.Random, length: int, alphabet: str = string.ascii_letters + string.digits
) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def expected_calls(spec: StreamSpec) -> list[Call]:
    """The K=4 calls of ``spec``: ids, names, arguments, and the deltas that carry them."""
    if spec.shape not in SHAPES:
        raise ValueError(f"unknown shape {spec.shape!r}")
    if spec.n < K * 2:
        raise ValueError(f"n must be at least {K * 2}")
    # A string seed goes through SHA-512: the same on every run and every machine.
    rng = random.Random(f"{spec.shape}:{spec.n}:{spec.seed}")
    calls = []
    for i in range(K):
        count = spec.n // K + (1 if i < spec.n % K else 0)
        sizes = [rng.randint(MIN_DELTA, MAX_DELTA) for _ in range(count)]
        target = sum(sizes)
        if spec.shape == "edits":
            path = f"src/{rng.choice(_WORDS)}/module_{i}.py"
            arguments = _edits_arguments(rng, path, target)
            name = "edit_file"
        else:
            path = f"docs/{rng.choice(_WORDS)}_{i}.md"
            arguments = _content_arguments(rng, path, target)
            name = "write_file"
        arguments = _shrink(arguments, MAX_DELTA * count)
        text = _dumps(arguments)
        sizes = _partition(rng, len(text), count)
        deltas, offset = [], 0
        for size in sizes:
            deltas.append(text[offset : offset + size])
            offset += size
        if spec.api == "anthropic-messages":
            call_id = "toolu_01" + _token(rng, 22)
        elif spec.api == "bedrock-converse":
            call_id = "tooluse_" + _token(rng, 22, string.ascii_letters + string.digits + "_-")
        else:
            call_id = "call_" + _token(rng, 24)
        item_id = "fc_" + _token(rng, 48, string.hexdigits.lower()[:16])
        calls.append(Call(call_id, name, arguments, text, deltas, item_id))
    return calls


def digest(calls: list[tuple[str, str, Any]]) -> str:
    """A short fingerprint of ``(id, name, parsed arguments)`` triples, for the check that
    every contestant's result equals the generated calls (compared in the parent process)."""
    canonical = json.dumps(calls, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def expected_digest(spec: StreamSpec) -> str:
    return digest([(expected_id(spec.api, c), c.name, c.arguments) for c in expected_calls(spec)])


def expected_id(api: str, call: Call) -> str | None:
    """The call id a contestant must report: Vertex's streamed calls carry none (the recordings
    of ``streamFunctionCallArguments`` have no ``functionCall.id``), so on ``gemini`` every
    contestant reports ``None`` (llmkit synthesises one, which the check does not compare)."""
    return None if api in NO_IDS else call.id


NO_IDS = ("gemini",)  # the APIs whose generated streams carry no call ids


# -- request bodies (what the clients send; the server ignores them) --------------------------

EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to edit"},
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "line": {"type": "integer"},
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                },
                "required": ["line", "old", "new"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["path", "edits"],
    "additionalProperties": False,
}
WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to write"},
        "content": {"type": "string", "description": "The whole file"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
TOOLS = {
    "edits": ("edit_file", "Apply line edits to a file.", EDIT_SCHEMA),
    "content": ("write_file", "Write a whole file.", WRITE_SCHEMA),
}
PROMPT = "Refactor the project: apply the four changes in parallel."


# -- SSE encoders, one per wire API -------------------------------------------------------------


def _sse(data: str, event: str | None = None) -> str:
    return (f"event: {event}\n" if event else "") + f"data: {data}\n\n"


def _compact(value: Any) -> str:
    # Providers send compact JSON in SSE data lines, UTF-8 as itself.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _openai_chat(spec: StreamSpec, calls: list[Call]) -> Iterator[str]:
    rng = random.Random(f"chat-ids:{spec.seed}")
    head = {
        "id": "chatcmpl-" + _token(rng, 29),
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "gpt-4.1-mini-2025-04-14",
        "service_tier": "default",
        "system_fingerprint": "fp_6f2eabb9a5",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _sse(_compact({**head, "choices": [choice], "usage": None}))

    yield chunk({"role": "assistant", "content": None, "refusal": None})
    for i, call in enumerate(calls):
        opening = {"index": i, "id": call.id, "type": "function"}
        yield chunk({"tool_calls": [{**opening, "function": {"name": call.name, "arguments": ""}}]})
        # The hot path: a template with the argument fragment spliced in (same bytes as chunk()).
        before = _compact(
            {
                **head,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": i, "function": {"arguments": "\0"}}]},
                        "logprobs": None,
                        "finish_reason": None,
                    }
                ],
                "usage": None,
            }
        )
        prefix, suffix = before.split('"\\u0000"')
        for delta in call.deltas:
            yield _sse(prefix + _compact(delta) + suffix)
    yield chunk({}, "tool_calls")
    output = sum(len(c.text) for c in calls) // 4
    usage = {
        "prompt_tokens": 812,
        "completion_tokens": output,
        "total_tokens": 812 + output,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    yield _sse(_compact({**head, "choices": [], "usage": usage}))
    yield _sse("[DONE]")


def _anthropic_messages(spec: StreamSpec, calls: list[Call]) -> Iterator[str]:
    rng = random.Random(f"anthropic-ids:{spec.seed}")
    message: dict[str, Any] = {
        "id": "msg_01" + _token(rng, 22),
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 812,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    yield _sse(_compact({"type": "message_start", "message": message}), "message_start")
    for i, call in enumerate(calls):
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        start = {"type": "content_block_start", "index": i, "content_block": block}
        yield _sse(_compact(start), "content_block_start")
        if i == 0:
            yield _sse(_compact({"type": "ping"}), "ping")
        prefix = (
            f'{{"type":"content_block_delta","index":{i},'
            '"delta":{"type":"input_json_delta","partial_json":'
        )
        # Anthropic opens every tool input with an empty fragment (QUIRKS D3).
        for delta in ["", *call.deltas]:
            yield _sse(prefix + _compact(delta) + "}}", "content_block_delta")
        yield _sse(_compact({"type": "content_block_stop", "index": i}), "content_block_stop")
    output = sum(len(c.text) for c in calls) // 4
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": output},
    }
    yield _sse(_compact(end), "message_delta")
    yield _sse(_compact({"type": "message_stop"}), "message_stop")


def _openai_responses(spec: StreamSpec, calls: list[Call]) -> Iterator[str]:
    rng = random.Random(f"responses-ids:{spec.seed}")
    response: dict[str, Any] = {
        "id": "resp_" + _token(rng, 48, "0123456789abcdef"),
        "object": "response",
        "created_at": CREATED,
        "status": "in_progress",
        "model": "gpt-4.1-mini-2025-04-14",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None,
    }
    seq = 0

    def event(kind: str, body: dict[str, Any]) -> str:
        nonlocal seq
        text = _sse(_compact({"type": kind, "sequence_number": seq, **body}), kind)
        seq += 1
        return text

    yield event("response.created", {"response": response})
    yield event("response.in_progress", {"response": response})
    items = []
    for i, call in enumerate(calls):
        item = {
            "id": call.item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call.id,
            "name": call.name,
        }
        yield event("response.output_item.added", {"output_index": i, "item": item})
        kind = "response.function_call_arguments.delta"
        for delta in call.deltas:
            yield _sse(
                f'{{"type":"{kind}","sequence_number":{seq},"item_id":"{call.item_id}",'
                f'"output_index":{i},"delta":{_compact(delta)}}}',
                kind,
            )
            seq += 1
        done = {"item_id": call.item_id, "output_index": i, "arguments": call.text}
        yield event("response.function_call_arguments.done", done)
        item = {**item, "status": "completed", "arguments": call.text}
        items.append(item)
        yield event("response.output_item.done", {"output_index": i, "item": item})
    output = sum(len(c.text) for c in calls) // 4
    final = {
        **response,
        "status": "completed",
        "output": items,
        "usage": {
            "input_tokens": 812,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 812 + output,
        },
    }
    yield event("response.completed", {"response": final})


def _gemini_dumps(value: Any) -> str:
    # Vertex's spelling in stream events: compact, UTF-8 as itself (the vercel-ai captures).
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """``(JSON path, leaf)`` in document order, as Vertex addresses ``partialArgs``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def gemini_fragments(spec: StreamSpec, call: Call, rng: random.Random) -> list[dict[str, Any]]:
    """The ``partialArgs`` fragments of one call: every leaf in document order; a string cut
    into pieces of 4-16 characters of its value (``willContinue: true``), then closed by an
    empty piece, as the Vertex recordings close every string; a number or a boolean whole.
    Array elements that are objects are followed by a no-op ``{"willContinue": true}`` part
    (``None`` here), as recorded."""
    out: list[dict[str, Any] | None] = []
    previous_element = None
    for path, value in _leaves(call.arguments, "$"):
        element = path.rsplit("].", 1)[0] if "]." in path else None
        if previous_element is not None and element != previous_element:
            out.append(None)
        previous_element = element
        if isinstance(value, str):
            pos = 0
            while pos < len(value):
                size = rng.randint(MIN_DELTA, MAX_DELTA)
                piece = value[pos : pos + size]
                out.append({"jsonPath": path, "stringValue": piece, "willContinue": True})
                pos += size
            out.append({"jsonPath": path, "stringValue": ""})
        elif isinstance(value, bool):
            out.append({"jsonPath": path, "boolValue": value})
        elif value is None:
            out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
        else:
            out.append({"jsonPath": path, "numberValue": value})
    if previous_element is not None:
        out.append(None)
    return out  # type: ignore[return-value]


def _gemini(spec: StreamSpec, calls: list[Call]) -> Iterator[str]:
    """Vertex AI's ``streamGenerateContent?alt=sse`` with ``streamFunctionCallArguments``: one
    part per chunk, as in the vercel-ai captures of gemini-3.1-pro-preview on Vertex."""
    rng = random.Random(f"gemini-ids:{spec.seed}")
    tail = _gemini_dumps(
        {
            "usageMetadata": {"trafficType": "ON_DEMAND"},
            "modelVersion": MODEL_IDS["gemini"],
            "createTime": "2025-11-30T00:00:00.000000Z",
            "responseId": _token(rng, 23, string.ascii_letters + string.digits + "_-"),
        }
    )[1:]  # '"usageMetadata":...}' : spliced after the candidates

    role = '"role":"model",'

    def event(part: dict[str, Any]) -> str:
        # CRLF framing, as Google sends SSE.
        parts = _gemini_dumps(part)
        return f'data: {{"candidates":[{{"content":{{{role}"parts":[{parts}]}}}}],{tail}\r\n\r\n'

    signature = base64.b64encode(rng.randbytes(180)).decode()  # Gemini 3 signs the first call
    fragment_rng = random.Random(f"gemini-fragments:{spec.key}")
    for i, call in enumerate(calls):
        head: dict[str, Any] = {"functionCall": {"name": call.name, "willContinue": True}}
        if i == 0:
            head["thoughtSignature"] = signature
        yield event(head)
        for fragment in gemini_fragments(spec, call, fragment_rng):
            if fragment is None:
                yield event({"functionCall": {"willContinue": True}})
            else:
                yield event({"functionCall": {"partialArgs": [fragment], "willContinue": True}})
        if i < len(calls) - 1:
            yield event({"functionCall": {}})  # the terminator of a streamed call
    output = sum(len(c.text) for c in calls) // 4
    usage = {
        "promptTokenCount": 812,
        "candidatesTokenCount": output,
        "totalTokenCount": 812 + output,
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 812}],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": output}],
    }
    last = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"functionCall": {}}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": usage,
        "modelVersion": MODEL_IDS["gemini"],
        "createTime": "2025-11-30T00:00:00.000000Z",
    }
    yield f"data: {_gemini_dumps(last)}\r\n\r\n"


# -- the AWS event stream (Bedrock ConverseStream) ----------------------------------------------

_PADDING = string.ascii_lowercase + string.ascii_uppercase + string.digits


def _es_header(name: str, value: str) -> bytes:
    raw_name, raw = name.encode(), value.encode()
    return struct.pack(">B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw)) + raw


def es_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One ``application/vnd.amazon.eventstream`` message: prelude (total length, headers
    length, CRC32 of those 8 bytes), string headers, payload, CRC32 of everything before."""
    block = b"".join(_es_header(k, v) for k, v in headers.items())
    prelude = struct.pack(">II", 12 + len(block) + len(payload) + 4, len(block))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + block + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _es_event(event_type: str, payload: dict[str, Any]) -> bytes:
    headers = {
        ":event-type": event_type,
        ":content-type": "application/json",
        ":message-type": "event",
    }
    # Bedrock's payloads: compact, keys sorted (the "p" padding among them), UTF-8 as itself.
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return es_message(headers, text.encode())


def _bedrock(spec: StreamSpec, calls: list[Call]) -> Iterator[bytes]:
    """Bedrock ``ConverseStream``: one event-stream message per Converse event, each payload
    padded with a random-length ``"p"`` field, as in the pydantic-ai recordings."""
    rng = random.Random(f"bedrock-pad:{spec.seed}")

    def pad() -> str:
        return _PADDING[: rng.randint(1, 50)]

    yield _es_event("messageStart", {"role": "assistant", "p": pad()})
    for i, call in enumerate(calls):
        start = {"toolUse": {"name": call.name, "toolUseId": call.id}}
        yield _es_event("contentBlockStart", {"contentBlockIndex": i, "start": start, "p": pad()})
        for delta in call.deltas:
            yield _es_event(
                "contentBlockDelta",
                {"contentBlockIndex": i, "delta": {"toolUse": {"input": delta}}, "p": pad()},
            )
        yield _es_event("contentBlockStop", {"contentBlockIndex": i, "p": pad()})
    yield _es_event("messageStop", {"stopReason": "tool_use", "p": pad()})
    output = sum(len(c.text) for c in calls) // 4
    usage = {"inputTokens": 812, "outputTokens": output, "totalTokens": 812 + output}
    yield _es_event("metadata", {"metrics": {"latencyMs": 4210}, "usage": usage, "p": pad()})


ENCODERS: dict[str, Callable[[StreamSpec, list[Call]], Iterator[str] | Iterator[bytes]]] = {
    "openai-chat": _openai_chat,
    "anthropic-messages": _anthropic_messages,
    "openai-responses": _openai_responses,
    # Gemini's public API sends each functionCall whole (its arguments never arrive as deltas);
    # Vertex AI with streamFunctionCallArguments streams them as JSON-path typed fragments
    # (QUIRKS D8): that is the stream generated here, the only Gemini shape with deltas.
    "gemini": _gemini,
    "bedrock-converse": _bedrock,
}
CONTENT_TYPES = {"bedrock-converse": "application/vnd.amazon.eventstream"}
"""The response content type per API (``text/event-stream; charset=utf-8`` otherwise)."""


@dataclass(frozen=True)
class Rendered:
    """A stream ready to serve."""

    body: bytes  # the SSE body (binary event-stream messages for bedrock-converse)
    events: int  # SSE events (messages) in it (the "per event" denominator)
    writes: list[bytes]  # the body cut into 256-512 byte writes


def render(spec: StreamSpec) -> Rendered:
    """The HTTP body of ``spec``, and its cut into writes."""
    events = list(ENCODERS[spec.api](spec, expected_calls(spec)))
    body = b"".join(e if isinstance(e, bytes) else e.encode("utf-8") for e in events)
    return Rendered(body, len(events), cut(body, spec.seed))


def cut(body: bytes, seed: int) -> list[bytes]:
    """Cut ``body`` at arbitrary offsets (mid-event, mid-UTF-8 sequence) into 256-512 byte
    writes, deterministically per seed."""
    rng = random.Random(f"cut:{seed}:{len(body)}")
    writes, offset = [], 0
    while offset < len(body):
        size = rng.randint(MIN_WRITE, MAX_WRITE)
        writes.append(body[offset : offset + size])
        offset += size
    return writes


def chunked(writes: list[bytes]) -> bytes:
    """``writes`` framed as HTTP/1.1 chunked transfer encoding, one chunk per write."""
    framed = [b"%x\r\n%b\r\n" % (len(w), w) for w in writes]
    framed.append(b"0\r\n\r\n")
    return b"".join(framed)


# -- the slow streams of the concurrency scenario ---------------------------------------------


_SLOW_HEAD = (
    f'{{"id":"chatcmpl-slow","object":"chat.completion.chunk","created":{CREATED},'
    '"model":"gpt-4.1-mini","choices":[{"index":0,"delta":'
)


def slow_first() -> bytes:
    """The first event of a slow stream (OpenAI Chat, plain text): the assistant role."""
    return _sse(_SLOW_HEAD + '{"role":"assistant","content":""},"finish_reason":null}]}').encode()


def slow_event(i: int) -> bytes:
    """The ``i``-th small text event of a slow stream (about 150 bytes): ``"w<i> "``."""
    return _sse(_SLOW_HEAD + f'{{"content":"w{i} "}},"finish_reason":null}}]}}').encode()


def slow_last() -> bytes:
    """The end of a slow stream: the finish reason, then ``[DONE]``."""
    return (_sse(_SLOW_HEAD + '{},"finish_reason":"stop"}]}') + _sse("[DONE]")).encode()


def slow_text(count: int) -> str:
    """The text a slow stream of ``count`` text events carries."""
    return "".join(f"w{i} " for i in range(count))
