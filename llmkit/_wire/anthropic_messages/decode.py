"""Anthropic Messages (``api="anthropic-messages"``): ``POST {base_url}/messages``.

Two pure halves, no I/O and no JSON repair:

- the request mapping lives in :mod:`llmkit._wire.anthropic_messages.request` (:func:`build`,
  :func:`headers`, :func:`url` are re-exported here, completing the adapter contract);
- :class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
  :func:`decode_response` walks a non-streamed body through the same code.

Decoding rules:

- ``content_block_start.index`` is Anthropic's content-block index. It keys text and thinking
  parts and is the tool-call slot index; the assembler assigns content positions itself, so a
  first tool call at block index 1 is not "tool 1" (QUIRKS C5).
- Tool input arrives as ``input_json_delta`` fragments (the first is often ``""``, D3), or whole
  in ``content_block_start.input`` / in ``message_start.message.content``, as programmatic tool
  calling sends it; an empty input is ``{}``. A call cut by ``max_tokens`` mid-JSON is
  ``recovered`` by the assembler, not executable by default (D6, E3).
- A text block's ``citations`` (whole) and ``citations_delta`` (streamed), every location
  type, become the part's :class:`~llmkit.Citation` objects, each kept verbatim in
  ``provider_data`` and sent back in the text block to the same model.
- ``signature_delta`` and ``redacted_thinking.data`` are kept on the ThinkingPart for replay to
  the same model (F1).
- Server-side blocks (``server_tool_use``, ``web_search_tool_result``,
  ``code_execution_tool_result``, ``mcp_tool_use``, …) are not calls for the caller to run.
  Each is kept, in order, as an opaque ThinkingPart whose ``replay["block"]`` is the block as
  Anthropic sent it (a streamed input is reassembled), so a ``pause_turn`` reply can be sent
  back verbatim. A block type llmkit does not know is kept the same way and reported
  (``event_unknown``).
- ``stop_sequence``, ``stop_details``, ``container`` and ``diagnostics`` (from
  ``message_start`` or ``message_delta``) are kept verbatim on ``message.provider_data``; so
  are ``model`` when it is not the id asked for (the snapshot behind an alias), and the usage
  object (merged) when it holds more than the four counts llmkit maps (service tier, speed,
  server tool counts, the cache-write split, ...).
- A ``tool_use`` block's ``toolset_name`` and a programmatic ``caller`` are kept in the call's
  ``replay`` and sent back in its block to the same model.
- ``message_delta.usage`` is cumulative: output tokens overwrite, other fields are merged only
  when present (J2). Usage follows llmkit's convention: ``input`` = ``input_tokens`` + cache
  reads + cache writes; ``cache_creation.ephemeral_1h_input_tokens`` (1-hour writes) is passed
  on so that the cost prices them at the model's 1-hour write price.
- ``message_stop`` ends the stream; anything after it (a ``[DONE]`` from a proxy, A4) is
  ignored. ``event: error`` (e.g. ``overloaded_error`` after HTTP 200, A6/I2) ends it with an
  ``ErrorEvent`` carrying the partial message. ``ping`` is ignored; other unknown events are
  reported once per type (A3).
"""

from __future__ import annotations

import json
from typing import Any

from ..._classify import error_from_body
from ..._json.scanner import loads
from ..._messages import Citation, StopReason, Usage
from ..._models import Model
from .. import typed_reads as values
from ..contract import DeltaSink, Frame
from ..splice import SplicedDecoder

__all__ = ["ENDINGS", "STOP_REASONS", "Decoder", "decode_response"]

ENDINGS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",  # the output was cut: the window is full
}
"""The stop reasons Bedrock Converse's ``stopReason`` took from Anthropic's, meaning the same:
mapped here for both wires."""

STOP_REASONS: dict[str, StopReason] = {
    **ENDINGS,
    "refusal": "refusal",
    "pause_turn": "pause",  # a server-tool loop paused: send the content back to continue
}
"""Anthropic ``stop_reason`` → llmkit stop reason (E3); the raw value is always kept."""

# Message fields kept verbatim on provider_data (``diagnostics``: why the prompt cache missed)
_KEPT = ("stop_sequence", "stop_details", "container", "diagnostics")
# Usage fields llmkit maps to Usage; with any other (service tier, speed, inference geography,
# server tool counts, the 5-minute / 1-hour split of cache writes), the usage is kept verbatim.
_MAPPED_USAGE = frozenset(
    {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}
)

