"""Finding Node.js and the pinned npm packages of ``tests/ui`` for the ``llmkit.ui`` tests.

Locally, a missing ``node`` or ``tests/ui/node_modules`` (``npm ci --prefix tests/ui``) skips
those tests with the reason. CI sets ``LLMKIT_REQUIRE_NODE=1``, which turns the skip into a
failure: there they must run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

UI_DIR = Path(__file__).parent.parent / "ui"
REQUIRED = os.environ.get("LLMKIT_REQUIRE_NODE") == "1"


def unavailable(reason: str) -> None:
    """Skip (or, under ``LLMKIT_REQUIRE_NODE=1``, fail) for ``reason``."""
    if REQUIRED:
        pytest.fail(f"LLMKIT_REQUIRE_NODE=1 but {reason}")
    pytest.skip(reason)


def node() -> str:
    """The ``node`` executable, with ``tests/ui``'s packages installed."""
    path = shutil.which("node")
    if path is None:
        unavailable("node is not installed")
        raise AssertionError  # unreachable: unavailable() raises
    if not (UI_DIR / "node_modules" / "ai").is_dir():
        unavailable("tests/ui/node_modules is missing (run: npm ci --prefix tests/ui)")
    return path


def run_node(script: str, *args: str, timeout: float = 90) -> Any:
    """Run ``tests/ui/<script>`` and return the JSON it prints."""
    done = subprocess.run(
        [node(), str(UI_DIR / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=UI_DIR,
        check=False,
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stderr}"
    return json.loads(done.stdout)
