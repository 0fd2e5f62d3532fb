"""OpenAI Chat Completions (``api="openai-chat"``), also every OpenAI-compatible server.

Two pure halves, no I/O and no JSON repair: request building lives in
:mod:`llmkit._wire.openai_chat.request` (re-exported here); this module decodes. The
:class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
:func:`decode_response` does the same for a non-streamed body (one path for both). Server
quirks are read from ``model.compat`` or recognised from the payload itself.
"""

from __future__ import annotations

from typing import Any

from ..._assembly.assembler import Assembler
from ..._classify import error_from_body
from ..._errors import ServerError
from ..._json.scanner import loads
from ..._messages import StopReason, Usage
from ..._models import Model
from ..._sse import SSEEvent
from .request import build, headers, url

__all__ = ["Decoder", "build", "decode_response", "headers", "url"]

FINISH: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",  # the legacy functions API
    "content_filter": "content_filter",
    "eos": "stop",  # some local servers
}
MAX_MALFORMED = 100  # report at most this many malformed events one by one
_MERGED = ("text", "summary", "data", "signature")  # reasoning_details fields that stream


def _usage(u: dict[str, Any]) -> Usage:
    """Usage in llmkit's convention. OpenAI's ``prompt_tokens`` already includes cached tokens
    and ``completion_tokens`` reasoning tokens; the exceptions are recognised from the numbers."""
    pd = u.get("prompt_tokens_details") or {}
    cd = u.get("completion_tokens_details") or {}
    prompt, output = u.get("prompt_tokens"), u.get("completion_tokens")
    reasoning = cd.get("reasoning_tokens")
    if (
        isinstance(output, int)
        and isinstance(reasoning, int)
        and isinstance(prompt, int)
        and reasoning > 0
        and u.get("total_tokens") == prompt + output + reasoning
    ):
        # xAI leaves reasoning out of completion_tokens (total = prompt + completion +
        # reasoning); llmkit's output always includes it.
        output += reasoning
    cached = pd.get("cached_tokens")
    if cached is None:
        cached = u.get("prompt_cache_hit_tokens")  # DeepSeek
    return Usage(input=prompt, output=output, cache_read=cached, reasoning=reasoning)


