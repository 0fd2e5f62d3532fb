"""Running a probe through llmkit and saying what became of its field.

A probe is decoded twice: with the field (``body``) and without it (``baseline``). Then

* **mapped**: a marker of the field is in the message's neutral parts (text, calls, usage,
  stop reason, citations, ...), or those differ from the baseline's;
* **kept**: a marker is in what llmkit keeps verbatim (``provider_data`` on the message,
  ``replay`` / ``signature`` on a part, a citation's ``provider_data``), or that differs;
* **reported**: the message has a diagnostic the baseline has not, or the field is inside an
  item that is reported (:func:`inherit`);
* a value that only restates what the rest of the body says — a Responses lifecycle event's
  ``status`` that its event type allows (``queued`` on ``response.queued``, ``queued`` or
  ``in_progress`` on ``response.created``), a Chat tool call's ``type: "function"`` (its only
  value) — is mapped when llmkit checks it (the same body with a value that contradicts it is
  reported) and, where a later event supersedes it, keeps it when it is the last word (the
  stream cut after a non-terminal lifecycle event has it in ``provider_data["status"]``):
  :func:`restated`;
* an item probe (a union member or event type, minimal: its fields are probes of their own)
  that changes nothing and is not reported is one llmkit knows, with nothing of its own to
  map (llmkit reports the block, item and event types it does not know): mapped;
* **silent**: none of these — the field was dropped without a word;
* **crash**: llmkit raised, the SDK refused the probe, the message did not survive its own JSON,
  or ``build_request`` could not send it back. (A whole body that is a provider error raises a
  typed ``LLMError``: that is mapped, when the field changes the error.)

Every message is then sent back (``build_request`` with a user turn after it); ``replayed``
counts the kept probes whose marker is in that request's body.
"""

from __future__ import annotations

import json
import re
import traceback
from dataclasses import dataclass
from typing import Any

import llmkit

from .wires import Probe

__all__ = ["QUIET", "Outcome", "inherit", "restated", "run"]

KEPT_KEYS = ("provider_data", "replay", "signature")
QUIET = "read quietly"


@dataclass
class Outcome:
    probe: Probe
    kind: str  # mapped / kept / reported / silent / crash
    replayed: bool = False
    detail: str = ""


def _decode(model: llmkit.Model, probe: Probe, body: Any) -> llmkit.AssistantMessage:
    if probe.mode == "whole":
        return llmkit.parse_response(model, body)
    message = None
    for event in llmkit.parse_stream(model, [body]):
        if isinstance(event, (llmkit.Done, llmkit.ErrorEvent)):
            message = event.message
    assert message is not None, "the stream ended without Done or ErrorEvent"
    return message


def _failure(model: llmkit.Model, probe: Probe, body: Any) -> str:
    """The typed error ``parse_response`` raises for a body that is a provider error ("" if
    none); a stream ends with ``ErrorEvent`` instead."""
    if probe.mode == "stream":
        return ""
    try:
        llmkit.parse_response(model, body)
    except llmkit.LLMError as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def _split(value: Any) -> tuple[Any, Any]:
    """(neutral, kept) halves of a dumped message."""
    if isinstance(value, dict):
        neutral, kept = {}, {}
        for key, item in value.items():
            if key in KEPT_KEYS:
                kept[key] = item
            elif key != "diagnostics":
                neutral[key], kept[key] = _split(item)
        return neutral, kept
    if isinstance(value, list):
        halves = [_split(item) for item in value]
        return [h[0] for h in halves], [h[1] for h in halves]
    return value, None


def _has(value: Any, markers: set[Any]) -> bool:
    if not markers:
        return False
    text = json.dumps(value)
    return any((str(m) in text) if isinstance(m, str) else (json.dumps(m) in text) for m in markers)


def _diagnostics(message: llmkit.AssistantMessage) -> set[tuple[str, str]]:
    return {(d.kind, d.message) for d in message.diagnostics}


def run(model: llmkit.Model, probe: Probe) -> Outcome:
    try:
        probe.validate()
    except Exception as exc:  # the SDK refused our body: a harness bug
        return Outcome(probe, "crash", detail=f"SDK refused the probe: {exc}"[:400])
    try:
        failure, base_failure = (
            _failure(model, probe, probe.body),
            _failure(model, probe, probe.baseline),
        )
        if failure or base_failure:  # a whole body that is a provider error: a typed error
            if failure != base_failure:
                return Outcome(probe, "mapped")
            return Outcome(probe, "silent", detail=failure)
        message = _decode(model, probe, probe.body)
        base = _decode(model, probe, probe.baseline)
        again = llmkit.AssistantMessage.model_validate_json(message.model_dump_json())
        assert again == message, "the message does not survive its own JSON"
        context = llmkit.Context(
            messages=[llmkit.user("hi"), message, llmkit.user("next")],
        )
        request = llmkit.build_request(model, context, api_key="k")
        sent = request.content.decode()
    except Exception:
        return Outcome(probe, "crash", detail=traceback.format_exc(limit=-3)[-600:])
    neutral, kept = _split(message.model_dump(mode="json"))
    base_neutral, base_kept = _split(base.model_dump(mode="json"))
    markers = {m for m in probe.variant.markers if not _has(base.model_dump(mode="json"), {m})}
    replayed = _has(sent, markers) if markers else False
    if _has(neutral, markers) or neutral != base_neutral:
        return Outcome(probe, "mapped")
    if _has(kept, markers) or kept != base_kept:
        return Outcome(probe, "kept", replayed=replayed)
    if _diagnostics(message) - _diagnostics(base):
        return Outcome(probe, "reported")
    if probe.restates is not None and restated(model, probe, message):
        return Outcome(probe, "mapped", detail="restates the rest of its body: checked")
    if probe.variant.value == "item":  # a known item or event type, nothing of its own
        return Outcome(probe, "mapped", detail=QUIET)
    return Outcome(probe, "silent")


def restated(model: llmkit.Model, probe: Probe, message: llmkit.AssistantMessage) -> bool:
    """Whether llmkit checks a value that restates the rest of its body, and keeps it where a
    later event could supersede it (module docstring)."""
    assert probe.restates is not None
    contradicting, cut = probe.restates
    checked = _diagnostics(_decode(model, probe, contradicting)) - _diagnostics(message)
    if cut is None:
        return bool(checked)
    kept = (_decode(model, probe, cut).provider_data or {}).get("status")  # the only such case
    return bool(checked) and kept == probe.variant.value


def inherit(outcomes: list[Outcome]) -> list[Outcome]:
    """A silent field (or quiet item) inside an item that is itself reported (a block type
    llmkit drops with a diagnostic) is covered by that report: reported, too."""
    by_id = {o.probe.id: o for o in outcomes}
    for o in outcomes:
        if o.kind != "silent" and o.detail != QUIET:
            continue
        wire, mode, path = o.probe.id.split(":", 2)
        for cut in (m.end() for m in _ITEM.finditer(path)):
            parent = by_id.get(f"{wire}:{mode}:{path[:cut]}")
            if parent is not None and parent is not o and parent.kind == "reported":
                o.kind, o.detail = "reported", f"inside {parent.probe.id}"
                break
    return outcomes


_ITEM = re.compile(r"\[[^\]]*\]")