# Server-side blocks llmkit knows and keeps opaque without a report.
_SERVER_BLOCKS = frozenset(
    {"server_tool_use", "mcp_tool_use", "mcp_tool_result", "container_upload"}
)


def _is_server_block(block_type: str) -> bool:
    return block_type in _SERVER_BLOCKS or block_type.endswith("_tool_result")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def citation(raw: dict[str, Any]) -> Citation:
    """One Anthropic text citation (any location type) as a :class:`~llmkit.Citation`.

    Anthropic gives no offsets in the answer's own text (the citation belongs to its whole text
    block), so ``start``/``end`` stay unset; the location inside the cited document (character,
    page or block range) stays in ``provider_data``, the citation as sent.
    """
    url, cited = raw.get("url"), raw.get("cited_text")
    title = raw.get("document_title", raw.get("title"))
    source = raw.get("document_index", raw.get("search_result_index"))
    return Citation(
        url=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        cited_text=cited if isinstance(cited, str) else None,
        source=source if _int(source) is not None else None,
        provider_data=dict(raw),
    )


def _usage(raw: dict[str, Any]) -> Usage:
    """Anthropic usage (merged across events) in llmkit's convention."""
    fresh = _int(raw.get("input_tokens"))  # input that was neither read from nor written to cache
    read = _int(raw.get("cache_read_input_tokens"))
    write = _int(raw.get("cache_creation_input_tokens"))
    details = raw.get("output_tokens_details")
    reasoning = _int(details.get("thinking_tokens")) if isinstance(details, dict) else None
    return Usage(
        input=None if fresh is None else fresh + (read or 0) + (write or 0),
        output=_int(raw.get("output_tokens")),
        cache_read=read,
        cache_write=write,
        reasoning=reasoning,
    )


class _Opaque:
    """A server-side block being streamed: the block as started, plus its input fragments."""

    __slots__ = ("block", "fragments")

    def __init__(self, block: dict[str, Any]) -> None:
        self.block = block
        self.fragments: list[str] = []


