"""The text of a Responses turn: the TextParts its message items become (and an audio answer's
transcript), their citations and logprobs, and what is kept of the message items behind them
(see :mod:`.items` for what is kept and what goes back).

:class:`Messages` is the decoder's (:mod:`.decode`) for these; the decoder finds the item an
event belongs to and feeds the text itself.
"""

from __future__ import annotations

from typing import Any

from .. import typed_reads as values
from ..contract import DeltaSink
from .citations import annotation_citation
from .items import Item

__all__ = ["AUDIO", "Messages"]

AUDIO = "audio"  # the assembler's key of an audio answer's transcript (a TextPart)


class Messages:
    """The TextParts of one turn, in order, and the message items behind them."""

    __slots__ = ("_audio", "_logprobs", "_parts", "_sink", "_transcript")

    def __init__(self, sink: DeltaSink) -> None:
        self._sink = sink
        self._parts: list[Item | None] = []  # per TextPart: its message item (audio: None)
        self._audio: list[str] | None = None  # an audio answer's data, in pieces
        self._transcript = False  # its transcript's TextPart is open
        self._logprobs: dict[tuple[int, int], list[Any]] = {}  # by (output, content) index

    def opens(self, item: Item | None) -> None:
        """A TextPart opens: for a message item (``None``: an audio transcript)."""
        if item is not None:
            item.thought = True
        self._parts.append(item)
        self._kept()

    def envelope(self, item: Item, obj: dict[str, Any], done: bool) -> None:
        """A message item's ``phase`` (later wins) and, from its complete form, ``status``."""
        phase, status = obj.get("phase"), obj.get("status") if done else None
        changed = False
        if isinstance(phase, str) and phase != item.phase:
            item.phase, changed = phase, True
        if isinstance(status, str) and status != item.status:
            item.status, changed = status, True
        if changed and item.thought:
            self._kept()

    def _kept(self) -> None:
        """The message items' envelopes, one entry per TextPart (see :mod:`.items`)."""
        parts, sink = self._parts, self._sink
        sink.provider_data("message_ids", [i.id if i else None for i in parts])
        if any(i and i.phase for i in parts):
            # gpt-5.x labels messages; the label is sent back with the text on replay
            sink.provider_data("message_phases", [i.phase if i else None for i in parts])
        if any(i and i.status not in (None, "completed") for i in parts):
            sink.provider_data("message_statuses", [i.status if i else None for i in parts])

    def no_text(self, item: Item) -> None:
        """A message item ended without any text: reported, since nothing of it is kept."""
        self._sink.malformed(
            f"Output message item {item.index} ended without text; nothing of it was kept",
            once=f"empty:{item.index}",
            output_index=item.index,
            item_id=item.id,
        )

    # -- citations --------------------------------------------------------------------------

    def annotation(self, item: Item | None, index: int | None, event: dict[str, Any]) -> None:
        """``response.output_text.annotation.added`` for output ``item`` (at ``index``)."""
        ci, at = event.get("content_index", 0), event.get("annotation_index")
        if item is None or item.kind != "message" or item.ended or not isinstance(ci, int):
            self._sink.malformed(
                "An annotation arrived for no open message item; ignored",
                once=f"annotation:{index}",
                output_index=index,
            )
            return
        taken = item.cited.get(ci, 0) if item.cited else 0
        if isinstance(at, int) and not isinstance(at, bool):
            if at < taken:
                return  # already taken (a repeated event)
            if at > taken:
                self._sink.malformed(
                    f"Annotations {taken} to {at - 1} of content part {ci} of output item "
                    f"{index} never arrived (annotation {at} did)",
                    output_index=index,
                    missed=at - taken,
                )
                item.cited = item.cited or {}
                item.cited[ci] = at  # the .done part's annotations from here on are new
        self.cite(item, ci, event.get("annotation"))

    def cite_rest(self, item: Item, ci: int, annotations: Any) -> None:
        """A complete ``output_text`` part's ``annotations``: those not already streamed."""
        taken = item.cited.get(ci, 0) if item.cited else 0
        for annotation in values.seq(self._sink, annotations, "annotations")[taken:]:
            self.cite(item, ci, annotation)

    def cite(self, item: Item, ci: int, annotation: Any) -> None:
        """One ``output_text`` annotation of content part ``ci`` as a citation of the item's
        text part. Offsets are in the part's text: the output_text parts before ``ci`` (one
        TextPart holds them all) shift them."""
        if item.ended:
            return
        if item.cited is None:
            item.cited = {}
        item.cited[ci] = item.cited.get(ci, 0) + 1
        if not isinstance(annotation, dict):
            self._sink.malformed(
                "An annotation that is not an object was skipped", excerpt=repr(annotation)[:80]
            )
            return
        shift = item.text_before(ci)
        if not item.thought:
            self.opens(item)
        self._sink.citation(annotation_citation(annotation, shift), key=item.index)

    def logprobs(self, item: Item, ci: int, tokens: Any, *, more: bool = False) -> None:
        """An ``output_text`` part's ``logprobs``: a delta's (``more``), or the whole part's."""
        if not isinstance(tokens, list):
            return
        if more:
            self._logprobs.setdefault((item.index, ci), []).extend(tokens)
        else:
            self._logprobs[item.index, ci] = list(tokens)

    def end(self) -> None:
        """The turn ended: keep every text part's logprobs, in order
        (``message.provider_data["logprobs"]``), and the audio answer's data, joined
        (``message.provider_data["audio"]``)."""
        if self._logprobs:
            every = [t for k in sorted(self._logprobs) for t in self._logprobs[k]]
            self._sink.provider_data("logprobs", every)
        if self._audio:
            self._sink.provider_data("audio", {"data": "".join(self._audio)})

    # -- audio ------------------------------------------------------------------------------

    def audio(self, event: dict[str, Any]) -> None:
        """``response.audio.*``: an audio answer's transcript is a TextPart; its data (base64,
        in pieces) is kept whole (:meth:`end`), as on the Chat wire."""
        kind, delta = event["type"], event.get("delta")
        if kind == "response.audio.transcript.done":
            if self._transcript:
                self._transcript = False
                self._sink.end_text(AUDIO)
        elif not isinstance(delta, str):
            if kind != "response.audio.done":
                self._sink.malformed(f"A {kind} event without a text delta was skipped")
        elif kind == "response.audio.delta":
            if self._audio is None:
                self._audio = []
            self._audio.append(delta)
        elif delta:  # the transcript
            if not self._transcript:
                self._transcript = True
                self.opens(None)
            self._sink.text(delta, key=AUDIO)
