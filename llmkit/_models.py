"""Models, provider profiles, compat flags and the model catalogue.

A :class:`Model` says where to send a request and how: its wire API (``api``), base URL,
key variable, capabilities and prices. Provider profiles (base URL, key variable) and the
catalogue of known models are data files in ``llmkit/data/``, read lazily on first use so that
``import llmkit`` stays cheap.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import warnings
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from ._errors import InvalidRequestError, UnknownModelError
from ._messages import Usage

if TYPE_CHECKING:
    from ._wire.anthropic_messages.compat import AnthropicCompat
    from ._wire.openai_chat.compat import OpenAIChatCompat

__all__ = [
    "AnthropicCompat",
    "Api",
    "CostTier",
    "Model",
    "ModelCost",
    "OpenAIChatCompat",
    "Platform",
    "WireCompat",
    "get_model",
    "models",
    "register_model",
]

Api = Literal["openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse"]

Platform = Literal["bedrock", "vertex", "azure"]
"""A cloud platform hosting models of several vendors: it decides how requests authenticate
(:mod:`llmkit._auth`) and, for Vertex AI and Azure, the URL layout of the wire it carries."""


class CostTier(BaseModel):
    """Prices that apply above a prompt size (models.dev ``[[cost.tiers]]``): when
    ``Usage.input`` exceeds ``size``, every bucket priced here is billed at this price, a bucket
    left out (``None``) at the model's base price.

    Attributes:
        size: Input tokens above which the tier applies.
        input: Uncached input.
        output: Output.
        cache_read: Input read from the prompt cache.
        cache_write: Input written to the prompt cache.
        cache_write_long: Input written to a long-lived cache entry.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    size: int
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_long: float | None = None


class ModelCost(BaseModel):
    """Prices in USD per million tokens; ``None`` is an unknown price, ``0.0`` a free bucket.

    A cost is only computed from known prices: usage in a bucket whose price is unknown makes
    the cost unknown (``Usage.cost`` is ``None``), never guessed.

    Attributes:
        input: Uncached input.
        output: Output (reasoning included).
        cache_read: Input read from the prompt cache.
        cache_write: Input written to the prompt cache (Anthropic: a 5-minute write).
        cache_write_long: Input written to a long-lived cache entry (Anthropic: a 1-hour
            write, ``cache="long"``), where the provider bills it at its own price.
        tiers: Long-prompt prices, by ascending ``size``: the highest tier whose ``size`` the
            request's input exceeds replaces the prices it names (GPT-5.4 doubles its input
            price above 272k tokens).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_long: float | None = None
    tiers: tuple[CostTier, ...] = ()

    def for_input(self, input_tokens: int) -> ModelCost:
        """The prices that bill a request with ``input_tokens`` of input (its tier applied)."""
        tier = None
        for candidate in self.tiers:
            if input_tokens > candidate.size and (tier is None or candidate.size > tier.size):
                tier = candidate
        if tier is None:
            return self
        priced = {
            k: v
            for k in ("input", "output", "cache_read", "cache_write", "cache_write_long")
            if (v := getattr(tier, k)) is not None
        }
        return self.model_copy(update={**priced, "tiers": ()})


# Frozen, so every Model can share them: a Model's defaults cost no memory per instance (a
# process holding a Model per open stream holds one each). Made on first use, not at import.
@functools.cache
def _no_cost() -> ModelCost:
    return ModelCost()


class WireCompat(BaseModel):
    """Base of the per-wire quirk flags (``Model.compat``). Each wire package defines its own
    (:class:`~llmkit.OpenAIChatCompat`, :class:`~llmkit.OpenAIResponsesCompat`,
    :class:`~llmkit.AnthropicCompat`); the model's ``api`` says which one it holds."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True, extra="forbid")


# The flags type of each wire that has one: (module, class), imported when a Model of that wire
# is made (the wire's adapter is needed for it anyway). Claude on Bedrock takes Claude's flags.
_COMPAT_TYPES: dict[str, tuple[str, str]] = {
    "openai-chat": ("llmkit._wire.openai_chat.compat", "OpenAIChatCompat"),
    "openai-responses": ("llmkit._wire.openai_responses.compat", "OpenAIResponsesCompat"),
    "anthropic-messages": ("llmkit._wire.anthropic_messages.compat", "AnthropicCompat"),
    "bedrock-converse": ("llmkit._wire.anthropic_messages.compat", "AnthropicCompat"),
}


