"""Every runtime dependency declared in ``pyproject.toml`` is imported by llmkit: no unused one
(httpx-sse once was, and never imported: README, "Dependencies, httpx2 and httpx-sse")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

ROOT = Path(__file__).resolve().parent.parent
IMPORT_NAMES = {
    "httpx": "httpx",
    "pydantic": "pydantic",
    "jsonschema": "jsonschema",
    "typing_extensions": "typing_extensions",
}


def test_every_runtime_dependency_is_imported() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = [re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0] for spec in project["dependencies"]]
    source = "\n".join(p.read_text("utf-8") for p in (ROOT / "llmkit").rglob("*.py"))
    for name in declared:
        module = IMPORT_NAMES.get(name)
        assert module is not None, f"{name}: say which module it provides in IMPORT_NAMES"
        assert re.search(rf"^\s*(import|from) {module}\b", source, re.M), f"{name} is unused"
