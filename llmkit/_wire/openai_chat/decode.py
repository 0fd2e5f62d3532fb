"""OpenAI Chat Completions (``api="openai-chat"``), also every OpenAI-compatible server.

Two pure halves, no I/O and no JSON repair: request building lives in
:mod:`llmkit._wire.openai_chat.request` (re-exported here); this module decodes. The
:class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
:func:`decode_response` does the same for a non-streamed body (one path for both). Server
quirks are read from ``model.compat`` or recognised from the payload itself.

Besides text, reasoning and ``tool_calls`` (docs/design.md §4, "Report, never guess silently"):

- a ``type: "custom"`` call (``custom: {name, input}``) is a ToolCall whose ``raw_arguments``
  is the freeform ``input`` (not JSON), ``replay={"type": "custom"}``, sent back as a custom
  call;
- the legacy ``function_call`` (``{name, arguments}``, no id) is a ToolCall too, and
  ``finish_reason: "function_call"`` means tool use; a ``function_call`` next to
  ``tool_calls`` is reported and ignored;
- ``audio``: its ``transcript`` is the text; the rest (``id``, ``expires_at``, ``data``
  joined) is kept in ``message.provider_data["audio"]`` and its ``id`` sent back;
- ``logprobs`` (``content`` / ``refusal`` token lists, joined over the stream),
  ``service_tier``, ``system_fingerprint``, ``moderation`` and ``metadata`` are kept in
  ``message.provider_data`` under their own names; so are the first chunk's ``created``,
  ``model`` when it is not the id asked for, and the ``usage`` object when it holds a count
  llmkit does not map (audio or image tokens, predictions, ...) that is not zero, or a
  ``total_tokens`` that is not the input and output tokens' sum (reported too);
- a tool call whose ``type`` is neither ``function`` nor ``custom`` is reported and read as a
  function call.
"""

from __future__ import annotations

from typing import Any

from ..._classify import error_from_body
from ..._errors import ServerError
from ..._messages import Citation, StopReason, Usage
from ..._models import Model
from ..contract import DeltaSink, Frame
from ..openai_responses.usage import total_disagrees, unmapped_usage
from ..splice import SplicedDecoder, first_alone
from ..turn_failures import fail_turn
from ..typed_reads import count, obj, seq, text, wrong_type
from .compat import chat_flags

__all__ = ["Decoder", "decode_response"]

FINISH: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",  # the legacy functions API
    "content_filter": "content_filter",
    "eos": "stop",  # some local servers
}
_MERGED = ("text", "summary", "data", "signature")  # reasoning_details fields that stream
# Response-level fields kept verbatim in provider_data (the last value holds).
_KEPT = ("service_tier", "system_fingerprint", "moderation", "metadata")
# What _usage maps (total_tokens is their sum: one that is not is reported and the usage kept
# whole, as is a usage with any other count that is not zero).
MAPPED_USAGE = frozenset(
    {
        *("prompt_tokens", "completion_tokens", "total_tokens", "prompt_cache_hit_tokens"),
        *("prompt_tokens_details.cached_tokens", "prompt_tokens_details.cache_write_tokens"),
        "completion_tokens_details.reasoning_tokens",
    }
)
LEGACY = -1  # the tool-call slot of a legacy function_call (tool_calls use 0, 1, ...)
CUSTOM = "custom"  # ToolCall.replay["type"] of a freeform (custom tool) call


