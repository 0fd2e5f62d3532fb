"""Gemini (``api="gemini"``): Google AI Studio's ``generateContent`` and
``streamGenerateContent?alt=sse``.

Two pure halves, no I/O and no JSON repair: request building lives in
:mod:`llmkit._wire.gemini.request` (re-exported here); this module decodes. Each streamed chunk
is a whole ``GenerateContentResponse``; the :class:`Decoder` merges candidate 0's parts into
neutral deltas, and :func:`decode_response` sends a non-streamed body (or the JSON array that
``streamGenerateContent`` returns without ``alt=sse``, QUIRKS A10) down the same path.

- Consecutive text parts are one text block, consecutive ``thought: true`` parts one thinking
  block; a signed part ends its block, because two signatures never merge (QUIRKS F2).
- A ``thoughtSignature`` stays with its part: on a ``functionCall`` in ``ToolCall.replay``, on
  a thought in ``ThinkingPart.signature``, and on a plain text part — the trailing empty one
  Gemini 3 streams included — in a :data:`~llmkit._wire.gemini.request.SIGNATURE_CARRIER`
  ThinkingPart placed where that part was (``TextPart`` has no replay field).
- Every ``functionCall`` part is one whole call (QUIRKS D1): its ``id`` is kept verbatim, a
  missing one is synthesised by the assembler from the response id and the call ordinal (B4,
  B6). Vertex's streamed ``partialArgs`` (JSON-path fragments, QUIRKS D8) are rebuilt into JSON
  text as they arrive, so ``ToolCallDelta.partial_arguments`` works as for any other wire.
- A hosted tool's part (``executableCode``, ``codeExecutionResult``, ``toolCall``,
  ``toolResponse``; any other part kind too, reported) is kept whole, in place, as an opaque
  ThinkingPart (``replay={"gemini": "part", "part": <the part>}``, its ``thoughtSignature``
  inside it) and sent back verbatim to the same model. A text, thought or call part's other
  fields (``partMetadata``, ``videoMetadata``, ...) stay with it in ``replay["fields"]`` (a
  text part's on its carrier ThinkingPart) and go back with it. Grounding data
  (``groundingMetadata``, ``urlContextMetadata``, ``citationMetadata``) is kept verbatim on
  ``message.provider_data`` (Gemini's ``Content`` has no field to send it back in), and read
  as citations of the last text part: each ``groundingSupports`` entry with each grounding
  chunk it names, and each ``citationMetadata`` source (``citationSources``; ``citations`` on
  Vertex); their byte offsets become character offsets. Every other field of the response,
  its candidate and its usage is kept verbatim on ``message.provider_data`` by :mod:`.kept`
  (``model_version``, ``finish_message``, ``safety_ratings``, ``logprobs_result``,
  ``continuation_token``, ...).
- ``finishReason`` is mapped by string (E4); ``MALFORMED_FUNCTION_CALL`` and the other
  tool-call failures end the stream with ``ErrorEvent`` and a diagnostic, never as a success. Gemini
  has no terminal event (A4): the stream is complete when a finish reason was seen and the body
  ended; EOF without one is ``stream_truncated``.
"""

from __future__ import annotations

from typing import Any

from ..._classify import error_from_body
from ..._messages import Citation, StopReason, Usage
from ..._models import Model
from .. import typed_reads as values
from ..contract import DeltaSink, Frame
from ..splice import SplicedDecoder, first_alone
from ..turn_failures import fail_turn
from .kept import PART_MODIFIERS, Kept, extras
from .partial_args import ArgsWriter
from .request import HOSTED_PART, SIGNATURE_CARRIER
from .template import Call, Template, learn

__all__ = ["FINISH", "Decoder", "decode_response"]

FINISH: dict[str, StopReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "CONTINUATION": "length",  # the per-request token limit; generation is not complete
    "TOO_MANY_TOOL_CALLS": "pause",  # the server-side tool loop stopped: send it back to go on
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "LANGUAGE": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MODEL_ARMOR": "content_filter",
    "ESCALATION": "content_filter",
    "PUP_LIMITED_DISABLED": "content_filter",
}
"""Gemini finish reasons by string (QUIRKS E4; the enum grows at run time). Anything else —
``OTHER``, ``FINISH_REASON_UNSPECIFIED``, a value added later — is unknown: reported, never
raised."""

HOSTED_KINDS = frozenset({"executableCode", "codeExecutionResult", "toolCall", "toolResponse"})
"""Part kinds of Gemini's server-side tools, kept for replay without a report."""

