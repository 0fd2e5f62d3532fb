"""Load the recorded provider responses under ``tests/fixtures/`` as HTTP exchanges.

The recordings come from other projects' test suites (see ``tests/fixtures/PROVENANCE.md``) and
keep their upstream bytes, so they arrive in eight container formats (formats F1-F8, described in
``tests/fixtures/PROVENANCE.md``).  This module turns any of them into a list of
:class:`Exchange` values holding what the provider's HTTP server sent: status, headers and the
exact body bytes.

It also holds the test helpers that the replay tests compare llmkit against:

* :func:`rechunk` splits a body at random byte offsets, the way a network would, including
  inside multi-byte UTF-8 characters (:func:`splits_inside_utf8` counts those cuts);
* :func:`sse_events` is a small SSE parser of its own (WHATWG rules, CR/LF/CRLF only);
* :func:`expected_openai_chat` / :func:`expected_openai_chat_json` compute what an
  OpenAI-style Chat Completions response holds, so that llmkit is checked against an
  independent reading; the quirks of real servers are handled explicitly, by QUIRKS id.

Nothing here imports llmkit: a bug there must not be able to hide itself in the expectation.
"""

from __future__ import annotations

import bisect
import gzip
import json
import random
import re
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).parent.parent / "fixtures"

# Wire APIs whose SSE streams end with ``data: [DONE]`` (rebuilt for format F1 captures).
_DONE_WIRES = ("openai-chat", "openai-compatible")
# Headers that describe the recorded transfer, not the content: the replaying server sets its own.
_TRANSFER_HEADERS = frozenset({"content-length", "transfer-encoding"})


