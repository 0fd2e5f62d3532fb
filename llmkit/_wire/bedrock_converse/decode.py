"""Amazon Bedrock Converse (``api="bedrock-converse"``): decoding ``ConverseStream`` event-stream
messages and whole ``Converse`` bodies into neutral deltas.

Two pure halves, no I/O and no JSON repair: request building lives in
:mod:`llmkit._wire.bedrock_converse.request`; the framing (binary event-stream messages, CRCs
checked) in :mod:`llmkit._eventstream`. Each message's ``:event-type`` names the event and its
payload is the event object (with Bedrock's random-length ``"p"`` padding field, ignored):

- ``messageStart`` (``role``); ``contentBlockStart`` only for tool use (``start.toolUse``
  with ``toolUseId`` and ``name``): text and reasoning blocks open with their first
  ``contentBlockDelta``, whose ``delta`` is ``text``, ``toolUse.input`` (argument text
  fragments), or ``reasoningContent`` with ``text``, ``signature`` or ``redactedContent``
  (base64); ``contentBlockStop`` ends the block at ``contentBlockIndex``.
- Signatures and redacted reasoning are kept on the ThinkingPart (``signature``,
  ``replay["redacted"]``) for replay to the same model (QUIRKS F1).
- Server-side tools (Nova's code interpreter: ``toolUse.type == "server_tool_use"`` and the
  ``toolResult`` block that follows) are not calls for the caller to run: each block is kept,
  in order, as an opaque ThinkingPart whose ``replay["bedrock"]`` is the block as a Converse
  content block (its streamed input reassembled), so history goes back verbatim.
- ``messageStop.stopReason`` is mapped by :data:`STOP_REASONS`; ``malformed_model_output`` and
  ``malformed_tool_use`` end the turn with ``ErrorEvent`` and a diagnostic
  (``_wire/turn_failures``).
  ``additionalModelResponseFields``, and ``metadata``'s ``metrics``, guardrail ``trace``,
  ``performanceConfig`` and ``serviceTier``, are kept verbatim on ``message.provider_data``.
- ``metadata.usage``: ``inputTokens`` counts only the uncached input, so llmkit's ``input`` is
  ``inputTokens + cacheReadInputTokens + cacheWriteInputTokens``. ``cacheDetails`` splits the
  cache writes by TTL: the ``1h`` share is priced at the model's 1-hour write price
  (``cost.cache_write_long``; the cost is ``None`` when the model has none, never the 5-minute
  price). The usage object is kept verbatim on ``provider_data["usage"]`` when it holds more
  than the four counts (``totalTokens``, ``cacheDetails``).
- The stream is complete once both ``messageStop`` and ``metadata`` arrived (Bedrock sends
  ``metadata`` last; either order is accepted); EOF before that is ``stream_truncated``.
- An exception message (``:message-type: exception``: ``throttlingException``,
  ``modelStreamErrorException``, ``validationException``, ``internalServerException``,
  ``serviceUnavailableException``) or an ``error`` message ends the stream with the most
  specific typed error (:mod:`llmkit._classify`), carrying the partial message.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, TypeGuard

from ..._classify import error_from_body
from ..._errors import APIError
from ..._eventstream import EventStreamMessage
from ..._json.scanner import loads
from ..._messages import Citation, StopReason, Usage
from ..._models import Model
from .. import typed_reads as values
from ..anthropic_messages.decode import ENDINGS
from ..contract import DeltaSink, Frame
from ..splice import SplicedDecoder
from ..turn_failures import fail_turn

__all__ = ["STOP_REASONS", "Decoder", "decode_response"]

STOP_REASONS: dict[str, StopReason] = {
    **ENDINGS,  # the names Converse took from Anthropic's Messages API
    "guardrail_intervened": "content_filter",  # a Bedrock guardrail blocked or masked it
    "content_filtered": "content_filter",  # the model provider's own filter
}
"""Bedrock ``stopReason`` → llmkit stop reason; the raw value is always kept, an unknown one is
reported (``stop_reason_unknown``)."""

# modelStreamErrorException carries the model's own HTTP status: the more specific error.
_ORIGINAL_STATUS = {429: "ThrottlingException", 503: "ServiceUnavailableException"}


class _Block:
    """A block the decoder must keep state for: a tool call, or an opaque server block."""

    __slots__ = ("fragments", "kind", "start")

    def __init__(self, kind: str, start: dict[str, Any] | None = None) -> None:
        self.kind = kind  # "text" | "thinking" | "tool" | "server"
        self.start = start  # a server block's Converse content block, as started
        self.fragments: list[Any] = []  # a server block's input text / result items


class Decoder(SplicedDecoder):
    """Streamed Converse: event-stream messages → neutral deltas."""

    __slots__ = ("_blocks", "_model", "_redacted", "_seen")

    IGNORED = ("p",)  # Bedrock's random-length padding, never read

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._blocks: dict[int, _Block] = {}
        self._redacted: dict[int, list[bytes]] = {}  # redactedContent pieces per block
        self._seen: set[str] = set()  # "messageStop", "metadata" (both end the stream)

    def _full_path(self, frame: Frame) -> dict[str, Any] | None:
        """One event-stream message; its payload when it is a ``contentBlockDelta`` event."""
        kind = _kind(frame)
        if kind in ("exception", "error"):
            self._exception(frame, kind)
            return None
        try:
            payload = loads(frame.data)
        except ValueError:
            payload = None
        if kind != "event" or not isinstance(payload, dict):
            self._sink.malformed(
                "An event-stream message that is not a well-formed Converse event was skipped",
                excerpt=frame.data[:80],
                event=frame.event,
            )
            return None
        self.event(frame.event, payload, frame.data)
        return payload if frame.event == "contentBlockDelta" else None

    def _argument_delta(self, payload: Any) -> tuple[int, str] | None:
        """``(index, input)`` when the full path reads ``payload`` (a ``contentBlockDelta``) as
        nothing but input text for the started tool block at ``index`` (the splice's check)."""
        if payload.__class__ is not dict:
            return None
        index, delta = payload.get("contentBlockIndex"), payload.get("delta")
        if not _index(index) or delta.__class__ is not dict or delta.get("text") is not None:
            return None
        tool = delta.get("toolUse")
        block = self._blocks.get(index)
        if tool.__class__ is not dict or block is None or block.kind != "tool":
            return None
        fragment = tool.get("input")
        return (index, fragment) if fragment.__class__ is str else None

    def event(self, name: str, payload: dict[str, Any], seed: str) -> None:
        """One decoded event; ``seed`` (its text) seeds synthesised ids."""
        sink = self._sink
        if name == "contentBlockDelta":  # the hot path first
            self._delta(payload)
        elif name == "contentBlockStart":
            index, start = payload.get("contentBlockIndex"), payload.get("start")
            if _index(index) and isinstance(start, dict):
                self._start(index, start)
            else:
                self._malformed(name, seed)
        elif name == "contentBlockStop":
            index = payload.get("contentBlockIndex")
            if _index(index):
                self._stop(index)
            else:
                self._malformed(name, seed)
        elif name == "messageStart":
            sink.meta(None, seed=seed)  # Bedrock streams no response id
        elif name == "messageStop":
            self._message_stop(payload)
        elif name == "metadata":
            self._metadata(payload)
        else:
            sink.unknown(f"event {name}", f"An unknown event type {name!r} was ignored", type=name)
        if self._seen >= {"messageStop", "metadata"} and not sink.ended:
            sink.complete()

    def eof(self) -> None:
        """End of the bytes: keep what server blocks received (the pipeline reports the
        truncation unless the stream had completed)."""
        self._flush_server_blocks()

    # -- content blocks --------------------------------------------------------------------

    def _start(self, index: int, start: dict[str, Any]) -> None:
        sink = self._sink
        tool = start.get("toolUse")
        if isinstance(tool, dict):
            if tool.get("type") == "server_tool_use":
                block = {"toolUse": {k: v for k, v in tool.items() if k != "input"}}
                self._open_server(index, block)
                return
            self._blocks[index] = _Block("tool")
            call_id = values.text(sink, tool.get("toolUseId"), "toolUse.toolUseId")
            name = values.text(sink, tool.get("name"), "toolUse.name")
            sink.tool_call(index, call_id or None, name or None)
            return
        result = start.get("toolResult")
        if isinstance(result, dict):  # a server tool's result (Nova's code interpreter)
            self._open_server(index, {"toolResult": dict(result)})
            return
        kind = next(iter(start), "?")
        sink.unknown(
            f"block {kind}", f"A content block of type {kind!r} was ignored", type=str(kind)
        )

    def _open_server(self, index: int, block: dict[str, Any]) -> None:
        self._blocks[index] = _Block("server", block)
        self._sink.thinking(key=index, replay={"bedrock": block})  # opened now: keeps order

    def _delta(self, payload: dict[str, Any]) -> None:
        sink = self._sink
        index, delta = payload.get("contentBlockIndex"), payload.get("delta")
        if not _index(index) or not isinstance(delta, dict):
            self._malformed("contentBlockDelta", json.dumps(payload)[:80])
            return
        block = self._blocks.get(index)
        text = delta.get("text")
        if text is not None:
            if isinstance(text, str):
                if block is None:
                    block = self._blocks[index] = _Block("text")
                sink.text(text, key=index)  # "" opens nothing (an empty first delta)
            else:
                values.wrong_type(sink, "delta.text", text, "a string")
        elif "toolUse" in delta:
            tool = values.obj(sink, delta["toolUse"], "delta.toolUse")
            fragment = values.text(sink, tool.get("input"), "toolUse.input") if tool else None
            if not fragment:
                return
            if block is not None and block.kind == "server":
                block.fragments.append(fragment)
            elif block is not None and block.kind == "tool":
                self._arguments(index, fragment)
            else:  # input with no toolUse start: the assembler synthesises the id
                self._blocks[index] = _Block("tool")
                sink.tool_call(index, None, None, fragment)
        elif "reasoningContent" in delta:
            reasoning = values.obj(sink, delta["reasoningContent"], "delta.reasoningContent")
            if reasoning is not None:
                if block is None:
                    self._blocks[index] = _Block("thinking")
                self._reasoning(index, reasoning)
        elif "toolResult" in delta and block is not None and block.kind == "server":
            block.fragments.extend(values.seq(sink, delta["toolResult"], "delta.toolResult"))
        elif "citation" in delta and (block is None or block.kind == "text"):
            cited = values.obj(sink, delta["citation"], "delta.citation")
            if cited is not None:
                if block is None:
                    self._blocks[index] = _Block("text")
                sink.citation(_citation(cited), key=index)
        else:
            kind = next((k for k in delta if k != "p"), "?")
            sink.unknown(f"delta {kind}", f"Content deltas of type {kind!r} were ignored")

    def _reasoning(self, index: int, reasoning: dict[str, Any]) -> None:
        sink = self._sink
        text = values.text(sink, reasoning.get("text"), "reasoningContent.text")
        signature = values.text(sink, reasoning.get("signature"), "reasoningContent.signature")
        redacted = values.text(
            sink, reasoning.get("redactedContent"), "reasoningContent.redactedContent"
        )
        if text or signature:
            sink.thinking(text or "", key=index, signature=signature or None)
        if redacted:
            try:
                piece = base64.b64decode(redacted, validate=True)
            except (binascii.Error, ValueError):
                sink.malformed("A redactedContent delta is not base64; ignored", once="redacted")
                return
            pieces = self._redacted.setdefault(index, [])
            pieces.append(piece)
            whole = base64.b64encode(b"".join(pieces)).decode("ascii")
            sink.thinking(key=index, redacted=True, replay={"redacted": whole})

    def _stop(self, index: int) -> None:
        sink = self._sink
        block = self._blocks.pop(index, None)
        self._redacted.pop(index, None)
        if block is None or block.kind == "text":
            sink.end_text(index)
        elif block.kind == "thinking":
            sink.end_thinking(index)
        elif block.kind == "tool":
            sink.end_tool_call(index)
        else:
            sink.thinking(key=index, replay=self._finish_server(block))
            sink.end_thinking(index)

    def _finish_server(self, block: _Block) -> dict[str, Any]:
        start = dict(block.start or {})
        if "toolUse" in start:
            text = "".join(str(f) for f in block.fragments)
            tool = dict(start["toolUse"])
            try:
                tool["input"] = loads(text) if text.strip() else {}
            except ValueError:
                self._sink.malformed(
                    "The input of a server tool call is not valid JSON; kept as {}",
                    excerpt=text[:80],
                )
                tool["input"] = {}
            return {"bedrock": {"toolUse": tool}}
        result = dict(start["toolResult"])
        result["content"] = list(block.fragments)
        return {"bedrock": {"toolResult": result}}

    def _flush_server_blocks(self) -> None:
        for index, block in list(self._blocks.items()):
            if block.kind == "server":
                del self._blocks[index]
                self._sink.thinking(key=index, replay=self._finish_server(block))

    # -- message-level ---------------------------------------------------------------------

    def _message_stop(self, payload: dict[str, Any]) -> None:
        sink = self._sink
        self._seen.add("messageStop")
        self._flush_server_blocks()
        extra = payload.get("additionalModelResponseFields")
        if extra is not None:
            sink.provider_data("additionalModelResponseFields", extra)
        reason = values.text(sink, payload.get("stopReason"), "stopReason")
        if reason is None:
            return
        if not fail_turn(sink, reason, None, self._model.provider, body=payload):
            sink.finish(reason, STOP_REASONS.get(reason))

    def _metadata(self, payload: dict[str, Any]) -> None:
        sink = self._sink
        self._seen.add("metadata")
        usage = values.obj(sink, payload.get("usage"), "metadata.usage")
        if usage is not None:
            sink.usage(_usage(sink, usage), long_cache_writes=_long_writes(sink, usage))
            if not _MAPPED_USAGE.issuperset(usage):
                sink.provider_data("usage", usage)
        for key in ("metrics", "trace", "performanceConfig", "serviceTier"):
            value = payload.get(key)
            if value is not None:
                sink.provider_data(key, value)

    def whole_block(self, index: int, block: dict[str, Any]) -> None:
        """One content block of a non-streamed body, through the paths its streamed events
        take."""
        sink = self._sink
        if "text" in block:
            self._delta({"contentBlockIndex": index, "delta": {"text": block["text"]}})
        elif "citationsContent" in block:
            # The generated text is in content[].text, its sources in citations[].
            cited = values.obj(sink, block["citationsContent"], "citationsContent") or {}
            for generated in values.seq(sink, cited.get("content"), "citationsContent.content"):
                if isinstance(generated, dict) and "text" in generated:
                    self._delta({"contentBlockIndex": index, "delta": {"text": generated["text"]}})
            for raw in values.seq(sink, cited.get("citations"), "citationsContent.citations"):
                self._delta({"contentBlockIndex": index, "delta": {"citation": raw}})
        elif "toolUse" in block:
            tool = values.obj(sink, block["toolUse"], "toolUse")
            if tool is None:
                return
            arguments = tool.get("input")
            if tool.get("type") == "server_tool_use":
                self._start(index, {"toolUse": tool})
                self._blocks[index].fragments.append(json.dumps(arguments))
            else:
                self._blocks[index] = _Block("tool")
                sink.tool_call(
                    index,
                    values.text(sink, tool.get("toolUseId"), "toolUse.toolUseId") or None,
                    values.text(sink, tool.get("name"), "toolUse.name") or None,
                    # the whole input object; an empty one is {} (as a streamed "" is)
                    arguments if isinstance(arguments, dict) and arguments else None,
                )
        elif "reasoningContent" in block:
            reasoning = values.obj(sink, block["reasoningContent"], "reasoningContent") or {}
            text = values.obj(sink, reasoning.get("reasoningText"), "reasoningText") or {}
            flat = {**text, "redactedContent": reasoning.get("redactedContent")}
            self._blocks[index] = _Block("thinking")
            self._reasoning(index, {k: v for k, v in flat.items() if v is not None})
        elif "toolResult" in block:
            result = values.obj(sink, block["toolResult"], "toolResult")
            if result is None:
                return
            self._open_server(
                index, {"toolResult": {k: v for k, v in result.items() if k != "content"}}
            )
            self._blocks[index].fragments.extend(
                values.seq(sink, result.get("content"), "toolResult.content")
            )
        else:
            kind = next(iter(block), "?")
            sink.unknown(f"block {kind}", f"A content block of type {kind!r} was ignored")
            return
        self._stop(index)

    def _exception(self, frame: Frame, kind: str) -> None:
        self._flush_server_blocks()
        self._sink.fail(_error(self._model, frame, kind))

    def _malformed(self, name: str, excerpt: str) -> None:
        self._sink.malformed(
            f"A {name} event that is not well-formed was skipped", excerpt=excerpt[:80]
        )


def _citation(raw: dict[str, Any]) -> Citation:
    """A Converse ``Citation`` (or streamed ``CitationsDelta``): its location is one of
    ``web`` (url), ``documentChar`` / ``documentPage`` / ``documentChunk`` (a document index
    and a range inside it, kept in ``provider_data``) or ``searchResultLocation``."""
    location = raw.get("location")
    where = next(iter(location.values()), None) if isinstance(location, dict) else None
    where = where if isinstance(where, dict) else {}
    content = raw.get("sourceContent")
    quoted = [
        c["text"]
        for c in (content if isinstance(content, list) else ())
        if isinstance(c, dict) and isinstance(c.get("text"), str)
    ]
    url, title = where.get("url"), raw.get("title")
    source = where.get("documentIndex", where.get("searchResultIndex"))
    return Citation(
        url=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        cited_text="".join(quoted) if quoted else None,
        source=source if isinstance(source, int) and not isinstance(source, bool) else None,
        provider_data=dict(raw),
    )


def _kind(frame: Frame) -> str:
    """What ``frame`` is: its ``:message-type`` (``event``, ``exception``, ``error``)."""
    return frame.message_type if isinstance(frame, EventStreamMessage) else "event"


def _index(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# TokenUsage fields mapped to Usage; with any other (totalTokens, cacheDetails), the usage object
# is kept verbatim on provider_data.
_MAPPED_USAGE = frozenset(
    {"inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"}
)


def _long_writes(sink: DeltaSink, raw: dict[str, Any]) -> int:
    """The 1-hour share of the cache writes (``cacheDetails`` entries with ``ttl: "1h"``),
    which ``Usage.cost`` prices at the model's 1-hour write price."""
    details = raw.get("cacheDetails")
    if details is None:
        return 0
    long = 0
    for entry in values.seq(sink, details, "usage.cacheDetails"):
        if isinstance(entry, dict) and entry.get("ttl") == "1h":
            long += values.count(sink, entry.get("inputTokens"), "cacheDetails.inputTokens") or 0
    return long


def _usage(sink: DeltaSink, raw: dict[str, Any]) -> Usage:
    """Converse ``TokenUsage`` in llmkit's convention (input includes cache reads and writes)."""
    fresh = values.count(sink, raw.get("inputTokens"), "usage.inputTokens")
    read = values.count(sink, raw.get("cacheReadInputTokens"), "usage.cacheReadInputTokens")
    write = values.count(sink, raw.get("cacheWriteInputTokens"), "usage.cacheWriteInputTokens")
    return Usage(
        input=None if fresh is None else fresh + (read or 0) + (write or 0),
        output=values.count(sink, raw.get("outputTokens"), "usage.outputTokens"),
        cache_read=read,
        cache_write=write,
    )


def _error(model: Model, frame: Frame, kind: str) -> APIError:
    """The typed error for an exception (or error) message."""
    headers = frame.headers if isinstance(frame, EventStreamMessage) else {}
    try:
        payload = loads(frame.data) if frame.data.strip() else {}
    except ValueError:
        payload = {"message": frame.data[:500]}
    if not isinstance(payload, dict):
        payload = {"message": str(payload)[:500]}
    error_type = frame.event or "unknown"
    if kind == "error":  # a generic event-stream error: code and message are headers
        message = headers.get(":error-message")
        if isinstance(message, str):
            payload.setdefault("message", message)
    original = payload.get("originalStatusCode")
    if error_type == "modelStreamErrorException" and original in _ORIGINAL_STATUS:
        error_type = _ORIGINAL_STATUS[original]
    body = {**payload, "__type": error_type}
    if not isinstance(body.get("message"), str) or not body["message"]:
        body["message"] = f"Bedrock reported {frame.event or 'an error'} in the stream"
    # modelStreamErrorException: the model's own status and message, named in the error
    said, status = payload.get("originalMessage"), payload.get("originalStatusCode")
    own = [f"status {status}"] if isinstance(status, int) else []
    own += [repr(said)] if isinstance(said, str) and said else []
    if own:
        body["message"] += f" (the model's error: {', '.join(own)})"
    return error_from_body(body, provider=model.provider)


def decode_response(sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
    """A whole ``Converse`` body through the same deltas; ``seed`` (the body text) makes
    synthesised ids deterministic."""
    if not isinstance(body, dict):
        sink.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    output = body.get("output")
    if not isinstance(output, dict):
        # An error body (HTTP 200 should not carry one, but a proxy may): {"message": ...}
        sink.fail(error_from_body(body, provider=model.provider))
        return
    sink.meta(None, seed=seed)
    decoder = Decoder(sink, model)
    message = values.obj(sink, output.get("message"), "output.message") or {}
    for index, block in enumerate(values.seq(sink, message.get("content"), "content")):
        if isinstance(block, dict):
            decoder.whole_block(index, block)
        else:
            values.wrong_type(sink, "a content block", block, "an object")
    decoder.event("messageStop", body, seed)
    if not sink.ended:
        decoder.event("metadata", body, seed)
