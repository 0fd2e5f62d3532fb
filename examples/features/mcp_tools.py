"""MCP tools: ``tool_from_mcp`` and ``tool_result_from_mcp``, with no MCP dependency.

    python examples/features/mcp_tools.py

The MCP server is played by two plain functions returning what an MCP server sends
(``tools/list`` and ``tools/call`` results, as JSON); with the MCP SDK you would pass its
objects instead. The model is llmkit's fake provider. The tool loop stays the caller's.
"""

from __future__ import annotations

from typing import Any

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeRequest, FakeToolCall


def list_tools() -> list[dict[str, Any]]:
    """What @modelcontextprotocol/server-filesystem lists (zod-to-json-schema, draft-07)."""
    return [
        {
            "name": "read_file",
            "description": "Read the complete contents of a file.",
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
                "$schema": "http://json-schema.org/draft-07/schema#",
            },
        },
        {"name": "list_allowed_directories", "inputSchema": {"properties": {}}},  # no "type"
    ]


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An MCP ``CallToolResult``."""
    if name == "read_file":
        return {
            "content": [{"type": "text", "text": "hello from " + arguments["path"]}],
            "isError": False,
        }
    return {"content": [{"type": "text", "text": f"unknown tool {name}"}], "isError": True}


def fake_model(request: FakeRequest) -> FakeReply:
    results = [m for m in request.body["messages"] if m["role"] == "tool"]
    if not results:
        return FakeReply(tool_calls=[FakeToolCall("read_file", {"path": "notes.txt"})])
    return FakeReply(f"The file says: {results[-1]['content']}")


def main() -> None:
    diagnostics: list[llmkit.Diagnostic] = []
    tools = [llmkit.tool_from_mcp(t, diagnostics=diagnostics) for t in list_tools()]
    print("tools:", [t.name for t in tools], "repairs:", [d.details["change"] for d in diagnostics])
    with FakeProvider(fake_model) as fake:
        model = fake.model()
        context = llmkit.Context(messages=[llmkit.user("What is in notes.txt?")], tools=tools)
        for _ in range(4):
            reply = llmkit.complete(model, context, api_key=fake.api_key)
            context.messages.append(reply)
            if not reply.tool_calls:
                print(reply.text)
                break
            for call in reply.tool_calls:
                tool = next(t for t in tools if t.name == call.name)
                args = llmkit.decode_tool_call(tool, call)
                context.messages.append(
                    llmkit.tool_result_from_mcp(call, call_tool(call.name, args))
                )


if __name__ == "__main__":
    main()
