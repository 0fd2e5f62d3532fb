"""The caller's options, modelled once.

- :class:`RequestOptions`: the public typed dict of every option a call takes. Every call and
  seam takes ``**options: Unpack[RequestOptions]``, so a type checker flags a misspelt option
  or a wrong type and ``help()`` lists them (each option's documentation lives there).
- :class:`Options`: the same options checked, the one internal object every call
  (``complete``, ``stream``, their async forms, ``count_tokens``) and seam
  (``build_request``) works from. Each option is one field saying how its value is checked,
  whether it shapes the body or the transport, and whether it acts only when llmkit sends
  (:data:`SEND_ONLY`); the transport defaults are applied in one place
  (:meth:`Options.transport_options`); :meth:`Options.merged` puts a call's options over a
  client's defaults.

A bad value raises :class:`~llmkit.InvalidRequestError` naming the option and what it accepts —
never a retry, never a connection error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ._checks import check_headers, check_schema, check_seconds
from ._errors import InvalidRequestError
from ._sse import DEFAULT_MAX_EVENT_SIZE

if TYPE_CHECKING:
    import httpx
    from pydantic import BaseModel

    # Imported where a timeout is checked: the transport (retries, logging, error mapping) is
    # not needed to build a request, and build_request never loads it.
    from ._transport import Timeouts, TransportOptions

__all__ = [
    "BODY_OPTIONS",
    "CACHE_LEVELS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_DELAY",
    "REASONING_LEVELS",
    "SEND_ONLY",
    "Options",
    "RequestOptions",
    "unknown_options",
]

Reasoning = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
REASONING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
CACHE_LEVELS: tuple[str, ...] = ("off", "short", "long")
ToolChoice = Literal["auto", "none", "required"] | dict[str, str]


class RequestOptions(TypedDict, total=False):
    """Every option of ``complete``/``acomplete``/``stream``/``astream``/``build_request``.

    All are optional. A value of the wrong type or out of range raises
    :class:`~llmkit.InvalidRequestError` before anything is sent. An option a model cannot
    honour is refused the same way or dropped with an ``option_unsupported`` diagnostic on the
    result — never silently.
    """

    max_tokens: int
    """The most output tokens to generate (an integer >= 1). Anthropic requires a limit: when
    this is not given, the model's catalogue maximum (or 4096) is sent."""

    temperature: float
    """Sampling temperature, 0 to 2 (providers that take less, such as Anthropic's 0 to 1,
    refuse or clamp as their builder reports). Dropped, reported, on models that refuse it."""

    top_p: float
    """Nucleus sampling, 0 to 1."""

    stop: str | list[str]
    """Stop sequence(s): a non-empty string or a list of them (``[]``: none)."""

    tool_choice: ToolChoice
    """``"auto"``, ``"none"``, ``"required"`` (some tool must be called) or ``{"name": ...}``
    (that declared tool must be called)."""

    parallel_tool_calls: bool
    """Whether the model may call several tools in one turn (where the provider has the
    switch; reported where it does not)."""

    reasoning: Reasoning
    """Reasoning effort: ``"off"``, ``"minimal"``, ``"low"``, ``"medium"``, ``"high"``,
    ``"xhigh"`` or ``"max"``, mapped to each model's own setting (effort, thinking budget); a
    level the model lacks goes to the nearest lower one it has, reported."""

    response_format: type[BaseModel] | dict[str, Any]
    """Structured output: a pydantic model class or a JSON Schema (a dict) for the reply."""

    provider_options: dict[str, Any]
    """Provider-specific body fields, merged into the JSON body last (they win)."""

    cache: Literal["off", "short", "long"]
    """Prompt caching: ``"short"`` the provider's default lifetime (Anthropic's top-level
    ``cache_control``; automatic on OpenAI and Gemini), ``"long"`` the longest it offers
    (Anthropic's 1-hour ``ttl``, OpenAI's 24-hour retention), ``"off"`` none where it can be
    turned off. What a wire or model cannot honour is reported (``option_unsupported``)."""

    cache_key: str
    """Routes requests sharing a prompt prefix to the same cache (OpenAI ``prompt_cache_key``);
    reported where a wire has no such key."""

    stream_tool_arguments: bool
    """Stream tool arguments as they are generated (Anthropic ``eager_input_streaming`` per
    tool, Gemini on Vertex AI ``streamFunctionCallArguments``; OpenAI always streams them);
    reported where it cannot be asked for."""

    api_key: str
    """The key; default: the provider's environment variable (e.g. ``OPENAI_API_KEY``)."""

    base_url: str
    """Where to send the request (``http://`` or ``https://``); default: the model's."""

    headers: Mapping[str, str]
    """Extra HTTP headers (they win over llmkit's own)."""

    region: str
    """The cloud region (Bedrock: an AWS region such as ``"us-east-1"``; Vertex AI: a location
    such as ``"us-central1"``); default: the platform's own variables (``AWS_REGION``,
    ``GOOGLE_CLOUD_LOCATION``, ...). See docs/cloud.md."""

    timeout: Timeouts | float
    """A :class:`~llmkit.Timeouts` (connect, first byte, idle between reads, and a total
    deadline), or a number of seconds (> 0) that sets connect, first-byte and idle alike. A
    number is *not* a deadline for the whole call: a stream that keeps sending never times out
    on it; pass ``Timeouts(total=...)`` for that."""

    max_retries: int
    """Retries before the first response byte (connection errors, 408/409/429/5xx/529), >= 0;
    default 2. Never once a stream has started."""

    max_retry_delay: float
    """The longest wait (seconds, >= 0) llmkit sleeps before a retry; a provider asking for
    longer gets its error raised at once, with ``retry_after`` set. Default 60."""

    client: httpx.Client | httpx.AsyncClient
    """Your own ``httpx.Client`` (for ``complete``/``stream``) or ``httpx.AsyncClient`` (for
    ``acomplete``/``astream``): its pool, proxies and TLS settings are used, and it is not
    closed. Without one, calls share a client of llmkit's (one per process, one per asyncio
    event loop) that keeps no connection and no cookie past a call and sets no connection
    limit: each call opens its own connection and closes it when it ends. Proxies are read
    from the environment when that client is made."""

    on_request: Callable[[dict[str, Any]], dict[str, Any] | None]
    """Called with the JSON body (a dict) just before it is encoded; it may change it in place
    or return a replacement. Runs once per call, before any attempt."""

    on_response: Callable[[httpx.Response], object | Awaitable[object]]
    """Called with the ``httpx.Response`` of each attempt once its head has arrived (status
    and headers readable, the body not read yet), e.g. to read rate-limit headers. With
    ``acomplete``/``astream`` it may be an async function."""

    max_event_size: int
    """The largest single stream event accepted, in bytes (>= 1; default 16 MiB): memory per
    event is bounded; a larger one ends the stream with a ``StreamError``."""

    telemetry: bool
    """``False``: no OpenTelemetry span or metric for this call (with ``opentelemetry-api``
    installed, every call makes them by default; see docs/observability.md)."""