@functools.cache
def _compat_type(api: str) -> type[WireCompat] | None:
    """The quirk-flags type of ``api``; ``None`` for a wire without flags (Gemini)."""
    where = _COMPAT_TYPES.get(api)
    if where is None:
        return None
    found: type[WireCompat] = getattr(importlib.import_module(where[0]), where[1])
    return found


@functools.cache
def _default_compat(kind: type[WireCompat]) -> WireCompat:
    return kind()


def _compat(kind: type[WireCompat] | None, given: Any, profile: dict[str, Any] | None) -> Any:
    """``Model.compat`` for a model of the wire whose flags type is ``kind``: the caller's
    flags over the provider profile's. A profile's flags serve all of its provider's wires,
    so each wire takes from them only the fields it reads."""
    if kind is None:
        if given not in (None, {}):
            raise ValueError("this model's api has no compat flags")
        return None
    shared = (profile or {}).get("compat")
    if shared is not None and given is None:
        return _profile_compat(profile, kind)  # type: ignore[arg-type]
    if isinstance(given, WireCompat) and not isinstance(given, kind):
        given = given.model_dump(exclude_unset=True)  # another wire's flags object
    if isinstance(given, dict):
        base = {k: v for k, v in (shared or {}).items() if k in kind.model_fields}
        return kind.model_validate({**base, **given})
    return _default_compat(kind) if given is None else given


