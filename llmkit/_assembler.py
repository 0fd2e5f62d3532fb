"""The assembler: one provider-neutral state machine from wire deltas to events and messages.

Every wire decoder calls the same small set of methods here (the *neutral deltas*):
``meta``, ``text``, ``thinking``, ``tool_call``, ``end_text``/``end_thinking``/``end_tool_call``,
``usage``, ``finish``, ``diagnostic``, and one of ``complete`` / ``fail`` / ``end_of_stream`` /
``abort``. The assembler appends events to ``out``; the pump that drives it drains that list.
No I/O happens here, and nothing provider-specific: quirks that belong to one wire API are
handled in its decoder; the rules that hold for all of them live here (DESIGN §4):

- ids are stable: a missing/empty id is synthesised from a seed and the call ordinal; two
  distinct calls with one id get distinct ids (both kept);
- ``id``, ``name``, ``type`` are set once, never concatenated; only argument text is appended
  (QUIRKS B1, D4);
- a different id (or a new name after complete arguments) at an occupied index is a new call,
  never merged (C2, C3); a changing id on argument-only deltas stays one call (B3);
- arguments may come as many string deltas, whole, or as a JSON object: same result (D1, D2);
- a call is finalised only when its block or the stream ends;
- the stop reason is derived from what arrived, the raw value kept (E1, E2);
- exactly one ``Done`` or ``Error`` ends every stream, and after an error the partial message
  is valid to send back.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from ._blocks import Call, Text, Thinking
from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import LLMError, StreamError
from ._events import (
    DiagnosticEvent,
    Done,
    Error,
    Event,
    Start,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ._ids import synthesize_call_id
from ._messages import (
    AssistantMessage,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from ._redact import scrub

if TYPE_CHECKING:
    from ._models import Model

__all__ = ["Assembler"]


class Assembler:
    """Turns neutral deltas into events (appended to ``out``) and the final message."""

    def __init__(
        self,
        model: Model | None = None,
        *,
        tool_names: frozenset[str] | None = None,
        request_diagnostics: list[Diagnostic] | None = None,
        secret: str | None = None,
    ) -> None:
        self.out: list[Event] = []
        self._secret = secret  # only ever used to redact it from errors
        self.model = model
        self.tool_names = tool_names
        self.diagnostics: list[Diagnostic] = []
        self.message: AssistantMessage | None = None  # set by the terminal event
        self.error: Exception | None = None
        self._blocks: list[Text | Thinking | Call] = []
        self._texts: dict[object, Text] = {}
        self._thinkings: dict[object, Thinking] = {}
        self._calls: dict[int, Call] = {}  # open slot per wire index
        self._all_calls: list[Call] = []
        self._ids: set[str] = set()
        self._response_id: str | None = None
        self._seed: str | None = None
        self._raw_stop: str | None = None
        self._stop: StopReason | None = None
        self._finished = False
        self._usage: Usage | None = None
        self._provider_data: dict[str, Any] = {}
        self._done = False
        self.out.append(Start(model.provider if model else None, model.id if model else None))
        for d in request_diagnostics or ():
            self._diag(d)

    # -- neutral deltas ------------------------------------------------------------------

    def meta(self, response_id: str | None = None, seed: str | None = None) -> None:
        """Response metadata. The first non-empty response id is kept (chunk ids may change
        on every chunk, QUIRKS A9); ``seed`` (e.g. the first event's bytes) is the fallback
        for synthesising ids when the response has no id."""
        if response_id is not None and not isinstance(response_id, str):
            response_id = self._malformed("response id", response_id)
        if response_id and self._response_id is None:
            self._response_id = response_id
        if self._seed is None and (response_id or seed):
            self._seed = response_id or seed

    def text(self, delta: str, key: object = 0) -> None:
        """Text for the text part ``key`` (opened on first use)."""
        if not delta or self._done:
            return
        if delta.__class__ is not str:
            kept = self._malformed("text", delta)
            if not kept:
                return
            delta = kept
        block = self._texts.get(key)
        if block is None or not block.open:
            block = Text(key, len(self._blocks))
            self._texts[key] = block
            self._blocks.append(block)
            self.out.append(TextStart(block.index))
        block.parts.append(delta)
        self.out.append(TextDelta(block.index, delta))

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
        if self._done or not (delta or signature or redacted or replay):
            return
        if delta and not isinstance(delta, str):
            delta = self._malformed("thinking text", delta) or ""
        if signature and not isinstance(signature, str):
            signature = self._malformed("signature", signature)
        block = self._thinkings.get(key)
        if block is None or not block.open:
            block = Thinking(key, len(self._blocks))
            self._thinkings[key] = block
            self._blocks.append(block)
            self.out.append(ThinkingStart(block.index))
        if signature:
            block.signature = (block.signature or "") + signature
        if redacted:
            block.redacted = True
        if replay:
            block.replay = {**(block.replay or {}), **replay}
        if delta:
            block.parts.append(delta)
            self.out.append(ThinkingDelta(block.index, delta))

    def arguments(self, index: int, text: str) -> None:
        """More argument text for the call at the provider's slot ``index``: the hot path of a
        tool-call stream (one call per argument delta). Anything out of the ordinary — a slot
        not open or not started, empty text, text as long as what came before (a possibly
        repeated payload, QUIRKS D5), a finished stream — takes :meth:`tool_call`'s full rules."""
        slot = self._calls.get(index)
        if slot is not None and slot.started and 0 < len(text) < slot.fed and not self._done:
            self._append(slot, text)
        else:
            self.tool_call(index, arguments=text)

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
        """A tool-call delta. ``index`` is the provider's slot index (``None`` when it sent
        none: ``position`` in the delta's list is used instead, QUIRKS C1)."""
        if self._done:
            return
        if id is not None and not isinstance(id, str):
            id = self._malformed("tool call id", id)
        if name is not None and not isinstance(name, str):
            name = self._malformed("tool call name", name)
        if index is not None and not isinstance(index, int):
            index = None  # reported as a missing index below
        if arguments is not None and not isinstance(arguments, (str, dict)):
            arguments = self._malformed("tool call arguments", arguments)
        missing_index = index is None
        wire_index: int = position if index is None else index
        slot = self._calls.get(wire_index)
        if slot is not None:
            slot = self._same_call(slot, id, name, arguments)
        if slot is None:
            slot = self._open_or_adopt(wire_index, id, name, arguments, missing_index)
        if id and not slot.pid:
            slot.pid = id
        if name:
            if not slot.name:
                slot.name = name
            elif name != slot.name and not slot.name_conflict:
                slot.name_conflict = True
                self._diag_kind(
                    "tool_call_name_changed",
                    f"Tool call sent a second name {name!r}; kept the first, {slot.name!r}",
                    slot,
                    {"ignored_name": name},
                )
        if replay:
            slot.replay = {**(slot.replay or {}), **replay}
        text: str | None = None
        if isinstance(arguments, dict):
            text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
        elif arguments:
            text = arguments
        if text is not None and self._is_duplicate_payload(slot, text):
            return
        if not slot.started and (slot.name or text):
            self._start(slot)
        if text:
            self._append(slot, text)

    def _append(self, slot: Call, text: str) -> None:
        slot.fed += len(text)
        texts = slot.texts
        texts.append(text)
        pos = len(texts)
        self.out.append(
            ToolCallDelta(slot.index, slot.id, slot.name, text, lambda: slot.snapshot_at(pos))
        )

    def end_text(self, key: object = 0) -> None:
        """The text part ``key`` is complete."""
        block = self._texts.get(key)
        if block is not None and block.open:
            block.open = False
            self.out.append(TextEnd(block.index, "".join(block.parts)))

    def end_thinking(self, key: object = 0) -> None:
        """The thinking part ``key`` is complete."""
        block = self._thinkings.get(key)
        if block is not None and block.open:
            block.open = False
            self.out.append(ThinkingEnd(block.index, "".join(block.parts)))

    def end_tool_call(self, index: int) -> None:
        """The call at wire ``index`` is complete (its block ended)."""
        slot = self._calls.pop(index, None)
        if slot is not None:
            self._finalize(slot)

    def usage(self, usage: Usage) -> None:
        """Usage so far; the last report holds."""
        if self._done:
            return
        self._usage = usage
        self.out.append(UsageEvent(usage))

    def finish(self, raw: str | None, mapped: StopReason | None) -> None:
        """The provider's finish reason: ``raw`` as sent, ``mapped`` to llmkit's set (``None``
        when unknown). Ends every open block. The first reason wins; a later different one is
        reported (QUIRKS E2)."""
        if self._done:
            return
        if raw is not None and not isinstance(raw, str):
            raw, mapped = self._malformed("finish reason", raw), None
        if self._finished:
            if raw != self._raw_stop:
                self._diag_kind(
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
            self._diag_kind(
                "stop_reason_unknown", f"Unknown finish reason {raw!r}", None, {"raw": raw}
            )
        self._close_blocks()

    def provider_data(self, key: str, value: Any) -> None:
        """Keep provider-specific data verbatim on ``message.provider_data[key]`` (replaces an
        earlier value for the key)."""
        if not self._done:
            self._provider_data[key] = value

    def diagnostic(
        self,
        kind: DiagnosticKind,
        message: str,
        tool_call_id: str | None = None,
        **details: Any,
    ) -> None:
        """Report something the decoder repaired, inferred, dropped or ignored."""
        self._diag(
            Diagnostic(kind=kind, message=message, tool_call_id=tool_call_id, details=details)
        )

    # -- terminal ------------------------------------------------------------------------

    def complete(self) -> None:
        """The wire API's terminal event arrived: end with ``Done``."""
        if self._done:
            return
        self._close_blocks()
        stop = self._resolve_stop()
        if stop == "refusal":
            self._not_executable("the model refused in this turn (QUIRKS E3)")
        if self._usage is None:
            self._diag_kind("usage_missing", "The provider reported no token usage", None, {})
        message = self._build(stop)
        self._done = True
        self.message = message
        self.out.append(Done(message))

    def fail(self, error: Exception) -> None:
        """The stream failed (provider error payload, broken connection, timeout): end with
        ``Error`` carrying the partial message."""
        self._terminate("error", error)

    def end_of_stream(self) -> None:
        """EOF. Without the terminal event first, the stream was truncated."""
        if self._done:
            return
        self._diag_kind("stream_truncated", "The stream ended without its terminal event", None, {})
        self._terminate("error", StreamError("The stream ended before the response was complete"))

    def abort(self) -> None:
        """The caller stopped reading (left the ``with`` block or was cancelled)."""
        self._terminate("aborted", StreamError("The stream was closed by the caller"))

    # -- internals -----------------------------------------------------------------------

    def _terminate(self, stop: StopReason, error: Exception) -> None:
        if self._done:
            return
        self._close_blocks()
        scrub(error, self._secret)  # provider error payloads may echo the key
        message = self._build(stop, error=f"{type(error).__name__}: {error}")
        self._done = True
        self.message = message
        if isinstance(error, LLMError):
            error.partial = message
        self.error = error
        self.out.append(Error(message, error))

    def _same_call(
        self,
        slot: Call,
        id: str | None,
        name: str | None,
        arguments: str | dict[str, Any] | None,
    ) -> Call | None:
        """Decide whether a delta at an occupied index continues ``slot`` (return it) or
        starts a new call (return None, after finalising ``slot``)."""
        new_call = False
        if id and slot.pid and id != slot.pid and id not in slot.aliases:
            if name or self._args_complete(slot):
                new_call = True  # Ollama/Bedrock: every call at index 0, new ids (C2, C3)
            else:
                # Poolside/vLLM harmony: one call whose id changes between chunks (B3)
                slot.aliases.add(id)
                self._diag_kind(
                    "tool_call_id_changed",
                    f"A tool call changed its id mid-stream to {id!r}; kept the first",
                    slot,
                    {"ignored_id": id},
                )
        elif not id and name and slot.name and name != slot.name and self._args_complete(slot):
            new_call = True  # a new name after complete arguments (C2)
        if not new_call:
            return slot
        self._calls.pop(slot.wire_index, None)
        self._finalize(slot)
        if slot.missing_index:
            return None  # no index was sent at all: already reported as index_missing (C1)
        self._diag_kind(
            "tool_call_index_reused",
            f"Index {slot.wire_index} was reused by a new tool call; kept both calls",
            None,
            {"index": slot.wire_index},
        )
        return None

    def _open_or_adopt(
        self,
        wire_index: int,
        id: str | None,
        name: str | None,
        arguments: str | dict[str, Any] | None,
        missing_index: bool,
    ) -> Call:
        open_calls = [c for c in self._calls.values() if c.call is None]
        if not id and not name and arguments and len(open_calls) == 1:
            # Arguments for an index never announced while exactly one call is open: they
            # belong to that call (LibreChat, sglang, QUIRKS C3).
            slot = open_calls[0]
            self._diag_kind(
                "tool_call_index_mismatch",
                f"Arguments for unknown index {wire_index} joined the open call",
                slot,
                {"index": wire_index},
            )
            return slot
        slot = Call(wire_index, len(self._all_calls))
        self._calls[wire_index] = slot
        self._all_calls.append(slot)
        slot.missing_index = missing_index
        return slot

    def _start(self, slot: Call) -> None:
        slot.started = True
        slot.index = len(self._blocks)
        self._blocks.append(slot)
        pid = slot.pid
        if not pid:
            slot.id = synthesize_call_id(self._seed or "", slot.ordinal)
            self._ids.add(slot.id)
            self.out.append(ToolCallStart(slot.index, slot.id, slot.name))
            self._diag_kind(
                "tool_call_id_synthesized",
                "The provider sent no id for this tool call; llmkit made a deterministic one",
                slot,
                {},
            )
        elif pid in self._ids:
            n = 2
            while f"{pid}_{n}" in self._ids:
                n += 1
            slot.id = f"{pid}_{n}"
            self._ids.add(slot.id)
            self.out.append(ToolCallStart(slot.index, slot.id, slot.name))
            self._diag_kind(
                "tool_call_id_duplicate",
                f"Two distinct tool calls share the id {pid!r}; this one was renamed",
                slot,
                {"provider_id": pid},
            )
        else:
            slot.id = pid
            self._ids.add(pid)
            self.out.append(ToolCallStart(slot.index, slot.id, slot.name))
        if slot.missing_index:
            self._diag_kind(
                "tool_call_index_missing",
                "The provider sent this tool call without an index; placed it by position",
                slot,
                {},
            )

    def _malformed(self, what: str, value: Any) -> str | None:
        """A value of the wrong type from the provider: reported, and kept as text when it is
        a scalar (a numeric id still identifies its call), dropped otherwise."""
        kept = (
            str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        )
        self._diag_kind(
            "event_malformed",
            f"The provider sent a {type(value).__name__} as {what}",
            None,
            {"field": what, "kept": kept},
        )
        return kept

    def _not_executable(self, why: str) -> None:
        """Calls from a turn that must not be acted on are marked ``recovered`` (so
        ``decode_tool_call`` refuses them by default) and reported."""
        for slot in self._all_calls:
            call = slot.call
            if call is not None and call.status == "complete":
                slot.call = call.model_copy(update={"status": "recovered"})
                self._diag_kind(
                    "tool_call_not_executable",
                    f"This tool call is not safe to execute: {why}",
                    slot,
                    {"reason": why},
                )

    def _args_complete(self, slot: Call) -> bool:
        return slot.fed > 0 and slot.parser.is_complete_value()

    def _is_duplicate_payload(self, slot: Call, text: str) -> bool:
        """A whole payload repeated after the arguments were already complete JSON (LiteLLM's
        summary chunk, possibly double-encoded, QUIRKS D5) is reported, not appended."""
        if (
            not slot.fed
            or len(text) < slot.fed  # a repeated whole payload is at least as long
            or text.lstrip()[:1] not in ("{", '"')
        ):
            return False
        try:
            current = json.loads(slot.raw())  # at most as long as ``text``: linear overall
            candidate = json.loads(text)
            if isinstance(candidate, str):
                candidate = json.loads(candidate)
        except ValueError:
            return False
        if candidate != current:
            return False
        self._diag_kind(
            "tool_arguments_duplicate",
            "A repeated copy of this call's complete arguments was ignored",
            slot,
            {},
        )
        return True

    def _finalize(self, slot: Call) -> None:
        if slot.call is not None:
            return
        if not slot.started:
            self._start(slot)
        raw = slot.raw()
        result = slot.finish(raw)
        if result.status == "recovered":
            self._diag_kind(
                "tool_arguments_recovered",
                f"Tool call arguments were not strict JSON; recovered ({result.mode})",
                slot,
                {
                    "mode": result.mode,
                    "repairs": list(result.repairs),
                    "error": result.error,
                    "position": result.position,
                },
            )
        elif result.status == "invalid":
            self._diag_kind(
                "tool_arguments_invalid",
                f"Tool call arguments could not be parsed: {result.error}",
                slot,
                {"error": result.error, "position": result.position},
            )
        if not slot.name:
            self._diag_kind(
                "tool_call_unknown_name", "The provider sent no name for this tool call", slot, {}
            )
        elif self.tool_names is not None and slot.name not in self.tool_names:
            self._diag_kind(
                "tool_call_unknown_name",
                f"The model called {slot.name!r}, which is not among the request's tools",
                slot,
                {"name": slot.name},
            )
        slot.call = ToolCall(
            id=slot.id,
            name=slot.name,
            arguments=result.value,
            raw_arguments=raw,
            status=result.status,
            provider_id=None if slot.id == slot.pid else slot.pid,
            replay=slot.replay,
        )
        self.out.append(ToolCallEnd(slot.index, slot.call))

    def _close_blocks(self) -> None:
        for block in self._blocks:
            if isinstance(block, Text):
                self.end_text(block.key)
            elif isinstance(block, Thinking):
                self.end_thinking(block.key)
        for slot in list(self._calls.values()):
            self._finalize(slot)
        self._calls.clear()
        for slot in self._all_calls:  # a slot never started (no name, no arguments)
            self._finalize(slot)

    def _resolve_stop(self) -> StopReason:
        has_calls = bool(self._all_calls)
        raw, stop = self._raw_stop, self._stop
        if not self._finished:
            inferred: StopReason = "tool_use" if has_calls else "stop"
            self._diag_kind(
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
            self._diag_kind(
                "stop_reason_inferred",
                f"Finish reason {raw!r} came with tool calls; stop reason is 'tool_use'",
                None,
                {"raw": raw, "inferred": "tool_use"},
            )
            return "tool_use"
        if stop == "tool_use" and not has_calls:
            self._diag_kind(
                "stop_reason_inferred",
                f"Finish reason {raw!r} came without any tool call; stop reason is 'stop'",
                None,
                {"raw": raw, "inferred": "stop"},
            )
            return "stop"
        return stop

    def _build(self, stop: StopReason, error: str | None = None) -> AssistantMessage:
        content: list[TextPart | ThinkingPart | ToolCall] = []
        for block in self._blocks:
            if isinstance(block, Call):
                if block.call is not None:
                    content.append(block.call)
            else:
                content.append(block.part())
        usage = self._usage or Usage()
        if self.model is not None and usage.cost is None:
            cost = self.model.cost_of(usage)
            if cost is not None:
                usage = usage.model_copy(update={"cost": cost})
        m = self.model
        return AssistantMessage.model_construct(
            role="assistant",
            content=content,
            stop_reason=stop,
            raw_stop_reason=self._raw_stop,
            usage=usage,
            diagnostics=list(self.diagnostics),
            provider=m.provider if m else None,
            api=m.api if m else None,
            model=m.id if m else None,
            response_id=self._response_id,
            error=error,
            provider_data=copy.deepcopy(self._provider_data) or None,
        )

    def _diag(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)
        self.out.append(DiagnosticEvent(diagnostic))

    def _diag_kind(
        self, kind: DiagnosticKind, message: str, slot: Call | None, details: dict[str, Any]
    ) -> None:
        self._diag(
            Diagnostic(
                kind=kind,
                message=message,
                tool_call_id=slot.id if slot is not None and slot.id else None,
                details=details,
            )
        )
