"""docs/streaming-ui.md's chat server, run as shown: three turns on every wire of the fake
provider, one risky call asking for approval and denied, history kept on the server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall

from .test_ui_roundtrip import LIST, RISKY, WIRES

PAGE = Path(__file__).parent.parent / "docs" / "streaming-ui.md"


def server_code() -> str:
    text = PAGE.read_text("utf-8")
    found = re.search(r"<!-- chat-server -->\n```python\n(.*?)```", text, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_server_side_is_under_40_lines() -> None:
    assert len(server_code().splitlines()) < 40


def _parts(body: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :])
        for line in body.split("\n\n")
        if line.startswith("data: {")
    ]


@pytest.mark.parametrize("api", WIRES)
def test_the_documented_chat_server_holds_a_conversation_with_an_approval(
    api: llmkit.Api,
) -> None:
    replies = [
        FakeReply(
            "Let me look first.",
            tool_calls=[
                FakeToolCall("list_files", {"n": 2}),
                FakeToolCall("delete_file", {"path": "/x"}),
            ],
        ),
        FakeReply("Fine, I left it."),
        FakeReply("You are welcome."),
    ]
    ran: list[str] = []

    async def run_tool(call: llmkit.ToolCall) -> str:
        ran.append(call.name)
        return "a.txt b.txt"

    with FakeProvider(replies, api=api, require_key=False) as fake:
        namespace: dict[str, Any] = {
            "MODEL": fake.model(),
            "TOOLS": [RISKY, LIST],
            "run_tool": run_tool,
        }
        exec(compile(server_code(), str(PAGE), "exec"), namespace)
        app = Starlette(routes=[Route("/api/chat", namespace["chat"], methods=["POST"])])
        with TestClient(app) as client:

            def post(messages: list[Any]) -> list[dict[str, Any]]:
                got = client.post("/api/chat", json={"id": "chat-1", "messages": messages})
                assert got.status_code == 200
                assert got.headers["x-vercel-ai-ui-message-stream"] == "v1"
                return _parts(got.text)

            question = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Tidy."}]}
            first = post([question])
            asked = [p for p in first if p["type"] == "tool-approval-request"]
            assert len(asked) == 1, first
            calls = {
                p["toolName"]: p["toolCallId"] for p in first if p["type"] == "tool-input-start"
            }
            assert asked[0]["toolCallId"] == calls["delete_file"]
            assert ran == ["list_files"]  # the risky one waits

            # The page's message after Deny (what useChat posts; only the answer is read).
            page = {
                "id": "a1",
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool-delete_file",
                        "toolCallId": calls["delete_file"],
                        "state": "approval-responded",
                        "input": {"path": "/x"},
                        "approval": {"id": asked[0]["approvalId"], "approved": False},
                    }
                ],
            }
            second = post([question, page])
            assert second[1] == {"type": "tool-output-denied", "toolCallId": calls["delete_file"]}
            assert "Fine, I left it." in "".join(p.get("delta", "") for p in second)

            thanks = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Thanks"}]}
            third = post([question, page, thanks])
            assert "You are welcome." in "".join(p.get("delta", "") for p in third)
        sent = [r.raw.decode() for r in fake.requests]

    assert ran == ["list_files"]
    assert "The user denied this tool call." in sent[1]  # the model was told
    assert "Fine, I left it." in sent[2] and "Tidy." in sent[2]  # the history, from the server
    history = namespace["chats"]["chat-1"].messages
    assert [m.role for m in history] == [
        "user", "assistant", "tool", "tool", "assistant", "user", "assistant",
    ]  # fmt: skip
