"""Microsoft Azure: Azure OpenAI (``provider="azure"``, the Chat and Responses wires) and Claude
on Microsoft Foundry (``provider="foundry-anthropic"``, the Anthropic Messages wire).

Azure OpenAI, as the official SDK builds its requests (docs/design.md §6):

- the v1 endpoint ``https://{resource}.openai.azure.com/openai/v1`` — from ``base_url`` or
  ``AZURE_OPENAI_ENDPOINT`` (a resource root gets ``/openai/v1``) — as
  ``openai.OpenAI(base_url=<that>/)`` builds requests, the model id being the deployment name;
- a base URL holding ``/openai/deployments/{name}`` or an ``api-version`` query: the older form,
  as ``openai.AzureOpenAI(azure_deployment=..., api_version=...)`` builds it
  (``…/openai/deployments/{name}/chat/completions?api-version=…``; Responses, which is no
  deployment endpoint there, ``…/openai/responses?api-version=…``);
- the key (``api_key`` or ``AZURE_OPENAI_API_KEY``) as ``api-key``.

Claude on Foundry, as the anthropic SDK's ``AnthropicFoundry`` builds requests: the base URL from
the model, ``ANTHROPIC_FOUNDRY_BASE_URL`` or ``https://{ANTHROPIC_FOUNDRY_RESOURCE}.services.ai
.azure.com/anthropic/``; the key (``api_key`` or ``ANTHROPIC_FOUNDRY_API_KEY``) as both
``x-api-key`` and ``api-key``, as that client sends it; ``anthropic-version`` the one that client
sends (:data:`FOUNDRY_ANTHROPIC_VERSION`).

Without a key: Microsoft Entra ID tokens from ``azure-identity``'s ``DefaultAzureCredential``
(the ``azure`` extra; scope ``https://cognitiveservices.azure.com/.default`` for Azure
OpenAI, ``https://ai.azure.com/.default`` for Foundry) as ``Authorization: Bearer``. A token is
kept per scope and never sent within 60 s of its expiry: a new one is asked for first (a
blocking call to Entra ID while the request is built).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

import httpx

from .._errors import AuthenticationError, InvalidRequestError
from .._models import Model
from . import Access, missing

__all__ = [
    "FOUNDRY_ANTHROPIC_VERSION",
    "FOUNDRY_SCOPE",
    "OPENAI_SCOPE",
    "REFRESH_MARGIN",
    "resolve",
]

OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default"
"""The Entra ID scope of Azure OpenAI (openai-python's and the AI SDK's)."""

FOUNDRY_SCOPE = "https://ai.azure.com/.default"
"""The Entra ID scope of Claude on Microsoft Foundry."""

FOUNDRY_ANTHROPIC_VERSION = "2026-10-21"
"""The ``anthropic-version`` of Claude on Foundry: what the anthropic SDK's ``AnthropicFoundry``
sends (anthropic 2.17: ``ANTHROPIC_API_VERSION`` in ``anthropic/_constants.py``, put in every
request by ``Anthropic.default_headers``, which ``AnthropicFoundry`` inherits; see
https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/_constants.py).
Foundry's Anthropic endpoint is reached the way Microsoft documents it, through that client."""

REFRESH_MARGIN = 60.0
"""Seconds before its expiry within which a token is no longer sent."""

# The paths openai.AzureOpenAI puts under /deployments/{name} (openai/lib/azure.py); the
# others (Responses among them) stay under /openai.
_DEPLOYMENT_PATHS = ("/chat/completions", "/completions", "/embeddings")
_DEPLOYMENT = re.compile(r"/openai/deployments/([^/]+)")

_lock = threading.Lock()
_tokens: dict[str, tuple[str, float]] = {}  # scope -> (token, expires_on)


def _now() -> float:
    return time.time()


