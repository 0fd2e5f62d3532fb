"""OpenAI Responses (``api="openai-responses"``, ``POST {base_url}/responses``).

Two pure halves, no I/O and no JSON repair:

- :func:`build` (in :mod:`.openai_responses_request`) maps a Context and options to the body;
- :class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
  :func:`decode_response` walks a non-streamed ``response`` object through the same code.

Everything is keyed by ``output_index``: argument deltas carry no ``call_id``, which comes only
on ``response.output_item.added`` (QUIRKS F5), and some servers rotate ``item_id`` between the
events of one item (GitHub Copilot). The output index is the assembler's key for text, thinking
and tool calls, so each output item becomes one part, as :mod:`.items` describes (their text:
:mod:`.messages`; the progress events of hosted items and structured calls: :mod:`.progress`;
what the lifecycle events say about the response: :mod:`.lifecycle`).

Every ``.done`` value (``output_text.done``, ``function_call_arguments.done``,
``output_item.done``, and the terminal event's ``output``) back-fills what the deltas missed:
when the streamed text is a proper prefix of it, the rest is fed as one more delta. When it
disagrees otherwise, the streamed text is kept (its events were already delivered) and an
``event_malformed`` diagnostic says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._classify import error_from_body
from ..._messages import StopReason
from ..._models import Model
from .. import typed_reads as values
from ..contract import DeltaSink, Frame
from ..splice import Splice, SplicedDecoder, learn
from .calls import CALL_TYPES, CUSTOM, call_arguments, call_id, call_name
from .items import KNOWN_HOSTED, STREAMED, Item, call_replay, item_kind, reasoning_replay
from .lifecycle import Envelope, response_error
from .messages import Messages
from .progress import PROGRESS, fold
from .request import HOSTED
from .usage import MAPPED, response_usage, total_disagrees, unmapped_usage

__all__ = ["Decoder", "decode_response"]

INCOMPLETE: dict[str, StopReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
THINKING_SEPARATOR = "\n\n"  # between the summary / reasoning-text parts of one item


class Decoder(SplicedDecoder):
    """Streamed Responses: SSE events → neutral deltas (see the module docstring)."""

    __slots__ = (
        *("_by_id", "_calls", "_envelope", "_incomplete", "_items", "_messages"),
        *("_ended", "_model", "_refusal", "_started"),
    )

    IGNORED = ("sequence_number", "obfuscation")  # different in every event, never read

    def __init__(self, sink: DeltaSink, model: Model) -> None:
        super().__init__(sink)
        self._model = model
        self._items: dict[int, Item] = {}
        self._by_id: dict[str, int] = {}  # item_id → output_index, for events without an index
        self._calls = 0
        self._envelope = Envelope(sink, model)
        self._messages = Messages(sink)  # the TextParts and their message items
        self._incomplete: list[tuple[str, dict[str, Any]]] = []  # what said "incomplete"
        self._refusal = False
        self._started = False
        self._ended = False  # a terminal event (or an error) came

    # -- input ----------------------------------------------------------------------------

    def _full_path(self, frame: Frame) -> dict[str, Any] | None:
        """One SSE event; the event when it is a function call's arguments delta."""
        data = frame.data
        if data == "[DONE]":
            return None
        event = self._object(data)
        if event is None:
            return None
        if not isinstance(event.get("type"), str):
            event["type"] = frame.event  # the data's own type is authoritative when present
        self.event(event, data)
        return event if event["type"] == _ARGUMENTS_DELTA else None

    def _learn(self, frame: Frame, payload: Any) -> Splice | None:
        return learn(frame, payload, self._argument_delta, self._more_arguments, self.IGNORED)

    def _argument_delta(self, payload: Any) -> tuple[tuple[list[str], int], str] | None:
        """``((pieces, index), fragment)`` when the full path reads ``payload`` as nothing but
        more argument text for the function call at output ``index``, whose text so far is
        ``pieces`` (the splice's check): :meth:`_emit`'s work is then :meth:`_more_arguments`'."""
        if payload.__class__ is not dict or payload.get("type") != _ARGUMENTS_DELTA:
            return None
        index = self._index(payload)
        item = self._items.get(index) if index is not None else None
        delta = payload.get("delta")
        if item is None or item.kind != "function_call" or delta.__class__ is not str:
            return None
        sub = payload.get("content_index", 0)
        pieces = item.texts.get(("args", sub if isinstance(sub, int) else 0))
        if pieces is None or item.ended:
            return None
        return (pieces, item.index), delta

    def _more_arguments(self, tag: tuple[list[str], int], delta: str) -> None:
        """:meth:`_emit` for more (non-empty) text of a call's arguments already begun."""
        pieces, index = tag
        pieces.append(delta)
        self._arguments(index, delta)

    def event(self, event: dict[str, Any], seed: str) -> None:
        """One decoded event (``seed``: its text, for deterministic ids before any id came)."""
        if not self._started:
            self._started = True
            self._sink.meta(seed=seed)  # the response id comes with the envelope (.lifecycle)
        handler = _HANDLERS.get(event["type"])
        if handler is not None:
            handler(self, event)
        else:
            self._unknown_event(event)

    def eof(self) -> None:
        """End of the bytes. Without a terminal event first (a trailing ``[DONE]`` some proxies
        add is not one) the stream was truncated (QUIRKS A4): the last status it was told is
        kept (:mod:`.lifecycle`)."""
        if not self._ended and self._envelope.status is not None:
            self._sink.provider_data("status", self._envelope.status)

    # -- lifecycle (the envelope: .lifecycle) ---------------------------------------------

    def _lifecycle(self, event: dict[str, Any]) -> None:
        """``response.created`` / ``.queued`` / ``.in_progress``: the envelope only."""
        self._envelope.read(event)

    def _completed(self, event: dict[str, Any]) -> None:
        self._ended = True
        response = self._envelope.read(event)
        self._terminal(response)
        status = response.get("status")  # the stop reason as sent (None: none sent)
        mapped: StopReason | None
        if status not in (None, "completed"):
            mapped = None  # e.g. a background response still "in_progress": reported as unknown
        elif self._refusal:
            # A refusal turn's calls are not executable (QUIRKS E3): the assembler marks them.
            mapped = "refusal"
        else:
            mapped = "tool_use" if self._calls else "stop"
        for key in ("error", "incomplete_details"):  # only a failed / incomplete one has them
            if response.get(key):
                self._sink.malformed(
                    f"A {status or 'completed'} response carried {key}; ignored",
                    once=key,
                    **{key: response[key]},
                )
        if mapped is not None:
            self._report_incomplete()
        self._sink.finish(status, mapped)
        self._sink.complete()

    def _incomplete_response(self, event: dict[str, Any]) -> None:
        self._ended = True
        response = self._envelope.read(event)
        self._terminal(response)
        details = response.get("incomplete_details") or {}
        reason = details.get("reason") if isinstance(details, dict) else None
        raw = reason if isinstance(reason, str) and reason else "incomplete"
        # max_output_tokens → length, content_filter; anything else is reported as unknown.
        self._sink.finish(raw, INCOMPLETE.get(raw))
        self._sink.complete()

    def _failed(self, event: dict[str, Any]) -> None:
        self._ended = True
        response = self._envelope.read(event)
        self._terminal(response)  # keep what was generated before the failure
        err = response.get("error")
        if not isinstance(err, dict):
            err = {"message": "The response failed (response.failed without an error object)"}
        self._sink.fail(response_error(err, self._model.provider))

    def _error(self, event: dict[str, Any]) -> None:
        self._ended = True
        # Two shapes are seen: {"type": "error", "code", "message", "param"} (the documented
        # one) and {"type": "error", "error": {"type", "code", "message"}} (real 2025 traffic).
        err = event.get("error")
        if not isinstance(err, dict):
            err = {k: event[k] for k in ("code", "message", "param") if k in event}
        self._sink.fail(response_error(err, self._model.provider))

    def _terminal(self, response: dict[str, Any]) -> None:
        """What every terminal event does first: back-fill the items from its ``output``, pass
        on the usage and what was gathered over the stream, report message items that ended
        without text."""
        self._reconcile(response)
        self._usage(response)
        for item in self._items.values():
            if item.kind == "message" and not item.ended and not item.thought:
                self._messages.no_text(item)

    def _usage(self, response: dict[str, Any]) -> None:
        """The terminal response's usage (kept whole when it holds counts llmkit does not
        map), and what is kept of its text (:meth:`.messages.Messages.end`)."""
        usage = response_usage(self._sink, response.get("usage"))
        if usage is not None:
            self._sink.usage(usage)
            sent = response["usage"]
            if total_disagrees(self._sink, sent, usage) or unmapped_usage(sent, MAPPED):
                self._sink.provider_data("usage", response["usage"])
        self._messages.end()

    def _report_incomplete(self) -> None:
        """Items and parts that said ``incomplete`` in a response that completed."""
        for what, details in self._incomplete:
            self._sink.diagnostic(
                "stop_reason_conflict",
                f"{what} is incomplete, but the response completed",
                **details,
            )

    def _reconcile(self, response: dict[str, Any]) -> None:
        """Back-fill from the terminal event's ``output``: items never streamed, or not
        finished, are completed from it (a server may send only the final response). A
        structured call that is in neither (only ``.added`` came) takes its arguments from
        ``.added``."""
        for position, obj in enumerate(values.seq(self._sink, response.get("output"), "output")):
            if not isinstance(obj, dict):
                continue
            index = self._by_id.get(_id(obj.get("id")))
            if index is None:
                known = self._items.get(position)
                # ids may rotate between events (Copilot): fall back to position and type
                if known is not None and known.kind != item_kind(obj):
                    continue
                index = position
            self._item_done(obj, index)
        for item in self._items.values():
            snapshot = item.snapshot
            if item.kind in CALL_TYPES and snapshot is not None and not item.ended:
                value = call_arguments(snapshot) if ("args", 0) not in item.texts else None
                if value is not None:  # .added, with its progress events folded in
                    self._backfill(item, ("args", 0), value)

    # -- items ----------------------------------------------------------------------------

    def _index(self, event: dict[str, Any]) -> int | None:
        index = event.get("output_index")
        if isinstance(index, int):
            return index
        return self._by_id.get(_id(event.get("item_id")))

    def _item(self, index: int, kind: str) -> Item:
        item = self._items.get(index)
        if item is None:  # a delta for an item never announced: create it implicitly
            item = self._items[index] = Item(index, kind)
            if kind in CALL_TYPES:
                self._calls += 1
        return item

    def _item_added(self, obj: dict[str, Any], index: int) -> Item:
        item_id = obj.get("id")
        if isinstance(item_id, str) and item_id:
            self._by_id[item_id] = index
            if index in self._items and self._items[index].id is None:
                self._items[index].id = item_id
        existing = self._items.get(index)
        if existing is not None:
            return existing
        kind = item_kind(obj)
        item = self._item(index, kind)
        if isinstance(item_id, str) and item_id:
            item.id = item_id
        sink = self._sink
        if kind not in STREAMED:  # its content is in the item: progress events fold into it
            item.snapshot = obj
        if kind == "hosted":
            item_type = str(obj.get("type"))
            if item_type not in KNOWN_HOSTED:
                self._once(
                    f"item:{item_type}",
                    f"An output item of type {item_type!r} was kept as opaque replay data",
                    item_type=item_type,
                )
            sink.thinking(key=index, replay={HOSTED: dict(obj)})  # opened now: keeps its place
        elif kind in CALL_TYPES:
            sink.tool_call(index, call_id(obj), call_name(obj), None, replay=call_replay(obj))
        elif kind == "reasoning" and item_id:
            # Opened here so the part keeps its place before the call it belongs to (F4), with
            # the encrypted content so far; .done's replaces it.
            sink.thinking(key=index, replay=reasoning_replay(obj))
        self._fill(obj, item)
        return item

    def _item_done(self, obj: dict[str, Any], index: int) -> None:
        item = self._item_added(obj, index)
        if item.ended:
            return
        if item.kind in CALL_TYPES and item_kind(obj) == item.kind:
            self._sink.tool_call(index, replay=call_replay(obj))  # the complete envelope
        self._fill(obj, item, done=True)
        item.ended = True
        if obj.get("status") == "incomplete":
            what = f"Output item {index} ({obj.get('type')})"
            self._incomplete.append((what, {"output_index": index, "item_type": obj.get("type")}))
        sink = self._sink
        if item.kind == "message":
            if not item.thought and not obj.get("content"):  # ("" text is an empty answer)
                self._messages.no_text(item)
            sink.end_text(index)
        elif item.kind == "reasoning":
            sink.thinking(key=index, replay=reasoning_replay(obj))
            sink.end_thinking(index)
        elif item.kind == "hosted":
            if item_kind(obj) == "hosted":  # the complete item replaces the one .added announced
                sink.thinking(key=index, replay={HOSTED: dict(obj)})
            sink.end_thinking(index)
        else:
            sink.end_tool_call(index)

    def _fill(self, obj: dict[str, Any], item: Item, *, done: bool = False) -> None:
        """Back-fill an item from its complete form (``.added`` with content, ``.done``)."""
        kind = item.kind
        if kind == "message" and item_kind(obj) == "message":
            self._messages.envelope(item, obj, done)
            for ci, part in enumerate(values.seq(self._sink, obj.get("content"), "content")):
                if isinstance(part, dict):
                    self._fill_part(item, ci, part)
        elif kind == "reasoning" and item_kind(obj) == "reasoning":
            for si, part in enumerate(values.seq(self._sink, obj.get("summary"), "summary")):
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self._backfill(item, ("summary", si), part["text"])
            for ci, part in enumerate(values.seq(self._sink, obj.get("content"), "content")):
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self._backfill(item, ("content", ci), part["text"])
        elif kind in CALL_TYPES and item_kind(obj) == kind:
            # A structured call's arguments are whole only on .done (a shell call's commands
            # stream as shell_call_command events, which the .done item sums up).
            value = call_arguments(obj) if done or kind in ("function_call", CUSTOM) else None
            if value is not None:
                self._backfill(item, ("args", 0), value)

    def _fill_part(self, item: Item, ci: int, part: dict[str, Any]) -> None:
        if part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
            self._backfill(item, ("refusal", ci), part["refusal"])
        elif part.get("type") == "output_text" and isinstance(part.get("text"), str):
            self._backfill(item, ("text", ci), part["text"])
            if part.get("logprobs"):  # the part's tokens, whole
                self._messages.logprobs(item, ci, part["logprobs"])
            if part.get("annotations"):  # those not already streamed (annotation.added)
                self._messages.cite_rest(item, ci, part["annotations"])
        elif part.get("type") == "reasoning_text" and isinstance(part.get("text"), str):
            self._backfill(item, ("content", ci), part["text"])

    # -- deltas ---------------------------------------------------------------------------

    def _emit(self, item: Item, segment: tuple[str, int], delta: str) -> None:
        """Feed ``delta`` for one segment of ``item`` to the assembler."""
        if not delta:
            return
        if item.ended:
            self._once(
                f"late:{item.index}",
                f"A delta arrived after output item {item.index} was done; ignored",
                output_index=item.index,
                malformed=True,
            )
            return
        kind = segment[0]
        pieces = item.texts.get(segment)
        first = pieces is None  # this segment's first text
        if pieces is None:
            item.texts[segment] = [delta]
        else:
            pieces.append(delta)
        sink = self._sink
        if kind in ("text", "refusal"):
            if kind == "refusal":
                self._refusal = True  # the turn is a refusal (QUIRKS E3)
            if not item.thought:  # this item's text part opens now
                self._messages.opens(item)
            sink.text(delta, key=item.index)
        elif kind == "args":
            self._arguments(item.index, delta)
        else:  # reasoning: summary or reasoning-text parts of one item, one ThinkingPart
            if first and item.thought:
                delta = THINKING_SEPARATOR + delta
            item.thought = True
            sink.thinking(delta, key=item.index)

    def _backfill(self, item: Item, segment: tuple[str, int], final: str) -> None:
        """A segment's complete text: feed what the deltas missed, report a contradiction."""
        pieces = item.texts.get(segment)
        have = "".join(pieces) if pieces else ""
        if pieces is not None and len(pieces) > 1:
            pieces[:] = [have]  # joined once; later deltas append to it
        if final == have:
            return
        if final.startswith(have):
            self._emit(item, segment, final[len(have) :])
            return
        # The deltas and the done value disagree: the streamed text was already delivered as
        # events, so it stays (the message must equal what the events said).
        self._sink.malformed(
            f"The complete {segment[0]} of output item {item.index} contradicts its streamed "
            "deltas; kept the streamed text",
            output_index=item.index,
            segment=segment[0],
            streamed_length=len(have),
            done_length=len(final),
        )

    def _segment_event(self, event: dict[str, Any], kind: str, segment: str, key: str) -> None:
        """A delta (``delta``) or done (``text``/``arguments``/…) event for one segment."""
        index = self._index(event)
        if index is None:
            self._unknown_event(event)
            return
        item = self._item(index, kind)
        if item.kind != kind:
            if item.kind != "hosted":  # a hosted item's events add nothing to the item
                self._once(
                    f"kind:{index}:{event['type']}",
                    f"{event['type']!r} arrived for output item {index}, a {item.kind!r}; ignored",
                    output_index=index,
                    malformed=True,
                )
            return
        sub = event.get("summary_index" if segment == "summary" else "content_index", 0)
        seg = (segment, sub if isinstance(sub, int) else 0)
        value = event.get(key)
        if not isinstance(value, str):
            return
        if key == "delta":
            self._emit(item, seg, value)
        else:
            self._backfill(item, seg, value)
        logprobs = event.get("logprobs") if segment == "text" else None
        if logprobs:  # a delta's tokens, or (done) all of them; usually [] on every delta
            self._messages.logprobs(item, seg[1], logprobs, more=key == "delta")

    def _summary_part(self, event: dict[str, Any]) -> None:
        # reasoning_summary_part.added/.done: a whole summary part (usually "" on .added);
        # .done says "incomplete" when generation was interrupted
        if event.get("status") == "incomplete":
            index, sub = self._index(event), event.get("summary_index")
            what = f"Reasoning summary part {sub} of output item {index}"
            self._incomplete.append((what, {"output_index": index, "summary_index": sub}))
        part = event.get("part")
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            self._segment_event({**event, "text": part["text"]}, "reasoning", "summary", "text")

    def _part_event(self, event: dict[str, Any]) -> None:
        # content_part.added/.done: a whole content part (usually "" on .added)
        index = self._index(event)
        part = event.get("part")
        ci = event.get("content_index", 0)
        if index is None or not isinstance(part, dict) or not isinstance(ci, int):
            return
        item = self._items.get(index)
        if item is not None and item.kind in ("message", "reasoning"):
            self._fill_part(item, ci, part)

    def _annotation(self, event: dict[str, Any]) -> None:
        """``response.output_text.annotation.added``: one citation, streamed."""
        index = self._index(event)
        self._messages.annotation(
            self._items.get(index) if index is not None else None, index, event
        )

    def _audio(self, event: dict[str, Any]) -> None:
        self._messages.audio(event)

    def _progress(self, event: dict[str, Any]) -> None:
        """A progress event (:mod:`.progress`): folded into its item as known so far."""
        index = self._index(event)
        item = self._items.get(index) if index is not None else None
        if item is not None and item.ended:
            return  # the complete item is in: it holds what this event streamed
        snapshot = item.snapshot if item is not None else None
        folded = fold(snapshot, event) if snapshot is not None else None
        if item is None or folded is None:
            etype = event["type"]
            found = (snapshot or {}).get("type", item.kind) if item is not None else "unknown"
            self._once(
                f"progress:{index}:{etype}",
                f"{etype!r} does not fit output item {index} (a {found!s} item); ignored",
                output_index=index,
                item_type=PROGRESS[etype],
                malformed=True,
            )
            return
        item.snapshot = folded
        if item.kind == "hosted":
            self._sink.thinking(key=item.index, replay={HOSTED: folded})

    # -- reporting ------------------------------------------------------------------------

    def _once(self, key: str, message: str, *, malformed: bool = False, **details: Any) -> None:
        if malformed:
            self._sink.malformed(message, once=key, **details)
        else:
            self._sink.unknown(key, message, **details)

    def _unknown_event(self, event: dict[str, Any]) -> None:
        index = self._index(event)
        item = self._items.get(index) if index is not None else None
        if item is not None and item.kind not in STREAMED:
            # a hosted item's status (web_search_call.searching, mcp_call.completed, ...):
            # the complete item carries it
            return
        etype = str(event.get("type"))
        self._once(etype, f"Unknown event type {etype!r} ignored", event_type=etype)


