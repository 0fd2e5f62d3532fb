"""A real llama.cpp ``llama-server`` for the integration suite (see README.md here).

Skipped unless ``LLMKIT_LLAMA_SERVER`` names a llama-server binary. The server is started once
per session on a free loopback port, serving the tiny random-weight model that
``make_tiny_model.py`` writes (``LLMKIT_LLAMA_MODEL`` names an existing one instead), and
stopped at the end. Every response llmkit reads goes through ``harness.Recorder``, which keeps the
exact bytes the server sent so that each test can read them without llmkit.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.harness import Server

HERE = Path(__file__).resolve().parent
STARTUP_SECONDS = 120
SEEN: dict[str, str] = {}  # what the session ran against, for the summary


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for name, value in SEEN.items():
        terminalreporter.write_line(f"{name}: {value}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _model_file(binary: Path, tmp: Path) -> Path:
    given = os.environ.get("LLMKIT_LLAMA_MODEL")
    if given:
        return Path(given)
    # <llama.cpp>/build/bin/llama-server -> <llama.cpp>/gguf-py
    gguf_py = binary.resolve().parents[2] / "gguf-py"
    if not gguf_py.is_dir():
        pytest.skip(f"no gguf-py beside {binary}: set LLMKIT_LLAMA_MODEL")
    out = tmp / "tiny.gguf"
    python = os.environ.get("LLMKIT_LLAMA_PYTHON", sys.executable)  # one with numpy and pyyaml
    script = str(HERE / "make_tiny_model.py")
    done = subprocess.run(
        [python, script, "--gguf-py", str(gguf_py), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"could not write the tiny model (set LLMKIT_LLAMA_PYTHON): {last}")
    return out


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    binary = os.environ.get("LLMKIT_LLAMA_SERVER")
    if not binary:
        pytest.skip("LLMKIT_LLAMA_SERVER is not set (see tests/integration/README.md)")
    tmp = tmp_path_factory.mktemp("llama")
    model = _model_file(Path(binary), tmp)
    port = _free_port()
    log = tmp / "llama-server.log"
    args = [binary, "-m", str(model), "--alias", "tiny", "--jinja", "-c", "8192", "-np", "2"]
    # Thinking off unless a request turns it on (chat_template_kwargs.enable_thinking).
    args += ["--reasoning", "off", "--host", "127.0.0.1", "--port", str(port), "-t", "1"]
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama-server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama-server not ready in {STARTUP_SECONDS} s")
            time.sleep(0.25)
        props = httpx.get(f"{base}/props", timeout=5).json()
        SEEN["llama-server"] = f"{props.get('build_info', '?')} ({binary})"
        yield Server(f"{base}/v1", process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
