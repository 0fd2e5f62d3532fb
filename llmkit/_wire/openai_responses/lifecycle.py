"""What a Responses response says about itself: the envelope every lifecycle event carries
(``response.created``, ``.queued``, ``.in_progress``, ``.completed``, ``.incomplete``,
``.failed``; a whole body is one of them), and its error.

One record, whichever event carries it, streamed or whole:

- ``id`` → ``message.response_id``, ``model`` → ``message.provider_data["model"]`` (when it
  is not the id asked for: the snapshot behind an alias), and ``created_at`` →
  ``message.provider_data["created_at"]``. They name the response, so they do not change: the
  first one is kept and a different later one is reported (as for Chat chunk ids, QUIRKS A9);
- ``status`` changes as the response runs (``queued`` → ``in_progress`` → ``completed``): the
  terminal event's is ``raw_stop_reason`` (``None`` when it sent none, never guessed). A status
  that contradicts its own event (``response.in_progress`` saying ``failed``) is reported. A
  stream cut before its terminal event keeps the last status it was told in
  ``message.provider_data["status"]`` (a background response still ``queued``, say);
- ``service_tier`` and the other fields of :data:`.usage.KEPT` (``moderation``,
  ``prompt_cache_diagnostics``, ...) are kept in ``message.provider_data``, the latest event's
  winning (a response created with tier ``auto`` completes with the tier that served it).

A failed response's ``error`` (and the stream's ``error`` event) becomes the typed
:class:`~llmkit.APIError` (its ``body`` the error verbatim); what the error names besides its
message — ``type``, ``code``, ``param``, a ``misalignment`` block's classification, public
explanation, continuation instruction and review target — is also said in its message, which
is what a log or ``message.error`` shows.
"""

from __future__ import annotations

from typing import Any

from ..._classify import error_from_body
from ..._errors import APIError
from ..._models import Model
from .. import typed_reads as values
from ..contract import DeltaSink
from .usage import KEPT

__all__ = ["Envelope", "response_error"]

# The statuses each lifecycle event may carry (the terminal completed event's is its stop
# reason, read by the decoder).
_STATUSES: dict[str, tuple[str, ...]] = {
    "response.created": ("queued", "in_progress"),
    "response.queued": ("queued",),
    "response.in_progress": ("in_progress",),
    "response.failed": ("failed",),
    "response.incomplete": ("incomplete",),
}


class Envelope:
    """The response's own record, updated by every lifecycle event (module docstring)."""

    __slots__ = ("_model", "_named", "_sink", "status")

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        self._sink = sink
        self._model = model
        self._named: dict[str, object] = {}  # id, model, created_at: the first of each
        self.status: str | None = None  # the latest lifecycle event's

    def read(self, event: dict[str, Any]) -> dict[str, Any]:
        """Update the record from a lifecycle event; its ``response`` object (``{}`` if none)."""
        sink = self._sink
        response = values.obj(sink, event.get("response"), "response") or {}
        kind = event["type"]
        rid = response.get("id")
        if isinstance(rid, str) and rid and self._first(kind, "id", rid):
            sink.meta(rid)
        answered = response.get("model")
        named = isinstance(answered, str) and answered and self._first(kind, "model", answered)
        if named and answered != self._model.id:  # the snapshot behind an alias
            sink.provider_data("model", answered)
        created = response.get("created_at")
        if created is not None and self._first(kind, "created_at", created):
            sink.provider_data("created_at", created)
        status = response.get("status")
        if isinstance(status, str):
            self.status = status
        if status is not None and status not in _STATUSES.get(kind, (status,)):
            sink.malformed(
                f"A {kind} event says the response is {status!r}; read as its event says",
                once=f"status:{kind}:{status}",
                event_type=kind,
                status=status,
            )
        for key in KEPT:
            if response.get(key) is not None:
                sink.provider_data(key, response[key])
        return response

    def _first(self, kind: str, field: str, value: object) -> bool:
        """Whether ``value`` is the first ``field`` the response names (then kept); a different
        later one is reported, once a stream (GitHub Copilot names another response id in
        every event)."""
        kept = self._named.get(field)
        if kept is None:
            self._named[field] = value
            return True
        if value != kept:
            self._sink.malformed(
                f"A {kind} event names response {field} {value!r}, not {kept!r}; kept the first",
                once=f"changed:{field}",
                event_type=kind,
                field=field,
                ignored=value,
            )
        return False


def response_error(err: dict[str, Any], provider: str | None) -> APIError:
    """The typed error for a Responses ``error`` object (module docstring)."""
    error = error_from_body({"error": err}, provider=provider)
    said: list[str] = []
    for key in ("type", "code", "param"):
        value = err.get(key)
        if not isinstance(value, str) or not value or value in error.message:
            continue
        if not any(s.endswith(f" {value}") for s in said):  # type and code often agree
            said.append(f"{key} {value}")
    misalignment = err.get("misalignment")
    if isinstance(misalignment, dict):
        said += _misalignment(misalignment)
    if said:
        error.message = f"{error.message} ({'; '.join(said)})"
        error.args = (error.message,)
    return error


def _misalignment(block: dict[str, Any]) -> list[str]:
    """What a ``misalignment`` block says, in words: its classification and public
    explanation, the public continuation instruction, the opaque target to continue the
    review with."""
    said: list[str] = []
    kind, why = block.get("error_type"), block.get("detailed_explanation")
    head = "misalignment" + (f" {kind}" if isinstance(kind, str) and kind else "")
    said.append(f"{head}: {why}" if isinstance(why, str) and why else head)
    steer = block.get("steer")
    if isinstance(steer, dict) and isinstance(steer.get("message"), str) and steer["message"]:
        said.append(f"to continue: {steer['message']}")
    target = block.get("review_target")
    if isinstance(target, str) and target:
        said.append(f"review target {target}")
    return said
