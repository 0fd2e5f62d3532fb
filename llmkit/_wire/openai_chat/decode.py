"""OpenAI Chat Completions (``api="openai-chat"``), also every OpenAI-compatible server.

Two pure halves, no I/O and no JSON repair: request building lives in
:mod:`llmkit._wire.openai_chat.request` (re-exported here); this module decodes. The
:class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
:func:`decode_response` does the same for a non-streamed body (one path for both). Server
quirks are read from ``model.compat`` or recognised from the payload itself.
"""

from __future__ import annotations

from typing import Any

from ..._classify import error_from_body
from ..._errors import ServerError
from ..._messages import Citation, StopReason, Usage
from ..._models import Model
from ..contract import DeltaSink, Frame
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
    return Usage(input=prompt, output=output, cache_read=cached, reasoning=reasoning)


class Decoder(SplicedDecoder):
    """Streamed Chat Completions: SSE events → neutral deltas."""

    __slots__ = ("_cited", "_details", "_fields", "_model", "_refusal", "_started")

    IGNORED = ("obfuscation",)  # random padding (gpt-5), different in every event, never read

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._fields = chat_flags(model).reasoning_fields
        self._started = False
        self._refusal = False
        self._details: dict[Any, dict[str, Any]] = {}  # OpenRouter reasoning_details by index
        self._cited: list[Any] = []  # annotations taken (a stream may repeat them)

    def _full_path(self, sse: Frame) -> dict[str, Any] | None:
        """One SSE event; its chunk (any chunk may be an argument delta)."""
        data = sse.data
        if data == "[DONE]":  # the terminal event; what follows is not read (QUIRKS A4)
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
            sink.usage(_usage(sink, usage))
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
        content = reasoning = refusal = calls = details = annotations = None
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
        if reasoning is not None:
            sink.thinking(reasoning[1])
        if details and isinstance(details, list):
            self._reasoning_details(details)
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
            tool_call = sink.tool_call
            for position, tc in enumerate(seq(sink, calls, "delta.tool_calls")):
                if not isinstance(tc, dict):
                    continue
                fn = obj(sink, tc.get("function"), "tool_call.function") or {}
                extra = tc.get("extra_content")
                tool_call(
                    tc.get("index", position if whole else None),
                    tc.get("id") or fn.get("id"),  # llama.cpp put the id in function (D4)
                    fn.get("name"),
                    fn.get("arguments"),
                    position=position,
                    replay={"extra_content": extra} if extra else None,  # QUIRKS F3
                )
        self._choice_end(choice)

    def _choice_end(self, choice: dict[str, Any]) -> None:
        sink = self._sink
        usage = obj(sink, choice.get("usage"), "choice.usage")
        if usage:  # Moonshot reports usage inside the choice
            sink.usage(_usage(sink, usage))
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
            sink.finish(reason, mapped)

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
                if field in _MERGED and isinstance(value, str):
                    merged[field] = (merged.get(field) or "") + value
                elif field not in merged or merged[field] is None:
                    merged[field] = value
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
    if choice.get("finish_reason") is not None:
        return None
    delta = choice.get("delta")
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
        sink.complete()