# -- checks: each takes the option's name and value, returns the value to keep -------------------


def _refuse(name: str, value: Any, accepted: str) -> InvalidRequestError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidRequestError(f"Option {name}={shown} is not valid: it takes {accepted}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_from(low: int, what: str = "an integer") -> Check:
    def check(name: str, value: Any) -> Any:
        if not (_integer(value) and value >= low):
            raise _refuse(name, value, f"{what} >= {low}")
        return value

    return check


def _number_from(low: float, high: float | None = None, what: str = "a number") -> Check:
    def check(name: str, value: Any) -> Any:
        if not (_number(value) and low <= value and (high is None or value <= high)):
            accepted = f"{what} >= {low:g}" if high is None else f"{what} from {low:g} to {high:g}"
            raise _refuse(name, value, accepted)
        return value

    return check


def _one_of(levels: tuple[str, ...]) -> Check:
    def check(name: str, value: Any) -> Any:
        if value not in levels:
            raise _refuse(name, value, "one of " + ", ".join(map(repr, levels)))
        return value

    return check


def _flag(name: str, value: Any) -> Any:
    if not isinstance(value, bool):
        raise _refuse(name, value, "True or False")
    return value


def _text(name: str, value: Any) -> Any:
    if not (isinstance(value, str) and value):
        raise _refuse(name, value, "a non-empty string")
    return value


def _callable(name: str, value: Any) -> Any:
    if not callable(value):
        raise _refuse(name, value, "a callable")
    return value


def _anything(name: str, value: Any) -> Any:
    # client: the call that uses it checks its class (a sync call needs an httpx.Client, an
    # async one an httpx.AsyncClient).
    return value


def _check_stop(name: str, value: Any) -> list[str] | None:
    stops = [value] if isinstance(value, str) else value
    if not (isinstance(stops, list) and all(isinstance(s, str) and s for s in stops)):
        raise _refuse(name, value, "a non-empty string or a list of non-empty strings")
    return list(stops) or None  # [] is no stop sequence at all


def _check_tool_choice(name: str, value: Any) -> Any:
    if value in ("auto", "none", "required"):
        return value
    if isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str):
        return value
    raise _refuse(name, value, "'auto', 'none', 'required' or {'name': <tool name>}")