_Handler = Callable[[Decoder, dict[str, Any]], None]
_ARGUMENTS_DELTA = "response.function_call_arguments.delta"


def _id(value: Any) -> str:
    """An item id to look up ("" for none; a non-string id identifies nothing)."""
    return value if isinstance(value, str) else ""


def _item_event(step: Callable[[Decoder, dict[str, Any], int], object]) -> _Handler:
    """``output_item.added`` / ``.done``: ``step`` for the item at its output index."""

    def handle(decoder: Decoder, event: dict[str, Any]) -> None:
        obj, index = event.get("item"), decoder._index(event)
        if isinstance(obj, dict) and index is not None:
            step(decoder, obj, index)

    return handle


def _on(kind: str, segment: str, key: str) -> _Handler:
    def handle(decoder: Decoder, event: dict[str, Any]) -> None:
        decoder._segment_event(event, kind, segment, key)

    return handle


_HANDLERS: dict[str, _Handler] = {
    "response.created": Decoder._lifecycle,
    "response.queued": Decoder._lifecycle,
    "response.in_progress": Decoder._lifecycle,
    "response.completed": Decoder._completed,
    "response.incomplete": Decoder._incomplete_response,
    "response.failed": Decoder._failed,
    "error": Decoder._error,
    "response.output_item.added": _item_event(Decoder._item_added),
    "response.output_item.done": _item_event(Decoder._item_done),
    "response.content_part.added": Decoder._part_event,
    "response.content_part.done": Decoder._part_event,
    "response.output_text.delta": _on("message", "text", "delta"),
    "response.output_text.done": _on("message", "text", "text"),
    "response.output_text.annotation.added": Decoder._annotation,
    "response.refusal.delta": _on("message", "refusal", "delta"),
    "response.refusal.done": _on("message", "refusal", "refusal"),
    "response.reasoning_summary_part.added": Decoder._summary_part,
    "response.reasoning_summary_part.done": Decoder._summary_part,
    "response.reasoning_summary_text.delta": _on("reasoning", "summary", "delta"),
    "response.reasoning_summary_text.done": _on("reasoning", "summary", "text"),
    "response.reasoning_text.delta": _on("reasoning", "content", "delta"),
    "response.reasoning_text.done": _on("reasoning", "content", "text"),
    "response.function_call_arguments.delta": _on("function_call", "args", "delta"),
    "response.function_call_arguments.done": _on("function_call", "args", "arguments"),
    "response.custom_tool_call_input.delta": _on(CUSTOM, "args", "delta"),
    "response.custom_tool_call_input.done": _on(CUSTOM, "args", "input"),
    **dict.fromkeys(PROGRESS, Decoder._progress),
    **dict.fromkeys(
        ("response.audio.delta", "response.audio.done", "response.audio.transcript.delta"),
        Decoder._audio,
    ),
    "response.audio.transcript.done": Decoder._audio,
}


def decode_response(sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``response`` object through the same neutral deltas; ``seed`` (the body
    text) makes synthesised ids deterministic."""
    if not isinstance(body, dict):
        sink.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    if body.get("object") != "response" and body.get("error"):
        sink.fail(error_from_body(body, provider=model.provider))  # an error body
        return
    decoder = Decoder(sink, model)
    status = body.get("status")
    if status is None and body.get("error"):
        status = "failed"  # no status but an error: a failed response
    kind = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
        str(status), "response.completed"
    )
    decoder.event({"type": kind, "response": body}, seed)