class Decoder(SplicedDecoder):
    """Streamed Anthropic Messages: SSE events → neutral deltas."""

    __slots__ = ("_kinds", "_model", "_opaque", "_usage")

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._kinds: dict[int, str] = {}  # open block index → "text" | "thinking" | "tool"
        self._opaque: dict[int, _Opaque] = {}  # open server-side blocks by index
        self._usage: dict[str, Any] = {}  # raw usage fields merged across events (J2)

    # -- events ------------------------------------------------------------------------------

    def _full_path(self, frame: Frame) -> dict[str, Any] | None:
        """One SSE event; its payload when it is a ``content_block_delta``."""
        data = frame.data
        if not data or (data[0] != "{" and data.strip() == "[DONE]"):
            return None  # not Anthropic's terminal event: EOF will tell whether message_stop came
        try:
            payload = loads(data)
        except ValueError:
            payload = None
        kind = payload.get("type") if isinstance(payload, dict) else None
        if frame.event == "error" or kind == "error":  # after HTTP 200 (QUIRKS A6, I2)
            body = payload if isinstance(payload, dict) else {"message": data[:500]}
            self._flush_opaque()
            self._sink.fail(error_from_body(body, provider=self._model.provider))
            return None
        if not isinstance(payload, dict):
            self._malformed(data)
            return None
        if not isinstance(kind, str):
            kind = frame.event
        self.event(kind, payload, data)
        return payload if kind == "content_block_delta" else None

    def _argument_delta(self, payload: Any) -> tuple[int, str] | None:
        """``(index, fragment)`` when the full path reads ``payload`` as nothing but tool input
        text for the block at ``index`` (the splice's check)."""
        if payload.__class__ is not dict or payload.get("type") != "content_block_delta":
            return None
        index, delta = payload.get("index"), payload.get("delta")
        if not isinstance(index, int) or delta.__class__ is not dict or index in self._opaque:
            return None
        fragment = delta.get("partial_json")
        if delta.get("type") != "input_json_delta" or fragment.__class__ is not str:
            return None
        return index, fragment

    def event(self, kind: str, payload: dict[str, Any], seed: str) -> None:
        """One decoded event of type ``kind``; ``seed`` (its text) seeds synthesised ids."""
        if kind == "content_block_delta":  # the hot path first
            self._delta(payload)
        elif kind == "content_block_start":
            index, block = payload.get("index"), payload.get("content_block")
            if isinstance(index, int) and isinstance(block, dict):
                self._start_block(index, block)
            else:
                self._malformed(seed)
        elif kind == "content_block_stop":
            index = payload.get("index")
            if isinstance(index, int):
                self._stop_block(index)
            else:
                self._malformed(seed)
        elif kind == "message_start":
            message = payload.get("message")
            self.message(message if isinstance(message, dict) else {}, seed)
        elif kind == "message_delta":
            usage = payload.get("usage")
            if isinstance(usage, dict):
                self._merge_usage(usage)
            delta = payload.get("delta")
            if isinstance(delta, dict):
                self._keep(delta)
                if delta.get("stop_reason"):
                    self._finish(delta["stop_reason"])
        elif kind == "message_stop":  # the terminal event: a proxy's [DONE] after it is not read
            self._flush_opaque()
            self._sink.complete()
        elif kind != "ping":  # pings are keep-alives (A3)
            self._unknown(f"event {kind}", f"An unknown event type {kind!r} was ignored")

    def message(self, message: dict[str, Any], seed: str) -> None:
        """A ``message`` object: ``message_start``'s, or a whole non-streamed body.

        Its ``content`` is normally empty when streaming; programmatic tool calling sends the
        whole content (tool calls included) here, and its ``stop_reason`` too.
        """
        sink = self._sink
        sink.meta(message.get("id") or None, seed=seed)
        answered = message.get("model")
        if isinstance(answered, str) and answered and answered != self._model.id:
            sink.provider_data("model", answered)  # the snapshot behind an alias
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._merge_usage(usage)
        for index, block in enumerate(values.seq(sink, message.get("content"), "content")):
            if isinstance(block, dict):
                self._start_block(index, block)
                self._stop_block(index)
        self._keep(message)
        reason = message.get("stop_reason")
        if reason:
            self._finish(reason)

    def eof(self) -> None:
        """End of the bytes before ``message_stop``: keep what server blocks received."""
        self._flush_opaque()

    # -- content blocks ----------------------------------------------------------------------

    def _start_block(self, index: int, block: dict[str, Any]) -> None:
        sink = self._sink
        block_type = block.get("type")
        if block_type == "text":
            self._kinds[index] = "text"
            text = block.get("text")
            if isinstance(text, str):
                sink.text(text, key=index)  # "" when streamed: the part opens on its first delta
            cited = block.get("citations")
            if cited:  # a whole body's citations ([] or null when streamed)
                for raw in values.seq(sink, cited, "citations"):
                    self._citation(index, raw)
        elif block_type == "thinking":
            self._kinds[index] = "thinking"
            thinking, signature = block.get("thinking"), block.get("signature")
            sink.thinking(
                thinking if isinstance(thinking, str) else "",
                key=index,
                signature=signature if isinstance(signature, str) and signature else None,
            )
        elif block_type == "redacted_thinking":
            self._kinds[index] = "thinking"
            data = block.get("data")
            sink.thinking(
                key=index,
                redacted=True,
                replay={"data": data} if isinstance(data, str) and data else None,
            )
        elif block_type == "tool_use":
            self._kinds[index] = "tool"
            arguments = block.get("input")
            replay: dict[str, Any] = {}
            caller = block.get("caller")
            if isinstance(caller, dict) and caller.get("type") != "direct":
                replay["caller"] = caller  # programmatic tool calling: needed on replay
            # (a "direct" caller is the default, the same as none: not kept)
            toolset = block.get("toolset_name")
            if isinstance(toolset, str) and toolset:
                replay["toolset_name"] = toolset  # a toolset member's family, sent back
            sink.tool_call(
                index,
                block.get("id") or None,
                block.get("name") or None,
                # Streamed calls start with input {} and send the text as deltas; a non-empty
                # input here is the whole input.
                arguments if isinstance(arguments, dict) and arguments else None,
                replay=replay or None,
            )
        else:
            name = block_type if isinstance(block_type, str) else "?"
            if not _is_server_block(name):
                self._unknown(
                    f"block {name}",
                    f"An unknown content block type {name!r} was kept as opaque replay data",
                )
            self._opaque[index] = _Opaque(dict(block))
            sink.thinking(key=index, replay={"block": dict(block)})  # opened now: keeps order

    def _delta(self, payload: dict[str, Any]) -> None:
        index, delta = payload.get("index"), payload.get("delta")
        if not isinstance(index, int) or not isinstance(delta, dict):
            self._malformed(json.dumps(payload)[:80])
            return
        delta_type = delta.get("type")
        if delta_type == "text_delta":
            if isinstance(text := delta.get("text"), str):
                self._sink.text(text, key=index)
        elif delta_type == "input_json_delta":
            fragment = delta.get("partial_json")
            if not isinstance(fragment, str):
                return
            opaque = self._opaque.get(index)
            if opaque is not None:
                opaque.fragments.append(fragment)
            elif fragment:  # "" is a real, empty first fragment (D3): nothing to append
                self._arguments(index, fragment)
        elif delta_type == "thinking_delta":
            if isinstance(thinking := delta.get("thinking"), str):
                self._sink.thinking(thinking, key=index)
        elif delta_type == "signature_delta":
            if isinstance(signature := delta.get("signature"), str) and signature:
                self._sink.thinking(key=index, signature=signature)
        elif delta_type == "citations_delta" and self._kinds.get(index) == "text":
            self._citation(index, delta.get("citation"))
        else:
            name = delta_type if isinstance(delta_type, str) else "?"
            self._unknown(f"delta {name}", f"Content deltas of type {name!r} were ignored")

    def _citation(self, index: int, raw: Any) -> None:
        if isinstance(raw, dict):
            self._sink.citation(citation(raw), key=index)
        else:
            self._sink.malformed(
                "A citation that is not an object was skipped", excerpt=repr(raw)[:80]
            )

    def _stop_block(self, index: int) -> None:
        sink = self._sink
        kind = self._kinds.pop(index, None)
        if kind == "text":
            sink.end_text(index)
        elif kind == "thinking":
            sink.end_thinking(index)
        elif kind == "tool":
            sink.end_tool_call(index)
        else:
            opaque = self._opaque.pop(index, None)
            if opaque is not None:
                sink.thinking(key=index, replay=self._finish_opaque(opaque))
                sink.end_thinking(index)

    def _flush_opaque(self) -> None:
        # Server blocks the stream never closed: keep what arrived (before the assembler closes
        # every open part).
        for index, opaque in list(self._opaque.items()):
            del self._opaque[index]
            self._kinds.pop(index, None)
            self._sink.thinking(key=index, replay=self._finish_opaque(opaque))

    def _finish_opaque(self, opaque: _Opaque) -> dict[str, Any]:
        block = opaque.block
        text = "".join(opaque.fragments)
        if not text.strip():
            return {"block": block}
        try:
            block["input"] = loads(text)
        except ValueError:
            # Cut short (max_tokens) or broken: not replayable as it stands. Kept as text.
            self._sink.malformed(
                f"The input of a {block.get('type')} block is not valid JSON; kept as text",
                excerpt=text[:80],
            )
            return {"block": block, "input_json": text}
        return {"block": block}

    # -- message-level -----------------------------------------------------------------------

    def _merge_usage(self, usage: dict[str, Any]) -> None:
        # Cumulative counts overwrite; a field left out keeps the earlier value (J2).
        for key, value in usage.items():
            if value is not None:
                self._usage[key] = value
        # 1-hour cache writes (cache="long") are billed at their own price.
        split = self._usage.get("cache_creation")
        long = _int(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else None
        self._sink.usage(_usage(self._usage), long_cache_writes=long or 0)
        if not _MAPPED_USAGE.issuperset(self._usage):
            self._sink.provider_data("usage", dict(self._usage))

    def _keep(self, fields: dict[str, Any]) -> None:
        # Kept verbatim on message.provider_data: which stop sequence matched, why a turn was
        # refused (E3), and the code-execution container a programmatic tool-calling turn
        # must name again (pass it back as provider_options={"container": ...["id"]}).
        for key in _KEPT:
            value = fields.get(key)
            if value is not None:
                self._sink.provider_data(key, value)

    def _finish(self, reason: Any) -> None:
        self._flush_opaque()  # max_tokens may cut a server block before its content_block_stop
        raw = str(reason)
        self._sink.finish(raw, STOP_REASONS.get(raw))

    def _unknown(self, key: str, message: str) -> None:
        self._sink.unknown(key, message, type=key)

    def _malformed(self, excerpt: str) -> None:
        self._sink.malformed(
            "An SSE event that is not a well-formed Anthropic event was skipped",
            excerpt=excerpt[:80],
        )


def decode_response(sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``message`` body through the same neutral deltas; ``seed`` (the body text)
    makes synthesised ids deterministic."""
    if not isinstance(body, dict):
        sink.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    if body.get("type") == "error" or "error" in body:
        sink.fail(error_from_body(body, provider=model.provider))
        return
    decoder = Decoder(sink, model)
    decoder.message(body, seed)
    sink.complete()
