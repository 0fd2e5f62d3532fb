"""What ``pyproject.toml`` publishes: a name PyPI takes, every import declared, the Python
versions CI tests, development tools kept out of the published extras (README, "Installing")."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
PROJECT = PYPROJECT["project"]

# Imported by llmkit only where an extra (or the caller) provides them, never at import time.
# pytest: only by the pytest plugin, which pytest itself loads.
OPTIONAL = {
    "botocore": "aws",
    "google": "google",
    "opentelemetry": "otel",
    "azure": "azure",
    "httpx2": None,
    "pytest": None,
}
# Distribution name -> the module it provides, where they differ.
MODULES = {
    "typing-extensions": "typing_extensions",
    "google-auth": "google",
    "opentelemetry-api": "opentelemetry",
    "azure-identity": "azure",
}


def _normalise(name: str) -> str:
    """PyPI's comparison for new names: separators dropped, look-alike characters folded."""
    return re.sub(r"[-_.]+", "", name.lower()).translate(str.maketrans("lio", "110"))


def _distribution(spec: str) -> str:
    return re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "llmkit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"llmkit"}


def test_the_distribution_name_is_not_taken_by_llm_kit() -> None:
    assert _normalise("llmkit") == _normalise("llm-kit")  # why the name is not "llmkit"
    assert _normalise(PROJECT["name"]) != _normalise("llm-kit")
    assert PROJECT["name"] == "llmkit-transport"
    assert PROJECT["scripts"] == {"llmkit": "llmkit._cli:main"}  # the command keeps its name
    assert PROJECT["entry-points"]["pytest11"] == {"llmkit": "llmkit._pytest_plugin"}


def test_every_third_party_import_is_declared() -> None:
    declared = {MODULES.get(d, d) for d in map(_distribution, PROJECT["dependencies"])}
    extras = PROJECT["optional-dependencies"]
    for module in sorted(_imported_modules()):
        if module in OPTIONAL:
            extra = OPTIONAL[module]
            if extra is not None:
                provided = {MODULES.get(d, d) for d in map(_distribution, extras[extra])}
                assert module in provided, f"{module}: not in the {extra!r} extra"
            continue
        assert module in declared, f"llmkit imports {module}; declare it in dependencies"


def test_the_python_versions_said_are_the_ones_ci_tests() -> None:
    versions = sorted(
        (int(m.group(1)), int(m.group(2)))
        for c in PROJECT["classifiers"]
        if (m := re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", c))
    )
    assert versions == [(3, 10), (3, 11), (3, 12), (3, 13)]
    assert PROJECT["requires-python"] == ">=3.10"
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    for minor in ("3.10", "3.12", "3.13"):  # 3.11: the machine's python3, README's commands
        # a line of its own, or a command that `concurrently` runs: "decoding_suites 3.12"
        suite = rf'^\s*"?(whole_suite|decoding_suites|sdist_suite) {minor}"?( \\)?$'
        assert re.search(suite, ci, re.M), minor


def test_development_tools_are_dependency_groups_not_extras() -> None:
    tools = {"ruff", "mypy", "pyright", "mkdocs"}
    for extra, specs in PROJECT["optional-dependencies"].items():
        assert not tools & set(map(_distribution, specs)), f"extra {extra!r} publishes a tool"
    groups = PYPROJECT["dependency-groups"]
    assert {"ruff", "mypy", "pyright"} <= set(map(_distribution, groups["dev"]))
    assert "mkdocs" in set(map(_distribution, groups["docs"]))


def test_the_sdist_ships_what_the_tests_read() -> None:
    shipped = set(PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    read = {"llmkit", "tests", "examples", "benchmarks", "docs", "mkdocs.yml", "README.md"}
    assert read <= shipped
