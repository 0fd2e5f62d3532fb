"""The example page in a real browser: ``examples/web_ui`` served by its own Starlette server,
opened in headless Chromium (Debian's ``/usr/bin/chromium``, driven by ``playwright-core``),
on every wire of the fake provider.

From the DOM alone: each tool call's arguments are on the page while the answer is still
streaming (and, where the wire streams arguments, visibly growing), and once it is done the
page shows exactly the calls, arguments, results and answer of the scripted tool loop. With
``LLMKIT_UPDATE_SCREENSHOT=1`` the last page is saved as ``docs/web_ui.png``.

Needs ``node``, ``npm ci --prefix tests/ui`` and ``apt-get install chromium``; see
``tests/ui_node.py`` (``LLMKIT_REQUIRE_NODE=1`` turns a skip into a failure).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .ui_cases import WIRES
from .ui_node import UI_DIR, run_node, unavailable

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "web_ui"
CHROMIUM = os.environ.get("LLMKIT_CHROMIUM", "/usr/bin/chromium")


def _load_example() -> Any:
    """``examples/web_ui/server.py`` as a module, or ``None`` without starlette/uvicorn."""
    spec = importlib.util.spec_from_file_location("web_ui_server", EXAMPLE / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:  # pip install -e '.[examples]'
        return None
    return module


example = _load_example()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _servers() -> Iterator[dict[str, str]]:
    """One example server per wire, fake provider, paced 10 ms per event."""
    procs: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    try:
        for api in WIRES:
            port = _free_port()
            command = [sys.executable, str(EXAMPLE / "server.py"), "--fake", "--api", api]
            command += ["--port", str(port), "--delay", "0.01"]
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            procs[api] = (proc, f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 30
        for proc, url in procs.values():
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(url, timeout=1).status_code == 200:
                        break
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, f"{url} did not come up"
                time.sleep(0.1)
        yield {api: url for api, (_, url) in procs.items()}
    finally:
        for proc, _ in procs.values():
            proc.terminate()
        for proc, _ in procs.values():
            proc.communicate(timeout=10)  # reaps it and closes its stderr pipe


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the page showed on each wire."""
    if example is None:
        unavailable("starlette/uvicorn are not installed (pip install -e '.[examples]')")
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    if not (UI_DIR / "node_modules" / "playwright-core").is_dir():
        unavailable("tests/ui/node_modules is missing (run: npm ci --prefix tests/ui)")
    if not (EXAMPLE / "static" / "app.js").is_file():
        unavailable("examples/web_ui/static/app.js is missing (npm run build there)")
    screenshot = tmp_path_factory.mktemp("browser") / "web_ui.png"
    with _servers() as urls:
        results = run_node("browser.mjs", CHROMIUM, str(screenshot), *urls.values(), timeout=180)
    if os.environ.get("LLMKIT_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(screenshot, ROOT / "docs" / "web_ui.png")
    assert screenshot.stat().st_size > 10_000
    return {api: results[url] for api, url in urls.items()}


def _expected() -> list[tuple[str, dict[str, Any]]]:
    """The scripted calls, in order: ``(name, arguments)``."""
    assert example is not None
    calls = [c for reply in example.fake_turns(0.0) for c in reply.tool_calls]
    return [(c.name, dict(c.arguments)) for c in calls]  # type: ignore[arg-type]


@pytest.mark.parametrize("api", WIRES)
def test_arguments_show_while_streaming_and_end_right(api: str, pages: dict[str, Any]) -> None:
    page = pages[api]
    assert page["errors"] == []
    final = page["final"]
    assert final["status"] == "done"
    assert final["statusText"] == "Done (finish reason: stop)."

    # The end: every call with its final arguments and its result.
    tools = final["tools"]
    assert [(t["name"], json.loads(t["input"])) for t in tools] == _expected()
    assert [t["state"] for t in tools] == ["output-error", "output-available", "output-available"]
    assert "less than or equal to 10" in tools[0]["output"]
    assert tools[1]["output"] == "Shanghai, next 3 days: showers, 17-22 °C"
    assert final["text"][-1].startswith("Beijing will be sunny")

    # While streaming: each call's arguments were on the page before the stream ended, before
    # the call was complete, and (where the wire streams them) in more than one partial form.
    streaming = [s for s in page["log"] if s["status"] == "streaming"]
    for tool in tools:
        seen = [
            t["input"]
            for s in streaming
            for t in s["tools"]
            if t["id"] == tool["id"] and t["state"] == "input-streaming" and t["input"]
        ]
        assert seen, f"{tool['id']}: no arguments on the page while streaming"
        if api != "gemini":  # Gemini sends each call whole
            assert len(set(seen)) >= 2, f"{tool['id']}: arguments never grew: {seen}"
            assert seen[0] != tool["input"]
