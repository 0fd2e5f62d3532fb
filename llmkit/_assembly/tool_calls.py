"""Tool-call slots: the assembler's rules for calls, the part every wire API gets wrong.

:class:`ToolCalls` is owned by the assembler and holds the rules that apply to tool calls
whatever the provider (docs/design.md §4, QUIRKS B, C, D): a slot per wire index;
stable ids, synthesised when missing and renamed when two calls share one; id and name set
once; a new call at an occupied index told apart from a changing id; arguments as string
deltas, whole or as an object; repeated payloads; finalisation and classification of the
arguments. It talks to the rest of the assembler through two narrow callbacks: ``place`` (a
started call takes the next position in the message) and its :class:`~.reports.Reports`
(events out, diagnostics).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .._diagnostics import DiagnosticKind
from .._events import ToolCallDelta, ToolCallEnd, ToolCallStart
from .._ids import synthesize_call_id
from .._json.partial import ParseResult
from .._json.scanner import loads
from .._messages import FREEFORM_CALLS, ToolCall, ToolCallStatus
from .audit import (
    MAX_DEPTH,
    duplicate_keys,
    has_surrogate,
    repair_surrogates,
    shape,
    value_surrogates,
)
from .blocks import CallSlot
from .reports import Reports

__all__ = ["ToolCalls"]


class ToolCalls:
    """The tool calls of one response (see the module docstring)."""

    __slots__ = (
        "_emit",
        "_ids",
        "_open",
        "_place",
        "_reports",
        "_suffix",
        "all",
        "closed",
        "seed",
        "synthesized",
        "tool_names",
    )

    def __init__(
        self,
        reports: Reports,
        place: Callable[[CallSlot], int],
        tool_names: frozenset[str] | None = None,
    ) -> None:
        self._reports = reports
        self._emit = reports.emit
        self._place = place
        self.tool_names = tool_names  # the request's tools: a call to another name is reported
        self.seed = ""  # what synthesised ids derive from (set by the assembler's meta delta)
        self.synthesized = False  # an id was derived from ``seed``: it may not change now
        self._open: dict[int, CallSlot] = {}  # the open slot per wire index
        self.all: list[CallSlot] = []  # every slot, in arrival order
        self._ids: set[str] = set()
        self._suffix: dict[str, int] = {}  # a shared id: the next suffix to try (linear renames)
        self.closed = False

    # -- neutral deltas ------------------------------------------------------------------

    def arguments(self, index: int, text: str) -> None:
        """More argument text for the call at the provider's slot ``index``: the hot path of a
        tool-call stream (one call per argument delta). Anything out of the ordinary — a slot
        not open or not started, empty text, text as long as what came before (a possibly
        repeated payload, QUIRKS D5), a finished stream — takes :meth:`tool_call`'s full rules."""
        slot = self._open.get(index)
        n = len(text)
        if slot is not None and slot.started and 0 < n < slot.fed and not self.closed:
            self._append(slot, text)  # what tool_call() comes to for such a delta
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
        if self.closed:
            return
        if id is not None and not isinstance(id, str):
            id = self._reports.wrong_type("tool call id", id)
        if name is not None and not isinstance(name, str):
            name = self._reports.wrong_type("tool call name", name)
        if index is not None and not isinstance(index, int):
            index = None  # reported as a missing index below
        if arguments is not None and not isinstance(arguments, (str, dict)):
            arguments = self._reports.wrong_type("tool call arguments", arguments)
        missing_index = index is None
        wire_index: int = position if index is None else index
        slot = self._open.get(wire_index)
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
                self._report(
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

    def _append(self, slot: CallSlot, text: str) -> None:
        slot.fed += len(text)
        texts = slot.texts
        texts.append(text)
        self._emit(ToolCallDelta(slot.index, slot.id, slot.name, text, slot.args, len(texts)))

    def end_tool_call(self, index: int) -> None:
        """The call at wire ``index`` is complete (its block ended)."""
        slot = self._open.pop(index, None)
        if slot is not None:
            self._finalize(slot)

    # -- internals -----------------------------------------------------------------------

    def _same_call(
        self,
        slot: CallSlot,
        id: str | None,
        name: str | None,
        arguments: str | dict[str, Any] | None,
    ) -> CallSlot | None:
        """Decide whether a delta at an occupied index continues ``slot`` (return it) or
        starts a new call (return None, after finalising ``slot``)."""
        new_call = False
        if id and slot.pid and id != slot.pid and id not in slot.aliases:
            if (name and name != slot.name) or self._args_complete(slot):
                # Ollama/Bedrock: every call at index 0, each with a new id (C2, C3). The same
                # name again before any arguments is not a second call: the id changed (B3).
                new_call = True
            else:
                # Poolside/vLLM harmony: one call whose id changes between chunks (B3)
                slot.aliases.add(id)
                self._report(
                    "tool_call_id_changed",
                    f"A tool call changed its id mid-stream to {id!r}; kept the first",
                    slot,
                    {"ignored_id": id},
                )
        elif not id and name and slot.name and name != slot.name and self._args_complete(slot):
            new_call = True  # a new name after complete arguments (C2)
        if not new_call:
            return slot
        self._open.pop(slot.wire_index, None)
        self._finalize(slot)
        if slot.missing_index:
            return None  # no index was sent at all: already reported as index_missing (C1)
        self._report(
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
    ) -> CallSlot:
        # Arguments for an index never announced while exactly one call is open: they belong
        # to that call (LibreChat, sglang, QUIRKS C3). Only that case looks at the open calls,
        # and only at one: a response with thousands of calls open stays linear.
        only = next(iter(self._open.values())) if len(self._open) == 1 else None
        if not id and not name and arguments and only is not None and only.call is None:
            slot = only
            self._report(
                "tool_call_index_mismatch",
                f"Arguments for unknown index {wire_index} joined the open call",
                slot,
                {"index": wire_index},
            )
            return slot
        slot = CallSlot(wire_index, len(self.all))
        self._open[wire_index] = slot
        self.all.append(slot)
        slot.missing_index = missing_index
        return slot

    def _start(self, slot: CallSlot) -> None:
        slot.started = True
        slot.index = self._place(slot)
        pid = slot.pid
        if not pid:
            slot.id = synthesize_call_id(self.seed, slot.ordinal)
            self.synthesized = True
            self._ids.add(slot.id)
            self._emit(ToolCallStart(slot.index, slot.id, slot.name))
            self._report(
                "tool_call_id_synthesized",
                "The provider sent no id for this tool call; llmkit made a deterministic one",
                slot,
                {},
            )
        elif pid in self._ids:
            # The suffix search resumes where the last rename of this id stopped: one id
            # repeated by thousands of calls costs linear time, not quadratic.
            n = self._suffix.get(pid, 2)
            while f"{pid}_{n}" in self._ids:
                n += 1
            self._suffix[pid] = n + 1
            slot.id = f"{pid}_{n}"
            self._ids.add(slot.id)
            self._emit(ToolCallStart(slot.index, slot.id, slot.name))
            self._report(
                "tool_call_id_duplicate",
                f"Two distinct tool calls share the id {pid!r}; this one was renamed",
                slot,
                {"provider_id": pid},
            )
        else:
            slot.id = pid
            self._ids.add(pid)
            self._emit(ToolCallStart(slot.index, slot.id, slot.name))
        if slot.missing_index:
            self._report(
                "tool_call_index_missing",
                "The provider sent this tool call without an index; placed it by position",
                slot,
                {},
            )

    def close(self) -> None:
        """The stream ended: finalise every call (a slot never started, too) and take no more
        deltas."""
        for slot in list(self._open.values()):
            self._finalize(slot)
        self._open.clear()
        for slot in self.all:
            self._finalize(slot)
        self.closed = True

    def mark_not_executable(self, why: str) -> None:
        """Calls from a turn that must not be acted on are marked ``recovered`` (so
        ``decode_tool_call`` refuses them by default) and reported."""
        for slot in self.all:
            call = slot.call
            if call is not None and call.status == "complete":
                slot.call = call.model_copy(update={"status": "recovered"})
                self._report(
                    "tool_call_not_executable",
                    f"This tool call is not safe to execute: {why}",
                    slot,
                    {"reason": why},
                )

    def _args_complete(self, slot: CallSlot) -> bool:
        return slot.fed > 0 and slot.args.is_complete_value()

    def _is_duplicate_payload(self, slot: CallSlot, text: str) -> bool:
        """A whole payload repeated after the arguments were already complete JSON (LiteLLM's
        summary chunk, possibly double-encoded, QUIRKS D5) is reported, not appended."""
        if (
            not slot.fed
            or _freeform(slot)  # plain text may repeat itself
            or len(text) < slot.fed  # a repeated whole payload is at least as long
            or text.lstrip()[:1] not in ("{", '"')
        ):
            return False
        try:
            current = loads(slot.raw())  # at most as long as ``text``: linear overall
            candidate = loads(text)
            if isinstance(candidate, str):
                candidate = loads(candidate)
        except ValueError:
            return False
        if candidate != current:
            return False
        self._report(
            "tool_arguments_duplicate",
            "A repeated copy of this call's complete arguments was ignored",
            slot,
            {},
        )
        return True

    def _finalize(self, slot: CallSlot) -> None:
        if slot.call is not None:
            return
        if not slot.started:
            self._start(slot)
        raw = slot.raw()
        freeform = _freeform(slot)
        if freeform:  # a custom tool's input is plain text (docs/design.md §6): kept whole
            result = ParseResult(value={}, status="complete")
        else:
            result = slot.finish(raw)
        depth, kept = shape(result.value)
        if depth > MAX_DEPTH:  # a message holding it would no longer validate nor serialise
            result = ParseResult(
                value={}, status="invalid", error=f"nested deeper than {MAX_DEPTH} levels"
            )
        if result.status == "recovered":
            self._report(
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
            self._report(
                "tool_arguments_invalid",
                f"Tool call arguments could not be parsed: {result.error}",
                slot,
                {"error": result.error, "position": result.position},
            )
        if not slot.name:
            self._report(
                "tool_call_unknown_name", "The provider sent no name for this tool call", slot, {}
            )
        elif self.tool_names is not None and slot.name not in self.tool_names:
            self._report(
                "tool_call_unknown_name",
                f"The model called {slot.name!r}, which is not among the request's tools",
                slot,
                {"name": slot.name},
            )
        value, raw, status = self._audit(slot, raw, result.value, result.status, kept, freeform)
        slot.call = ToolCall(
            id=slot.id,
            name=slot.name,
            arguments=value,
            raw_arguments=raw,
            status=status,
            provider_id=None if slot.id == slot.pid else slot.pid,
            replay=slot.replay,
        )
        self._emit(ToolCallEnd(slot.index, slot.call))

    def _audit(
        self,
        slot: CallSlot,
        raw: str,
        value: dict[str, Any],
        status: ToolCallStatus,
        kept: int,
        freeform: bool = False,
    ) -> tuple[dict[str, Any], str, ToolCallStatus]:
        """What keeps a call durable and unambiguous (:mod:`.audit`): lone surrogates
        replaced, a repeated key reported (the last wins) and the call then ``recovered``."""
        held = has_surrogate(raw)  # one scan of the text for both
        value, count = value_surrogates(raw, value, held)
        raw, in_raw = repair_surrogates(raw, held)
        if count or in_raw:
            self._report(
                "invalid_unicode",
                "Lone surrogate escapes in the arguments were replaced by U+FFFD",
                slot,
                {"where": "arguments", "reason": "lone_surrogate", "count": max(count, in_raw)},
            )
        if status == "complete" and not freeform:
            keys = duplicate_keys(raw, kept)
            if keys:
                self._report(
                    "tool_arguments_duplicate_keys",
                    f"The arguments repeat the key(s) {', '.join(map(repr, keys))}: the last "
                    "value of each is kept; the call is marked recovered",
                    slot,
                    {"keys": keys},
                )
                status = "recovered"
        return value, raw, status

    def _report(
        self, kind: DiagnosticKind, message: str, slot: CallSlot | None, details: dict[str, Any]
    ) -> None:
        self._reports.report(
            kind, message, slot.id if slot is not None and slot.id else None, details
        )


def _freeform(slot: CallSlot) -> bool:
    """A call whose input is freeform text, not JSON arguments (``FREEFORM_CALLS``)."""
    replay = slot.replay
    return replay is not None and replay.get("type") in FREEFORM_CALLS