def _check_response_format(name: str, value: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(value, dict):
        check_schema(name, value)
        return value
    if isinstance(value, type) and issubclass(value, BaseModel):
        return value
    raise _refuse(name, value, "a pydantic model class or a JSON Schema dict")


def _check_provider_options(name: str, value: Any) -> Any:
    if not isinstance(value, dict):
        raise _refuse(name, value, "a dict of body fields")
    return value


def _check_api_key(name: str, value: Any) -> Any:
    if not (isinstance(value, str) and value):
        raise _refuse(name, "<hidden>", "a non-empty string")  # never echo a key
    return value


def _check_base_url(name: str, value: Any) -> Any:
    if not (isinstance(value, str) and value.startswith(("http://", "https://"))):
        raise _refuse(name, value, "an http:// or https:// URL")
    return value


def _check_headers(name: str, value: Any) -> Any:
    if not (
        isinstance(value, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    ):
        raise _refuse(name, "<headers>", "a mapping of header names to string values")
    check_headers(value)
    return value


def _check_region(name: str, value: Any) -> Any:
    if not (isinstance(value, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", value)):
        raise _refuse(name, value, "a region name such as 'us-east-1' or 'us-central1'")
    return value


def _check_timeout(name: str, value: Any) -> Timeouts:
    from ._transport import Timeouts

    if isinstance(value, Timeouts):
        for phase in ("connect", "first_byte", "idle", "total"):
            seconds = getattr(value, phase)
            if seconds is not None and not (_number(seconds) and seconds > 0):
                raise _refuse(f"{name}.{phase}", seconds, "a number of seconds > 0, or None")
            if seconds is not None:
                check_seconds(f"{name}.{phase}", seconds)
        return value
    if _number(value) and value > 0:
        return Timeouts.of(check_seconds(name, value))
    raise _refuse(name, value, "a number of seconds > 0 or an llmkit.Timeouts")


# -- the one options object -------------------------------------------------------------------

Check = Callable[[str, Any], Any]

BODY = "body"
TRANSPORT = "transport"

DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_DELAY = 60.0


def _option(check: Check, part: str, *, send_only: bool = False) -> Any:
    """One option's field: ``None`` (not given) by default, with how its value is checked,
    which view it belongs to (``body``: a wire maps it into the JSON body; ``transport``: how
    the request is addressed, authenticated and sent) and whether it acts only when llmkit
    sends the request (``send_only``: ``build_request`` refuses it)."""
    return field(default=None, metadata={"check": check, "part": part, "send_only": send_only})


# The fields below are made by _option, which returns a dataclasses.field (RUF009 sees a call).
# ruff: noqa: RUF009


@dataclass(frozen=True)
class Options:
    """The options of one call, checked: the one model of them behind every call and seam.

    Made by :meth:`check` from the caller's :class:`RequestOptions`; each field is ``None``
    when the option was not given (a wire reads the body view's fields directly; the transport
    defaults are applied in one place, :meth:`transport_options`). A :class:`~llmkit.Client`
    holding defaults combines them with a call's options by :meth:`merged`.
    """

    # -- the body view: what a wire maps into the JSON body
    max_tokens: int | None = _option(_int_from(1), BODY)
    temperature: float | None = _option(_number_from(0, 2), BODY)
    top_p: float | None = _option(_number_from(0, 1), BODY)
    stop: list[str] | None = _option(_check_stop, BODY)
    tool_choice: str | dict[str, Any] | None = _option(_check_tool_choice, BODY)
    parallel_tool_calls: bool | None = _option(_flag, BODY)
    reasoning: str | None = _option(_one_of(REASONING_LEVELS), BODY)
    response_format: Any = _option(_check_response_format, BODY)
    cache: str | None = _option(_one_of(CACHE_LEVELS), BODY)
    cache_key: str | None = _option(_text, BODY)
    stream_tool_arguments: bool | None = _option(_flag, BODY)
    provider_options: dict[str, Any] | None = _option(_check_provider_options, BODY)
    # -- the transport view: where and how the request goes
    api_key: str | None = _option(_check_api_key, TRANSPORT)
    base_url: str | None = _option(_check_base_url, TRANSPORT)
    headers: Mapping[str, str] | None = _option(_check_headers, TRANSPORT)
    region: str | None = _option(_check_region, TRANSPORT)
    on_request: Callable[[dict[str, Any]], dict[str, Any] | None] | None = _option(
        _callable, TRANSPORT
    )
    timeout: Timeouts | None = _option(_check_timeout, TRANSPORT, send_only=True)
    max_retries: int | None = _option(_int_from(0), TRANSPORT, send_only=True)
    max_retry_delay: float | None = _option(
        _number_from(0, what="a number of seconds"), TRANSPORT, send_only=True
    )
    client: httpx.Client | httpx.AsyncClient | None = _option(_anything, TRANSPORT, send_only=True)
    on_response: Callable[[httpx.Response], object | Awaitable[object]] | None = _option(
        _callable, TRANSPORT, send_only=True
    )
    max_event_size: int | None = _option(
        _int_from(1, "an integer number of bytes"), TRANSPORT, send_only=True
    )
    telemetry: bool | None = _option(_flag, TRANSPORT, send_only=True)

    @classmethod
    def check(cls, options: Mapping[str, Any]) -> Options:
        """The options, every value checked (``None`` means "not given" for every option).

        Raises:
            InvalidRequestError: an unknown option (the closest known one suggested), or a
                value of the wrong type or out of range, naming the option.
        """
        checked: dict[str, Any] = {}
        for name, value in options.items():
            f = _FIELDS.get(name)
            if f is None:
                raise unknown_options(set(options) - set(_FIELDS), _FIELDS)
            if value is not None:
                checked[name] = f.metadata["check"](name, value)
        return cls(**checked)

    def given(self) -> dict[str, Any]:
        """The options given (checked values), as :class:`RequestOptions` keys."""
        return {name: v for name in _FIELDS if (v := getattr(self, name)) is not None}

    def merged(self, call: Options) -> Options:
        """These options as defaults, with ``call``'s on top: an option the call gives replaces
        the default, except ``headers``, which merge (names compared case-insensitively, the
        call's value winning per name)."""
        values = {**self.given(), **call.given()}
        if self.headers is not None and call.headers is not None:
            taken = {name.lower() for name in call.headers}
            values["headers"] = {
                **{k: v for k, v in self.headers.items() if k.lower() not in taken},
                **call.headers,
            }
        return Options(**values)

    def send_only(self) -> list[str]:
        """The options given that act only when llmkit sends the request (``timeout``,
        ``max_retries``, ``client``, ...): ``build_request``, which sends nothing, refuses them."""
        return [name for name in SEND_ONLY if getattr(self, name) is not None]

    def transport_options(self, provider: str | None, secret: str | None) -> TransportOptions:
        """The transport view, defaults applied: what sending needs besides the request."""
        from ._transport import Timeouts, TransportOptions

        return TransportOptions(
            timeouts=self.timeout if self.timeout is not None else Timeouts(),
            max_retries=DEFAULT_MAX_RETRIES if self.max_retries is None else self.max_retries,
            max_retry_delay=(
                DEFAULT_MAX_RETRY_DELAY if self.max_retry_delay is None else self.max_retry_delay
            ),
            provider=provider,
            secret=secret,
            on_response=self.on_response,
            max_body=self.event_size_limit,
        )

    @property
    def event_size_limit(self) -> int:
        """``max_event_size``, or its default."""
        return DEFAULT_MAX_EVENT_SIZE if self.max_event_size is None else self.max_event_size

    def __repr__(self) -> str:
        # Never a key, nor a header's value (a credential may travel in any header).
        shown = []
        for name, value in self.given().items():
            if name == "api_key":
                value = "<hidden>"
            elif name == "headers":
                value = dict.fromkeys(value, "<hidden>")
            shown.append(f"{name}={value!r}")
        return f"Options({', '.join(shown)})"


_FIELDS: dict[str, Any] = {f.name: f for f in fields(Options)}
BODY_OPTIONS = frozenset(n for n, f in _FIELDS.items() if f.metadata["part"] == BODY)
SEND_ONLY: tuple[str, ...] = tuple(n for n, f in _FIELDS.items() if f.metadata["send_only"])
"""The options that act only when llmkit sends (docs/design.md §6, "Seams for frameworks")."""


def unknown_options(unknown: Iterable[str], known: Iterable[str]) -> InvalidRequestError:
    """The error for misspelt or unknown options: the closest known name first ("did you
    mean ...?"), then every known one."""
    import difflib  # only for this error: building a request never loads it

    names = sorted(known)
    hints = []
    for name in sorted(unknown):
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hints.append(f"{name} (did you mean {close[0]}?)" if close else name)
    return InvalidRequestError(
        f"Unknown option(s): {', '.join(hints)}. Known options: {', '.join(names)}; use "
        "provider_options={...} for provider-specific body fields."
    )
