"""Test-suite configuration.

Hypothesis runs derandomized by default so CI is reproducible; ``HYPOTHESIS_PROFILE=long``
explores with fresh random examples and ten times more of them (a documented long run).

``LLMKIT_HTTPX2=1`` runs the suite on httpx2 (docs/httpx2.md): ``httpx2.alias_httpx()`` makes
every later ``import httpx`` (llmkit's, the tests', the vendor SDKs') resolve to httpx2. It must
run before anything imports httpx, hence here, first; it raises if something already did.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

if os.environ.get("LLMKIT_HTTPX2") == "1":
    import httpx2

    httpx2.alias_httpx()

import pytest
from hypothesis import HealthCheck, settings

from llmkit import _models
from tests.support.clients import complete, run  # noqa: F401 - the sync/async fixtures, for every test

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long",
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _isolated_model_registry() -> Iterator[None]:
    """``register_model`` in one test must not leak into the next."""
    saved = dict(_models._registered)
    yield
    _models._registered.clear()
    _models._registered.update(saved)