def resolve(model: Model, base_url: str, options: Mapping[str, Any]) -> Access:
    """The endpoint and credential of an Azure OpenAI or Foundry request."""
    foundry = model.api == "anthropic-messages"
    if foundry:
        base, endpoint, scope = _foundry_base(base_url), None, FOUNDRY_SCOPE
    else:
        base, endpoint = _openai_endpoint(model, base_url)
        scope = OPENAI_SCOPE
    env = os.environ.get(model.api_key_env) if model.api_key_env else None
    key = options.get("api_key") or env
    if key:
        sent = {"x-api-key": key, "api-key": key} if foundry else {"api-key": key}
        secret = str(key)
    else:
        secret = _token(model, scope)
        sent = {"authorization": f"Bearer {secret}"}
    given = {name.lower() for name in options.get("headers") or {}}
    if foundry and "anthropic-version" not in given:  # a caller's own header stays
        sent["anthropic-version"] = FOUNDRY_ANTHROPIC_VERSION

    def sign(request: httpx.Request) -> None:
        request.headers.pop("authorization", None)
        request.headers.update(sent)

    return Access(base_url=base, secret=secret, sign=sign, endpoint=endpoint)


def _foundry_base(base_url: str) -> str:
    if not base_url:
        base_url = os.environ.get("ANTHROPIC_FOUNDRY_BASE_URL") or ""
    if not base_url:
        resource = os.environ.get("ANTHROPIC_FOUNDRY_RESOURCE")
        if not resource:
            raise InvalidRequestError(
                "No Microsoft Foundry endpoint: pass base_url, or set ANTHROPIC_FOUNDRY_BASE_URL "
                "or ANTHROPIC_FOUNDRY_RESOURCE"
            )
        base_url = f"https://{resource}.services.ai.azure.com/anthropic/"
    base = base_url.rstrip("/")
    return base if base.endswith("/v1") else base + "/v1"  # the SDK's paths are /v1/...


def _openai_endpoint(model: Model, base_url: str) -> tuple[str, Callable[[str], str] | None]:
    """The API root and, for the deployment form, how a wire's URL becomes the final one."""
    if not base_url:
        base_url = os.environ.get("AZURE_OPENAI_ENDPOINT") or ""
    if not base_url:
        raise InvalidRequestError(
            "No Azure OpenAI endpoint: pass base_url (https://<resource>.openai.azure.com) or "
            "set AZURE_OPENAI_ENDPOINT"
        )
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    version = parse_qs(parts.query).get("api-version", [None])[0]
    found = _DEPLOYMENT.search(path)
    if found is None and version is None:
        if not path.endswith("/openai/v1"):
            path += "/openai/v1"  # a resource's root: Microsoft's v1 endpoint
        return urlunsplit((parts.scheme, parts.netloc, path, "", "")), None
    deployment = unquote(found.group(1)) if found else model.id
    api_version = version or str(getattr(model.compat, "azure_api_version", "2024-10-21"))
    prefix = path.split("/openai", 1)[0]
    root = urlunsplit((parts.scheme, parts.netloc, prefix + "/openai", "", ""))

    def endpoint(url: str) -> str:
        tail = url[len(root) :] if url.startswith(root) else url
        if tail in _DEPLOYMENT_PATHS:
            tail = f"/deployments/{quote(deployment, safe='')}{tail}"
        return f"{root}{tail}?api-version={quote(api_version, safe='')}"

    return root, endpoint


@functools.lru_cache(maxsize=1)
def _credential() -> Any:
    """``DefaultAzureCredential``, made once per process (it caches its own tokens)."""
    identity = importlib.import_module("azure.identity")
    return identity.DefaultAzureCredential()


def _token(model: Model, scope: str) -> str:
    """A token for ``scope`` that is more than :data:`REFRESH_MARGIN` seconds from expiry."""
    with _lock:
        kept = _tokens.get(scope)
        if kept is not None and kept[1] - _now() > REFRESH_MARGIN:
            return kept[0]
        try:
            credential = _credential()
        except ModuleNotFoundError:
            raise missing(
                model,
                model.api_key_env,
                "or install the azure extra (pip install 'llmkit-transport[azure]') to use "
                "Microsoft Entra "
                "ID tokens from DefaultAzureCredential",
            ) from None
        try:
            got = credential.get_token(scope)
        except Exception as exc:  # noqa: BLE001 -- noqa: catch-all: azure-identity's errors, named
            raise AuthenticationError(
                f"No Microsoft Entra ID token for {scope} ({type(exc).__name__}); set "
                f"{model.api_key_env} or sign in (az login, a managed identity, or the "
                "AZURE_CLIENT_* variables)",
                provider=model.provider,
            ) from None
        token, expires = str(got.token), float(got.expires_on)
        _tokens[scope] = (token, expires)
        return token
