"""Test helpers: a scripted fake provider that speaks the real wire.

:class:`FakeProvider` runs a real HTTP/1.1 server on ``127.0.0.1`` (a free port, daemon threads)
and answers each request with the next scripted :class:`FakeReply` or :class:`FakeError`, encoded
byte for byte as the provider's API would send it: the same SSE framing, chunk shapes, headers
and error bodies. Anything that speaks the wire can be pointed at it: llmkit itself, a vendor SDK,
or a plain ``httpx`` client. Because the bytes really cross a socket, it also tests what a mock
transport cannot: chunking at arbitrary byte offsets, slow and stalled streams, dropped
connections, and client cancellation (``disconnects``).

Wire APIs served (``FakeProvider(api=...)``), each streamed when the request asks:

- ``openai-chat``: ``POST {base_url}/chat/completions``
- ``openai-responses``: ``POST {base_url}/responses``
- ``anthropic-messages``: ``POST {base_url}/messages``
- ``gemini``: ``POST {base_url}/models/{model}:streamGenerateContent?alt=sse`` and
  ``:generateContent``
- ``bedrock-converse``: ``POST {base_url}/model/{modelId}/converse-stream`` (binary AWS event
  stream) and ``/converse``

and the token-counting endpoints of the wires that have one (``count_tokens``):
``{base_url}/messages/count_tokens``, ``{base_url}/responses/input_tokens`` and
``{base_url}/models/{model}:countTokens``, answered by the fake itself (no scripted reply is
used) with ``count_tokens(request)`` — by default about four characters a token.

``FakeProvider(api=..., platform="vertex")`` serves Vertex AI's URL shapes instead (Gemini
``…/projects/{p}/locations/{l}/publishers/google/models/{m}:streamGenerateContent``, Claude
``…/publishers/anthropic/models/{m}:streamRawPredict``, with an OAuth bearer token); its
``model()`` is a ``platform="vertex"`` model, as ``platform="bedrock"`` gives a Bedrock one.

Like the real APIs, the fake refuses (HTTP 400, the wire's error shape, no scripted reply used)
what they refuse before generating: a PDF document or an image to a model that cannot read it
(``input=``), Anthropic ``cache_control`` on an empty text block or on more than 4 blocks, a
1-hour breakpoint after a 5-minute one, an OpenAI ``file_data`` without its ``filename``, and a
hosted-tool type the wire does not know. So a user's tests catch those requests too.

On ``openai-chat`` the fake can also stream like another OpenAI-compatible server, quirks
included: ``FakeProvider(replies, emulate="ollama")`` (see
:data:`EMULATED_SERVERS`). A tool loop under test, in a few lines::

    from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

    replies = [
        FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})]),
        FakeReply("It is sunny in Paris."),
    ]
    with FakeProvider(replies) as fake:
        run_my_agent(fake.model(), api_key=fake.api_key)
        assert fake.requests[1].body["messages"][-1]["role"] == "tool"

A script can also grow while the fake serves: ``fake.script(FakeReply("more"))`` appends to it.

**The pytest plugin.** Installing llmkit registers a pytest plugin (entry point ``pytest11``,
name ``llmkit``; with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` set, enable it with ``-p llmkit``) that
gives tests a ``fake_provider`` fixture: a started :class:`FakeProvider`, closed after the test.
Script it in the test, or configure it with the ``fake_provider`` marker, whose arguments are
``FakeProvider``'s own; an indirect parametrization with a dict of them does the same (and
wins over the marker, key by key)::

    def test_my_agent(fake_provider):
        fake_provider.script(FakeReply("It is sunny."))
        assert my_agent(fake_provider.model(), api_key=fake_provider.api_key) == "It is sunny."

    @pytest.mark.fake_provider([FakeReply("Bonjour")], api="anthropic-messages")
    def test_on_claude(fake_provider): ...

    @pytest.mark.parametrize("fake_provider", [{"api": "gemini"}, {"emulate": "vllm"}],
                             indirect=True)
    def test_everywhere(fake_provider): ...
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._fake.counting import Counter, estimate
from ._fake.encoding import WireEncoder
from ._fake.http_server import ENCODERS, Server
from ._fake.openai_chat import OpenAIChatEncoder
from ._fake.script import FakeError, FakeReply, FakeRequest, FakeToolCall, Responder, ScriptItem
from ._fake.servers import PROFILES, profile

if TYPE_CHECKING:
    from ._models import Api, Model, Platform

__all__ = [
    "EMULATED_SERVERS",
    "FakeError",
    "FakeProvider",
    "FakeReply",
    "FakeRequest",
    "FakeToolCall",
    "Responder",
    "ScriptItem",
]

EMULATED_SERVERS: tuple[str, ...] = tuple(PROFILES)
"""The servers ``FakeProvider(emulate=...)`` can imitate on ``openai-chat``. Each reproduces
its server's streaming quirks (ids are docs/quirks.md rows):

