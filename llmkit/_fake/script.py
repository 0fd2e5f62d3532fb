"""What a test scripts the fake provider to do, and what the fake records.

These are plain frozen dataclasses with no I/O: :mod:`llmkit.testing` re-exports them, the wire
encoders read them, and the server paces the bytes they describe. They are wire-neutral: one
``FakeReply`` is encoded as OpenAI Chat chunks today and as Anthropic or Gemini events once those
encoders exist, so nothing here may name a field of one provider's wire format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal, Union

__all__ = [
    "STOP_REASONS",
    "USAGE_KEYS",
    "FakeError",
    "FakeReply",
    "FakeRequest",
    "FakeToolCall",
    "RawEvent",
    "Responder",
    "ScriptItem",
]

USAGE_KEYS = frozenset(
    {"input", "output", "cache_read", "cache_write", "cache_write_long", "reasoning"}
)
"""The keys a scripted ``usage`` mapping may hold: llmkit's own ``Usage`` field names, and
``cache_write_long`` (how many of ``cache_write`` went to 1-hour entries; Anthropic's wire
reports them in ``cache_creation.ephemeral_1h_input_tokens``, other wires have no such count)."""

STOP_REASONS = ("stop", "length", "tool_use", "content_filter", "refusal", "pause")
"""The values of ``FakeReply.finish_reason`` that are llmkit's own stop reasons: each wire's
encoder sends its own word for them (``"length"`` is ``max_tokens`` on Anthropic, ``MAX_TOKENS``
on Gemini); any other string is sent verbatim, as that wire's raw value."""


def wire_finish(reason: str | None, words: Mapping[str, str]) -> str | None:
    """The wire's raw value for a scripted ``finish_reason``: llmkit's stop reason in the wire's
    own word (``words``), any other string as given, ``None`` as ``None`` (the wire's default)."""
    if reason is None:
        return None
    return words.get(reason, reason)


RawEvent = Union[str, Mapping[str, Any], bytes]
"""One entry of ``FakeReply.raw_events``: a data payload (``str`` verbatim, a mapping as JSON)
framed by the wire encoder, or ``bytes`` written to the socket exactly as given."""


