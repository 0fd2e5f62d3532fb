"""Google Vertex AI: OAuth access tokens (given, or from application-default credentials through
``google-auth``), or an express-mode API key.

Project and location fill the profile's base URL ``https://{location}-aiplatform.googleapis.com
/v1/projects/{project}/locations/{location}`` (``location="global"`` is the host
``aiplatform.googleapis.com``), read as the official SDKs read them:

- location: the ``region`` option, else ``GOOGLE_CLOUD_LOCATION`` (Claude: ``CLOUD_ML_REGION``
  first, as the Anthropic SDK reads it), else ``global`` (google-genai's default);
- project: ``GOOGLE_CLOUD_PROJECT`` (Claude: ``ANTHROPIC_VERTEX_PROJECT_ID`` first), else the
  project of the application-default credentials.

The credential: an ``api_key`` given is an OAuth access token sent as ``Authorization:
Bearer`` — unless it is a Google API key (the documented ``AIza…`` form) or no project is
known, when it is an express-mode key (Gemini only): sent by the Gemini wire as
``x-goog-api-key`` on ``https://aiplatform.googleapis.com/v1``, no project. Without
``api_key``: ``GOOGLE_API_KEY`` in express mode when no project is configured, else
application-default credentials (``google.auth.default``, scope ``cloud-platform``), refreshed
when expired. An explicit base URL decides by its shape: with ``/projects/`` a token, without
one an express key.

google-auth is optional (``pip install 'llmkit-transport[google]'``): without it and without a
token the request is refused before anything is sent, naming the extra. The credentials are
loaded once per process and shared; a refresh (about once an hour) is a blocking call to
Google's token endpoint made while the request is built, through httpx.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from collections.abc import Mapping
from typing import Any

import httpx

from .._errors import APIConnectionError, AuthenticationError, InvalidRequestError
from .._models import Model
from . import Access, fill, missing

__all__ = ["EXPRESS_URL", "SCOPES", "resolve"]

SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
"""The OAuth scope Vertex AI needs (the official SDKs ask for the same)."""

EXPRESS_URL = "https://aiplatform.googleapis.com/v1"
"""The global endpoint of express mode (no project)."""

_lock = threading.Lock()


def _env(*names: str) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def resolve(model: Model, base_url: str, options: Mapping[str, Any]) -> Access:
    """The endpoint and credential of a Vertex AI request."""
    claude = model.api == "anthropic-messages"
    given = options.get("api_key")
    env_key = os.environ.get(model.api_key_env) if model.api_key_env else None
    templated = "{" in base_url
    if claude:
        project = _env("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT")
        location = options.get("region") or _env("CLOUD_ML_REGION", "GOOGLE_CLOUD_LOCATION")
    else:
        project = _env("GOOGLE_CLOUD_PROJECT")
        location = options.get("region") or _env("GOOGLE_CLOUD_LOCATION")
    location = str(location or "global")

    # Express mode: an API key on the global endpoint, sent by the Gemini wire itself.
    if templated:
        express = given if given and (given.startswith("AIza") or project is None) else None
        if not given and env_key and project is None:
            express = env_key
    else:
        express = (given or env_key) if "/projects/" not in base_url else None
    if express:
        if claude:
            raise InvalidRequestError(
                "Claude on Vertex AI takes an OAuth access token, not an API key (express mode "
                "is for Gemini): set ANTHROPIC_VERTEX_PROJECT_ID and use application-default "
                "credentials, or pass an access token as api_key"
            )
        return Access(base_url=EXPRESS_URL if templated else base_url, key=express, secret=express)

    token = given
    if not token:
        if not model.api_key_required:
            return Access(base_url=_url(base_url, project, location))
        token, adc_project = _adc_token(model)
        project = project or adc_project
    if templated and project is None:
        which = "ANTHROPIC_VERTEX_PROJECT_ID or " if claude else ""
        raise InvalidRequestError(
            f"No Google Cloud project for Vertex AI: set {which}GOOGLE_CLOUD_PROJECT, or give a "
            "base_url with /projects/<project>/locations/<location>"
        )
    bearer = f"Bearer {token}"

    def sign(request: httpx.Request) -> None:
        request.headers["authorization"] = bearer

    return Access(base_url=_url(base_url, project, location), secret=token, sign=sign)


def _url(base_url: str, project: str | None, location: str) -> str:
    if location == "global":
        base_url = base_url.replace("{location}-aiplatform.", "aiplatform.")
    return fill(base_url, project=project, location=location)


@functools.lru_cache(maxsize=1)
def _adc() -> tuple[Any, str | None]:
    """Application-default credentials and their project, loaded once per process."""
    auth = importlib.import_module("google.auth")
    credentials, project = auth.default(scopes=list(SCOPES))
    return credentials, project


def _adc_token(model: Model) -> tuple[str, str | None]:
    """A valid access token from application-default credentials (refreshed if needed)."""
    try:
        exceptions = importlib.import_module("google.auth.exceptions")
    except ModuleNotFoundError:
        raise missing(
            model,
            model.api_key_env,
            "or install the google extra (pip install 'llmkit-transport[google]') to use Google "
            "application-default credentials, or pass an OAuth access token as api_key",
        ) from None
    with _lock:
        try:
            credentials, project = _adc()
        except exceptions.DefaultCredentialsError:
            raise missing(
                model,
                model.api_key_env,
                "or set up application-default credentials (gcloud auth application-default "
                "login, or GOOGLE_APPLICATION_CREDENTIALS), or pass an access token as api_key",
            ) from None
        if not credentials.valid:
            try:
                credentials.refresh(_Transport(exceptions))
            except exceptions.TransportError as exc:
                raise APIConnectionError(
                    f"Could not reach Google to refresh the access token ({type(exc).__name__})"
                ) from None
            except exceptions.RefreshError as exc:
                raise AuthenticationError(
                    f"Google refused to refresh the application-default credentials: {exc}",
                    provider=model.provider,
                ) from None
        return str(credentials.token), project


class _Response:
    """google-auth's transport response over an httpx one."""

    def __init__(self, response: httpx.Response) -> None:
        self.status = response.status_code
        self.headers = dict(response.headers)
        self.data = response.content


class _Transport:
    """google-auth's transport request (``google.auth.transport.Request``) over httpx, so a
    token refresh needs neither ``requests`` nor ``urllib3``."""

    def __init__(self, exceptions: Any) -> None:
        self._exceptions = exceptions

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _Response:
        try:
            with httpx.Client(timeout=timeout or 30.0) as client:
                response = client.request(method, url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise self._exceptions.TransportError(type(exc).__name__) from None
        return _Response(response)