class CorpusSkip(Exception):
    """A recording that cannot be decoded in this environment (e.g. brotli body, no brotli)."""


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP response (and the request that produced it, when recorded).

    Attributes:
        status: HTTP status code (200 where the format does not record one).
        headers: Response headers, names lower-cased, list values joined with ``", "``.
            ``Content-Length``/``Transfer-Encoding`` are dropped, and ``Content-Encoding`` is
            dropped once the body has been decompressed.
        body: The (decompressed) response body bytes.
        request: ``{"method", "url", "headers", "body"}`` where recorded (``body`` parsed as
            JSON when it is JSON), else ``None``.
        source: ``"<path relative to fixtures>#<n>"``, for test ids and messages.
    """

    status: int
    headers: dict[str, str]
    body: bytes
    request: dict[str, Any] | None
    source: str

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower-cased (``""`` when absent)."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def is_sse(self) -> bool:
        return self.content_type == "text/event-stream"

    @property
    def is_json(self) -> bool:
        return self.content_type == "application/json"


# --------------------------------------------------------------------------- file discovery


def corpus_files(*wires: str) -> list[Path]:
    """Every recording under ``fixtures/<wire>/`` (recursively), sorted, Markdown excluded."""
    found: list[Path] = []
    for wire in wires:
        found.extend(p for p in (FIXTURES / wire).rglob("*") if p.is_file() and p.suffix != ".md")
    return sorted(found)


def fixture_id(path: Path) -> str:
    """A readable test id for a fixture: its path relative to ``fixtures/``."""
    try:
        return path.resolve().relative_to(FIXTURES.resolve()).as_posix()
    except ValueError:
        return path.name


def wire_of(path: Path) -> str:
    """The wire API of a recording, from the folder it sits in.

    Accepts both this repository's layout (``openai-compatible/<server>/…``) and the shared
    corpus layout (``openai-compatible-<server>/…``).
    """
    for part in reversed(path.parent.parts):
        for wire in (
            "openai-chat",
            "openai-compatible",
            "openai-responses",
            "anthropic-messages",
            "gemini",
            "bedrock-converse",
        ):
            if part == wire or part.startswith(wire + "-"):
                return wire
    raise ValueError(f"cannot tell the wire API of {path}: not under a known wire folder")


def detect_format(path: Path) -> str:
    """The container format code (``"F1"`` … ``"F8"``) of a recording, from its file name.

    The rules are the globs of the format table in tests/fixtures/PROVENANCE.md.  Only the name
    is used (never ``Path.glob``/``fnmatch`` on it) because some names contain ``[``, ``]`` or
    spaces.
    """
    name = path.name
    source, sep, _ = name.partition("__")
    if not sep:
        raise ValueError(f"{name!r}: no container format (expected '<source>__<original name>')")
    if source == "vercel-ai":
        if name.endswith(".chunks.txt"):
            return "F1"
        if name.endswith(".json"):
            return "F2"
        if name.endswith(".sse"):
            return "F3"
    elif source == "openai-python" and name.endswith(".bin"):
        return "F3"
    elif source == "anthropic-sdk-python":
        if name.endswith(".txt"):
            return "F3"
        if name.endswith(".json"):
            return "F7"
    elif source.startswith("simonw-llm") or source in ("magentic", "mirascope"):
        if name.endswith(".yaml"):
            return "F4"
    elif source == "pydantic-ai" and name.endswith(".yaml"):
        return "F5"
    elif source == "charmbracelet-fantasy" and name.endswith(".yaml"):
        return "F6"
    elif source == "llama-stack" and name.endswith(".json"):
        return "F8"
    raise ValueError(f"{name!r}: no container format matches (see tests/fixtures/PROVENANCE.md)")


# --------------------------------------------------------------------------- loading


def load_exchanges(path: Path, wire: str | None = None) -> list[Exchange]:
    """Decode one recording into its exchanges, in recorded order.

    Args:
        path: A recording file (any of F1-F8).
        wire: The wire API, needed only to rebuild F1 framing; defaults to :func:`wire_of`.

    Raises:
        CorpusSkip: the body is brotli-compressed and ``brotli`` is not installed.
        ValueError: the file is not a recognised recording.
    """
    fmt = detect_format(path)
    source = fixture_id(path)
    raw = path.read_bytes()
    if fmt == "F1":
        body, content_type = _rebuild_f1(raw, wire or wire_of(path))
        return [Exchange(200, {"content-type": content_type}, body, None, f"{source}#0")]
    if fmt == "F2":
        # Pretty-printed by the recorder; content exact, whitespace not (format F2).
        return [Exchange(200, {"content-type": "application/json"}, raw, None, f"{source}#0")]
    if fmt == "F3":
        return [Exchange(200, {"content-type": "text/event-stream"}, raw, None, f"{source}#0")]
    if fmt in ("F4", "F5"):
        return _load_vcrpy(raw, source)
    if fmt == "F6":
        return _load_go_vcr(raw, source)
    if fmt == "F7":
        return _load_inline_snapshot(raw, source)
    return _load_llama_stack(raw, source)


def _safe_yaml(raw: bytes) -> Any:
    # Safe loaders only (these are other projects' files); the C loader when PyYAML has libyaml.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(raw, Loader=loader)


def _rebuild_f1(raw: bytes, wire: str) -> tuple[bytes, str]:
    """Re-frame vercel/ai raw chunks (one JSON document per line) as the wire sent them."""
    lines = [line for line in raw.decode("utf-8").split("\n") if line.strip()]
    if wire == "bedrock-converse":
        frames = []
        for line in lines:
            ((event_type, payload),) = json.loads(line).items()
            frames.append(_eventstream_frame(event_type, json.dumps(payload).encode()))
        return b"".join(frames), "application/vnd.amazon.eventstream"
    out: list[str] = []
    for line in lines:
        if wire in ("openai-responses", "anthropic-messages"):
            out.append(f"event: {json.loads(line)['type']}\ndata: {line}\n\n")
        elif wire == "gemini":
            out.append(f"data: {line}\r\n\r\n")  # Gemini separates events with CRLF
        else:
            out.append(f"data: {line}\n\n")
    if wire in _DONE_WIRES:
        # The recorder drops the terminator; OpenAI-style servers send it (format F1).
        out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8"), "text/event-stream"


def _eventstream_frame(event_type: str, payload: bytes) -> bytes:
    """One AWS event-stream message: prelude (lengths and their CRC), headers, payload, CRC."""
    headers = b""
    for name, value in (
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ):
        n, v = name.encode(), value.encode()
        headers += struct.pack(">B", len(n)) + n + b"\x07" + struct.pack(">H", len(v)) + v
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", zlib.crc32(message))


def _flatten_headers(headers: dict[str, Any] | None) -> dict[str, str]:
    flat: dict[str, str] = {}
    for name, value in (headers or {}).items():
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        key = name.lower()
        flat[key] = f"{flat[key]}, {text}" if key in flat else text
    return flat


def _response_headers(headers: dict[str, Any] | None) -> dict[str, str]:
    return {k: v for k, v in _flatten_headers(headers).items() if k not in _TRANSFER_HEADERS}


def _decode_content(body: bytes, headers: dict[str, str], source: str) -> bytes:
    """Undo ``Content-Encoding`` (vcrpy keeps compressed bodies, format F4) and drop it."""
    encodings = [e.strip().lower() for e in headers.pop("content-encoding", "").split(",")]
    # Encodings are listed in the order they were applied: undo them last-first.
    for encoding in reversed([e for e in encodings if e and e != "identity"]):
        if encoding in ("gzip", "x-gzip"):
            body = gzip.decompress(body)
        elif encoding == "deflate":
            try:  # RFC 9110 "deflate" is zlib-wrapped; some servers send raw deflate
                body = zlib.decompress(body)
            except zlib.error:
                body = zlib.decompress(body, -zlib.MAX_WBITS)
        elif encoding == "br":
            try:
                import brotli  # type: ignore[import-not-found]
            except ImportError:
                raise CorpusSkip(
                    f"{source}: body is brotli-compressed and the 'brotli' package is not installed"
                ) from None
            body = brotli.decompress(body)
        else:
            raise ValueError(f"{source}: unknown Content-Encoding {encoding!r}")
    return body


def _parse_request_body(body: Any) -> Any:
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body


def _load_vcrpy(raw: bytes, source: str) -> list[Exchange]:
    """F4 (plain vcrpy) and F5 (pydantic-ai's ``parsed_body`` serializer)."""
    exchanges = []
    for n, interaction in enumerate(_safe_yaml(raw)["interactions"]):
        req, resp = interaction["request"], interaction["response"]
        headers = _response_headers(resp.get("headers"))
        if "parsed_body" in resp:
            # pydantic-ai stores JSON bodies parsed and replays json.dumps() of them (format F5).
            body = json.dumps(resp["parsed_body"]).encode("utf-8")
            headers.pop("content-encoding", None)  # the serializer already decoded the body
        else:
            string = resp["body"]["string"]
            body = string.encode("utf-8") if isinstance(string, str) else bytes(string)
            body = _decode_content(body, headers, f"{source}#{n}")
        # pydantic-ai may store the request parsed too (format F5).
        request_body = req.get("parsed_body", _parse_request_body(req.get("body")))
        request = {
            "method": req.get("method"),
            "url": req.get("uri"),
            "headers": _flatten_headers(req.get("headers")),
            "body": request_body,
        }
        exchanges.append(
            Exchange(int(resp["status"]["code"]), headers, body, request, f"{source}#{n}")
        )
    return exchanges


def _load_go_vcr(raw: bytes, source: str) -> list[Exchange]:
    """F6: go-vcr v2; bodies are stored already decompressed."""
    exchanges = []
    for n, interaction in enumerate(_safe_yaml(raw)["interactions"]):
        req, resp = interaction["request"], interaction["response"]
        headers = _response_headers(resp.get("headers"))
        body = resp.get("body") or ""
        body = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        # go-vcr stores the body already decoded (format F6): an encoding header would lie.
        headers.pop("content-encoding", None)
        request = {
            "method": req.get("method"),
            "url": req.get("url"),
            "headers": _flatten_headers(req.get("headers")),
            "body": _parse_request_body(req.get("body")),
        }
        exchanges.append(Exchange(int(resp["code"]), headers, body, request, f"{source}#{n}"))
    return exchanges


def _load_inline_snapshot(raw: bytes, source: str) -> list[Exchange]:
    """F7: anthropic-sdk-python inline-snapshot JSON array."""
    exchanges = []
    for n, item in enumerate(json.loads(raw)):
        resp = item["response"]
        headers = _response_headers(resp.get("headers"))
        body = resp["body"]
        data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode()
        headers.pop("content-encoding", None)  # the snapshot holds decoded text / parsed JSON
        exchanges.append(
            Exchange(int(resp["status_code"]), headers, data, item.get("request"), f"{source}#{n}")
        )
    return exchanges


def _load_llama_stack(raw: bytes, source: str) -> list[Exchange]:
    """F8: llama-stack recordings of OpenAI-SDK objects (chunk ids/created normalised)."""
    doc = json.loads(raw)
    req, resp = doc["request"], doc["response"]
    # The recorded url doubles "/v1"; the real path is "endpoint" (format F8).
    request = {
        "method": req.get("method"),
        "url": req.get("url"),
        "endpoint": req.get("endpoint"),
        "headers": req.get("headers") or {},
        "body": req.get("body"),
    }
    if resp.get("is_streaming"):
        sse = "".join(f"data: {json.dumps(item['__data__'])}\n\n" for item in resp["body"])
        body = (sse + "data: [DONE]\n\n").encode("utf-8")
        content_type = "text/event-stream"
    else:
        body = json.dumps(resp["body"]["__data__"]).encode("utf-8")
        content_type = "application/json"
    return [Exchange(200, {"content-type": content_type}, body, request, f"{source}#0")]


# --------------------------------------------------------------------------- re-chunking


_MULTIBYTE_LEAD = re.compile(rb"[\xc2-\xf4]")  # first byte of a 2-, 3- or 4-byte character


def rechunk(body: bytes, rng: random.Random) -> list[bytes]:
    """Split ``body`` at random byte offsets, like a network delivering it in pieces.

    Mostly pieces of 1..64 bytes, sometimes a run of 1-byte pieces, sometimes a large piece
    (up to 4 KiB), and sometimes a cut placed inside the next multi-byte UTF-8 character
    (however far ahead), so that bodies with even a few non-ASCII characters get characters
    split across chunks (QUIRKS A1) rather than only by luck.  The pieces join back to ``body``.
    """
    leads = [m.start() for m in _MULTIBYTE_LEAD.finditer(body)]
    chunks: list[bytes] = []
    pos = 0
    while pos < len(body):
        roll = rng.random()
        if roll < 0.1:  # a run of single bytes
            run = min(rng.randint(2, 16), len(body) - pos)
            chunks.extend(body[i : i + 1] for i in range(pos, pos + run))
            pos += run
            continue
        nxt = bisect.bisect_left(leads, pos)
        if roll < 0.25 and nxt < len(leads):
            lead = leads[nxt]
            width = 2 if body[lead] < 0xE0 else 3 if body[lead] < 0xF0 else 4
            size = lead + rng.randint(1, width - 1) - pos  # cut after the lead byte
        elif roll < 0.33:
            size = rng.randint(65, 4096)
        else:
            size = rng.randint(1, 64)
        chunks.append(body[pos : pos + size])
        pos += size
    return chunks


def splits_inside_utf8(body: bytes, chunks: list[bytes]) -> int:
    """How many chunk boundaries fall inside a multi-byte UTF-8 character."""
    count, pos = 0, 0
    for chunk in chunks[:-1]:
        pos += len(chunk)
        if pos < len(body) and (body[pos] & 0xC0) == 0x80:  # a continuation byte
            count += 1
    return count


# --------------------------------------------------------------------------- SSE, independently


def sse_events(body: bytes, *, flush_at_eof: bool = False) -> list[tuple[str, str]]:
    """Parse an SSE body into ``(event type, data)`` pairs, per the WHATWG algorithm.

    Lines end at CRLF, CR or LF only (QUIRKS A2: never ``str.splitlines``, which also splits
    on U+2028 and friends).  Comment lines (``:``) are ignored (QUIRKS A3).  One optional space
    after the colon is removed; the rest of the value, trailing spaces included, is kept.
    An event is dispatched at a blank line.  At EOF an unfinished line is always dropped; an
    event whose lines are complete but which lacks the final blank line is dropped too, as the
    standard says, unless ``flush_at_eof`` is true.
    """
    text = body.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    # The last piece is whatever follows the last line ending: an unfinished line (or "").
    *lines, _unfinished = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    events: list[tuple[str, str]] = []
    event_type, data_lines = "", []
    for line in lines:
        if line == "":
            if data_lines:
                events.append((event_type or "message", "\n".join(data_lines)))
            event_type, data_lines = "", []
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data_lines.append(value)
        elif name == "event":
            event_type = value
    if flush_at_eof and data_lines:
        events.append((event_type or "message", "\n".join(data_lines)))
    return events


# --------------------------------------------------------------------------- expectations


@dataclass
class ExpectedToolCall:
    """One tool call as the recording means it.

    Attributes:
        id: The first non-empty id the provider sent for this call (``""`` if none).
        name: The first non-empty function name.
        arguments: The argument text: string fragments joined, or ``json.dumps`` of an object.
        arguments_were_object: The provider sent the arguments as a JSON object (QUIRKS D2), so
            ``arguments`` is our serialisation, not text from the wire.
    """

    id: str
    name: str
    arguments: str
    arguments_were_object: bool = False

    @property
    def parsed_arguments(self) -> Any:
        """``json.loads`` of the arguments; empty text means "no arguments" (QUIRKS D3)."""
        return json.loads(self.arguments) if self.arguments.strip() else {}


@dataclass
class Expected:
    """What an OpenAI-style Chat Completions response holds, for choice 0.

    Attributes:
        text: Concatenated ``delta.content`` text (``message.content`` when not streamed).
        reasoning: Concatenated ``reasoning_content`` / ``reasoning`` text (and Mistral
            magistral thinking parts).
        has_reasoning_fields: At least one non-empty reasoning field was sent.
        refusal: Concatenated ``refusal`` text (kept apart from ``text``).
        text_and_refusal: Content and refusal text together, in arrival order.
        tool_calls: Calls in the order they started.
        finish_reason: The first non-null ``finish_reason``.
        usage: The last non-null ``usage`` object.
        response_id: The first non-empty chunk ``id``.
        done: ``data: [DONE]`` was seen.
        done_unterminated: ``[DONE]`` (or the last event) was sent without the blank line that
            ends an SSE event, i.e. the body ends ``data: [DONE]\\n``.
        error: An in-stream error payload (``{"error": …}`` data or ``event: error``).
        quirks: QUIRKS ids of the misbehaviours seen, e.g. ``{"C1", "B1"}``.
    """

    text: str = ""
    reasoning: str = ""
    has_reasoning_fields: bool = False
    refusal: str = ""
    text_and_refusal: str = ""
    tool_calls: list[ExpectedToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    response_id: str = ""
    done: bool = False
    done_unterminated: bool = False
    error: dict[str, Any] | None = None
    quirks: set[str] = field(default_factory=set)

    @property
    def provider_ids_usable(self) -> bool:
        """Every call has a non-empty id and no two calls share one (B2, B5 otherwise)."""
        ids = [c.id for c in self.tool_calls]
        return all(ids) and len(set(ids)) == len(ids)

    @property
    def input_tokens(self) -> int | None:
        """``prompt_tokens``: OpenAI-style servers count cached tokens inside it."""
        return (self.usage or {}).get("prompt_tokens")

    @property
    def reasoning_tokens(self) -> int | None:
        return ((self.usage or {}).get("completion_tokens_details") or {}).get("reasoning_tokens")

    @property
    def output_tokens(self) -> int | None:
        """Generated tokens, reasoning included (llmkit's ``Usage.output`` convention).

        OpenAI's ``completion_tokens`` already includes reasoning tokens.  xAI does not: its
        ``total_tokens`` is ``prompt + completion + reasoning``.  Where the total shows that,
        the reasoning tokens are added, because docs/design.md (Usage) says ``output`` includes
        ``reasoning`` for every provider.
        """
        usage = self.usage or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        reasoning, total = self.reasoning_tokens, usage.get("total_tokens")
        if None in (prompt, completion) or not reasoning:
            return completion
        if total == prompt + completion + reasoning:
            return completion + reasoning
        return completion


class _Call:
    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.fragments: list[str] = []
        self.object_args = False


def expected_openai_chat(body: bytes) -> Expected:
    """Read an OpenAI-style Chat Completions SSE body without llmkit.

    The straightforward reading (group tool-call fragments by ``index``; ``id``/``name`` are
    the first non-empty value; argument strings are concatenated) is extended only where a real
    server misbehaves, each case named by its QUIRKS id and recorded in ``Expected.quirks``.
    """
    exp = Expected()
    calls: list[_Call] = []
    slot_of_index: dict[int, _Call] = {}
    events = sse_events(body, flush_at_eof=True)
    # The anthropic-gateway capture ends "data: [DONE]\n" with no blank line after it.  The
    # server did send its terminator; only the final newline is missing, so it still counts.
    exp.done_unterminated = len(events) != len(sse_events(body))
    for event_type, data in events:
        if data.strip() == "[DONE]":
            exp.done = True
            continue
        chunk = json.loads(data)
        if event_type == "error" or "error" in chunk:
            # Groq sends "event: error" mid-stream (tool_use_failed, QUIRKS D6); OpenAI an
            # {"error": …} data payload (A5).  The first one is what ended the response.
            if exp.error is None:
                exp.error = chunk.get("error") or chunk
            continue
        if not exp.response_id and chunk.get("id"):
            exp.response_id = chunk["id"]  # chunk ids may vary (A9): keep the first non-empty
        if chunk.get("usage") is not None:
            exp.usage = chunk["usage"]  # usually a final chunk with "choices": [] (A8, J1)
        # "choices" may be [] (usage chunk, Azure preamble, A8) or null (Groq, OpenRouter, A7).
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # n>1 streams interleave choices; the message is choice 0
            if exp.finish_reason is None and choice.get("finish_reason") is not None:
                exp.finish_reason = choice["finish_reason"]  # the first one wins (E2)
            delta = choice.get("delta") or {}
            _read_content(delta.get("content"), exp)
            _read_reasoning(delta, exp)
            if isinstance(delta.get("refusal"), str):
                exp.refusal += delta["refusal"]
                exp.text_and_refusal += delta["refusal"]
            for entry in delta.get("tool_calls") or []:  # every entry, not just [0] (C4)
                _read_tool_call_delta(entry, calls, slot_of_index, exp)
    exp.tool_calls = [
        ExpectedToolCall(c.id, c.name, "".join(c.fragments), c.object_args) for c in calls
    ]
    if exp.finish_reason == "error" and exp.error is None:
        exp.error = {"finish_reason": "error"}  # OpenRouter's in-band failure (A7, E5)
    return exp


def expected_openai_chat_json(body: bytes) -> Expected:
    """Read a non-streamed Chat Completions body (``choices[0].message``) without llmkit."""
    doc = json.loads(body)
    exp = Expected(response_id=doc.get("id") or "", usage=doc.get("usage"), done=True)
    if "error" in doc:
        exp.error = doc["error"]
        return exp
    choice = next((c for c in doc.get("choices") or [] if c.get("index", 0) == 0), {})
    exp.finish_reason = choice.get("finish_reason")
    message = choice.get("message") or {}
    _read_content(message.get("content"), exp)
    _read_reasoning(message, exp)
    if isinstance(message.get("refusal"), str):
        exp.refusal = message["refusal"]
        exp.text_and_refusal += message["refusal"]
    for entry in message.get("tool_calls") or []:
        function = entry.get("function") or {}
        arguments = function.get("arguments")
        as_object = isinstance(arguments, (dict, list))  # QUIRKS D2
        exp.tool_calls.append(
            ExpectedToolCall(
                entry.get("id") or "",
                function.get("name") or "",
                json.dumps(arguments) if as_object else (arguments or ""),
                as_object,
            )
        )
    return exp


def _read_content(content: Any, exp: Expected) -> None:
    if isinstance(content, str):
        exp.text += content
        exp.text_and_refusal += content
    elif isinstance(content, list):
        # Mistral magistral sends content as an array of parts: {"type": "text", "text"} and
        # {"type": "thinking", "thinking": [{"type": "text", "text"}]}.
        for part in content:
            if part.get("type") == "text":
                exp.text += part.get("text") or ""
                exp.text_and_refusal += part.get("text") or ""
            elif part.get("type") == "thinking":
                for inner in part.get("thinking") or []:
                    if inner.get("text"):
                        exp.reasoning += inner["text"]
                        exp.has_reasoning_fields = True


def _read_reasoning(delta: dict[str, Any], exp: Expected) -> None:
    # DeepSeek/xAI/Z.ai/llama.cpp say "reasoning_content", Groq/OpenRouter/Ollama "reasoning"
    # (QUIRKS F8).  vLLM sends both with the same text on every delta: take one, not both.
    for key in ("reasoning_content", "reasoning"):
        value = delta.get(key)
        if isinstance(value, str) and value:
            exp.reasoning += value
            exp.has_reasoning_fields = True
            return


def _read_tool_call_delta(
    entry: dict[str, Any], calls: list[_Call], slot_of_index: dict[int, _Call], exp: Expected
) -> None:
    function = entry.get("function") or {}
    call_id = entry.get("id") or ""  # Alibaba sends "" on continuations, others null (B2)
    name = function.get("name") or ""  # "" on continuation deltas (mistral-incremental)
    index = entry.get("index")
    call: _Call | None
    if index is None:
        # Mistral and old Ollama send tool calls without "index" (C1): each entry bringing a
        # new id is a call of its own; an id-less entry can only continue the call before it.
        exp.quirks.add("C1")
        if not calls or (call_id and call_id != calls[-1].id):
            calls.append(_Call())
        call = calls[-1]
    else:
        call = slot_of_index.get(index)
        if call is not None and call_id and call.id and call_id != call.id:
            # A different non-empty id at an occupied index is a new call, not a rename (C2).
            exp.quirks.add("C2")
            call = None
        if call is None:
            call = _Call()
            calls.append(call)
            slot_of_index[index] = call
    if call_id and call.id == call_id and call.fragments:
        exp.quirks.add("B1")  # the full id repeated on a later delta of the same call
    if call_id and not call.id:
        call.id = call_id
    if name and name == call.name and call.fragments:
        exp.quirks.add("D4")  # the name repeated on a later delta: set once, never appended
    if name and not call.name:
        call.name = name
    arguments = function.get("arguments")
    if isinstance(arguments, (dict, list)):
        # llama.cpp / Ollama send arguments as a JSON object (D2); as text that is json.dumps.
        exp.quirks.add("D2")
        call.object_args = True
        arguments = json.dumps(arguments)
    call.fragments.append(arguments if isinstance(arguments, str) else "")
