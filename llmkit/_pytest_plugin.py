"""llmkit's pytest plugin (entry point ``pytest11``, name ``llmkit``): the ``fake_provider``
fixture, documented in :mod:`llmkit.testing`.

Nothing is imported from llmkit until a test asks for the fixture, so that loading the plugin
(which pytest does in every run where llmkit is installed) costs nothing and imports no HTTP
library: a test suite may still switch ``import httpx`` to httpx2 in its ``conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .testing import FakeProvider

__all__ = ["fake_provider", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fake_provider`` marker (so ``--strict-markers`` accepts it)."""
    config.addinivalue_line(
        "markers",
        "fake_provider(replies=(), *, api=..., emulate=..., api_key=..., require_key=...): "
        "the arguments of llmkit.testing.FakeProvider for the fake_provider fixture",
    )


@pytest.fixture
def fake_provider(request: pytest.FixtureRequest) -> Iterator[FakeProvider]:
    """A started :class:`llmkit.testing.FakeProvider`, closed after the test.

    Its arguments come from the closest ``@pytest.mark.fake_provider(...)`` marker, then from
    an indirect parametrization's dict (``indirect=True``), key by key; with neither, it is
    ``FakeProvider()`` with an empty script that the test fills with ``.script(...)``.
    """
    from .testing import FakeProvider

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    marker = request.node.get_closest_marker("fake_provider")
    if marker is not None:
        args, kwargs = marker.args, dict(marker.kwargs)
    param = getattr(request, "param", None)
    if param is not None:
        if not isinstance(param, dict):
            raise TypeError(
                "an indirect parametrization of fake_provider takes dicts of FakeProvider "
                f"arguments, not {type(param).__name__}"
            )
        if "replies" in param:
            args = ()
        kwargs.update(param)
    with FakeProvider(*args, **kwargs) as fake:
        yield fake
