"""Amazon Bedrock: a Bedrock API key as a bearer token, or SigV4 through ``botocore``.

- The region: the ``region`` option, else the one in an explicit ``bedrock-runtime.<region>.
  amazonaws.com`` base URL, else ``AWS_REGION``, ``AWS_DEFAULT_REGION``, else the region of the
  AWS config profile (botocore reads it); it fills the profile's ``{region}`` placeholder and is
  the SigV4 signing region.
- The credential: the ``api_key`` option or ``AWS_BEARER_TOKEN_BEDROCK`` (a Bedrock API key,
  sent by the wire as ``Authorization: Bearer``); else SigV4 with the standard AWS credential
  chain (environment, shared files and profiles, SSO, container and instance roles: botocore's
  own resolver, never hand-written SigV4), service ``bedrock``.

botocore is optional (``pip install 'llmkit-transport[aws]'``): without it and without an
API key the
request is refused before anything is sent, naming the extra. A botocore session and the
credentials it resolved (refreshable ones refresh themselves) are shared by the calls made
under the same ``AWS_*`` environment: a change of a variable (a key, a profile, a config
file) makes a new session, so a call resolves what the environment says now — and says "no
credentials" when it no longer has any.

While llmkit signs, ``botocore.auth``'s DEBUG records (the canonical request and string to
sign, with the session token) are dropped for the signing thread by a filter on that logger,
removed when the signature is done; logging's configuration is otherwise left alone.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import os
import re
import threading
from collections.abc import Mapping
from typing import Any

import httpx

from .._errors import InvalidRequestError
from .._models import Model
from . import Access, fill, missing

__all__ = ["SERVICE", "resolve", "session"]

SERVICE = "bedrock"
"""The SigV4 signing name of bedrock-runtime (its service model's ``signingName``)."""

_HOST = re.compile(r"^https://bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com", re.I)
_lock = threading.Lock()
_NO_REGION = (
    "No AWS region for Bedrock: set AWS_REGION (or AWS_DEFAULT_REGION), pass region=..., or "
    "give a base_url such as https://bedrock-runtime.us-east-1.amazonaws.com"
)


def _botocore() -> Any:
    """The botocore package, or ``None`` when the extra is not installed."""
    try:
        return importlib.import_module("botocore.session")
    except ModuleNotFoundError:
        return None


def _environment() -> str:
    """A digest of the ``AWS_*`` variables (a digest: the cache key holds no secret)."""
    pairs = sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_"))
    return hashlib.sha256(repr(pairs).encode("utf-8", "surrogatepass")).hexdigest()


@functools.lru_cache(maxsize=1)
def _session(environment: str) -> Any:
    module = _botocore()
    return None if module is None else module.get_session()


def session() -> Any:
    """The botocore session of the current ``AWS_*`` environment (it caches the credentials
    it resolves); a new one when a variable changed."""
    return _session(_environment())


session.cache_clear = _session.cache_clear  # type: ignore[attr-defined]  # tests' fresh start


def region(model: Model, base_url: str, options: Mapping[str, Any]) -> str | None:
    """The AWS region for this request (see the module docstring), or ``None``."""
    explicit = options.get("region")
    if explicit:
        return str(explicit)
    found = _HOST.match(base_url)
    if found and "{" not in found.group(1):
        return found.group(1)
    env = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if env:
        return env
    botocore = session()
    configured = botocore.get_config_variable("region") if botocore is not None else None
    return str(configured) if configured else None


def resolve(model: Model, base_url: str, options: Mapping[str, Any]) -> Access:
    """The endpoint and credential of a Bedrock request."""
    where = region(model, base_url, options)
    if where is None and "{region}" in base_url:
        raise InvalidRequestError(_NO_REGION)
    url = fill(base_url, region=where)
    key = options.get("api_key") or (
        os.environ.get(model.api_key_env) if model.api_key_env else None
    )
    if key:
        return Access(base_url=url, key=key, secret=key)  # the wire sends it as a bearer
    botocore = session()
    if botocore is None:
        if not model.api_key_required:
            return Access(base_url=url)
        raise missing(
            model,
            model.api_key_env,
            "or install the aws extra (pip install 'llmkit-transport[aws]') to sign requests "
            "with SigV4 from the AWS credential chain",
        )
    with _lock:  # the chain may read files or a metadata endpoint once; not twice at once
        credentials = botocore.get_credentials()
    if credentials is None:
        if not model.api_key_required:
            return Access(base_url=url)
        raise missing(
            model,
            model.api_key_env,
            "or configure AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, "
            "SSO or a role) for SigV4",
        )
    if where is None:  # a custom endpoint: SigV4 still signs for a region
        raise InvalidRequestError(_NO_REGION)
    frozen = credentials.get_frozen_credentials()
    return Access(
        base_url=url,
        secret=frozen.token or None,  # a session token goes on the wire; the secret key never
        sign=functools.partial(_sign, credentials, where),
    )


class _NotThisThread(logging.Filter):
    """Drops the records of one thread (the one signing)."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread != self.thread


def _sign(credentials: Any, signing_region: str, request: httpx.Request) -> None:
    """SigV4 over the final method, URL, headers and body, by botocore's own signer (its
    DEBUG log of the canonical request, session token included, dropped meanwhile)."""
    auth = importlib.import_module("botocore.auth")
    quiet = _NotThisThread()
    botocore_log = logging.getLogger("botocore.auth")
    botocore_log.addFilter(quiet)
    try:
        _add_auth(auth, credentials, signing_region, request)
    finally:
        botocore_log.removeFilter(quiet)


def _add_auth(auth: Any, credentials: Any, signing_region: str, request: httpx.Request) -> None:
    aws_request = importlib.import_module("botocore.awsrequest").AWSRequest(
        method=request.method,
        url=str(request.url),
        data=request.content,
        headers=dict(request.headers),
    )
    auth.SigV4Auth(credentials.get_frozen_credentials(), SERVICE, signing_region).add_auth(
        aws_request
    )
    for name in ("Authorization", "X-Amz-Date", "X-Amz-Security-Token"):
        value = aws_request.headers.get(name)
        if value is not None:
            request.headers[name.lower()] = value