@dataclass(frozen=True)
class FakeToolCall:
    """A tool call the fake model makes.

    Attributes:
        name: The tool name.
        arguments: A mapping (sent as ``json.dumps`` of it) or a raw string sent verbatim, which
            lets a test send broken or truncated JSON.
        id: The call id; ``None`` gives ``call_<n>``, numbered per ``FakeProvider`` in the order
            calls are served (``call_1``, ``call_2``, ...).
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class FakeReply:
    """One scripted model reply, and how to pace and damage its bytes on the wire.

    Only ``text`` may be passed positionally. Event counts (``stall_after``, ``drop_after``) count
    the SSE events of a streamed reply; a non-streamed JSON body counts as one event, so
    ``drop_after=0`` sends the headers and then closes the connection.

    Attributes:
        text: The answer text, or ``None`` for none.
        thinking: Reasoning text (``delta.reasoning_content`` on openai-chat), or ``None``.
        tool_calls: The tool calls, in order.
        finish_reason: Why the reply ends, in llmkit's own words (:data:`STOP_REASONS`:
            ``"stop"``, ``"length"``, ``"tool_use"``, ``"content_filter"``, ``"refusal"``,
            ``"pause"``), each sent as the wire's own value (``"length"``: ``length`` on Chat
            Completions, ``max_tokens`` on Anthropic and Bedrock, ``MAX_TOKENS`` on Gemini,
            an ``incomplete`` response with ``max_output_tokens`` on Responses); one the wire
            has no word for, or any other string (a wire's raw value, e.g. ``"SAFETY"``), is
            sent as given. ``None``: the wire's value for a finished turn, with tool calls or
            without.
        usage: Token counts keyed ``input``, ``output``, ``cache_read``, ``cache_write``,
            ``cache_write_long`` (the 1-hour part of ``cache_write``, Anthropic only),
            ``reasoning`` (``input`` includes cache reads, ``output`` includes reasoning, as in
            llmkit's ``Usage``); a key left out is left out on the wire too. ``"auto"`` (the
            default) reports an estimate, as a provider would: ``input`` about four characters
            a token of the request, ``output`` of the reply. ``None`` omits usage (to test a
            server that reports none).
        chunk_size: Cut the HTTP body into socket writes of this many bytes, regardless of event
            boundaries (``None``: one write per event). Streams use chunked transfer encoding,
            one HTTP chunk per write.
        delta_size: Characters per text, thinking or argument delta.
        delay: Seconds to sleep between writes.
        stall_after: After this many events, stop writing for ``stall_seconds`` while keeping
            the connection open (for idle-timeout tests).
        stall_seconds: How long a stall lasts; ``FakeProvider.close()`` ends it early.
        drop_after: After this many events, close the socket abruptly, without the terminal
            event and without the end of the HTTP body (for truncation tests).
        first_byte_delay: Seconds to wait before sending the status line.
        headers: Extra response headers.
        omit_done: End the body cleanly but without the wire's terminal event
            (``data: [DONE]`` on openai-chat).
        raw_events: Send exactly these events instead of generating them from the fields above
            (no terminal event is added): a ``str`` is framed as one SSE data payload verbatim,
            a mapping is framed as its JSON, ``bytes`` are written unframed (comments, CRLF).
            Used only when the request asks for a stream.
        raw_body: Send exactly this body (a mapping as JSON, ``str``/``bytes`` verbatim) with
            status 200 instead of generating it. Used only when the request does not stream.
    """

    text: str | None = None
    _: KW_ONLY
    thinking: str | None = None
    tool_calls: Sequence[FakeToolCall] = ()
    finish_reason: str | None = None
    usage: Mapping[str, int] | Literal["auto"] | None = "auto"
    chunk_size: int | None = None
    delta_size: int = 8
    delay: float = 0.0
    stall_after: int | None = None
    stall_seconds: float = 30.0
    drop_after: int | None = None
    first_byte_delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    omit_done: bool = False
    raw_events: Sequence[RawEvent] | None = None
    raw_body: Mapping[str, Any] | str | bytes | None = None

    def __post_init__(self) -> None:
        # Catch script typos here, at construction, rather than as a confusing wire failure.
        if self.usage == "auto":
            pass
        elif self.usage is not None and not USAGE_KEYS.issuperset(self.usage):
            unknown = sorted(set(self.usage) - USAGE_KEYS)
            raise ValueError(f"unknown usage keys {unknown}; allowed: {sorted(USAGE_KEYS)}")
        if self.delta_size < 1:
            raise ValueError("delta_size must be >= 1")
        if self.chunk_size is not None and self.chunk_size < 1:
            raise ValueError("chunk_size must be >= 1 or None")
        for name in ("stall_after", "drop_after"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must be >= 0 or None")
        if min(self.delay, self.stall_seconds, self.first_byte_delay) < 0:
            raise ValueError("delays must be >= 0")

    @property
    def counts(self) -> Mapping[str, int] | None:
        """The token counts to put on the wire: ``usage``, or ``None`` for none (and for
        ``"auto"``, which the server replaces with its estimate before encoding)."""
        return None if self.usage == "auto" else self.usage


@dataclass(frozen=True)
class FakeError:
    """A scripted failure: an HTTP error status, or an error event inside a 200 stream.

    Attributes:
        status: The HTTP status (ignored when ``in_stream``).
        body: The error body: a mapping (sent as JSON), a ``str`` or ``bytes`` (sent verbatim),
            or ``None`` for the wire's own error shape with a generic message.
        headers: Extra response headers (e.g. ``{"retry-after-ms": "200"}``).
        in_stream: Answer 200 and stream ``partial``'s first ``after_events`` events, then the
            error as an event (``data: {"error": ...}`` on openai-chat), then end the body
            without the terminal event. Used only when the request asks for a stream; a
            non-streamed request gets the ``status`` reply instead.
        after_events: How many of ``partial``'s events precede the in-stream error.
        partial: The reply whose events precede the in-stream error, and whose pacing fields
            (``chunk_size``, ``delay``, ...) apply; ``None`` means ``FakeReply("partial answer")``.
    """

    status: int = 500
    body: Mapping[str, Any] | str | bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    in_stream: bool = False
    after_events: int = 0
    partial: FakeReply | None = None

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ValueError("status must be an HTTP error status (400-599)")
        if self.after_events < 0:
            raise ValueError("after_events must be >= 0")


@dataclass(frozen=True)
class FakeRequest:
    """One HTTP request as the fake server received it.

    Attributes:
        method: The HTTP method, e.g. ``"POST"``.
        path: The request target as sent, query string included.
        headers: The headers, names lower-cased; repeated headers are joined with ``", "``.
        body: The JSON body parsed, or ``{}`` when it is empty or not a JSON object.
        raw: The body bytes exactly as received.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes


ScriptItem = Union[FakeReply, FakeError]
"""What answers one request."""

Responder = Callable[[FakeRequest], ScriptItem]
"""A function choosing the answer to each request; called on a server thread, one at a time."""
