"""The decoding pipeline: one response's bytes → frames → its wire's decoder → the assembler →
events. No I/O: ``stream()``/``astream()``, ``complete()`` and ``parse_stream()`` all push bytes
through a :class:`Pipeline` and only move them.

The rules that end a stream live here, once, for every wire: once the assembler has ended
(the wire's terminal event, an in-stream error, an abort), nothing more is decoded — a proxy's
trailing ``[DONE]`` included (QUIRKS A4); the end of the bytes without a terminal event
is ``stream_truncated``; bytes that cannot be framed (an event larger than the size bound, an
event-stream frame with a bad checksum or cut short) end the stream with a ``StreamError``.
Nothing here catches an exception of llmkit's own code: a decoder or the assembler raising is a
bug, and it propagates (``parse_stream`` raises it; the streams end with an ``ErrorEvent`` that has
it as ``__cause__``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import _wire
from ._assembly.assembler import Assembler
from ._diagnostics import Diagnostic
from ._errors import StreamError
from ._events import Event
from ._messages import AssistantMessage
from ._models import Model
from ._sse import DEFAULT_MAX_EVENT_SIZE, FramingError
from ._wire.contract import Decoder, DeltaSink, FrameDecoder

__all__ = ["Pipeline"]


class Pipeline:
    """One response being decoded: bytes in, events out."""

    __slots__ = ("_tainted", "asm", "decoder", "frames", "invalid_utf8", "model")

    def __init__(
        self,
        model: Model,
        *,
        tool_names: frozenset[str] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
        secret: str | None = None,
        structured_output: bool = False,
    ) -> None:
        adapter = _wire.adapter(model.api)
        self.model = model
        self.asm = Assembler(
            model,
            tool_names=tool_names,
            request_diagnostics=diagnostics,
            secret=secret,
            structured_output=structured_output,
        )
        sink: DeltaSink = self.asm
        self.frames: FrameDecoder = adapter.frames(max_event_size)
        self.decoder: Decoder = adapter.decoder(sink, model)
        self.invalid_utf8 = False  # reported: bytes of the response were not UTF-8
        # The framer's list of frames that held bytes that were not UTF-8 (the same list for
        # the whole response: looked up once here, not on every read).
        self._tainted: list[Any] = getattr(self.frames, "tainted", [])

    @property
    def done(self) -> bool:
        """The stream has ended (terminal event, error or abort)."""
        return self.asm.ended

    def drain(self) -> list[Event]:
        """The events produced since the last call."""
        return self.asm.reports.drain()

    def feed(self, chunk: bytes) -> list[Event]:
        """A chunk of the body: the events it completes."""
        asm = self.asm
        if asm.ended:
            return []
        try:
            frames = self.frames.feed(chunk)
        except FramingError as exc:
            asm.fail(StreamError(str(exc)))
            return self.drain()
        if self._tainted:  # some frame held bytes that were not UTF-8: said where it is decoded
            self._decode_tainted(frames)
            return asm.reports.drain()
        feed = self.decoder.feed
        for frame in frames:
            feed(frame)
            if asm.ended:
                break  # what follows the terminal event is not read (QUIRKS A4)
        return asm.reports.drain()  # self.drain(), one call less per read

    def _decode_tainted(self, frames: Sequence[Any]) -> None:
        asm, tainted = self.asm, self._tainted
        for frame in frames:
            if not self.invalid_utf8 and any(frame is t for t in tainted):
                self.invalid_utf8 = True
                asm.reports.report(
                    "invalid_unicode",
                    "The response held bytes that are not UTF-8; they were replaced by U+FFFD",
                    None,
                    {"where": "stream", "reason": "invalid_utf8"},
                )
            self.decoder.feed(frame)
            if asm.ended:
                break
        tainted.clear()

    def eof(self) -> list[Event]:
        """The end of the body."""
        asm = self.asm
        if not asm.ended:
            try:
                frames = self.frames.flush()
            except FramingError as exc:
                asm.fail(StreamError(str(exc)))
                return self.drain()
            if self._tainted:
                self._decode_tainted(frames)
            else:
                for frame in frames:
                    self.decoder.feed(frame)
                    if asm.ended:
                        break
        if not asm.ended:
            self.decoder.eof()
        if not asm.ended:
            asm.end_of_stream()
        return self.drain()

    def whole(self, body: bytes) -> list[Event]:
        """A whole JSON body (a server that ignored ``stream: true``)."""
        text = body.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            self.asm.fail(StreamError("The response body is not valid JSON"))
            return self.drain()
        self.decode_whole(parsed, text)
        return self.drain()

    def decode_whole(self, body: Any, seed: str) -> None:
        """A decoded whole body through the wire's ``decode_response``."""
        _wire.adapter(self.model.api).decode_response(self.asm, self.model, body, seed)
        if not self.asm.ended:  # an adapter that forgot to end: a bug, said plainly
            raise RuntimeError(f"{self.model.api} decode_response did not end the response")

    def message(self) -> AssistantMessage:
        """The final message of an ended response; raises its error if it failed."""
        if self.asm.error is not None:
            raise self.asm.error
        assert self.asm.message is not None
        return self.asm.message

    def fail(self, error: Exception) -> list[Event]:
        """End with ``ErrorEvent`` (a transport failure, a timeout, llmkit's own bug)."""
        self.asm.fail(error)
        return self.drain()

    def abort(self) -> list[Event]:
        """The caller stopped reading."""
        self.asm.abort()
        return self.drain()