def _usage(sink: DeltaSink, u: dict[str, Any]) -> Usage:
    """Usage in llmkit's convention. OpenAI's ``prompt_tokens`` already includes cached tokens
    and ``completion_tokens`` reasoning tokens; the exceptions are recognised from the numbers."""
    pd = obj(sink, u.get("prompt_tokens_details"), "usage.prompt_tokens_details") or {}
    cd = obj(sink, u.get("completion_tokens_details"), "usage.completion_tokens_details") or {}
    prompt = count(sink, u.get("prompt_tokens"), "usage.prompt_tokens")
    output = count(sink, u.get("completion_tokens"), "usage.completion_tokens")
    reasoning = count(sink, cd.get("reasoning_tokens"), "usage.reasoning_tokens")
    if (
        output is not None
        and reasoning is not None
        and prompt is not None
        and reasoning > 0
        and u.get("total_tokens") == prompt + output + reasoning
    ):
        # xAI leaves reasoning out of completion_tokens (total = prompt + completion +
        # reasoning); llmkit's output always includes it.
        output += reasoning
    cached = count(sink, pd.get("cached_tokens"), "usage.cached_tokens")
    if cached is None:  # DeepSeek
        cached = count(sink, u.get("prompt_cache_hit_tokens"), "usage.prompt_cache_hit_tokens")
    written = count(sink, pd.get("cache_write_tokens"), "usage.cache_write_tokens")
    return Usage(
        input=prompt, output=output, cache_read=cached, cache_write=written, reasoning=reasoning
    )


