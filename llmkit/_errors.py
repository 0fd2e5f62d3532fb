"""The exception tree. Every exception llmkit raises is an :class:`LLMError`::

    LLMError
    ├── InvalidRequestError          refused before anything was sent
    ├── ToolDefinitionError          a Tool (or a Context's tool list) is not valid
    ├── ToolArgumentsError           decode_tool_call refused a call's arguments
    ├── OutputValidationError        decode_output refused a structured-output message
    ├── UnknownModelError            get_model found no such model (lists close matches)
    ├── MissingAPIKeyError           no key in the option or the environment variable it names
    ├── APIError                     the provider answered with an error
    │   ├── BadRequestError          400 / 413 / 422 that nothing more specific describes
    │   ├── AuthenticationError      401
    │   ├── PermissionDeniedError    403
    │   ├── NotFoundError            404
    │   ├── RateLimitError           429 (``retry_after`` when the provider gave one)
    │   ├── OverloadedError          529 / overloaded_error (also in-stream)
    │   ├── ContextLengthError       the prompt does not fit the context window
    │   └── ServerError              5xx
    ├── APIConnectionError           the connection failed or timed out
    │   └── APITimeoutError          ``phase``: connect / first_byte / idle / total
    └── StreamError                  the stream broke and nothing more specific applies

On every error, ``.message`` is a ``str``, and ``.partial`` is the partial AssistantMessage
when the failure came after the first response byte (``None`` before it). A failure after the
stream started keeps its most specific class: an in-stream ``overloaded_error`` is an
:class:`OverloadedError`, an idle or total timeout an :class:`APITimeoutError`, a rate limit a
:class:`RateLimitError`; :class:`StreamError` is raised only when nothing more specific applies
(the connection dropped, the stream was truncated or undecodable). The ``ErrorEvent`` event of a
stream carries exactly the exception ``complete()`` raises, so
``except llmkit.LLMError as e: e.partial`` works the same for every failure.

``LLMError.retryable`` says whether sending the same request again later may succeed: 408,
409, 429, 5xx and 529 answers (and their in-stream equivalents), connection failures, timeouts,
a dropped or truncated stream. llmkit's own retries (before the first byte only) follow the
same rule; after the first byte it is advice to the caller.

``httpx`` exceptions are translated in one place (the transport); no exception message, repr or
``args`` ever contains an API key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ._messages import AssistantMessage

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ContextLengthError",
    "InvalidRequestError",
    "LLMError",
    "MissingAPIKeyError",
    "NotFoundError",
    "OutputValidationError",
    "OverloadedError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "StreamError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "UnknownModelError",
]

TimeoutPhase = Literal["connect", "first_byte", "idle", "total"]


class LLMError(Exception):
    """Base class of every exception llmkit raises.

    Attributes:
        message: What went wrong, as a sentence (never containing a key).
        partial: For a failure after the response started, the partial AssistantMessage
            received until then (transcript-valid, to keep or send back); otherwise ``None``.
    """

    partial: AssistantMessage | None = None

    def __init__(self, message: str = "", *args: object) -> None:
        super().__init__(message, *args)
        self.message: str = message

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again later may succeed.

        ``True`` for 408, 409, 429, 5xx and 529 answers and their in-stream equivalents,
        connection failures, timeouts, and a dropped or truncated stream; ``False`` for
        everything the request itself causes (a bad request, a key, a context too long).
        llmkit's own retries follow this rule, before the first response byte only.
        """
        return False


class InvalidRequestError(LLMError):
    """The request was refused before anything was sent (for example a ``tool_choice`` naming
    an undeclared tool, or ``strict`` tools on a model without strict support)."""


class ToolDefinitionError(LLMError):
    """A tool definition is invalid: bad name, a parameters schema that is not a valid JSON
    Schema of ``type: object``, or duplicate tool names in one Context."""