class Model(BaseModel):
    """A model and where to reach it.

    A custom server is one line::

        llmkit.Model(provider="vllm", id="qwen3", api="openai-chat",
                     base_url="http://127.0.0.1:8000/v1")

    For a provider llmkit knows, ``Model(provider="openai", id="gpt-5.2")`` is enough: ``api``,
    ``base_url``, ``api_key_env`` and the compat flags come from the provider (``api``: the
    wire its catalogue models use; for a provider with several, the one its docs name as the
    default). A provider llmkit does not know needs ``api``.

    Attributes:
        provider: Provider name (``openai``, ``anthropic``, ``vllm``, …).
        id: The model id sent to the provider.
        api: The wire API; defaults from the provider (required for a provider llmkit does
            not know).
        base_url: API root (``https://api.openai.com/v1``); defaults from the provider profile.
        api_key_env: Environment variable holding the key; defaults from the provider profile.
            ``None`` with ``api_key_required=False`` for local servers that need no key.
        api_key_required: Whether a missing key is an error (False for local servers).
        input: What the model reads: ``"text"``, and ``"image"`` and ``"pdf"`` where it can (a
            PDF document to a model without ``"pdf"`` is a placeholder, ``document_omitted``).
        reasoning: Whether the model reasons (accepts the ``reasoning`` option).
        reasoning_efforts: The effort values the model takes, lowest first (models.dev
            ``reasoning_options``: ``"none"``, ``"minimal"``, ``"low"``, ``"medium"``,
            ``"high"``, ``"xhigh"``, ``"max"``); ``None``: the wire's own levels.
        reasoning_budget: The thinking-token budget range of a budget-only model (``min``,
            ``max``; either may be absent); ``None``: the wire's own budgets.
        strict_tools: Whether strict tool schemas are supported.
        structured_output: Whether ``response_format`` can be honoured. ``None``: the wire
            decides (OpenAI and Gemini wires: yes; Anthropic: Claude 4.5 and later, by id).
        forced_tool_choice: Whether ``tool_choice`` may force tool use (``"required"`` or a
            named tool). ``False`` (a model that answers 400 to it): a forced choice is sent as
            ``"auto"`` and reported (``option_unsupported``).
        long_cache: Whether ``cache="long"`` can be honoured (Anthropic 1-hour breakpoints;
            OpenAI 24-hour retention). ``None``: the wire decides (Anthropic: yes; OpenAI: where
            the server takes prompt-cache options, ``compat.supports_prompt_cache``).
        cache_points: Whether ``CachePoint`` s become explicit breakpoints on OpenAI wires
            (``prompt_cache_breakpoint``, ``prompt_cache_options``: gpt-5.6 and later). Anthropic
            always takes them; other wires cache prefixes automatically and ignore them.
        eager_input_streaming: Whether ``stream_tool_arguments=True`` can be honoured
            (Anthropic ``eager_input_streaming``; Gemini ``streamFunctionCallArguments``).
            ``None``: the wire decides (Anthropic: Claude 4.5 and later, by id; Gemini: on
            Vertex AI only).
        context_window: Tokens of context, when known.
        max_output_tokens: Output limit, when known (used as the default ``max_tokens``
            where the wire API requires one).
        cost: Prices per million tokens.
        compat: Quirk flags, of the type of the model's ``api`` (docs/design.md §3):
            OpenAI-compatible server flags (:class:`OpenAIChatCompat`, ``openai-chat``;
            :class:`OpenAIResponsesCompat`, ``openai-responses``), Claude's thinking and
            sampling behaviour (:class:`AnthropicCompat`, ``anthropic-messages`` and
            ``bedrock-converse``); ``None`` for Gemini. A dict sets fields over the provider
            profile's.
        platform: The cloud platform serving the model, from the provider profile:
            ``"bedrock"`` (Amazon Bedrock: a Bedrock API key as bearer token, else SigV4 from
            the AWS credential chain) or ``"vertex"`` (Google Vertex AI: an OAuth access token
            from ``api_key`` or application-default credentials, or an express-mode API key;
            ``publishers/{publisher}/models/{id}:{method}`` URLs). ``None``: the wire's own
            key header. ``base_url`` may hold ``{region}``, ``{project}`` and ``{location}``
            placeholders, filled in when a request is built (docs/cloud.md). ``"azure"``
            (Azure OpenAI and Claude on Microsoft Foundry: ``api-key``, else Microsoft Entra
            ID tokens; the v1 or deployment endpoint, docs/cloud.md).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    provider: str
    id: str
    api: Api = Field(default=cast("Api", None))  # None only until the provider fills it in
    base_url: str = ""
    api_key_env: str | None = None
    api_key_required: bool = True
    input: list[Literal["text", "image", "pdf"]] = Field(default_factory=lambda: ["text"])  # type: ignore[arg-type]
    reasoning: bool = False
    reasoning_efforts: tuple[str, ...] | None = None
    reasoning_budget: dict[Literal["min", "max"], int] | None = None
    strict_tools: bool = False
    structured_output: bool | None = None
    forced_tool_choice: bool = True
    long_cache: bool | None = None
    cache_points: bool = False
    eager_input_streaming: bool | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    cost: ModelCost = Field(default_factory=_no_cost)
    compat: SerializeAsAny[WireCompat] | None = None
    platform: Platform | None = None

    @model_validator(mode="before")
    @classmethod
    def _profile_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("api") is None and isinstance(data.get("provider"), str):
            data = {**data, "api": _default_api(data["provider"])}
        merged = dict(data)
        if "anthropic" in merged:  # the older spelling of Claude's flags (the catalogue's)
            legacy = merged.pop("anthropic")
            if merged.get("compat") is None:
                merged["compat"] = legacy
        profile = _providers().get(str(data.get("provider", "")))
        if profile is None:
            profile = _profile_for_url(str(data.get("base_url") or ""))
        if profile is not None:
            for key in ("base_url", "api_key_env", "api_key_required", "platform"):
                if merged.get(key) in (None, "") and key in profile:
                    merged[key] = profile[key]
        api = merged.get("api")
        kind = _compat_type(api) if isinstance(api, str) else None
        merged["compat"] = _compat(kind, merged.get("compat"), profile)
        return merged

    @property
    def anthropic(self) -> AnthropicCompat:
        """Deprecated: Claude's flags are ``compat`` (:class:`AnthropicCompat`) on the models
        that have them."""
        from ._wire.anthropic_messages.compat import claude_flags

        warnings.warn(
            "Model.anthropic is deprecated: read Model.compat", DeprecationWarning, stacklevel=2
        )
        return claude_flags(self)

    def cost_of(self, usage: Usage, *, long_writes: int = 0) -> float | None:
        """USD for ``usage`` at this model's prices, each token billed once: cache reads and
        writes at their own prices, the rest of the input at the input price.

        Args:
            usage: The counts.
            long_writes: How many of ``usage.cache_write`` went to long-lived (Anthropic
                1-hour) cache entries, billed at ``cost.cache_write_long``.

        Returns:
            The cost, or ``None`` when a count needed is missing or a bucket with tokens in it
            has no known price (an unknown price is never taken as free).
        """
        if usage.input is None or usage.output is None:
            return None
        c = self.cost.for_input(usage.input) if self.cost.tiers else self.cost
        read = usage.cache_read or 0
        write = usage.cache_write or 0
        long = min(max(long_writes, 0), write)
        buckets = (
            (max(usage.input - read - write, 0), c.input),
            (read, c.cache_read),
            (write - long, c.cache_write),
            (long, c.cache_write_long),
            (usage.output, c.output),
        )
        total = 0.0
        for tokens, price in buckets:
            if tokens:
                if price is None:
                    return None
                total += tokens * price
        if c.input is None and c.output is None:
            return None  # no prices at all: nothing is known, not even "free"
        return total / 1_000_000


# Providers whose catalogue models use several wires: the wire their docs name as the default
# (OpenAI: "we recommend the Responses API for all new projects",
# https://platform.openai.com/docs/guides/migrate-to-responses).
_DOCUMENTED_DEFAULT_API: dict[str, Api] = {"openai": "openai-responses"}


@functools.lru_cache(maxsize=1)
def _catalogue_apis() -> dict[str, dict[Api, int]]:
    """For each provider of the catalogue, how many of its models use each wire."""
    apis: dict[str, dict[Api, int]] = {}
    for (provider, _), entry in _catalogue_entries().items():
        counts = apis.setdefault(provider, {})
        counts[entry["api"]] = counts.get(entry["api"], 0) + 1
    return apis


def _default_api(provider: str) -> Api:
    """The wire a ``Model(provider=...)`` without ``api`` uses.

    Raises:
        InvalidRequestError: llmkit knows no wire for this provider; it lists the providers
            whose wire it knows.
    """
    if provider in _DOCUMENTED_DEFAULT_API:
        return _DOCUMENTED_DEFAULT_API[provider]
    counts: dict[Api, int] = {}
    for entry in _provider_entries(provider).values():  # only this provider's lines are read
        counts[entry["api"]] = counts.get(entry["api"], 0) + 1
    if counts:
        return max(sorted(counts), key=lambda api: counts[api])
    known = ", ".join(sorted(_catalogue_apis()))
    raise InvalidRequestError(
        f"Model(provider={provider!r}) needs api=...: llmkit does not know which wire API "
        f"{provider!r} speaks. Providers it knows: {known}. For another server, pass api= "
        "(openai-chat, openai-responses, anthropic-messages, gemini or bedrock-converse) "
        "and base_url="
    )


_compat_of_profile: dict[tuple[int, type[WireCompat]], tuple[dict[str, Any], WireCompat]] = {}


def _profile_compat(profile: dict[str, Any], kind: type[WireCompat]) -> WireCompat:
    """A profile's compat flags, the fields ``kind`` has, as one shared (frozen) object."""
    known = _compat_of_profile.get((id(profile), kind))
    if known is not None and known[0] is profile:
        return known[1]
    fields = {k: v for k, v in profile["compat"].items() if k in kind.model_fields}
    compat = kind.model_validate(fields)
    _compat_of_profile[(id(profile), kind)] = (profile, compat)
    return compat


