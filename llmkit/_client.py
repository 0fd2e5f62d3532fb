""":class:`Client`: default options held once, for code that makes many calls.

A ``Client`` is only options: every method is the module-level call of the same name with the
client's defaults merged under the call's own options by :meth:`Options.merged
<llmkit._options.Options.merged>` (a call's option replaces the default; ``headers`` merge
name by name, case-insensitively). It opens nothing itself: the calls use
the caller's ``client=`` when one is among the options, else llmkit's shared default client
(:mod:`._clients`), exactly as the module-level calls do. (Not to be confused with
:mod:`._clients`, the shared ``httpx`` clients.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._api import refuse_send_only
from ._options import SEND_ONLY, Options

if TYPE_CHECKING:
    from collections.abc import Sequence

    import httpx
    from typing_extensions import Unpack

    from ._messages import AssistantMessage, Context, Message
    from ._models import Model
    from ._options import RequestOptions
    from ._streams import AsyncEventStream, EventStream

__all__ = ["Client"]

# Header names whose value is a credential: never shown by repr.
_SECRET_HEADER_PARTS = ("auth", "key", "token", "secret", "cookie", "signature", "credential")


def _shown(name: str, value: Any) -> str:
    if name == "api_key":
        return "'***'"
    if name == "headers" and isinstance(value, Mapping):
        return repr(
            {
                k: "***" if any(part in k.lower() for part in _SECRET_HEADER_PARTS) else v
                for k, v in value.items()
            }
        )
    if name == "client":
        return f"<{type(value).__module__}.{type(value).__qualname__}>"
    if callable(value) and not isinstance(value, type):
        return getattr(value, "__qualname__", None) or type(value).__qualname__
    return repr(value)


class Client:
    """Default options for many calls: ``llmkit.Client(max_tokens=1024, timeout=30)``.

    Any :class:`~llmkit.RequestOptions` may be a default; each is checked when the client is
    made. The methods take ``(model, context, **options)`` like the module-level calls; an
    option passed to a call replaces the default, and ``headers`` merge name by name,
    case-insensitively, the call's value winning. :meth:`with_options` returns a
    new client with some defaults changed.

    A client owns no connections: its calls use the ``httpx`` client given as ``client=``
    (which stays the caller's to close), else llmkit's shared default, as the module-level
    calls do. Its repr shows the defaults, never a key nor a credential header.
    """

    __slots__ = ("_defaults",)

    def __init__(self, **options: Unpack[RequestOptions]) -> None:
        self._defaults = Options.check(options)

    @property
    def options(self) -> RequestOptions:
        """The default options (a copy, as checked)."""
        return self._defaults.given()  # type: ignore[return-value]

    def with_options(self, **options: Unpack[RequestOptions]) -> Client:
        """A new client: these defaults over this client's (``headers`` merged)."""
        return Client(**self._merged(options))

    def _merged(self, options: Mapping[str, Any]) -> Any:
        return self._defaults.merged(Options.check(options)).given()

    def complete(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> AssistantMessage:
        """:func:`llmkit.complete` with this client's defaults."""
        from ._api import complete

        return complete(model, context, **self._merged(options))

    async def acomplete(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> AssistantMessage:
        """:func:`llmkit.acomplete` with this client's defaults."""
        from ._api import acomplete

        return await acomplete(model, context, **self._merged(options))

    def stream(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> EventStream:
        """:func:`llmkit.stream` with this client's defaults."""
        from ._api import stream

        return stream(model, context, **self._merged(options))

    def astream(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> AsyncEventStream:
        """:func:`llmkit.astream` with this client's defaults."""
        from ._api import astream

        return astream(model, context, **self._merged(options))

    def count_tokens(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> int:
        """:func:`llmkit.count_tokens` with this client's defaults."""
        from ._count import count_tokens

        return count_tokens(model, context, **self._merged(options))

    async def acount_tokens(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        **options: Unpack[RequestOptions],
    ) -> int:
        """:func:`llmkit.acount_tokens` with this client's defaults."""
        from ._count import acount_tokens

        return await acount_tokens(model, context, **self._merged(options))

    def build_request(
        self,
        model: Model,
        context: Context | str | Sequence[Message],
        *,
        stream: bool = True,
        **options: Unpack[RequestOptions],
    ) -> httpx.Request:
        """:func:`llmkit.build_request` with this client's defaults.

        The client's own send-only defaults (``timeout``, ``max_retries``, ``client``, ...)
        are left out, since nothing is sent here; the same options passed to this call are
        refused, as :func:`llmkit.build_request` refuses them.
        """
        from ._api import build_request

        refuse_send_only(options)
        given = self._defaults.given()
        defaults = Options(**{k: v for k, v in given.items() if k not in SEND_ONLY})
        merged: Any = defaults.merged(Options.check(options)).given()
        return build_request(model, context, stream=stream, **merged)

    def __repr__(self) -> str:
        given = self._defaults.given()
        shown = ", ".join(f"{k}={_shown(k, v)}" for k, v in sorted(given.items()))
        return f"llmkit.Client({shown})"
