"""The assembler: one provider-neutral state machine from neutral deltas to events and messages.

Every wire decoder writes the same small set of neutral deltas (the
:class:`~llmkit._wire.contract.DeltaSink` protocol, which :class:`Assembler` satisfies): ``meta``,
``text``, ``thinking``, ``tool_call``/``arguments``, ``end_text``/``end_thinking``/
``end_tool_call``, ``usage``, ``provider_data``, ``finish``, ``diagnostic``/``malformed``/
``unknown``, and one of ``complete``/``fail``; the pipeline adds ``end_of_stream`` and ``abort``.
Events are collected in :class:`~.reports.Reports` (``out``), which the pipeline drains. No I/O
happens here, and nothing provider-specific: a quirk of one wire API is handled in its decoder;
the rules that hold for all of them live here, in the tool-call slots it owns
(:class:`~.tool_calls.ToolCalls`) and in its reports (docs/design.md §4):

- ids are stable: a missing/empty id is synthesised from a seed and the call ordinal; two
  distinct calls with one id get distinct ids (both kept);
- ``id``, ``name``, ``type`` are set once, never concatenated; only argument text is appended
  (QUIRKS B1, D4);
- a different id (or a new name after complete arguments) at an occupied index is a new call,
  never merged (C2, C3); a changing id on argument-only deltas stays one call (B3);
- arguments may come as many string deltas, whole, or as a JSON object: same result (D1, D2);
- a call is finalised only when its block or the stream ends;
- the stop reason is derived from what arrived, the raw value kept (E1, E2);
- exactly one ``Done`` or ``ErrorEvent`` ends every stream, and after an error the partial message
  is valid to send back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic, DiagnosticKind
from .._errors import LLMError, StreamError
from .._events import (
    Done,
    ErrorEvent,
    OutputTextDelta,
    Start,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    UsageEvent,
)
from .._json.partial import PartialJSON
from .._messages import (
    AssistantMessage,
    Citation,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from .._redact import scrub
from .audit import repair_surrogates, repair_value
from .blocks import CallSlot, TextBlock, ThinkingBlock
from .reports import Reports
from .tool_calls import ToolCalls

if TYPE_CHECKING:
    from .._models import Model

__all__ = ["Assembler"]


def _to_characters(citations: list[Citation], which: list[int], text: str) -> None:
    """Citations ``which`` of ``citations``, whose start/end count UTF-8 bytes of ``text``,
    with character offsets instead (``None`` where a count does not fall inside ``text``)."""
    encoded = text.encode("utf-8", "surrogatepass")

    def chars(offset: int | None) -> int | None:
        if offset is None or not 0 <= offset <= len(encoded):
            return None
        return len(encoded[:offset].decode("utf-8", "ignore"))

    for i in which:
        c = citations[i]
        start, end = chars(c.start), chars(c.end)
        if start is None or end is None:
            start = end = None
        citations[i] = c.model_copy(update={"start": start, "end": end})


class Assembler:
    """Turns neutral deltas into events (collected in ``reports.out``) and the final message."""

    def __init__(
        self,
        model: Model | None = None,
        *,
        tool_names: frozenset[str] | None = None,
        request_diagnostics: list[Diagnostic] | None = None,
        secret: str | None = None,
        structured_output: bool = False,
    ) -> None:
        self._secret = secret  # only ever used to redact it from errors
        # With structured output every TextDelta carries partial_output (an OutputTextDelta):
        # the message text so far is also one JSON value, read lazily by each event.
        self._output = PartialJSON() if structured_output else None
        self.model = model
        self.message: AssistantMessage | None = None  # set by the terminal event
        self.error: Exception | None = None
        self.reports = reports = Reports()
        self._emit = reports.emit
        self._blocks: list[TextBlock | ThinkingBlock | CallSlot] = []
        self._texts: dict[object, TextBlock] = {}
        self._thinkings: dict[object, ThinkingBlock] = {}
        self.calls = ToolCalls(reports, self._place, tool_names)
        self._response_id: str | None = None
        self._raw_stop: str | None = None
        self._stop: StopReason | None = None
        self._finished = False
        self._usage: Usage | None = None
        self._long_writes = 0
        self._provider_data: dict[str, Any] = {}
        # A terminal delta was taken: ``message`` (and ``error``, on failure) are set. A plain
        # attribute, not a property: the pipeline asks after every frame.
        self.ended = False
        self._emit(Start(model.provider if model else None, model.id if model else None))
        for d in request_diagnostics or ():
            reports.add(d)

    def _place(self, block: CallSlot) -> int:
        """A block takes the next position in ``message.content``."""
        self._blocks.append(block)
        return len(self._blocks) - 1

    # -- neutral deltas ------------------------------------------------------------------

    def meta(self, response_id: str | None = None, seed: str | None = None) -> None:
        """Response metadata. The first non-empty response id is kept (chunk ids may change
        on every chunk, QUIRKS A9); ``seed`` (e.g. the first event's bytes) is the fallback
        for synthesising ids when the response has no id."""
        if response_id is not None and not isinstance(response_id, str):
            response_id = self.reports.wrong_type("response id", response_id)
        if response_id and self._response_id is None:
            self._response_id = response_id
            if not self.calls.synthesized:
                # The response id seeds synthesised ids whenever it is known in time: a first
                # event's bytes (the fallback) can repeat across responses (Azure's preamble).
                self.calls.seed = response_id
        if not self.calls.seed and seed:
            self.calls.seed = seed

    def text(self, delta: str, key: object = 0) -> None:
        """Text for the text part ``key`` (opened on first use)."""
        if not delta or self.ended:
            return
        if delta.__class__ is not str:
            kept = self.reports.wrong_type("text", delta)
            if not kept:
                return
            delta = kept
        block = self._texts.get(key)
        if block is None or not block.open:
            block = self._open_text(key)
        block.parts.append(delta)
        output = self._output
        if output is None:
            self._emit(TextDelta(block.index, delta))
        else:
            output.deltas.append(delta)
            self._emit(OutputTextDelta(block.index, delta, output, len(output.deltas)))

    def _open_text(self, key: object) -> TextBlock:
        block = TextBlock(key, len(self._blocks))
        self._texts[key] = block
        self._blocks.append(block)
        self._emit(TextStart(block.index))
        return block

    def citation(self, citation: Citation, key: object = 0, *, utf8: bool = False) -> None:
        """A source cited by the text part ``key`` (opened when it is not yet: a provider may
        send a citation before the text it supports). Carried to ``TextEnd.citations`` and
        ``TextPart.citations``. ``utf8``: its ``start``/``end`` count UTF-8 bytes of the part's
        text (Gemini); they become character offsets when the part ends (``None`` when they do
        not fall inside it)."""
        if self.ended:
            return
        block = self._texts.get(key)
        if block is None or not block.open:
            block = self._open_text(key)
        if utf8:
            if block.byte_offsets is None:
                block.byte_offsets = []
            block.byte_offsets.append(len(block.citations or ()))
        if block.citations is None:
            block.citations = [citation]
        else:
            block.citations.append(citation)

    def thinking(
        self,
        delta: str = "",
        key: object = 0,
        *,
        signature: str | None = None,
        redacted: bool = False,
        replay: dict[str, Any] | None = None,
    ) -> None:
        """Reasoning text (and/or its signature or opaque replay data) for part ``key``."""
        if self.ended or not (delta or signature or redacted or replay):
            return
        if delta and not isinstance(delta, str):
            delta = self.reports.wrong_type("thinking text", delta) or ""
        if signature and not isinstance(signature, str):
            signature = self.reports.wrong_type("signature", signature)
        block = self._thinkings.get(key)
        if block is None or not block.open:
            block = ThinkingBlock(key, len(self._blocks))
            self._thinkings[key] = block
            self._blocks.append(block)
            self._emit(ThinkingStart(block.index))
        if signature:
            block.signature = (block.signature or "") + signature
        if redacted:
            block.redacted = True
        if replay:
            block.replay = {**(block.replay or {}), **replay}
        if delta:
            block.parts.append(delta)
            self._emit(ThinkingDelta(block.index, delta))

    @property
    def arguments(self) -> Callable[[int, str], None]:
        """``arguments(index, text)``: more argument text for the call at slot ``index``, the
        hot path of a tool-call stream (one call per delta). It is :meth:`ToolCalls.arguments
        <.tool_calls.ToolCalls.arguments>` itself: a decoder's hole binds it once, and each
        delta then costs no frame of the assembler's."""
        return self.calls.arguments

    def end_text(self, key: object = 0) -> None:
        """The text part ``key`` is complete."""
        block = self._texts.get(key)
        if block is not None and block.open:
            block.open = False
            cited = block.citations
            if block.byte_offsets:
                _to_characters(cited or [], block.byte_offsets, "".join(block.parts))
            if cited:
                self._emit(TextEnd(block.index, "".join(block.parts), citations=list(cited)))
            else:
                self._emit(TextEnd(block.index, "".join(block.parts)))

    def end_thinking(self, key: object = 0) -> None:
        """The thinking part ``key`` is complete."""
        block = self._thinkings.get(key)
        if block is not None and block.open:
            block.open = False
            self._emit(ThinkingEnd(block.index, "".join(block.parts)))

    def tool_call(
        self,
        index: int | None,
        id: str | None = None,
        name: str | None = None,
        arguments: str | dict[str, Any] | None = None,
        *,
        position: int = 0,
        replay: dict[str, Any] | None = None,
    ) -> None:
        """A tool-call delta (the rules are :class:`~.tool_calls.ToolCalls`')."""
        self.calls.tool_call(index, id, name, arguments, position=position, replay=replay)

    def end_tool_call(self, index: int) -> None:
        """The call at slot ``index`` is complete."""
        self.calls.end_tool_call(index)

    def usage(self, usage: Usage, *, long_cache_writes: int = 0) -> None:
        """Usage so far; the last report holds (``long_cache_writes``: the part of the cache
        writes that went to 1-hour entries, priced at ``cost.cache_write_long``)."""
        if self.ended:
            return
        self._usage = usage
        self._long_writes = long_cache_writes
        self._emit(UsageEvent(usage))

    def finish(self, raw: str | None, mapped: StopReason | None) -> None:
        """The provider's finish reason: ``raw`` as sent, ``mapped`` to llmkit's set (``None``
        when unknown). Ends every open block. The first reason wins; a later different one is
        reported (QUIRKS E2)."""
        if self.ended:
            return
        if raw is not None and not isinstance(raw, str):
            raw, mapped = self.reports.wrong_type("finish reason", raw), None
        if self._finished:
            if raw != self._raw_stop:
                self.reports.report(
                    "stop_reason_conflict",
                    f"A second finish reason {raw!r} arrived after {self._raw_stop!r}; "
                    "kept the first",
                    None,
                    {"ignored": raw},
                )
            return
        self._finished = True
        self._raw_stop = raw
        self._stop = mapped
        if raw is not None and mapped is None:
            self.reports.report(
                "stop_reason_unknown", f"Unknown finish reason {raw!r}", None, {"raw": raw}
            )
        self._close_blocks()

    def provider_data(self, key: str, value: Any) -> None:
        """Keep provider-specific data verbatim on ``message.provider_data[key]`` (replaces an
        earlier value for the key)."""
        if not self.ended:
            self._provider_data[key] = value

    def diagnostic(
        self,
        kind: DiagnosticKind,
        message: str,
        tool_call_id: str | None = None,
        **details: Any,
    ) -> None:
        """Report something the decoder repaired, inferred, dropped or ignored."""
        self.reports.report(kind, message, tool_call_id, details)

    def malformed(self, message: str, *, once: str | None = None, **details: Any) -> None:
        """A malformed event was skipped (capped per stream; ``once``: once per key)."""
        self.reports.malformed(message, once=once, **details)

    def unknown(self, key: str, message: str, **details: Any) -> None:
        """An event type llmkit does not model was ignored (reported once per ``key``)."""
        self.reports.unknown(key, message, **details)

    # -- terminal ------------------------------------------------------------------------

    def complete(self) -> None:
        """The wire API's terminal event arrived: end with ``Done``."""
        if self.ended:
            return
        self._close_blocks()
        stop = self._resolve_stop()
        if stop == "refusal":
            self.calls.mark_not_executable("the model refused in this turn (QUIRKS E3)")
        if self._usage is None:
            self.reports.report("usage_missing", "The provider reported no token usage", None, {})
        message = self._build(stop)
        self.ended = True
        self.message = message
        self._emit(Done(message))

    def fail(self, error: Exception) -> None:
        """The stream failed (provider error payload, broken connection, timeout): end with
        ``ErrorEvent`` carrying the partial message."""
        self._terminate("error", error)

    def end_of_stream(self) -> None:
        """EOF. Without the terminal event first, the stream was truncated."""
        if self.ended:
            return
        self.reports.report(
            "stream_truncated", "The stream ended without its terminal event", None, {}
        )
        self._terminate("error", StreamError("The stream ended before the response was complete"))

    def abort(self) -> None:
        """The caller stopped reading (left the ``with`` block or was cancelled)."""
        self._terminate(
            "aborted", StreamError("The stream was closed by the caller", retryable=False)
        )

    # -- internals -----------------------------------------------------------------------

    def _terminate(self, stop: StopReason, error: Exception) -> None:
        if self.ended:
            return
        self._close_blocks()
        if not isinstance(error, LLMError):  # the event's error is always an LLMError
            wrapped = StreamError(f"{type(error).__name__}: {error}", retryable=False)
            wrapped.__cause__ = error
            error = wrapped
        scrub(error, self._secret)  # provider error payloads may echo the key
        message = self._build(stop, error=f"{type(error).__name__}: {error}")
        self.ended = True
        self.message = message
        if isinstance(error, LLMError):
            error.partial = message
        self.error = error
        self._emit(ErrorEvent(message, error))

    def _close_blocks(self) -> None:
        for block in self._blocks:
            if isinstance(block, TextBlock):
                self.end_text(block.key)
            elif isinstance(block, ThinkingBlock):
                self.end_thinking(block.key)
        self.calls.close()

    def _resolve_stop(self) -> StopReason:
        has_calls = bool(self.calls.all)
        raw, stop = self._raw_stop, self._stop
        if not self._finished:
            inferred: StopReason = "tool_use" if has_calls else "stop"
            self.reports.report(
                "stop_reason_inferred",
                f"The stream ended without a finish reason; inferred {inferred!r}",
                None,
                {"inferred": inferred},
            )
            return inferred
        if stop is None:  # unknown value, already reported
            return "tool_use" if has_calls else "stop"
        if stop == "stop" and has_calls:
            # vLLM, Ollama, Gemini's compat endpoint say "stop" with tool calls (E1)
            self.reports.report(
                "stop_reason_inferred",
                f"Finish reason {raw!r} came with tool calls; stop reason is 'tool_use'",
                None,
                {"raw": raw, "inferred": "tool_use"},
            )
            return "tool_use"
        if stop == "tool_use" and not has_calls:
            self.reports.report(
                "stop_reason_inferred",
                f"Finish reason {raw!r} came without any tool call; stop reason is 'stop'",
                None,
                {"raw": raw, "inferred": "stop"},
            )
            return "stop"
        return stop

    def _durable(self, part: TextPart | ThinkingPart) -> TextPart | ThinkingPart:
        """``part`` with lone surrogates replaced (:mod:`.audit`): the message must serialise."""
        if isinstance(part, TextPart):
            text, count = repair_surrogates(part.text)
            if count:
                part = part.model_copy(update={"text": text})
        else:
            text, count = repair_surrogates(part.thinking)
            if count:
                part = part.model_copy(update={"thinking": text})
            if part.replay is not None:  # opaque provider blocks, sent back as they came
                replay, in_replay = repair_value(part.replay)
                if in_replay:
                    part = part.model_copy(update={"replay": replay})
                    self.reports.report(
                        "invalid_unicode",
                        "Lone surrogate escapes in replay data were replaced by U+FFFD",
                        None,
                        {"where": "replay", "reason": "lone_surrogate", "count": in_replay},
                    )
        if count:
            self.reports.report(
                "invalid_unicode",
                "Lone surrogate escapes in the text were replaced by U+FFFD",
                None,
                {"where": part.type, "reason": "lone_surrogate", "count": count},
            )
        return part

    def _build(self, stop: StopReason, error: str | None = None) -> AssistantMessage:
        content: list[TextPart | ThinkingPart | ToolCall] = []
        for block in self._blocks:
            if isinstance(block, CallSlot):
                if block.call is not None:
                    content.append(block.call)
            else:
                content.append(self._durable(block.part()))
        usage = self._usage or Usage()
        if self.model is not None and usage.cost is None:
            cost = self.model.cost_of(usage, long_writes=self._long_writes)
            if cost is not None:
                usage = usage.model_copy(update={"cost": cost})
        m = self.model
        return AssistantMessage.model_construct(
            role="assistant",
            content=content,
            stop_reason=stop,
            raw_stop_reason=self._raw_stop,
            usage=usage,
            diagnostics=list(self.reports.diagnostics),
            provider=m.provider if m else None,
            api=m.api if m else None,
            model=m.id if m else None,
            response_id=self._response_id,
            error=error,
            provider_data=copy.deepcopy(self._provider_data) or None,
        )