def _data(name: str) -> Any:
    """The JSON data file ``llmkit/data/<name>``, parsed.

    Read through the package's own loader, as ``pkgutil.get_data`` does (a zip-imported llmkit
    reads the same way), not through ``importlib.resources``: importing that (``tempfile``,
    ``zipfile``, its readers) cost the first request more than reading the file.
    """
    path = os.path.join(os.path.dirname(__file__), "data", name)
    return json.loads(__spec__.loader.get_data(path))  # type: ignore[union-attr]


@functools.lru_cache(maxsize=1)
def _providers() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = _data("providers.json")["providers"]
    return data


def _host(url: str) -> str:
    host = urlsplit(url).netloc.lower().rpartition("@")[2]
    for local in ("localhost", "[::1]", "0.0.0.0"):
        if host == local or host.startswith(local + ":"):
            return "127.0.0.1" + host[len(local) :]
    return host


def _profile_for_url(base_url: str) -> dict[str, Any] | None:
    """A custom provider name on a known server's URL gets that server's profile (its compat
    flags); a local server is recognised by its default port."""
    host = _host(base_url)
    if not host:
        return None
    for profile in _providers().values():
        if profile.get("base_url") and _host(profile["base_url"]) == host:
            return profile
    return None


def provider_names() -> list[str]:
    """Every provider with a profile."""
    return sorted(_providers())


_registered: dict[tuple[str, str], Model] = {}