class Decoder(SplicedDecoder):
    """Streamed Chat Completions: SSE events → neutral deltas."""

    __slots__ = (
        "_answered",
        "_audio",
        "_audio_data",
        "_calls",
        "_cited",
        "_details",
        "_fields",
        "_kept",
        "_logprobs",
        "_model",
        "_refusal",
        "_started",
    )

    IGNORED = ("obfuscation",)  # random padding (gpt-5), different in every event, never read

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._fields = chat_flags(model).reasoning_fields
        self._started = False
        self._refusal = False
        self._details: dict[Any, dict[str, Any]] = {}  # OpenRouter reasoning_details by index
        self._cited: list[Any] = []  # annotations taken (a stream may repeat them)
        self._kept: dict[str, Any] = {}  # _KEPT values as last sent to provider_data
        self._answered: Any = None  # the response's model, as last seen
        self._calls = False  # tool_calls seen (a legacy function_call then is a mirror)
        self._audio: dict[str, Any] | None = None  # audio fields but data and transcript
        self._audio_data: list[str] = []
        self._logprobs: dict[str, Any] | None = None

    def _full_path(self, frame: Frame) -> dict[str, Any] | None:
        """One SSE event; its chunk (any chunk may be an argument delta)."""
        data = frame.data
        if data == "[DONE]":  # the terminal event; what follows is not read (QUIRKS A4)
            self.flush()
            self._sink.complete()
            return None
        chunk = self._object(data)
        if chunk is None:
            return None
        self.chunk(chunk, data)
        return chunk

    def _argument_delta(self, payload: Any) -> tuple[int, str] | None:
        return _argument_delta(payload)

    def chunk(self, chunk: dict[str, Any], seed: str, *, whole: bool = False) -> None:
        """One decoded chunk (``whole``: a non-streamed body, whose calls have no index)."""
        sink = self._sink
        if not self._started:
            self._started = True
            sink.meta(chunk.get("id") or None, seed=seed)
            if chunk.get("created") is not None:  # the same in every chunk (Unix seconds)
                sink.provider_data("created", chunk["created"])
        elif chunk.get("id"):
            sink.meta(chunk["id"])
        if chunk.get("error"):  # an error payload inside a 200 stream (QUIRKS A5, A7)
            sink.fail(error_from_body(chunk, provider=self._model.provider))
            return
        usage = chunk.get("usage")
        if usage is None and "x_groq" in chunk:  # Groq's own place for it
            usage = (obj(sink, chunk["x_groq"], "x_groq") or {}).get("usage")
        usage = obj(sink, usage, "usage")
        if usage:  # any chunk may carry usage; the last one holds (QUIRKS A8, J1)
            neutral = _usage(sink, usage)
            sink.usage(neutral)
            if total_disagrees(sink, usage, neutral) or unmapped_usage(usage, MAPPED_USAGE):
                sink.provider_data("usage", usage)
        answered = chunk.get("model")
        if answered and answered != self._answered:
            self._answered = answered
            if answered != self._model.id:
                sink.provider_data("model", answered)  # the snapshot behind an alias
        kept = self._kept
        for key in _KEPT:  # the same in every chunk: passed on once, and again if it changes
            value = chunk.get(key)
            if value is not None and kept.get(key) != value:
                kept[key] = value
                sink.provider_data(key, value)
        choices = chunk.get("choices")
        if choices is None and whole:
            # OpenRouter: a body with null choices and no error is a transient failure (A7)
            sink.fail(ServerError("The response had no choices", provider=self._model.provider))
            return
        for choice in seq(sink, choices, "choices"):  # never index choices[0] blindly (A8)
            if isinstance(choice, dict):
                self._choice(choice, whole)

    def eof(self) -> None:
        """End of the bytes: nothing to add (``[DONE]`` is the terminal event)."""

    def _choice(self, choice: dict[str, Any], whole: bool) -> None:
        sink = self._sink
        if choice.get("index", 0) != 0:
            sink.unknown("choices", "Choices other than the first were ignored (n > 1)")
            return
        delta = choice.get("delta")
        if delta is None:
            delta = choice.get("message")
        delta = obj(sink, delta, "choice.delta") or {}
        # One pass over the delta's keys (usually one or two) rather than a lookup per field.
        content = reasoning = refusal = calls = details = annotations = legacy = audio = None
        fields = self._fields
        for key, value in delta.items():
            if key == "tool_calls":
                calls = value
            elif key == "content":
                content = value
            elif key == "role":
                continue
            elif key in fields:
                # first non-empty in the configured order: chutes sends two (QUIRKS F8)
                if (
                    value
                    and isinstance(value, str)
                    and (reasoning is None or fields.index(key) < fields.index(reasoning[0]))
                ):
                    reasoning = (key, value)
            elif key == "refusal":
                refusal = value
            elif key == "reasoning_details":
                details = value
            elif key == "annotations":
                annotations = value
            elif key == "function_call":
                legacy = value
            elif key == "audio":
                audio = value
        if reasoning is not None:
            sink.thinking(reasoning[1])
        if details and isinstance(details, list):
            self._reasoning_details(details)
        if audio is not None:
            self._audio_delta(audio)
        if content:
            if isinstance(content, str):
                sink.text(content)
            elif isinstance(content, list):
                self._content_parts(content)
        if annotations:
            self._annotations(annotations)
        if refusal is not None:
            refusal = text(sink, refusal, "delta.refusal")
            if refusal:
                self._refusal = True
                sink.text(refusal)
        if calls:
            self._calls = True
            tool_call = sink.tool_call
            for position, tc in enumerate(seq(sink, calls, "delta.tool_calls")):
                if not isinstance(tc, dict):
                    continue
                index = tc.get("index", position if whole else None)
                custom, kind = tc.get(CUSTOM), tc.get("type")
                if kind is not None and kind != "function" and kind != CUSTOM:
                    sink.unknown(
                        f"tool_call.type:{kind}",
                        f"A tool call of type {kind!r}: read as a function call",
                        type=kind,
                    )
                if custom is not None or kind == CUSTOM:
                    # a freeform call: its input is plain text, kept as raw_arguments
                    c = obj(sink, custom, "tool_call.custom") or {}
                    tool_call(
                        index,
                        tc.get("id"),
                        c.get("name"),
                        c.get("input"),
                        position=position,
                        replay={"type": CUSTOM},
                    )
                    continue
                fn = obj(sink, tc.get("function"), "tool_call.function") or {}
                extra = tc.get("extra_content")
                tool_call(
                    index,
                    tc.get("id") or fn.get("id"),  # llama.cpp put the id in function (D4)
                    fn.get("name"),
                    fn.get("arguments"),
                    position=position,
                    replay={"extra_content": extra} if extra else None,  # QUIRKS F3
                )
        if legacy is not None:
            self._legacy_call(legacy)
        self._choice_end(choice)

    def _choice_end(self, choice: dict[str, Any]) -> None:
        sink = self._sink
        usage = obj(sink, choice.get("usage"), "choice.usage")
        if usage:  # Moonshot reports usage inside the choice
            sink.usage(_usage(sink, usage))
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            self._take_logprobs(logprobs)
        native = choice.get("native_finish_reason")
        if native:
            sink.provider_data("native_finish_reason", native)  # OpenRouter (QUIRKS E5)
        reason = text(sink, choice.get("finish_reason"), "finish_reason")
        if reason:
            if reason == "error":  # OpenRouter: an error after generation started (A7, E5)
                body = {"error": choice.get("error") or {"message": "finish_reason: error"}}
                sink.fail(error_from_body(body, provider=self._model.provider))
                return
            if fail_turn(sink, reason, None, self._model.provider):
                return  # Gemini's compat endpoint passes MALFORMED_FUNCTION_CALL through (E4)
            mapped = FINISH.get(reason)
            if mapped == "stop" and self._refusal:
                mapped = "refusal"
            self.flush()
            sink.finish(reason, mapped)

    def flush(self) -> None:
        """Pass on what was gathered over the stream (audio data, logprobs): before the
        finish reason, at ``[DONE]`` and at the end of a whole body."""
        if self._audio is not None or self._audio_data:
            audio = dict(self._audio or {})
            if self._audio_data:
                audio["data"] = "".join(self._audio_data)
            self._sink.provider_data("audio", audio)
        if self._logprobs is not None:
            self._sink.provider_data("logprobs", self._logprobs)

    def _audio_delta(self, value: Any) -> None:
        """``audio``: the transcript is text; the rest is kept (see the module docstring)."""
        audio = obj(self._sink, value, "audio")
        if not audio:
            return
        for key, item in audio.items():
            if key == "transcript":
                transcript = text(self._sink, item, "audio.transcript")
                if transcript:
                    self._sink.text(transcript)
            elif key == "data":
                if isinstance(item, str):
                    self._audio_data.append(item)
                elif item is not None:
                    wrong_type(self._sink, "audio.data", item, "a string")
            elif item is not None:
                if self._audio is None:
                    self._audio = {}
                self._audio[key] = item

    def _take_logprobs(self, value: Any) -> None:
        """``choice.logprobs``: token lists joined over the stream, anything else as sent."""
        logprobs = obj(self._sink, value, "logprobs")
        if logprobs is None:
            return
        if self._logprobs is None:
            self._logprobs = {}
        for key, item in logprobs.items():
            have = self._logprobs.get(key)
            if isinstance(item, list) and isinstance(have, list):
                have.extend(item)
            elif isinstance(item, list):
                self._logprobs[key] = list(item)
            elif item is not None or key not in self._logprobs:
                self._logprobs[key] = item

    def _legacy_call(self, value: Any) -> None:
        """The legacy ``function_call``: one call, no id (slot :data:`LEGACY`)."""
        fc = obj(self._sink, value, "function_call")
        if not fc:
            return
        if self._calls:
            self._sink.unknown(
                "function_call",
                "A legacy function_call next to tool_calls was ignored",
                name=fc.get("name"),
            )
            return
        self._sink.tool_call(LEGACY, None, fc.get("name"), fc.get("arguments"))

    def _content_parts(self, parts: list[Any]) -> None:
        # Mistral magistral sends content as typed parts, thinking included.
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                self._sink.text(part["text"])
            elif part.get("type") == "thinking":
                for inner in seq(self._sink, part.get("thinking"), "content.thinking"):
                    if isinstance(inner, dict) and isinstance(inner.get("text"), str):
                        self._sink.thinking(inner["text"])

    def _annotations(self, annotations: Any) -> None:
        """``message.annotations`` / ``delta.annotations``: web-search ``url_citation`` entries
        (search-preview models, OpenRouter's web plugin) as citations of the text. A stream
        may send an annotation again: each is taken once."""
        for raw in seq(self._sink, annotations, "annotations"):
            if not isinstance(raw, dict):
                wrong_type(self._sink, "annotation", raw, "an object")
            elif raw not in self._cited:
                self._cited.append(raw)
                self._sink.citation(_citation(raw))

    def _reasoning_details(self, details: list[Any]) -> None:
        """OpenRouter ``reasoning_details``: kept verbatim, streamed pieces merged by
        ``index`` (QUIRKS F7)."""
        for item in details:
            if not isinstance(item, dict):
                continue
            key = item.get("index", len(self._details))
            if not isinstance(key, (int, str)):
                wrong_type(self._sink, "reasoning_details.index", key, "an index")
                key = len(self._details)
            merged = self._details.get(key)
            if merged is None:
                self._details[key] = dict(item)
                continue
            for field, value in item.items():
                before = merged.get(field)
                if field in _MERGED and isinstance(value, str):
                    if isinstance(before, str):
                        merged[field] = before + value
                        continue
                    if before is not None:  # an earlier piece that was not text: replaced
                        wrong_type(self._sink, f"reasoning_details.{field}", before, "a string")
                    merged[field] = value
                elif before is None:
                    merged[field] = value
                elif field in _MERGED and value is not None:  # not text after text
                    wrong_type(self._sink, f"reasoning_details.{field}", value, "a string")
        self._sink.provider_data("reasoning_details", list(self._details.values()))


