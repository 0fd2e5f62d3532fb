"""The HTTP client a call uses when the caller passes no ``client=``.

One ``httpx.Client`` for the process and one ``httpx.AsyncClient`` per asyncio event loop,
made on first use. Sharing them costs each call nothing (a client is about 3.8 KB of objects
and an environment read for proxies), yet a call behaves as it would on a client of its own:

- no keep-alive: each call opens its own connection and closes it when the call ends, so no
  socket outlives a call, a fork or an event loop, and an abandoned stream's socket is closed;
- no connection limit: a thousand concurrent calls open a thousand connections, none queued;
- no cookies: a cookie one response sets is never sent with another call.

Proxy settings (``HTTPS_PROXY``, ``NO_PROXY``, …) are read from the environment when the
shared client is made. An ``AsyncClient`` must not be used from two event loops, so each loop
gets its own, dropped with the loop; under an async library other than asyncio (trio), a call
makes a client of its own and closes it after.
"""

from __future__ import annotations

import http.cookiejar
import threading
import weakref
from typing import TYPE_CHECKING

import httpx

from ._transport import ssl_context

if TYPE_CHECKING:
    import asyncio

__all__ = ["default_async_client", "default_client"]

_lock = threading.Lock()
_sync: httpx.Client | None = None
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


_LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=0)


def _no_cookies() -> http.cookiejar.CookieJar:
    return http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def default_client() -> httpx.Client:
    """The process's shared ``httpx.Client`` for calls without ``client=``."""
    global _sync
    with _lock:
        if _sync is None:
            _sync = httpx.Client(
                verify=ssl_context(), timeout=None, limits=_LIMITS, cookies=_no_cookies()
            )
        return _sync


def _new_async() -> httpx.AsyncClient:
    # timeout=None: llmkit sets each request's timeouts itself
    return httpx.AsyncClient(
        verify=ssl_context(), timeout=None, limits=_LIMITS, cookies=_no_cookies()
    )


def default_async_client() -> tuple[httpx.AsyncClient, bool]:
    """The running event loop's shared ``httpx.AsyncClient``, and whether the caller owns it
    (must close it after the call): true only outside asyncio, where no loop keys it."""
    import asyncio  # here, not at the top: a sync call never needs it (~10 ms on a cold start)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # trio, or another library: a client for this call only
        return _new_async(), True
    with _lock:
        client = _by_loop.get(loop)
        if client is None:
            client = _by_loop[loop] = _new_async()
    return client, False
