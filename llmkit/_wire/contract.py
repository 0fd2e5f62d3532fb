"""The adapter contract, as types: what a wire adapter is, and what its decoder may say.

A wire adapter (one subpackage of :mod:`llmkit._wire` per wire API) is a module satisfying
:class:`WireAdapter`; mypy checks each one against it (see :mod:`llmkit._wire`). Its two
halves are pure:

- the request half maps a :class:`~llmkit.Context` and the checked
  :class:`~llmkit._options.Options` (a wire reads its body fields) to a JSON body (``build``),
  with the wire's auth ``headers`` and endpoint ``url``;
- the response half is a :class:`Decoder` that turns the frames of a streamed body (``frames``
  splits the bytes: SSE for every wire but Bedrock's event stream) into *neutral deltas*, and
  ``decode_response`` that does the same for a whole body.

A decoder writes only into a :class:`DeltaSink`, never into the concrete assembler. The rules
that hold for every wire live behind the sink, once: how many malformed events are reported
one by one (``malformed``), that an unknown event type is reported once (``unknown``), and what
ends a stream (the pipeline stops feeding frames once the sink has ``ended``, and an EOF
before that is ``stream_truncated``). Adapters never do I/O, retry, or repair JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._options import Options
from .._sse import SSEDecoder

if TYPE_CHECKING:
    from .._diagnostics import Diagnostic, DiagnosticKind
    from .._messages import Citation, Context, StopReason, Usage
    from .._models import Model

__all__ = [
    "Decoder",
    "DeltaSink",
    "Frame",
    "FrameDecoder",
    "Options",
    "TokenCounter",
    "WireAdapter",
    "sse_frames",
]


class Frame(Protocol):
    """One framed event of a streamed body: its type and its data text."""

    @property
    def event(self) -> str: ...

    @property
    def data(self) -> str: ...


class FrameDecoder(Protocol):
    """Bytes in, frames out, no I/O: ``feed`` returns the frames completed by a chunk, ``flush``
    what the end of the bytes completes. Raises :class:`~llmkit._sse.FramingError` when the
    bytes cannot be framed (``EventTooLarge`` past its size bound; a bad checksum or a frame
    cut short, for the binary framings)."""

    def feed(self, chunk: bytes) -> Sequence[Frame]: ...

    def flush(self) -> Sequence[Frame]: ...


def sse_frames(max_event_size: int) -> SSEDecoder:
    """The framing of every SSE wire."""
    return SSEDecoder(max_event_size)


class DeltaSink(Protocol):
    """The neutral deltas: everything a decoder may tell the assembler.

    ``key`` names a text or thinking part within the response (opened on first use); ``index``
    is the provider's tool-call slot. Deltas after the stream ended are ignored.
    """

    @property
    def ended(self) -> bool:
        """A terminal delta (``complete``/``fail``) was taken: nothing more is read."""
        ...

    def meta(self, response_id: str | None = None, seed: str | None = None) -> None:
        """The response id (the first non-empty one is kept); ``seed`` (e.g. the first event's
        text; the first non-empty one is kept too) makes synthesised ids deterministic when
        there is no response id. A decoder may report both with every event."""

    def text(self, delta: str, key: object = 0) -> None:
        """Text for text part ``key``."""

    def citation(self, citation: Citation, key: object = 0, *, utf8: bool = False) -> None:
        """A source cited by the text part ``key`` (``utf8``: its start/end count UTF-8 bytes
        of the part's text, not characters)."""

    def thinking(
        self,
        delta: str = "",
        key: object = 0,
        *,
        signature: str | None = None,
        redacted: bool = False,
        replay: dict[str, Any] | None = None,
    ) -> None:
        """Reasoning text, its signature (appended), redaction, opaque replay data (merged)."""

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
        """A tool-call delta at slot ``index`` (``None``: the provider sent none, ``position``
        in the delta's list is used); ``arguments`` a string fragment or a whole object."""

    @property
    def arguments(self) -> Callable[[int, str], None]:
        """``arguments(index, text)``: more argument text for the call at slot ``index``, the
        hot path, one per delta. A property (the assembler's is ``ToolCalls.arguments``
        itself): a decoder looks it up once."""
        ...

    def end_text(self, key: object = 0) -> None:
        """Text part ``key`` is complete."""

    def end_thinking(self, key: object = 0) -> None:
        """Thinking part ``key`` is complete."""

    def end_tool_call(self, index: int) -> None:
        """The call at slot ``index`` is complete (finalises it)."""

    def usage(self, usage: Usage, *, long_cache_writes: int = 0) -> None:
        """Usage so far; the last report holds (merging partial reports is the decoder's job).
        ``long_cache_writes``: how many of ``usage.cache_write`` went to long-lived (Anthropic
        1-hour) cache entries, priced at their own rate."""

    def provider_data(self, key: str, value: Any) -> None:
        """Provider-specific data kept verbatim on ``message.provider_data[key]``."""

    def finish(self, raw: str | None, mapped: StopReason | None) -> None:
        """The provider's stop reason as sent, and its mapping (``None``: unknown, reported);
        ends every open part."""

    def diagnostic(
        self, kind: DiagnosticKind, message: str, tool_call_id: str | None = None, **details: Any
    ) -> None:
        """Report a repair, inference or drop."""

    def malformed(self, message: str, *, once: str | None = None, **details: Any) -> None:
        """An event (or a field of one) of a shape the wire does not define was skipped:
        ``event_malformed``, reported one by one up to a cap per stream, then once more to say
        the rest go unreported. ``once``: report only the first for this key."""

    def unknown(self, key: str, message: str, **details: Any) -> None:
        """An event or item type llmkit does not model was ignored: ``event_unknown``, once per
        ``key``."""

    def complete(self) -> None:
        """The wire's terminal event arrived: end with ``Done``."""

    def fail(self, error: Exception) -> None:
        """An in-stream provider error: end with ``ErrorEvent`` carrying the partial message."""


class Decoder(Protocol):
    """A streamed body's frames → neutral deltas. Made per response by the adapter."""

    def feed(self, frame: Frame) -> None:
        """One frame; the pipeline stops calling once the sink has ended."""

    def eof(self) -> None:
        """The bytes ended. A wire whose end is the EOF itself (Gemini) completes here; if the
        sink has still not ended afterwards, the stream was truncated."""


class WireAdapter(Protocol):
    """One wire API: the module ``llmkit._wire.<api>`` satisfies this."""

    def headers(self, model: Model, api_key: str | None) -> dict[str, str]:
        """Auth and wire-specific headers (no header for a missing key)."""
        ...

    def url(self, model: Model, base_url: str, *, stream: bool) -> str:
        """The endpoint."""
        ...

    def build(
        self, model: Model, context: Context, opts: Options, *, stream: bool
    ) -> tuple[dict[str, Any], list[Diagnostic]]:
        """The JSON body, and a diagnostic for each change made to get there.

        Args:
            model: The target model (of this wire's ``api``).
            context: The conversation; never modified.
            opts: The checked options; the wire reads its body fields.
            stream: Whether the response is to be streamed: the wire's stream fields in the
                body, where it has any (some wires choose the stream by the URL alone).

        Returns:
            The body and the request-side diagnostics.

        Raises:
            InvalidRequestError: on every wire, an unknown ``reasoning`` level, duplicate
                tool names or a ``tool_choice`` naming an undeclared tool
                (:func:`~llmkit._wire.skeleton.build_body`), or a ``strict`` tool on a model
                without strict support (:func:`~llmkit._wire.skeleton.strict_refused`); on
                the wires that rewrite a schema, one the rewrite cannot express (OpenAI's
                strict mode, the OpenAPI subset of older Gemini models).
        """
        ...

    def frames(self, max_event_size: int) -> FrameDecoder:
        """A fresh byte framing for one streamed body."""
        ...

    def decoder(self, sink: DeltaSink, model: Model) -> Decoder:
        """A fresh decoder for one streamed body."""
        ...

    def decode_response(self, sink: DeltaSink, model: Model, body: Any, seed: str) -> None:
        """A whole (non-streamed) body, through the same deltas; ``seed`` (its text) makes
        synthesised ids deterministic. Ends the sink (``complete`` or ``fail``)."""
        ...


class TokenCounter(Protocol):
    """A wire's token-counting endpoint (``count_tokens``): the adapters of the wires that
    have one also satisfy this (see :func:`llmkit._wire.counter`)."""

    def count_url(self, model: Model, base_url: str) -> str:
        """The counting endpoint."""
        ...

    def count_body(
        self, model: Model, context: Context, opts: Options
    ) -> tuple[dict[str, Any], list[Diagnostic]]:
        """The counting body: the call's own conversation mapping (messages, system, tools,
        documents), without the generation-only fields the endpoint refuses."""
        ...

    def count_result(self, body: Any) -> int | None:
        """The input-token count in the endpoint's answer (``None``: it holds none)."""
        ...
