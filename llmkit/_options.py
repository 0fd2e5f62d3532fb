"""The caller's options: :class:`RequestOptions`, one typed dict of every option a call takes,
and :func:`check_options`, which validates each value before anything is sent.

Every call and seam takes ``**options: Unpack[RequestOptions]``, so a type checker flags a
misspelt option or a wrong type and ``help()`` lists them; at run time a bad value raises
:class:`~llmkit.InvalidRequestError` naming the option and what it accepts — never a retry,
never a connection error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ._errors import InvalidRequestError
from ._wire.contract import Options

if TYPE_CHECKING:
    import httpx
    from pydantic import BaseModel

    # Imported where a timeout is checked: the transport (retries, logging, error mapping) is
    # not needed to build a request, and build_request never loads it.
    from ._transport import Timeouts

__all__ = [
    "CACHE_LEVELS",
    "REASONING_LEVELS",
    "RequestOptions",
    "TransportSettings",
    "check_options",
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


class TransportSettings(TypedDict, total=False):
    """The checked options that are not part of the body."""

    api_key: str
    base_url: str
    headers: Mapping[str, str]
    region: str
    timeout: Timeouts
    max_retries: int
    max_retry_delay: float
    client: httpx.Client | httpx.AsyncClient
    on_request: Callable[[dict[str, Any]], dict[str, Any] | None]
    on_response: Callable[[httpx.Response], object | Awaitable[object]]
    max_event_size: int
    telemetry: bool


_BODY = frozenset(Options.__dataclass_fields__)
_KNOWN = frozenset(RequestOptions.__annotations__)


def _refuse(name: str, value: Any, accepted: str) -> InvalidRequestError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidRequestError(f"Option {name}={shown} is not valid: it takes {accepted}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_range(name: str, value: Any, low: float, high: float) -> None:
    if not (_number(value) and low <= value <= high):
        raise _refuse(name, value, f"a number from {low:g} to {high:g}")


def _check_stop(value: Any) -> list[str] | None:
    stops = [value] if isinstance(value, str) else value
    if not (isinstance(stops, list) and all(isinstance(s, str) and s for s in stops)):
        raise _refuse("stop", value, "a non-empty string or a list of non-empty strings")
    return list(stops) or None  # [] is no stop sequence at all


def _check_tool_choice(value: Any) -> None:
    if value in ("auto", "none", "required"):
        return
    if isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str):
        return
    raise _refuse("tool_choice", value, "'auto', 'none', 'required' or {'name': <tool name>}")


def _check_response_format(value: Any) -> None:
    from pydantic import BaseModel

    if isinstance(value, dict) or (isinstance(value, type) and issubclass(value, BaseModel)):
        return
    raise _refuse("response_format", value, "a pydantic model class or a JSON Schema dict")


def _check_timeout(value: Any) -> Timeouts:
    from ._transport import Timeouts

    if isinstance(value, Timeouts):
        for phase in ("connect", "first_byte", "idle", "total"):
            seconds = getattr(value, phase)
            if seconds is not None and not (_number(seconds) and seconds > 0):
                raise _refuse(f"timeout.{phase}", seconds, "a number of seconds > 0, or None")
        return value
    if _number(value) and value > 0:
        return Timeouts.of(float(value))
    raise _refuse("timeout", value, "a number of seconds > 0 or an llmkit.Timeouts")


def _check_body(name: str, value: Any) -> Any:
    if name == "max_tokens":
        if not (_integer(value) and value >= 1):
            raise _refuse(name, value, "an integer >= 1")
    elif name == "temperature":
        _check_range(name, value, 0, 2)
    elif name == "top_p":
        _check_range(name, value, 0, 1)
    elif name == "stop":
        return _check_stop(value)
    elif name == "tool_choice":
        _check_tool_choice(value)
    elif name == "parallel_tool_calls":
        if not isinstance(value, bool):
            raise _refuse(name, value, "True or False")
    elif name == "reasoning":
        if value not in REASONING_LEVELS:
            raise _refuse(name, value, "one of " + ", ".join(map(repr, REASONING_LEVELS)))
    elif name == "response_format":
        _check_response_format(value)
    elif name == "provider_options" and not isinstance(value, dict):
        raise _refuse(name, value, "a dict of body fields")
    elif name == "cache" and value not in CACHE_LEVELS:
        raise _refuse(name, value, "one of " + ", ".join(map(repr, CACHE_LEVELS)))
    elif name == "cache_key" and not (isinstance(value, str) and value):
        raise _refuse(name, value, "a non-empty string")
    elif name == "stream_tool_arguments" and not isinstance(value, bool):
        raise _refuse(name, value, "True or False")
    return value


def _check_transport(name: str, value: Any) -> Any:
    if name == "api_key":
        if not (isinstance(value, str) and value):
            raise _refuse(name, "<hidden>", "a non-empty string")  # never echo a key
    elif name == "base_url":
        if not (isinstance(value, str) and value.startswith(("http://", "https://"))):
            raise _refuse(name, value, "an http:// or https:// URL")
    elif name == "headers":
        if not (
            isinstance(value, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
        ):
            raise _refuse(name, "<headers>", "a mapping of header names to string values")
    elif name == "region":
        if not (isinstance(value, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", value)):
            raise _refuse(name, value, "a region name such as 'us-east-1' or 'us-central1'")
    elif name == "timeout":
        return _check_timeout(value)
    elif name == "max_retries":
        if not (_integer(value) and value >= 0):
            raise _refuse(name, value, "an integer >= 0")
    elif name == "max_retry_delay":
        if not (_number(value) and value >= 0):
            raise _refuse(name, value, "a number of seconds >= 0")
    elif name == "max_event_size":
        if not (_integer(value) and value >= 1):
            raise _refuse(name, value, "an integer number of bytes >= 1")
    elif name == "telemetry" and not isinstance(value, bool):
        raise _refuse(name, value, "True or False")
    elif name in ("on_request", "on_response") and not callable(value):
        raise _refuse(name, value, "a callable")
    return value


def unknown_options(unknown: Iterable[str], known: Iterable[str]) -> InvalidRequestError:
    """The error for misspelt or unknown options: the closest known name first ("did you
    mean ...?"), then every known one."""
    import difflib

    names = sorted(known)
    hints = []
    for name in sorted(unknown):
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hints.append(f"{name} (did you mean {close[0]}?)" if close else name)
    return InvalidRequestError(
        f"Unknown option(s): {', '.join(hints)}. Known options: {', '.join(names)}; use "
        "provider_options={...} for provider-specific body fields."
    )


def check_options(options: Mapping[str, Any]) -> tuple[Options, TransportSettings]:
    """The body options and the transport settings, every value checked.

    ``None`` means "not given" for every option. ``client`` is checked by the call that uses
    it (a sync call needs an ``httpx.Client``, an async one an ``httpx.AsyncClient``).

    Raises:
        InvalidRequestError: an unknown option, or a value of the wrong type or out of range.
    """
    unknown = set(options) - _KNOWN
    if unknown:
        raise unknown_options(unknown, _KNOWN)
    body: dict[str, Any] = {}
    transport: dict[str, Any] = {}
    for name, value in options.items():
        if value is None:
            continue
        if name in _BODY:
            body[name] = _check_body(name, value)
        else:
            transport[name] = _check_transport(name, value)
    return Options(**body), TransportSettings(**transport)  # type: ignore[typeddict-item]
