"""The transport: sending with retries and timeouts, and translating httpx's exceptions.

The policy is written once, as a generator (:func:`send_plan`) that yields the I/O it needs
(``Send``, ``Read``, ``Sleep``) and receives the results. Two thin pumps drive it —
:func:`run_sync` and :func:`run_async` — and differ only in ``await``.

Rules (docs/design.md §4, QUIRKS I1-I4):

- retries happen only before the first response byte, for the errors whose
  :attr:`~llmkit.LLMError.retryable` is true (connection errors, connect and first-byte
  timeouts, 408/409/429/5xx/529 unless ``x-should-retry: false``) — never once a stream has
  started;
- the delay honours ``x-should-retry``, ``retry-after-ms``, ``retry-after`` (seconds or an
  HTTP date) and Gemini ``RetryInfo``; a requested wait beyond ``max_retry_delay`` is not
  slept through: the typed error is raised at once with ``retry_after`` set;
- timeouts have four phases: ``connect``, ``first_byte`` (waiting for the response head),
  ``idle`` (between body reads) and ``total`` (a deadline for the whole call);
- a redirect is followed only when the client says so (``follow_redirects=True``), by this
  plan rather than httpx, and only a 307/308 (the method and body kept): to another origin
  without any credential header, since httpx would strip only ``Authorization``; a redirect
  not followed is an :class:`APIError`, never a success;
- no exception, log line or repr ever contains the API key.
"""

from __future__ import annotations

import functools
import inspect
import logging
import random
import ssl
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, cast

import httpx

from ._classify import http_error
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    InvalidRequestError,
    LLMError,
    StreamError,
    TimeoutPhase,
)
from ._inflate import BodyReader, coding
from ._options import DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY
from ._redact import redact
from ._sse import DEFAULT_MAX_EVENT_SIZE

__all__ = ["Timeouts", "TransportOptions", "map_stream_exception", "run_async", "run_sync"]

logger = logging.getLogger("llmkit")

# Headers that carry a credential: none of them goes to another origin on a redirect.
CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-amz-security-token",
        "x-amz-date",
        "x-amz-content-sha256",
    }
)


@dataclass(frozen=True)
class Timeouts:
    """Timeouts in seconds (``None``: no limit), each > 0.

    ``timeout=30`` (a number) sets ``connect``, ``first_byte`` and ``idle`` to 30 s and leaves
    ``total`` unset: a stream that keeps sending is never cut by it. For a deadline on the
    whole call, retries included, set ``total``: ``Timeouts(total=120)``.

    Attributes:
        connect: To open the connection (default 10).
        first_byte: From sending the request to the response head (default 300).
        idle: Between two reads of the response body once it started (default 300).
        total: For the whole call, from sending the request, retries included (default none).
    """

    connect: float | None = 10.0
    first_byte: float | None = 300.0
    idle: float | None = 300.0
    total: float | None = None

    @classmethod
    def of(cls, value: Timeouts | float | None) -> Timeouts:
        """A Timeouts from the ``timeout`` option: a number sets connect, first byte and idle
        alike, and is not a deadline for the whole call (``total`` stays unset)."""
        if isinstance(value, Timeouts):
            return value
        if value is None:
            return cls()
        return cls(connect=value, first_byte=value, idle=value)


@dataclass
class TransportOptions:
    """Everything the transport needs besides the request."""

    timeouts: Timeouts
    max_retries: int = DEFAULT_MAX_RETRIES
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY
    provider: str | None = None
    secret: str | None = None  # the API key, only ever used to redact it
    deadline: float | None = None  # monotonic time when ``total`` runs out
    on_response: Callable[[httpx.Response], object] | None = None  # the caller's hook
    max_body: int = DEFAULT_MAX_EVENT_SIZE  # decoded bytes of an error body kept (the rest unread)
    follow_redirects: bool = False  # the client's own setting (the plan follows, not httpx)
    max_redirects: int = 20

    def remaining(self) -> float | None:
        """Seconds left before the total deadline."""
        return None if self.deadline is None else self.deadline - time.monotonic()


@dataclass
class Send:
    """Send ``request`` and return the response head (or the exception)."""

    request: httpx.Request


@dataclass
class Read:
    """Read the (error) body of ``response``, at most ``limit`` decoded bytes, and close it."""

    response: httpx.Response
    limit: int = DEFAULT_MAX_EVENT_SIZE


@dataclass
class Notify:
    """Call the caller's ``on_response`` hook with a response whose head arrived."""

    hook: Callable[[httpx.Response], object]
    response: httpx.Response


@dataclass
class Sleep:
    """Wait ``seconds`` before the next attempt."""

    seconds: float


Op = Send | Read | Notify | Sleep


@functools.lru_cache(maxsize=1)
def ssl_context() -> ssl.SSLContext:
    """The SSL context of every client llmkit makes (``_clients``). Building one loads the CA
    bundle (milliseconds each, a stall when a thousand calls start at once); a context is
    not changed by the connections that use it, so one is shared (verification stays on)."""
    return httpx.create_ssl_context()