class ToolArgumentsError(LLMError):
    """``decode_tool_call`` refused a tool call.

    Attributes:
        model_message: A message safe to send back to the model as an error tool result: it
            names the problems in the arguments and nothing of llmkit's internals.
        errors: One dict per problem: ``{"path": "items[2].qty", "message": ..., "type": ...}``.
        tool_call_id: The id of the refused call.
    """

    def __init__(
        self,
        message: str,
        *,
        model_message: str,
        errors: list[dict[str, Any]] | None = None,
        tool_call_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.model_message = model_message
        self.errors: list[dict[str, Any]] = errors or []
        self.tool_call_id = tool_call_id


class OutputValidationError(LLMError):
    """``decode_output`` refused a message's structured output: it was cut short (``length``,
    ``error`` or ``aborted``, without ``allow_partial``), is not JSON, or does not validate.

    Attributes:
        model_message: A message safe to send back to the model (e.g. as the next user turn):
            it names the problems in its output and nothing of llmkit's internals.
        errors: One dict per problem: ``{"path": "items[2].qty", "message": ..., "type": ...}``.
    """

    def __init__(
        self, message: str, *, model_message: str, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.model_message = model_message
        self.errors: list[dict[str, Any]] = errors or []


class UnknownModelError(LLMError, LookupError):
    """``get_model`` found no such model. ``suggestions`` lists close matches."""

    def __init__(self, provider: str, model_id: str, suggestions: list[str]) -> None:
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        if provider:
            super().__init__(f"Unknown model {provider}/{model_id}.{hint}")
        else:  # get_model("gpt-4o"): no provider
            super().__init__(f"Unknown model {model_id!r}: name it as 'provider/id'.{hint}")
        self.provider = provider
        self.model_id = model_id
        self.suggestions = suggestions


class MissingAPIKeyError(LLMError):
    """No API key was given and the provider's environment variable is unset."""

    def __init__(self, provider: str, env_var: str | None) -> None:
        where = f"set {env_var} or " if env_var else ""
        super().__init__(f"No API key for provider {provider!r}: {where}pass api_key=...")
        self.provider = provider
        self.env_var = env_var


class APIError(LLMError):
    """The provider answered with an error.

    Attributes:
        status: The HTTP status. For an error reported inside a 200 stream, the HTTP status
            its payload names as ``code`` (llama-server, OpenRouter, Gemini), else ``None``.
        provider: The provider name.
        code: The provider's error code or type, when it gave one.
        request_id: The provider's request id header, when present.
        retry_after: Seconds the provider asked to wait, when it said.
        body: The parsed error body (provider JSON), for inspection. Never holds the key.
        should_retry: The provider's own retry advice (``x-should-retry``; ``False`` for an
            exhausted daily quota), which :attr:`retryable` follows when set.
    """

    status: int | None
    provider: str | None
    code: str | None
    request_id: str | None
    retry_after: float | None
    body: Any
    should_retry: bool | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        provider: str | None = None,
        code: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.provider = provider
        self.code = code
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, status={self.status!r}, "
            f"provider={self.provider!r}, code={self.code!r})"
        )

    @property
    def retryable(self) -> bool:
        """See :attr:`LLMError.retryable`: the provider's advice when it gave one, else the
        status (408, 409, 429, 5xx, 529), else for an in-stream error its class."""
        if self.should_retry is not None:
            return self.should_retry
        if self.status is not None:
            return self.status in _RETRY_STATUSES or self.status >= 500
        return isinstance(self, (RateLimitError, OverloadedError, ServerError))


_RETRY_STATUSES = frozenset({408, 409, 429})


class BadRequestError(APIError):
    """400, 413 or 422 that no more specific class describes (a context too long is a
    :class:`ContextLengthError`): the request itself is wrong; sending it again will not help."""


class AuthenticationError(APIError):
    """401: the key is missing, wrong or revoked."""


class PermissionDeniedError(APIError):
    """403: the key may not use this model or endpoint (or moderation refused it)."""


class NotFoundError(APIError):
    """404: no such model or endpoint."""


class RateLimitError(APIError):
    """429: rate or quota limit. ``retry_after`` is set when the provider said how long."""


class OverloadedError(APIError):
    """The provider is overloaded (Anthropic 529 / ``overloaded_error``, also mid-stream)."""


class ContextLengthError(APIError):
    """The request does not fit the model's context window."""


class ServerError(APIError):
    """5xx from the provider."""


class APIConnectionError(LLMError):
    """The connection to the provider failed or timed out: before the response (retried
    first, then raised) or, for a timeout, while it streamed (``APITimeoutError``, with
    ``.partial``). A connection dropped mid-stream is a :class:`StreamError`."""

    @property
    def retryable(self) -> bool:
        """Always ``True``: a connection failure or a timeout may not happen again."""
        return True


class APITimeoutError(APIConnectionError):
    """A timeout fired. ``phase`` says which: ``connect`` or ``first_byte`` (before the
    response; retried first), ``idle`` (no bytes for too long mid-stream) or ``total`` (the
    deadline for the whole call); the last two carry ``.partial``."""

    def __init__(self, message: str, *, phase: TimeoutPhase) -> None:
        super().__init__(message)
        self.phase: TimeoutPhase = phase


class StreamError(LLMError):
    """The stream broke after it started and no more specific class applies: the connection
    dropped, the body ended before the wire's terminal event, or it could not be decoded (or
    llmkit itself failed: then ``__cause__`` is the bug). ``.partial`` is the message so far;
    the underlying exception, if any, is ``__cause__``."""

    def __init__(
        self, message: str, *, partial: AssistantMessage | None = None, retryable: bool = True
    ) -> None:
        super().__init__(message)
        self.partial = partial
        self._retryable = retryable

    @property
    def retryable(self) -> bool:
        """``True`` for a dropped, truncated or garbled stream; ``False`` when the caller closed
        it or llmkit itself failed."""
        return self._retryable