class Decoder:
    """Streamed Chat Completions: SSE events → neutral deltas."""

    __slots__ = (
        "_asm",
        "_details",
        "_fields",
        "_malformed",
        "_model",
        "_other_choices",
        "_refusal",
        "_started",
        "done",
    )

    def __init__(self, asm: Assembler, model: Model) -> None:
        self._asm = asm
        self._model = model
        self._fields = model.compat.reasoning_fields
        self._started = False
        self._malformed = 0
        self._refusal = False
        self._other_choices = False
        self._details: dict[Any, dict[str, Any]] = {}  # OpenRouter reasoning_details by index
        self.done = False

    def feed(self, sse: SSEEvent) -> None:
        """One SSE event."""
        data = sse.data
        if self.done:
            return  # anything after [DONE] (or a terminal error) is ignored (QUIRKS A4)
        if data == "[DONE]":
            self.done = True
            self._asm.complete()
            return
        try:
            chunk = loads(data)
        except ValueError:
            chunk = None
        if not isinstance(chunk, dict):
            self._malformed_event(data)
            return
        self.chunk(chunk, data)

    def chunk(self, chunk: dict[str, Any], seed: str, *, whole: bool = False) -> None:
        """One decoded chunk (``whole``: a non-streamed body, whose calls have no index)."""
        asm = self._asm
        if not self._started:
            self._started = True
            asm.meta(chunk.get("id") or None, seed=seed)
        elif chunk.get("id"):
            asm.meta(chunk["id"])
        if chunk.get("error"):  # an error payload inside a 200 stream (QUIRKS A5, A7)
            asm.fail(error_from_body(chunk, provider=self._model.provider))
            self.done = True
            return
        usage = chunk.get("usage")
        if usage is None and "x_groq" in chunk:
            usage = (chunk["x_groq"] or {}).get("usage")  # Groq's own place for it
        if usage:  # any chunk may carry usage; the last one holds (QUIRKS A8, J1)
            asm.usage(_usage(usage))
        choices = chunk.get("choices")
        if choices is None and whole:
            # OpenRouter: a body with null choices and no error is a transient failure (A7)
            asm.fail(ServerError("The response had no choices", provider=self._model.provider))
            self.done = True
            return
        for choice in choices or ():  # never index choices[0] blindly (QUIRKS A8)
            if isinstance(choice, dict):
                self._choice(choice, whole)

    def eof(self) -> None:
        """End of the byte stream."""
        if not self.done:
            self._asm.end_of_stream()

    def _choice(self, choice: dict[str, Any], whole: bool) -> None:
        asm = self._asm
        if choice.get("index", 0) != 0:
            if not self._other_choices:
                self._other_choices = True
                asm.diagnostic("event_unknown", "Choices other than the first were ignored (n > 1)")
            return
        delta = choice.get("delta") or choice.get("message") or {}
        # One pass over the delta's keys (usually one or two) rather than a lookup per field.
        content = reasoning = refusal = calls = details = None
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
        if reasoning is not None:
            asm.thinking(reasoning[1])
        if details and isinstance(details, list):
            self._reasoning_details(details)
        if content:
            if isinstance(content, str):
                asm.text(content)
            elif isinstance(content, list):
                self._content_parts(content)
        if refusal:
            self._refusal = True
            asm.text(refusal)
        if calls:
            tool_call = asm.tool_call
            for position, tc in enumerate(calls):
                if not isinstance(tc, dict):
                    continue
                fn = tc.get("function") or {}
                if len(fn) == 1 and not tc.get("id") and "extra_content" not in tc and not whole:
                    # Most deltas: {"index": i, "function": {"arguments": "..."}}; the
                    # assembler checks the rest.
                    index, args = tc.get("index"), fn.get("arguments")
                    if index.__class__ is int and args.__class__ is str:
                        asm.arguments(index, args)
                        continue
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
        asm = self._asm
        if choice.get("usage"):  # Moonshot reports usage inside the choice
            asm.usage(_usage(choice["usage"]))
        native = choice.get("native_finish_reason")
        if native:
            asm.provider_data("native_finish_reason", native)  # OpenRouter (QUIRKS E5)
        reason = choice.get("finish_reason")
        if reason:
            if reason == "error":  # OpenRouter: an error after generation started (A7, E5)
                body = {"error": choice.get("error") or {"message": "finish_reason: error"}}
                asm.fail(error_from_body(body, provider=self._model.provider))
                self.done = True
                return
            mapped = FINISH.get(reason)
            if mapped == "stop" and self._refusal:
                mapped = "refusal"
            asm.finish(reason, mapped)

    def _content_parts(self, parts: list[Any]) -> None:
        # Mistral magistral sends content as typed parts, thinking included.
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                self._asm.text(part["text"])
            elif part.get("type") == "thinking":
                for inner in part.get("thinking") or ():
                    if isinstance(inner, dict) and isinstance(inner.get("text"), str):
                        self._asm.thinking(inner["text"])

    def _reasoning_details(self, details: list[Any]) -> None:
        """OpenRouter ``reasoning_details``: kept verbatim, streamed pieces merged by
        ``index`` (QUIRKS F7)."""
        for item in details:
            if not isinstance(item, dict):
                continue
            key = item.get("index", len(self._details))
            merged = self._details.get(key)
            if merged is None:
                self._details[key] = dict(item)
                continue
            for field, value in item.items():
                if field in _MERGED and isinstance(value, str):
                    merged[field] = (merged.get(field) or "") + value
                elif field not in merged or merged[field] is None:
                    merged[field] = value
        self._asm.provider_data("reasoning_details", list(self._details.values()))

    def _malformed_event(self, data: str) -> None:
        self._malformed += 1
        if self._malformed <= MAX_MALFORMED:
            self._asm.diagnostic(
                "event_malformed",
                "An SSE event that is not a JSON object was skipped",
                excerpt=data[:80],
            )
        elif self._malformed == MAX_MALFORMED + 1:
            # Bounded: a server spewing garbage must not grow the message without end.
            self._asm.diagnostic(
                "event_malformed",
                f"More than {MAX_MALFORMED} malformed events: further ones are skipped unreported",
                suppressed=True,
            )


def decode_response(asm: Assembler, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``chat.completion`` body through the same neutral deltas; ``seed`` (the
    body text) makes synthesised ids deterministic."""
    if not isinstance(body, dict):
        asm.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    decoder = Decoder(asm, model)
    decoder.chunk(body, seed, whole=True)
    if not decoder.done:
        asm.complete()