GROUNDING = {
    "groundingMetadata": "grounding_metadata",
    "urlContextMetadata": "url_context_metadata",
    "citationMetadata": "citation_metadata",
}
"""Candidate fields kept verbatim on ``message.provider_data`` (the last value wins)."""


def _usage(u: dict[str, Any]) -> Usage | None:
    """Usage in llmkit's convention, or None for a report without counts (Vertex sends only
    ``trafficType`` until the last chunk).

    ``promptTokenCount`` already includes cached tokens; ``candidatesTokenCount`` excludes the
    thoughts, which llmkit's ``output`` includes. Proto3 JSON leaves zero counts out, so a
    missing candidates/thoughts count next to a prompt count is 0.
    """

    def count(key: str) -> int | None:
        value = u.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    prompt, cached = count("promptTokenCount"), count("cachedContentTokenCount")
    candidates, thoughts = count("candidatesTokenCount"), count("thoughtsTokenCount")
    tool_prompt = count("toolUsePromptTokenCount")  # input read from server-side tools
    counts = (prompt, tool_prompt, candidates, thoughts, cached, count("totalTokenCount"))
    if all(c is None for c in counts):
        return None
    return Usage(
        input=None
        if prompt is None and tool_prompt is None
        else (prompt or 0) + (tool_prompt or 0),
        output=(candidates or 0) + (thoughts or 0),
        cache_read=cached,
        reasoning=thoughts,
    )


class _Streamed:
    """The call whose arguments are being streamed (Vertex, QUIRKS D8)."""

    __slots__ = ("ordinal", "writer")

    def __init__(self, ordinal: int) -> None:
        self.ordinal = ordinal
        self.writer = ArgsWriter()