- ``"openai"``: api.openai.com, well-behaved (the default);
- ``"vllm"``: ``id``/``type``/``name`` repeated on every tool-call delta (B1);
  ``finish_reason: "stop"`` with tool calls when ``tool_choice`` names a function (E1);
  reasoning in ``delta.reasoning`` (and ``reasoning_content``, F8); usage only on request (J1);
- ``"ollama"``: each call whole in one chunk, all at ``index: 0`` with new ids (C2, D1);
  ``finish_reason: "stop"`` with tool calls (E1); reasoning in ``delta.reasoning`` (F8);
- ``"llamacpp"`` (before PR #13800): ``function.name`` on every delta, the id inside
  ``function`` (D4); mapping arguments sent as a JSON object (D2); ``reasoning_content``;
- ``"mistral"``: every call whole in one delta, no ``index`` (C1, C4), 9-character ids (B5);
  usage always, on the finish chunk; reasoning as magistral ``thinking`` content parts;
- ``"groq"``: each call whole in one chunk (D1); usage in ``x_groq.usage`` and ``usage`` of
  the finish chunk, always (plus a ``choices: []`` chunk on request); ``delta.reasoning``;
  in-stream errors as ``event: error``;
- ``"deepseek"``: ``reasoning_content`` deltas before content (F6); usage on the finish chunk
  with ``prompt_cache_hit_tokens``/``prompt_cache_miss_tokens``;
- ``"openrouter"``: ``: OPENROUTER PROCESSING`` comments first (A3); ``delta.reasoning`` plus
  ``reasoning_details`` (F7); ``native_finish_reason`` (E5); usage always, in a repeated finish
  chunk; in-stream errors as a chunk with ``error`` and ``finish_reason: "error"`` (A7);
- ``"gemini-openai"``: ``id: ""`` (B2) and no ``index`` (C1) on tool calls, every call in one
  delta with ``extra_content.google.thought_signature`` on the first (F3); ``finish_reason:
  "stop"`` with tool calls (E1); no reasoning text;
- ``"azure"``: a first chunk with ``choices: []``, empty ``id``/``model`` and
  ``prompt_filter_results``, and ``content_filter_results`` on every choice (A8).

Emulation shapes streamed responses; non-streamed bodies and HTTP errors keep OpenAI's shape.
"""


_PLATFORM_APIS = {
    "vertex": ("gemini", "anthropic-messages"),
    "bedrock": ("bedrock-converse",),
    "azure": ("openai-chat", "openai-responses", "anthropic-messages"),
}
_VERTEX_PATH = "/v1/projects/fake-project/locations/us-central1"
# Azure OpenAI's v1 root, and Foundry's Claude root (clients add /v1/messages).
_AZURE_PATHS = {"openai-chat": "/openai/v1", "openai-responses": "/openai/v1"}
_FOUNDRY_PATH = "/anthropic"
# Azure OpenAI's v1 and deployment paths (``/openai/deployments/{name}/chat/completions``,
# ``/openai/responses``), Foundry's ``/anthropic/v1/messages``: the wire's own path after them.
_AZURE = re.compile(r"/(?:openai/v1|openai/deployments/[^/]+|openai|anthropic/v1)(/.*)")


class _EmulatingServer(Server):
    """A :class:`Server` whose ``openai-chat`` requests go to an emulating encoder instead of
    the shared default one (other wires still route through ``ENCODERS``)."""

    def __init__(self, *args: Any, encoder: WireEncoder, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.encoder = encoder

    def route(self, method: str, path: str) -> WireEncoder | None:
        """The encoder for ``method`` on ``path``, the emulating one for its own wire."""
        found = super().route(method, path)
        return self.encoder if found is ENCODERS.get(self.encoder.api) else found


class _AzureEncoder:
    """A wire's encoder as Azure serves it: Azure OpenAI's and Foundry's paths, and the key in
    ``api-key`` (Foundry: also ``x-api-key``) or an Entra ID bearer token equal to it."""

    def __init__(self, inner: WireEncoder) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def handles(self, method: str, path: str) -> bool:
        found = _AZURE.fullmatch(path.split("?", 1)[0])
        return found is not None and self._inner.handles(method, "/v1" + found.group(1))

    def unauthorized(self, request: FakeRequest, api_key: str) -> bytes | None:
        headers = request.headers
        if api_key in (headers.get("api-key"), headers.get("x-api-key")):
            return None
        if headers.get("authorization") == f"Bearer {api_key}":
            return None
        return self._inner.unauthorized(request, api_key)


class _AzureServer(_EmulatingServer):
    """A :class:`Server` answering its one wire on Azure's paths only."""

    def route(self, method: str, path: str) -> WireEncoder | None:
        return self.encoder if self.encoder.handles(method, path) else None


class _Script:
    """An iterable script that :meth:`FakeProvider.script` can extend while it is served: the
    items given at construction first, then those appended, in order. ``next()`` raises
    ``StopIteration`` while nothing is pending but serves items appended later (the server asks
    once per request)."""

    def __init__(self, items: Iterable[ScriptItem]) -> None:
        self._first: Iterator[ScriptItem] | None = iter(items)
        self._more: deque[ScriptItem] = deque()  # appended by the test, popped by the server

    def __iter__(self) -> _Script:
        return self

    def __next__(self) -> ScriptItem:
        if self._first is not None:
            try:
                return next(self._first)
            except StopIteration:
                self._first = None
        try:
            return self._more.popleft()
        except IndexError:
            raise StopIteration from None

    def extend(self, items: Iterable[ScriptItem]) -> None:
        self._more.extend(items)


class FakeProvider:
    """A local HTTP server that answers like a provider's API, from a script.

    Use it as a context manager, or call :meth:`start` and :meth:`close`. Requests are answered
    in arrival order: the n-th request gets the n-th scripted item. Requests the fake answers
    itself do not use a scripted item: a wrong or missing key (401, in the wire's error shape,
    when ``require_key``), an unknown path (404), a body that is not a JSON object (400). A
    request after the script runs out gets a 500 whose message says so (``"FakeProvider has no
    reply left for request #3 ..."``); note that clients retry 500s by default.

    Args:
        replies: The script: an iterable of :class:`FakeReply` / :class:`FakeError`, consumed
            lazily (so ``itertools.repeat(reply)`` serves forever), or a responder function
            ``(FakeRequest) -> FakeReply | FakeError`` called once per request, one call at a
            time, on a server thread. If it raises, the request gets a 500 naming the exception.
        api: The wire API to serve, a ``Model.api`` value (every wire llmkit speaks).
        api_key: The key clients must send.
        require_key: Check the key on every request.
        host: The interface to bind.
        emulate: Stream like this OpenAI-compatible server, with its real wire quirks: one of
            :data:`EMULATED_SERVERS` (``"vllm"``, ``"ollama"``, ...). ``None`` (or
            ``"openai"``) is api.openai.com's own behaviour. ``openai-chat`` only.
        platform: ``"vertex"`` (``api="gemini"`` or ``"anthropic-messages"``: Vertex AI's
            paths under ``base_url`` = ``…/v1/projects/fake-project/locations/us-central1``)
            or ``"bedrock"`` (``api="bedrock-converse"``) or ``"azure"`` (``api="openai-chat"``
            or ``"openai-responses"``: Azure OpenAI's ``/openai/v1`` and deployment paths, the
            key in ``api-key``; ``"anthropic-messages"``: Claude on Microsoft Foundry,
            ``/anthropic/v1/messages``); ``model()`` carries it.
        input: What the fake model reads (``Model.input`` values): a request carrying a PDF
            document without ``"pdf"`` here, or an image without ``"image"``, is refused with
            the real API's 400. Everything by default.
        count_tokens: The answer of the token-counting endpoints, from the request
            (default: about four characters a token over every string in the body).

    Raises:
        ValueError: ``api`` is not a wire API the fake speaks, or ``emulate`` names a server
            that is not emulated or is given with another ``api``, or ``platform`` does not
            carry ``api``.
    """

    def __init__(
        self,
        replies: Iterable[ScriptItem] | Responder = (),
        *,
        api: Api = "openai-chat",
        api_key: str = "fake-key",
        require_key: bool = True,
        host: str = "127.0.0.1",
        emulate: str | None = None,
        platform: Platform | None = None,
        input: Iterable[str] = ("text", "image", "pdf"),
        count_tokens: Counter = estimate,
    ) -> None:
        if platform is not None and api not in _PLATFORM_APIS.get(platform, ()):
            raise ValueError(f"platform={platform!r} does not carry api={api!r}")
        self._platform = platform
        if emulate is not None and api != "openai-chat":
            raise ValueError(f"emulate= is for api='openai-chat' only, not {api!r}")
        if api not in ENCODERS:
            raise ValueError(f"FakeProvider speaks {sorted(ENCODERS)}, not {api!r}")
        self._api: Api = api  # declared: pyright widens an inferred attribute to str
        self._host = host
        self._port: int | None = None
        self._emulate = emulate
        self._script: _Script | None = None
        if not callable(replies):
            replies = self._script = _Script(replies)
        common: dict[str, Any] = {
            "api": api,
            "api_key": api_key,
            "require_key": require_key,
            "reads": frozenset(input),
            "count": count_tokens,
        }
        self._server: Server
        if platform == "azure":
            inner = ENCODERS[api] if emulate is None else OpenAIChatEncoder(profile(emulate))
            azure: Any = _AzureEncoder(inner)
            self._server = _AzureServer(replies, encoder=azure, **common)
            return
        if emulate is None:
            self._server = Server(replies, **common)
            return
        encoder = OpenAIChatEncoder(profile(emulate))  # ValueError for an unknown name
        self._server = _EmulatingServer(replies, encoder=encoder, **common)

    def script(self, *items: ScriptItem) -> None:
        """Append replies to the script, also while the fake is serving.

        They are served after every item given at construction (so after none of an endless
        ``itertools.repeat``), in order.

        Args:
            *items: :class:`FakeReply` / :class:`FakeError` values.

        Raises:
            TypeError: The fake was built with a responder function (it has no script), or an
                item is not a ``FakeReply``/``FakeError``.
        """
        if self._script is None:
            raise TypeError("this FakeProvider answers with a responder function, not a script")
        for item in items:
            if not isinstance(item, (FakeReply, FakeError)):
                raise TypeError(f"script() takes FakeReply or FakeError, not {type(item).__name__}")
        self._script.extend(items)

    def start(self) -> FakeProvider:
        """Bind a free port and start serving.

        Returns:
            ``self``, to allow ``fake = FakeProvider(...).start()``.

        Raises:
            RuntimeError: It was already started (a provider serves one session only).
        """
        self._port = self._server.start(self._host)
        return self

    def close(self) -> None:
        """Stop the server and end every open response, promptly (well under a second).

        Stalled and slow responses are cut off (the connection closes without the end of the
        body), and so are idle keep-alive connections. ``requests`` and ``disconnects`` stay
        readable. Calling it again does nothing.
        """
        self._server.close()

    def __repr__(self) -> str:  # never the key
        where = f"at {self.base_url}" if self._port is not None else "not started"
        emulating = f" emulating {self._emulate}" if self._emulate else ""
        platform = f" on {self._platform}" if self._platform else ""
        answers = "a responder" if self._script is None else "a script"
        served = len(self._server.requests)
        return (
            f"<llmkit.testing.FakeProvider {self._api}{platform}{emulating} {where}, "
            f"answering from {answers}, {served} request{'s' * (served != 1)} received>"
        )

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def api(self) -> Api:
        """The wire API served, e.g. ``"openai-chat"``."""
        return self._api

    @property
    def emulate(self) -> str | None:
        """The emulated server's name, e.g. ``"ollama"``; ``None`` for the default."""
        return self._emulate

    @property
    def api_key(self) -> str:
        """The key clients must send (``Authorization: Bearer <key>`` on openai-chat)."""
        return self._server.api_key

    @property
    def base_url(self) -> str:
        """The API root to give a client, e.g. ``"http://127.0.0.1:PORT/v1"``.

        Raises:
            RuntimeError: The provider has not been started.
        """
        if self._port is None:
            raise RuntimeError("FakeProvider is not started; use `with` or call start()")
        host = f"[{self._host}]" if ":" in self._host else self._host
        if self._platform == "vertex":
            path = _VERTEX_PATH
        elif self._platform == "azure":
            path = _AZURE_PATHS.get(self._api, _FOUNDRY_PATH)
        else:
            path = ENCODERS[self._api].base_path
        return f"http://{host}:{self._port}{path}"

    @property
    def requests(self) -> list[FakeRequest]:
        """Every request received so far, in arrival order (a copy)."""
        return self._server.requests

    @property
    def disconnects(self) -> int:
        """How many times a client hung up while a response was still being written.

        Noticed during delays and stalls within about 50 ms, and on any failed write.
        """
        return self._server.disconnects

    def wait_for_disconnects(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` disconnects have been noticed.

        Args:
            count: The number of disconnects to wait for.
            timeout: Seconds to wait at most.

        Returns:
            Whether ``disconnects >= count`` before the timeout.
        """
        return self._server.wait_for_disconnects(count, timeout)

    def model(self, id: str = "fake-model", **fields: Any) -> Model:
        """An ``llmkit.Model`` pointing at this server.

        Calls still need the key: pass ``api_key=fake.api_key`` (or build the fake with
        ``require_key=False``, which also makes the model not require one).

        Args:
            id: The model id sent in requests (and echoed in responses).
            **fields: Other ``Model`` fields, e.g. ``reasoning=True`` or ``compat={...}``.

        Returns:
            ``Model(provider="fake", id=id, api=self.api, base_url=self.base_url, ...)``.
        """
        # Imported here so that importing llmkit.testing does not need the whole client.
        from ._models import Model

        if not self._server.require_key:
            fields.setdefault("api_key_required", False)
        if self._platform is not None:
            fields.setdefault("platform", self._platform)
        return Model(provider="fake", id=id, api=self._api, base_url=self.base_url, **fields)
