"""``examples/web_ui/server.py`` without a browser: its ``POST /api/chat`` streams the scripted
tool loop as a UI message stream on every wire, with the protocol's headers, and serves the
page and its built script. (The page itself, in Chromium: ``test_ui_browser.py``.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from .test_ui import parts
from .ui_cases import WIRES

pytest.importorskip("starlette", reason="pip install -e '.[examples]'")
from starlette.testclient import TestClient

EXAMPLE = Path(__file__).parent.parent / "examples" / "web_ui"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("web_ui_server", EXAMPLE / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


server = _example()
ASK = {"messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "Pack?"}]}]}


@pytest.mark.parametrize("api", WIRES)
def test_the_chat_endpoint_streams_the_tool_loop(api: str) -> None:
    with TestClient(server.create_app(api=api, delay=0.0)) as client:
        response = client.post("/api/chat", json=ASK)
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    got = parts(chunk + "\n\n" for chunk in response.text.split("\n\n")[:-1])
    types = [p["type"] for p in got]
    assert types.count("start-step") == 3
    settled = [p for p in got if p["type"] in ("tool-input-available", "tool-input-error")]
    assert [(p["type"], p["input"]) for p in settled] == [
        ("tool-input-available", {"city": "Beijing", "days": 30}),
        ("tool-input-available", {"city": "Shanghai", "days": 3}),
        ("tool-input-available", {"city": "Beijing", "days": 3}),
    ]
    outputs = [p for p in got if p["type"].startswith("tool-output-")]
    assert [p["type"] for p in outputs] == [
        "tool-output-error",
        "tool-output-available",
        "tool-output-available",
    ]
    assert "less than or equal to 10" in outputs[0]["errorText"]
    assert got[-1] == {"type": "finish", "finishReason": "stop"}


def test_the_page_and_its_script_are_served() -> None:
    with TestClient(server.create_app()) as client:
        page = client.get("/")
        script = client.get("/static/app.js")
    assert page.status_code == 200
    assert '<script type="module" src="/static/app.js">' in page.text
    assert script.status_code == 200
    assert "tool-input-available" in script.text  # the AI SDK client (its chunk schema) is in


def test_last_user_text_reads_the_text_parts_of_the_last_user_message() -> None:
    body = json.loads(
        '{"messages": [{"role": "user", "parts": [{"type": "text", "text": "old"}]},'
        '{"role": "assistant", "parts": []},'
        '{"role": "user", "parts": [{"type": "text", "text": "a"}, {"type": "file"},'
        '{"type": "text", "text": "b"}]}]}'
    )
    assert server.last_user_text(body) == "ab"
    assert server.last_user_text({}) == ""