def _min(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _set_timeouts(request: httpx.Request, opts: TransportOptions) -> None:
    t = opts.timeouts
    remaining = opts.remaining()
    request.extensions["timeout"] = {
        "connect": _min(t.connect, remaining),
        "read": _min(t.first_byte, remaining),
        "write": _min(t.first_byte, remaining),
        "pool": _min(t.connect, remaining),
    }


def start_body(request: httpx.Request, opts: TransportOptions, *, watched: bool = False) -> None:
    """The response head arrived: body reads now use the idle timeout (capped by what is
    left of the total). httpcore reads this dict when the body iteration starts. ``watched``:
    the caller enforces both itself (an async stream's :class:`~llmkit._watchdog.Watchdog`),
    so httpcore's reads get no timer of their own."""
    timeout = request.extensions.get("timeout")
    if isinstance(timeout, dict):
        timeout["read"] = None if watched else _min(opts.timeouts.idle, opts.remaining())


def _backoff(attempt: int) -> float:
    return float(min(0.5 * 2**attempt, 8.0) * (0.75 + random.random() / 2))


def _connect_error(exc: httpx.HTTPError, opts: TransportOptions) -> LLMError:
    """Translate httpx's exception raised before the response head arrived."""
    remaining = opts.remaining()
    if remaining is not None and remaining <= 0:
        return APITimeoutError("The total timeout ran out", phase="total")
    if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return APITimeoutError("Timed out connecting to the provider", phase="connect")
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError("Timed out waiting for the response to start", phase="first_byte")
    text = redact(f"{type(exc).__name__}: {exc}", opts.secret)
    return APIConnectionError(f"Could not reach the provider ({text})")


def map_stream_exception(exc: httpx.HTTPError | LLMError, opts: TransportOptions) -> LLMError:
    """Translate httpx's exception raised while reading a started stream (an ``LLMError``, such
    as the total timeout, is already what it is)."""
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, httpx.TimeoutException):
        remaining = opts.remaining()
        phase: TimeoutPhase = "total" if remaining is not None and remaining <= 0.05 else "idle"
        return APITimeoutError(f"The stream stalled ({phase} timeout)", phase=phase)
    text = redact(f"{type(exc).__name__}: {exc}", opts.secret)
    error = StreamError(f"The connection failed during the stream ({text})")
    error.__cause__ = exc
    return error


def _retry_delay(error: LLMError, attempt: int, opts: TransportOptions) -> float | None:
    """Seconds to wait before retrying, or None to raise ``error`` now. Whether the error is
    worth retrying at all is :attr:`LLMError.retryable` (the one rule, shared with callers);
    here only the budget: attempts, the provider's requested wait, the total deadline."""
    if attempt >= opts.max_retries or not error.retryable:
        return None
    if isinstance(error, APITimeoutError) and error.phase == "total":
        return None  # the deadline for the whole call has passed
    if isinstance(error, APIError) and error.retry_after is not None:
        if error.retry_after > opts.max_retry_delay:
            return None  # the provider asks for more than we wait: tell the caller
        delay = error.retry_after
    else:
        delay = _backoff(attempt)
    remaining = opts.remaining()
    if remaining is not None and delay >= remaining:
        return None
    return delay


def send_plan(request: httpx.Request, opts: TransportOptions) -> Generator[Op, Any, httpx.Response]:
    """The retry policy as a generator of I/O operations; returns the response whose head
    says success (its body not read yet)."""
    attempt = redirects = 0
    while True:
        _set_timeouts(request, opts)
        logger.debug(
            "POST %s (attempt %d)", request.url.copy_with(query=None, userinfo=b""), attempt + 1
        )
        result = yield Send(request)
        if isinstance(result, httpx.HTTPError):
            error: LLMError = _connect_error(result, opts)
        else:
            if opts.on_response is not None:
                yield Notify(opts.on_response, result)
            if result.status_code < 300:
                return cast(httpx.Response, result)
            if result.status_code < 400:
                target = _redirect(request, result, opts, redirects)
                yield Read(result, opts.max_body)
                if isinstance(target, LLMError):
                    raise target
                request, redirects = target, redirects + 1
                continue
            body = yield Read(result, opts.max_body)
            error = _api_error(result, body, opts)
        delay = _retry_delay(error, attempt, opts)
        if delay is None:
            raise error
        logger.info("Retrying in %.2fs after %s", delay, type(error).__name__)
        attempt += 1
        yield Sleep(delay)