class Decoder(SplicedDecoder):
    """Streamed Gemini: each SSE event is a ``GenerateContentResponse`` → neutral deltas."""

    __slots__ = (
        "_calls",
        "_cited",
        "_finished",
        "_kept",
        "_keys",
        "_last_text",
        "_last_usage",
        "_model",
        "_streamed",
        "_text",
        "_thought",
    )

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._last_usage: dict[str, Any] | None = None  # the usageMetadata last read
        self._finished = False  # a finish reason was seen: EOF is then a clean end
        self._keys = 0
        self._text: int | None = None  # the open text block's key
        self._last_text: int | None = None  # the last text block's key (citations go there)
        self._cited: list[Any] = []  # grounding supports and citation sources taken
        self._thought: int | None = None  # the open thinking block's key
        self._calls = 0  # the next call ordinal
        self._streamed: _Streamed | None = None
        self._kept = Kept(sink)

    def _full_path(self, frame: Frame) -> dict[str, Any] | None:
        """One SSE event; its chunk while a call's arguments are streamed (Vertex, QUIRKS D8)."""
        data = frame.data
        chunk = self._object(data)
        if chunk is None:
            return None
        self.chunk(chunk, data)
        return chunk if self._streamed is not None else None

    def _learn(self, frame: Frame, payload: Any) -> Template | None:
        """A template of the streamed call's fragment chunk (:mod:`.template`)."""
        streamed = self._streamed
        assert streamed is not None  # _full_path returns a chunk only while a call streams

        def partial(fragments: list[dict[str, Any]]) -> None:
            self._partial(streamed, fragments)

        call = Call(streamed.ordinal, streamed.writer, self._arguments, partial)
        return learn(frame.data, payload, self._one_fragment, self._no_op, call)

    def _one_fragment(self, chunk: Any) -> dict[str, Any] | None:
        """The fragment, when the full path reads ``chunk`` as nothing but one ``partialArgs``
        fragment for the call being streamed, which goes on (the template's check): then the
        full path's whole work is ``_partial(streamed, [fragment])``."""
        call = self._streamed_call(chunk)
        # JSON of any type: checked by class below (pyright does not narrow on __class__).
        fragments: Any = None if call is None else call.get("partialArgs")
        if fragments.__class__ is not list or len(fragments) != 1:
            return None
        fragment = fragments[0]
        return fragment if fragment.__class__ is dict else None

    def _no_op(self, chunk: Any) -> bool:
        """Whether the full path reads ``chunk`` as an empty part of the call being streamed
        (``{"willContinue": true}``, QUIRKS D8): it changes nothing."""
        call = self._streamed_call(chunk)
        return call is not None and "partialArgs" not in call

    def _streamed_call(self, chunk: Any) -> dict[str, Any] | None:
        """The ``functionCall`` of ``chunk`` when it is all the chunk holds, it goes on with the
        call being streamed (no name, id, args or signature) and nothing else in the chunk means
        anything to the full path. Every field the full path reads is checked."""
        streamed = self._streamed
        if streamed is None or chunk.__class__ is not dict or chunk.get("error"):
            return None
        rid, metadata = chunk.get("responseId"), chunk.get("usageMetadata")
        if rid is not None and rid.__class__ is not str:
            return None
        if isinstance(metadata, dict) and _usage(metadata) is not None:
            return None
        candidate = first_alone(chunk.get("candidates"))
        if (
            candidate is None
            or candidate.get("finishReason")
            or "logprobsResult" in candidate  # joined chunk by chunk: never skipped
            or any(key in candidate for key in GROUNDING)
        ):
            return None
        content: Any = candidate.get("content")  # JSON of any type: checked by class below
        parts: Any = content.get("parts") if content.__class__ is dict else None
        if parts.__class__ is not list or len(parts) != 1 or parts[0].__class__ is not dict:
            return None
        part = parts[0]
        call = part.get("functionCall")
        if len(part) != 1 or call.__class__ is not dict:
            return None  # a signature or another field on the part: the full path
        if (
            call.get("name")
            or call.get("id")
            or call.get("args")
            or call.get("willContinue") is not True
        ):
            return None
        return call

    def eof(self) -> None:
        """End of the byte stream: complete if a finish reason was seen, else truncated."""
        if self._finished:
            self._sink.complete()  # Gemini has no terminal event: its end is the EOF (QUIRKS A4)

    def chunk(self, chunk: dict[str, Any], seed: str) -> None:
        """One ``GenerateContentResponse`` (``seed``: its text, for synthesised ids)."""
        sink = self._sink
        sink.meta(chunk.get("responseId") or None, seed=seed)  # the sink keeps the first of each
        if chunk.get("error"):  # an error inside a 200 stream, or an error array (A10)
            sink.fail(error_from_body(chunk, provider=self._model.provider))
            return
        kept = self._kept
        kept.response(chunk)
        metadata = chunk.get("usageMetadata")
        if isinstance(metadata, dict) and metadata != self._last_usage:
            self._last_usage = metadata  # the same report again says nothing new
            usage = _usage(metadata)
            if usage is not None:
                sink.usage(usage)  # every chunk reports usage so far; the last holds
            kept.usage(metadata, _total(metadata))
        candidates = chunk.get("candidates")
        for candidate in candidates if isinstance(candidates, list) else ():
            if not isinstance(candidate, dict):
                continue
            if candidate.get("index", 0) != 0:  # Vertex leaves the index of 0 out
                self._sink.unknown(
                    "candidates",
                    "Candidates other than the first were ignored",
                    part="candidates",
                    index=candidate.get("index"),
                )
                continue
            self._candidate(candidate)
            if sink.ended:
                return
        feedback = chunk.get("promptFeedback")  # kept on provider_data by Kept.response
        if isinstance(feedback, dict) and feedback.get("blockReason") and not candidates:
            # The prompt itself was blocked: no candidate at all.
            self._finish(str(feedback["blockReason"]), {}, blocked=True)

    def _candidate(self, candidate: dict[str, Any]) -> None:
        self._kept.candidate(candidate)
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if isinstance(content, dict) and len(content) > 1:
            self._content_fields(content)
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, dict):
                self._part(part)
        for field, key in GROUNDING.items():
            value = candidate.get(field)
            if isinstance(value, dict):
                self._sink.provider_data(key, value)
                if field != "urlContextMetadata" and self._last_text is not None:
                    self._citations(field, value)
        reason = candidate.get("finishReason")
        if reason:
            self._finish(str(reason), candidate)

    def _content_fields(self, content: dict[str, Any]) -> None:
        role = content.get("role")
        if role is not None and role != "model":
            self._sink.unknown(
                "content.role", f"A candidate's content with role {role!r} was read as the model's"
            )
        for field in content:
            if field not in ("parts", "role"):
                self._sink.unknown(
                    f"content.{field}", f"Unknown content field {field!r} ignored", field=field
                )

    def _finish(self, reason: str, candidate: dict[str, Any], *, blocked: bool = False) -> None:
        sink = self._sink
        # sink.finish ends every open block; a streamed call still open was cut (the assembler
        # finalises it as recovered).
        self._text = self._thought = None
        self._streamed = None
        if fail_turn(sink, reason, candidate.get("finishMessage"), self._model.provider):
            return
        sink.finish(reason, "content_filter" if blocked else FINISH.get(reason))
        self._finished = True

    def _part(self, part: dict[str, Any]) -> None:
        sink = self._sink
        signature = part.get("thoughtSignature")
        sig = signature if isinstance(signature, str) and signature else None
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._end_text()
            self._end_thought()
            self._function_call(call, sig, extras(part, _CALL_KEYS))
            return
        text = part.get("text")
        if isinstance(text, str):
            fields = extras(part, _TEXT_KEYS)
            if part.get("thought") is True:
                self._end_text()
                if fields:
                    self._end_thought()  # a part with its own fields is whole
                if self._thought is None:
                    self._thought = self._key()
                replay = {"fields": fields} if fields else None
                sink.thinking(text, self._thought, signature=sig, replay=replay)
                if sig or fields:
                    self._end_thought()  # a signed part is whole: never merge two (F2)
                return
            if sig or fields:
                self._carry(sig, on_text=bool(text), fields=fields)
            if text:
                self._end_thought()
                if self._text is None:
                    self._text = self._last_text = self._key()
                sink.text(text, self._text)
            return
        kind = next((k for k in part if k not in PART_MODIFIERS), None)
        if kind is None:
            fields = extras(part, _TEXT_KEYS)
            if "thought" in part and not (sig or fields):
                sink.malformed("A thought part without text was skipped", once="thought")
                return
            if sig or fields:  # the signature must not be lost, nor the part's fields
                self._carry(sig, on_text=False, fields=fields)
            return
        if kind not in HOSTED_KINDS:
            self._sink.unknown(kind, f"A {kind} part was kept as opaque replay data", part=kind)
        # Kept whole, its signature inside it, where it was (sent back to the same model).
        self._end_text()
        self._end_thought()
        key = self._key()
        sink.thinking(key=key, replay={"gemini": HOSTED_PART, HOSTED_PART: dict(part)})
        sink.end_thinking(key)

    def _carry(self, sig: str | None, *, on_text: bool, fields: dict[str, Any] | None) -> None:
        """A signature on a part that is not a thought nor a call (QUIRKS F2: Gemini 3 puts it
        on a trailing empty text part), or a text part's other fields (``partMetadata``, ...),
        is kept in a carrier ThinkingPart where the part was; ``on_text``: it belongs to the
        text that follows (sent back on that text)."""
        self._end_text()
        self._end_thought()
        key = self._key()
        replay: dict[str, Any] = {"gemini": SIGNATURE_CARRIER}
        if on_text:
            replay["next"] = True
        if fields:
            replay["fields"] = fields
        self._sink.thinking("", key, signature=sig, replay=replay)
        self._sink.end_thinking(key)

    def _function_call(
        self, call: dict[str, Any], sig: str | None, fields: dict[str, Any] | None
    ) -> None:
        sink = self._sink
        replay: dict[str, Any] | None = {"thoughtSignature": sig} if sig else None
        if fields:
            replay = {**(replay or {}), "fields": fields}
        name = call.get("name") if isinstance(call.get("name"), str) else None
        call_id = call.get("id") if isinstance(call.get("id"), str) else None
        args = call.get("args")
        partial = call.get("partialArgs")
        more = call.get("willContinue") is True
        streamed = self._streamed
        if streamed is not None and not name:
            # The next fragment of the call being streamed (Vertex, QUIRKS D8).
            if call_id or replay:
                sink.tool_call(streamed.ordinal, call_id or None, replay=replay)
            self._partial(streamed, partial)
            if isinstance(args, dict) and args:
                self._sink.malformed("Whole arguments arrived on a streamed call; ignored")
            if not more:
                self._end_streamed()
            return
        if streamed is not None:
            self._end_streamed()  # a named part starts the next call
        if not (name or call_id or args or partial or more):
            return  # an empty terminator with no call open
        ordinal = self._calls
        self._calls += 1
        if args is not None and not isinstance(args, dict):
            self._sink.malformed("functionCall.args is not an object; ignored")
        whole = args if isinstance(args, dict) else None
        sink.tool_call(ordinal, call_id or None, name, whole, replay=replay)
        if partial or more:
            self._streamed = _Streamed(ordinal)
            self._partial(self._streamed, partial)
            if not more:
                self._end_streamed()
            return
        sink.end_tool_call(ordinal)  # one part is one whole call (QUIRKS D1)

    def _partial(self, streamed: _Streamed, fragments: Any) -> None:
        if not isinstance(fragments, list):
            return
        writer = streamed.writer
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            text = writer.add(fragment)
            if text:
                self._arguments(streamed.ordinal, text)  # the hot path: one per fragment
        for where, problem in writer.problems:
            self._sink.malformed(f"partialArgs: {problem}", json_path=where)
        writer.problems.clear()

    def _end_streamed(self) -> None:
        streamed = self._streamed
        if streamed is None:
            return
        self._streamed = None
        text = streamed.writer.close()
        if text:
            self._sink.tool_call(streamed.ordinal, arguments=text)
        self._sink.end_tool_call(streamed.ordinal)

    def _citations(self, field: str, metadata: dict[str, Any]) -> None:
        """Citations of the last text part: each ``groundingSupport`` with each grounding chunk
        it names (``source`` = the chunk's index), or each ``citationSources`` entry. Their
        segment offsets count UTF-8 bytes of the text; a stream may repeat them: each is taken
        once."""
        sink, key = self._sink, self._last_text
        if field == "citationMetadata":
            name = "citations" if "citationSources" not in metadata else "citationSources"
            for raw in values.seq(sink, metadata.get(name), name):  # Vertex: "citations"
                if isinstance(raw, dict) and raw not in self._cited:
                    self._cited.append(raw)
                    sink.citation(_source_citation(raw), key, utf8=True)
            return
        chunks = values.seq(sink, metadata.get("groundingChunks"), "groundingChunks")
        for raw in values.seq(sink, metadata.get("groundingSupports"), "groundingSupports"):
            if not isinstance(raw, dict) or raw in self._cited:
                continue
            self._cited.append(raw)
            segment = raw.get("segment")
            segment = segment if isinstance(segment, dict) else {}
            for i in values.seq(sink, raw.get("groundingChunkIndices"), "groundingChunkIndices"):
                chunk = chunks[i] if isinstance(i, int) and 0 <= i < len(chunks) else None
                sink.citation(_grounding_citation(raw, segment, i, chunk), key, utf8=True)

    def _key(self) -> int:
        self._keys += 1
        return self._keys

    def _end_text(self) -> None:
        if self._text is not None:
            self._sink.end_text(self._text)
            self._text = None

    def _end_thought(self) -> None:
        if self._thought is not None:
            self._sink.end_thinking(self._thought)
            self._thought = None