@functools.lru_cache(maxsize=1)
def _catalogue_bytes() -> bytes:
    path = os.path.join(os.path.dirname(__file__), "data", "models.json")
    data: bytes = __spec__.loader.get_data(path)  # type: ignore[union-attr]
    return data


@functools.lru_cache(maxsize=1)
def _catalogue_entries() -> dict[tuple[str, str], dict[str, Any]]:
    """The whole catalogue's raw entries, keyed by (provider, id): for listings and an unknown
    model's suggestions. A lookup reads only its provider's entries (:func:`_provider_entries`)."""
    entries = json.loads(_catalogue_bytes())["models"]
    return {(entry["provider"], entry["id"]): entry for entry in entries}


@functools.lru_cache(maxsize=64)
def _provider_entries(provider: str) -> dict[str, dict[str, Any]]:
    """One provider's raw entries, keyed by id. Each becomes a Model only when it is asked for
    (:func:`_catalogue_model`).

    The catalogue holds hundreds of models (scripts/gen_catalogue.py); parsing all of them
    would cost the first ``get_model`` milliseconds for the one model it returns. The generator
    writes one model per line, sorted, each line starting with its provider, so one provider's
    entries are the lines with that prefix (tests/test_catalogue.py holds the layout to it).
    """
    prefix = b'    {"provider": ' + json.dumps(provider).encode() + b", "
    data = _catalogue_bytes()
    start = data.find(b"\n" + prefix)
    out: dict[str, dict[str, Any]] = {}
    while start != -1:
        end = data.find(b"\n", start + 1)
        entry = json.loads(data[start + 1 : end].rstrip(b","))
        out[entry["id"]] = entry
        start = end if data.startswith(prefix, end + 1) else -1
    return out


_validated: dict[tuple[str, str], Model] = {}


def _catalogue_model(key: tuple[str, str]) -> Model | None:
    """The catalogue's Model for ``key`` (validated once, then the same object every time)."""
    model = _validated.get(key)
    if model is None:
        entry = _provider_entries(key[0]).get(key[1])
        if entry is None:
            return None
        model = _validated[key] = Model.model_validate(entry)
    return model


def _catalogue(provider: str | None = None) -> dict[tuple[str, str], Model]:
    keys = (
        _catalogue_entries()
        if provider is None
        else [(provider, i) for i in _provider_entries(provider)]
    )
    out: dict[tuple[str, str], Model] = {}
    for key in keys:
        model = _catalogue_model(key)
        assert model is not None
        out[(model.provider, model.id)] = model
    return out


def get_model(provider: str, id: str | None = None) -> Model:
    """The catalogue entry for ``provider``/``id``: ``get_model("openai", "gpt-4.1-mini")`` or
    ``get_model("openai/gpt-4.1-mini")`` (split at the first ``/``, as the command line
    writes it; ``get_model("openrouter/openai/gpt-4o")`` is OpenRouter's ``openai/gpt-4o``).

    Raises:
        UnknownModelError: no such model; ``suggestions`` lists close matches.
    """
    if id is None:
        provider, slash, id = provider.partition("/")
        if not slash:
            provider, id = "", provider
    model = _registered.get((provider, id))
    if model is None:
        model = _catalogue_model((provider, id))
    if model is not None:
        return model
    import difflib  # only for the error's suggestions

    names = [f"{p}/{i}" for p, i in {**_catalogue_entries(), **_registered}]
    close = difflib.get_close_matches(f"{provider}/{id}", names, n=5, cutoff=0.5)
    if not close:
        close = [n for n in names if n.split("/", 1)[1] == id][:5]
    raise UnknownModelError(provider, id, close)


def models(provider: str | None = None) -> list[Model]:
    """Every known model (catalogue and registered), optionally of one provider."""
    found = {**_catalogue(provider), **_registered}
    return [m for (p, _), m in sorted(found.items()) if provider is None or p == provider]


def __getattr__(name: str) -> Any:
    # The flag types moved to their wire packages; these names still import from here.
    if name == "OpenAIChatCompat":
        from ._wire.openai_chat.compat import OpenAIChatCompat

        return OpenAIChatCompat
    if name == "AnthropicCompat":
        from ._wire.anthropic_messages.compat import AnthropicCompat

        return AnthropicCompat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_model(model: Model) -> None:
    """Add (or replace) a model so that ``get_model`` finds it."""
    _registered[(model.provider, model.id)] = model
