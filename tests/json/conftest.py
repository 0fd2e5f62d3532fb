"""The two ways the partial-JSON parser keeps what it handed out unchanged (llmkit/_json/
ownership.py): with reference counts telling it who holds what (CPython with the GIL), and by
copying the open path after every snapshot (every other interpreter). Tests that take
``ownership`` run under both; ``no_refcounts`` forces the second."""

from __future__ import annotations

import pytest

from llmkit._json import ownership as _ownership


@pytest.fixture
def no_refcounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """What interpreters whose reference counts are not relied on get: the open path copied
    before the first change after every snapshot handed out."""
    monkeypatch.setattr(_ownership, "HELD", False)
    monkeypatch.setattr(_ownership, "OWN", -1)


@pytest.fixture(params=["refcounts", "copies"])
def ownership(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs the test with reference counts relied on (where this interpreter allows it) and
    with them switched off; the value says which."""
    if request.param == "refcounts":
        if not _ownership.HELD:
            pytest.skip("reference counts are not relied on on this interpreter")
    else:
        monkeypatch.setattr(_ownership, "HELD", False)
        monkeypatch.setattr(_ownership, "OWN", -1)
    return str(request.param)
