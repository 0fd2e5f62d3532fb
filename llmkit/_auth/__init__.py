"""Authentication and endpoints, in one place: how a request proves who sends it, and where
it goes, decided by the model's provider profile (``Model.platform``), not by its wire.

A wire's own key header (``Authorization: Bearer``, ``x-api-key``, ``x-goog-api-key``) is the
wire adapter's ``headers()``; a cloud platform changes that:

- ``platform=None``: the ``api_key`` option or the provider's variable, in the wire's header
  (``MissingAPIKeyError`` naming the variable when the provider needs one);
- ``"bedrock"`` (:mod:`.aws`): a Bedrock API key (``api_key`` or ``AWS_BEARER_TOKEN_BEDROCK``)
  as a bearer token, else SigV4 from the standard AWS credential chain through ``botocore``
  (the ``llmkit-transport[aws]`` extra), signing the final URL, headers and body;
- ``"vertex"`` (:mod:`.google`): an OAuth access token (``api_key``, else application-default
  credentials through ``google-auth``, the ``llmkit-transport[google]`` extra, refreshed when
  expired)
  as ``Authorization: Bearer``; or, in express mode, an API key as ``x-goog-api-key`` on the
  global endpoint;
- ``"azure"`` (:mod:`.azure`): Azure OpenAI's v1 or deployment endpoints and Claude on
  Microsoft Foundry; a key as ``api-key`` (Foundry: also ``x-api-key``), else Microsoft Entra
  ID tokens through ``azure-identity`` (the ``llmkit-transport[azure]`` extra) as ``Authorization:
  Bearer``.

:func:`resolve` runs before the request is built (it picks the credential and fills the
``{region}``/``{project}``/``{location}`` placeholders of the base URL); :meth:`Access.apply`
runs on the finished ``httpx.Request``, after ``on_request`` and the caller's headers, so a
signature covers exactly the bytes sent. Nothing is sent here: a missing optional dependency
or credential is an error before anything goes out. Credentials are never put in an error,
a repr or a log record; :attr:`Access.secret` is what the transport redacts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from .._errors import InvalidRequestError, MissingAPIKeyError
from .._models import Model

__all__ = ["Access", "api_key", "check_credential", "missing", "resolve"]


@dataclass
class Access:
    """Where a request goes and how it authenticates.

    Attributes:
        base_url: The API root, placeholders filled.
        key: The key for the wire's own header (``None``: the wire adds no auth header).
        secret: What must never appear in an error or a log (the key or the token sent).
        sign: Applied to the finished request (SigV4, a bearer token); ``None``: nothing.
        endpoint: The final URL from the wire's (Azure's deployment form adds its deployment
            path and ``api-version``); ``None``: the wire's URL as it is.
    """

    base_url: str
    key: str | None = None
    secret: str | None = None
    sign: Callable[[httpx.Request], None] | None = field(default=None, repr=False)
    endpoint: Callable[[str], str] | None = field(default=None, repr=False)

    def apply(self, request: httpx.Request) -> None:
        """Authenticate the finished request (after ``on_request`` and extra headers)."""
        if self.sign is not None:
            self.sign(request)

    def __repr__(self) -> str:  # never the key
        return f"Access(base_url={self.base_url!r})"


def api_key(model: Model, explicit: str | None) -> str | None:
    """The key: the ``api_key`` option, else the provider's variable (``MissingAPIKeyError``
    names it when the provider needs one)."""
    if explicit:
        return explicit
    if model.api_key_env:
        value = os.environ.get(model.api_key_env)
        if value:
            return value
    if model.api_key_required:
        raise MissingAPIKeyError(model.provider, model.api_key_env)
    return None


def missing(model: Model, env_var: str | None, hint: str) -> MissingAPIKeyError:
    """``MissingAPIKeyError`` naming the variable, with what else would do (an extra to
    install, a credential chain to configure)."""
    error = MissingAPIKeyError(model.provider, env_var)
    error.args = (f"{error} {hint}",)
    return error


def resolve(model: Model, options: Mapping[str, Any]) -> Access:
    """The endpoint and credential for one request (``options``: the transport options).

    Raises:
        MissingAPIKeyError: no credential, or the optional dependency that finds one is not
            installed (the message names the extra).
        InvalidRequestError: no base URL, or a placeholder nothing fills.
    """
    base_url = options.get("base_url") or model.base_url
    if model.platform == "azure" or getattr(model.compat, "auth", None) == "azure":
        from . import azure  # the endpoint may come from the environment

        access = azure.resolve(model, base_url, options)
    elif not base_url:
        raise InvalidRequestError(f"Model {model.provider}/{model.id} has no base_url")
    elif model.platform == "bedrock":
        from . import aws

        access = aws.resolve(model, base_url, options)
    elif model.platform == "vertex":
        from . import google

        access = google.resolve(model, base_url, options)
    else:
        if "{" in base_url:
            raise InvalidRequestError(f"The base_url {base_url!r} has unfilled placeholders")
        key = api_key(model, options.get("api_key"))
        access = Access(base_url=base_url, key=key, secret=key)
    for value in (access.key, access.secret):
        if value is not None:
            check_credential(
                value,
                "the api_key option"
                if options.get("api_key")
                else (
                    f"${model.api_key_env}"
                    if model.api_key_env and os.environ.get(model.api_key_env) == value
                    else None
                ),
            )
    return access


def check_credential(value: str, source: str | None) -> None:
    """Refuse a credential no HTTP header can carry as is, before anything is sent: a trailing
    newline (a key read from a file), a space, a control or non-ASCII character. httpx would
    fail while sending, its message holding the whole key; the error here never names it."""
    if value.isascii() and value.isprintable() and " " not in value:
        return
    for position, char in enumerate(value):
        if not "!" <= char <= "~":
            what = (
                "a line break"
                if char in "\r\n"
                else "a space or control character"
                if char.isspace() or ord(char) < 0x20 or ord(char) == 0x7F
                else "a non-ASCII character"
            )
            raise InvalidRequestError(
                f"The credential from {source or 'the credential chain'} holds {what} at "
                f"position {position + 1} of {len(value)}: a key is visible ASCII only "
                "(strip what was read with it)"
            )


def fill(base_url: str, **values: str | None) -> str:
    """``base_url`` with its ``{name}`` placeholders filled; ``InvalidRequestError`` names
    the first one nothing fills (``values`` map names to how to set them when ``None``)."""
    out = base_url
    for name, value in values.items():
        if f"{{{name}}}" in out:
            if value is None:
                raise InvalidRequestError(f"The base_url {base_url!r} needs a {name}")
            out = out.replace(f"{{{name}}}", value)
    if "{" in out:
        raise InvalidRequestError(f"The base_url {base_url!r} has unfilled placeholders")
    return out