def _redirect(
    request: httpx.Request, response: httpx.Response, opts: TransportOptions, redirects: int
) -> httpx.Request | APIError:
    """The request a 3xx answer leads to, or the error when it is not followed."""
    status = response.status_code
    location = response.headers.get("location")
    try:
        target = request.url.join(location) if location else None
    except httpx.InvalidURL:
        target = None
    where = f" to {target.copy_with(query=None, userinfo=b'')}" if target is not None else ""
    why = None
    if not opts.follow_redirects:
        why = "the client does not follow redirects (follow_redirects=False)"
    elif status not in (307, 308) or target is None:
        why = "only a 307/308 with a Location keeps the request's method and body"
    elif redirects >= opts.max_redirects:
        why = f"more than {opts.max_redirects} redirects"
    elif target.scheme not in ("http", "https"):
        why = f"the scheme {target.scheme!r} is not HTTP"
    if why is not None or target is None:
        return APIError(
            redact(
                f"The provider answered with a redirect (HTTP {status}){where}: {why}", opts.secret
            ),
            status=status,
            provider=opts.provider,
        )
    same_origin = (target.scheme, target.host, target.port) == (
        request.url.scheme,
        request.url.host,
        request.url.port,
    )
    headers = [
        (name, value)
        for name, value in request.headers.multi_items()
        if name.lower() != "host"
        and (
            same_origin
            or (
                name.lower() not in CREDENTIAL_HEADERS
                and not (opts.secret and opts.secret in value)
            )
        )
    ]
    logger.info(
        "Following a redirect (HTTP %d)%s", status, "" if same_origin else " to another origin"
    )
    return httpx.Request(
        request.method,
        target,
        headers=headers,
        content=request.content,
        extensions=request.extensions,
    )


def _api_error(response: httpx.Response, body: bytes, opts: TransportOptions) -> APIError:
    secrets = (opts.secret,) if opts.secret else ()
    return http_error(
        response.status_code, body, response.headers, provider=opts.provider, secrets=secrets
    )


def _notify(op: Notify, *, async_ok: bool) -> object:
    """Call the caller's hook; a sync call refuses an async one. The pumps close the response
    when this raises (the hook's own exceptions are the caller's and propagate unchanged)."""
    result = op.hook(op.response)
    if not async_ok and inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()  # never awaited: closed, so Python does not warn
        raise InvalidRequestError(
            "on_response returned an awaitable: an async hook needs acomplete()/astream()"
        )
    return result


def _read(op: Read) -> bytes:
    """An error body, decoded, up to ``op.limit`` bytes (a gzip bomb stops at the limit)."""
    if op.response.is_stream_consumed:  # already in memory (a mock transport's)
        return op.response.content[: op.limit]
    reader = BodyReader(op.response, op.limit)
    raw_reads = (
        op.response.iter_bytes() if coding(op.response) == "other" else op.response.iter_raw()
    )
    for raw in raw_reads:
        if not reader.feed(raw):
            break
    else:
        reader.end()
    return reader.body()


async def _aread(op: Read) -> bytes:
    """:func:`_read`, async."""
    if op.response.is_stream_consumed:
        return op.response.content[: op.limit]
    reader = BodyReader(op.response, op.limit)
    raw_reads = (
        op.response.aiter_bytes() if coding(op.response) == "other" else op.response.aiter_raw()
    )
    async for raw in raw_reads:
        if not reader.feed(raw):
            break
    else:
        reader.end()
    return reader.body()


def run_sync(plan: Generator[Op, Any, httpx.Response], client: httpx.Client) -> httpx.Response:
    """Drive ``plan`` with blocking I/O."""
    value: Any = None
    while True:
        try:
            op = plan.send(value)
        except StopIteration as stop:
            return cast(httpx.Response, stop.value)
        if isinstance(op, Send):
            try:
                value = client.send(op.request, stream=True, follow_redirects=False)
            except httpx.HTTPError as exc:  # translated by the plan, in one place
                value = exc
        elif isinstance(op, Read):
            try:
                value = _read(op)
            except httpx.HTTPError:
                value = b""
            finally:
                op.response.close()
        elif isinstance(op, Notify):
            try:
                value = _notify(op, async_ok=False)
            except BaseException:  # ok -- noqa: catch-all: the caller's hook: close, re-raise
                op.response.close()
                raise
        else:
            time.sleep(op.seconds)
            value = None


async def run_async(
    plan: Generator[Op, Any, httpx.Response], client: httpx.AsyncClient
) -> httpx.Response:
    """Drive ``plan`` with asyncio I/O (the same plan as :func:`run_sync`)."""
    value: Any = None
    while True:
        try:
            op = plan.send(value)
        except StopIteration as stop:
            return cast(httpx.Response, stop.value)
        if isinstance(op, Send):
            try:
                value = await client.send(op.request, stream=True, follow_redirects=False)
            except httpx.HTTPError as exc:
                value = exc
        elif isinstance(op, Read):
            try:
                value = await _aread(op)
            except httpx.HTTPError:
                value = b""
            finally:
                await op.response.aclose()
        elif isinstance(op, Notify):
            try:
                result = _notify(op, async_ok=True)
                if inspect.isawaitable(result):
                    await result
            except BaseException:  # ok -- noqa: catch-all: the caller's hook: close, re-raise
                await op.response.aclose()
                raise
            value = None
        else:
            import asyncio  # here, not at module level: building a request needs no event loop

            await asyncio.sleep(op.seconds)
            value = None
