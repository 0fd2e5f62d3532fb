"""The example page in a real browser: ``examples/web_ui`` served by its own Starlette app
(uvicorn, loopback), opened in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
``playwright-core`` from ``tests/ui/browser.mjs``), on every wire of the fake provider.

A three-turn conversation, from the DOM alone: a tool loop whose arguments show while they
stream and whose results show after; two bookings that ask for approval, still asking after
a reload, then one approved and one denied with a reason (the denial shown on the page, and
the model told: asserted on the request it received next); an answer with its sources listed
under it; then a reload that shows the same conversation again. With
``LLMKIT_UPDATE_SCREENSHOT=1`` the page after the third turn is saved as ``docs/web_ui.png``.

Needs ``node``, ``npm ci --prefix tests/ui`` and ``apt-get install chromium``; see
``tests/support/ui_node.py`` (``LLMKIT_REQUIRE_NODE=1`` turns a skip into a failure).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from .support.ui_node import UI_DIR, run_node, unavailable

try:
    from .test_ui_example import APIS, EXAMPLE, server, serving
except pytest.skip.Exception:  # starlette/uvicorn missing: test_ui_example skips its module
    server = None
    APIS = ()

ROOT = Path(__file__).parent.parent
CHROMIUM = os.environ.get("LLMKIT_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the page showed on each wire, and what each fake model received."""
    if server is None:
        unavailable("starlette/uvicorn are not installed (pip install -e '.[examples]')")
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    if not (UI_DIR / "node_modules" / "playwright-core").is_dir():
        unavailable("tests/ui/node_modules is missing (run: npm ci --prefix tests/ui)")
    if not (EXAMPLE / "static" / "app.js").is_file():
        unavailable("examples/web_ui/static/app.js is missing (npm run build there)")
    screenshot = tmp_path_factory.mktemp("browser") / "web_ui.png"
    apps = {api: server.create_app(api=api, delay=0.01) for api in APIS}
    with contextlib.ExitStack() as stack:
        urls = {api: stack.enter_context(serving(app)) + "/" for api, app in apps.items()}
        results = run_node("browser.mjs", CHROMIUM, str(screenshot), *urls.values(), timeout=300)
    if os.environ.get("LLMKIT_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(screenshot, ROOT / "docs" / "web_ui.png")
    assert screenshot.stat().st_size > 10_000
    return {
        api: {**results[url], "requests": apps[api].state.fake.requests}
        for api, url in urls.items()
    }


def _assistant(snapshot: dict[str, Any], n: int) -> dict[str, Any]:
    """The ``n``-th assistant message on the page."""
    return [m for m in snapshot["messages"] if m["role"] == "assistant"][n]


@pytest.mark.parametrize("api", APIS)
def test_turn_1_a_tool_loop_streams_its_arguments_and_shows_its_results(
    api: str, pages: dict[str, Any]
) -> None:
    page = pages[api]
    assert page["errors"] == []
    first = page["turns"][0]
    assert first["status"] == "ready"
    assert first["statusText"] == "Done (finish reason: stop)."
    assert [m["role"] for m in first["messages"]] == ["user", "assistant"]
    tools = _assistant(first, 0)["tools"]
    assert [(t["name"], json.loads(t["input"])) for t in tools] == [
        ("get_weather", {"city": "Beijing", "days": 30}),
        ("get_weather", {"city": "Shanghai", "days": 3}),
        ("get_weather", {"city": "Beijing", "days": 3}),
    ]
    assert [t["state"] for t in tools] == ["output-error", "output-available", "output-available"]
    assert "less than or equal to 10" in tools[0]["output"]
    assert tools[1]["output"] == "Shanghai, next 3 days: showers, 17-22 °C"
    assert _assistant(first, 0)["text"][-1].startswith("Beijing will be sunny")
    assert _assistant(first, 0)["reasoning"] == [
        "Both forecasts are in; combine them into one packing list."
    ]

    # While streaming: each call's arguments were on the page before the response ended,
    # before the call was complete, and (where the wire streams them) in growing forms.
    streaming = [s for s in page["log"] if s["status"] in ("submitted", "streaming")]
    for tool in tools:
        seen = [
            t["input"]
            for s in streaming
            for m in s["messages"]
            for t in m["tools"]
            if t["id"] == tool["id"] and t["state"] == "input-streaming" and t["input"]
        ]
        assert seen, f"{tool['id']}: no arguments on the page while streaming"
        if api not in ("gemini",):  # Gemini sends each call whole
            assert len(set(seen)) >= 2, f"{tool['id']}: arguments never grew: {seen}"
            assert seen[0] != tool["input"]


@pytest.mark.parametrize("api", APIS)
def test_turn_2_an_approval_approved_and_one_denied(api: str, pages: dict[str, Any]) -> None:
    page = pages[api]
    asked = page["turns"][1]
    assert asked["status"] == "approval"
    assert asked["statusText"] == "Waiting for your approval."
    held = _assistant(asked, 1)["tools"]
    assert [(t["name"], t["state"], t["buttons"]) for t in held] == [
        ("book_hotel", "approval-requested", ["Approve", "Deny"]),
        ("book_hotel", "approval-requested", ["Approve", "Deny"]),
    ]

    # After a reload, the held calls are back with their buttons (the server's record).
    assert page["turns"][2]["messages"] == asked["messages"]
    assert page["turns"][2]["status"] == "approval"

    answered = page["turns"][3]
    assert answered["status"] == "ready"
    message = _assistant(answered, 1)
    beijing, shanghai = message["tools"]
    assert beijing["state"] == "output-available"
    assert beijing["output"].startswith("3 nights at the Grand Hotel Beijing, confirmation ")
    assert shanghai["state"] == "output-denied"
    assert shanghai["output"] == "Denied: Too expensive"
    assert shanghai["buttons"] == []
    # The answer continues the same message, after the outcomes.
    assert message["id"] == _assistant(asked, 1)["id"]
    assert "The user denied this tool call. Reason: Too expensive" in message["text"][-1]

    # The model was told: the request after the answers carried the booking's result and the
    # denial with its reason, each for its own call.
    told = [r.raw.decode() for r in page["requests"]]
    after = [body for body in told if "Reason: Too expensive" in body]
    assert after, "the model never received the denial"
    assert "3 nights at the Grand Hotel Beijing, confirmation" in after[0]


@pytest.mark.parametrize("api", APIS)
def test_turn_3_sources_show_under_the_answer(api: str, pages: dict[str, Any]) -> None:
    last = pages[api]["turns"][4]
    assert last["statusText"] == "Done (finish reason: stop)."
    assert [m["role"] for m in last["messages"]] == ["user", "assistant"] * 3
    answer = _assistant(last, 2)
    assert answer["text"][0].startswith("The Forbidden City was")
    assert answer["sources"] == [
        {
            "text": "Forbidden City - Wikipedia",
            "href": "https://en.wikipedia.org/wiki/Forbidden_City",
        },
        {"text": "The Bund - Wikipedia", "href": "https://en.wikipedia.org/wiki/The_Bund"},
    ]


@pytest.mark.parametrize("api", APIS)
def test_a_reload_keeps_the_conversation(api: str, pages: dict[str, Any]) -> None:
    page = pages[api]
    reloaded, last = page["reloaded"], page["turns"][4]
    assert "#chat=" in page["address"]
    assert reloaded["messages"] == last["messages"]
    assert reloaded["status"] == "ready"
    # Each model request held the conversation so far, from the server's own record.
    final = page["requests"][-1].raw.decode()
    for said in ("Pack light layers", "Reason: Too expensive", "Grand Hotel Beijing"):
        assert said in final