def _citation(raw: dict[str, Any]) -> Citation:
    inner = raw.get(raw.get("type") or "url_citation")
    fields = inner if isinstance(inner, dict) else raw
    url, title = fields.get("url"), fields.get("title")
    start, end = fields.get("start_index"), fields.get("end_index")
    return Citation(
        url=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        start=start if isinstance(start, int) and not isinstance(start, bool) else None,
        end=end if isinstance(end, int) and not isinstance(end, bool) else None,
        provider_data=dict(raw),
    )


def _argument_delta(chunk: Any) -> tuple[int, str] | None:
    """``(index, fragment)`` when the full path reads ``chunk`` as nothing but argument text
    for the call at ``index`` (the response id, if any, already known): the splice's check.
    Every field the full path reads is checked; anything else it reads is left out."""
    if chunk.__class__ is not dict:
        return None
    rid = chunk.get("id")
    if (rid is not None and rid.__class__ is not str) or chunk.get("error"):
        return None
    if chunk.get("usage") is not None or "x_groq" in chunk:
        return None
    choice = first_alone(chunk.get("choices"))
    if choice is None or choice.get("usage") is not None or choice.get("native_finish_reason"):
        return None
    if choice.get("logprobs") is not None:  # gathered by the full path
        return None
    if choice.get("finish_reason") is not None:
        return None
    delta: Any = choice.get("delta")  # JSON of any type: checked by class below
    if delta.__class__ is not dict:
        return None
    for key, value in delta.items():
        if key not in ("tool_calls", "role") and value is not None:
            return None
    calls = delta.get("tool_calls")
    if calls.__class__ is not list or len(calls) != 1:
        return None
    tc = calls[0]
    if tc.__class__ is not dict or tc.get("id") or "extra_content" in tc:
        return None
    fn = tc.get("function")
    if fn.__class__ is not dict or len(fn) != 1:
        return None
    index, args = tc.get("index"), fn.get("arguments")
    if index.__class__ is not int or args.__class__ is not str:
        return None
    return index, args


def decode_response(sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``chat.completion`` body through the same neutral deltas; ``seed`` (the
    body text) makes synthesised ids deterministic."""
    if not isinstance(body, dict):
        sink.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    decoder = Decoder(sink, model)
    decoder.chunk(body, seed, whole=True)
    if not sink.ended:
        decoder.flush()
        sink.complete()