_TEXT_KEYS = ("text", "thought", "thoughtSignature")
_CALL_KEYS = ("functionCall", "thoughtSignature")
_SUMMED = (
    "promptTokenCount",
    "toolUsePromptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
)


def _total(u: dict[str, Any]) -> int | None:
    """The total the counts llmkit maps add up to (Gemini's ``totalTokenCount`` is that sum)."""
    counts = [u.get(k) for k in _SUMMED]
    if not any(isinstance(c, int) for c in counts):
        return None
    return sum(c for c in counts if isinstance(c, int) and not isinstance(c, bool))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _grounding_citation(
    support: dict[str, Any], segment: dict[str, Any], index: Any, chunk: Any
) -> Citation:
    # A chunk is {"web": {"uri", "title", "domain"}} or {"retrievedContext": {...}} (Vertex)
    # or {"maps": {...}}: whichever it is, its uri and title.
    source = next(iter(chunk.values()), None) if isinstance(chunk, dict) and chunk else None
    source = source if isinstance(source, dict) else {}
    start = _int(segment.get("startIndex"))
    return Citation(
        url=_str(source.get("uri")),
        title=_str(source.get("title")),
        cited_text=_str(segment.get("text")),
        start=0 if start is None and _int(segment.get("endIndex")) is not None else start,
        end=_int(segment.get("endIndex")),
        source=_int(index),
        provider_data={"groundingSupport": support, "groundingChunk": chunk},
    )


def _source_citation(raw: dict[str, Any]) -> Citation:
    start = _int(raw.get("startIndex"))
    return Citation(
        url=_str(raw.get("uri")),
        title=_str(raw.get("title")),
        start=0 if start is None and _int(raw.get("endIndex")) is not None else start,
        end=_int(raw.get("endIndex")),
        provider_data=dict(raw),
    )


def decode_response(sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``generateContent`` body through the same neutral deltas.

    Also takes the JSON array ``streamGenerateContent`` sends without ``alt=sse`` (QUIRKS
    A10), chunk by chunk, and an error body as an object or a one-element array. ``seed`` (the
    body text) makes synthesised ids deterministic when there is no response id.
    """
    chunks = body if isinstance(body, list) else [body]
    decoder = Decoder(sink, model)
    for chunk in chunks:
        if not isinstance(chunk, dict):
            sink.fail(error_from_body({"message": "The response body is not a JSON object"}))
            return
        decoder.chunk(chunk, seed)
        if sink.ended:
            return
    sink.complete()  # the body is whole: a missing finish reason is inferred, not truncation
