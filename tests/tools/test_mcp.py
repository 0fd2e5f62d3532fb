"""MCP tools (docs/design.md §5): the schemas MCP servers really send make valid Tools (repairs
reported), and ``CallToolResult`` s make valid tool results — from the MCP SDK's objects or their
JSON, with no MCP dependency. The schemas below are what the reference servers list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import llmkit

# @modelcontextprotocol/server-filesystem (zod-to-json-schema, draft-07)
READ_FILE = {
    "name": "read_file",
    "description": "Read the complete contents of a file from the file system.",
    "inputSchema": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
}
# a Python FastMCP server: a title, and a tool with no arguments
NOW = {"name": "now", "inputSchema": {"properties": {}, "title": "nowArguments", "type": "object"}}


class McpTool(BaseModel):
    """Shaped like ``mcp.types.Tool`` (camelCase field names, extra fields allowed)."""

    model_config = ConfigDict(extra="allow")
    name: str
    title: str | None = None
    description: str | None = None
    inputSchema: dict[str, Any]


def call(name: str = "read_file") -> llmkit.ToolCall:
    return llmkit.ToolCall(
        id="call_1", name=name, arguments={"path": "a.txt"}, raw_arguments='{"path": "a.txt"}'
    )


def test_a_reference_server_tool_becomes_a_tool() -> None:
    diagnostics: list[llmkit.Diagnostic] = []
    tool = llmkit.tool_from_mcp(READ_FILE, diagnostics=diagnostics)
    assert tool.name == "read_file" and tool.description.startswith("Read the complete")
    assert "$schema" not in tool.parameters
    assert tool.parameters["required"] == ["path"]
    assert [d.details["change"] for d in diagnostics] == ["keyword_removed"]
    assert llmkit.decode_tool_call(tool, call()) == {"path": "a.txt"}


def test_the_sdk_object_and_its_dict_give_the_same_tool() -> None:
    assert llmkit.tool_from_mcp(McpTool(**READ_FILE)) == llmkit.tool_from_mcp(READ_FILE)
    assert llmkit.tool_from_mcp(McpTool(**NOW)).parameters == NOW["inputSchema"]


@pytest.mark.parametrize(
    ("schema", "changes"),
    [
        ({"properties": {"q": {"type": "string"}}}, ["type_added"]),  # no type
        (None, ["type_added"]),  # no inputSchema at all
        (
            {"type": "object", "properties": None, "required": None},
            ["null_removed", "null_removed"],
        ),
        (
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"},
            ["keyword_removed"],
        ),
        ({"type": "object", "properties": {}}, []),  # empty properties: fine as they are
    ],
)
def test_the_schemas_mcp_servers_send_are_repaired_and_reported(
    schema: Any, changes: list[str]
) -> None:
    raw: dict[str, Any] = {"name": "search", "description": None}
    if schema is not None:
        raw["inputSchema"] = schema
    diagnostics: list[llmkit.Diagnostic] = []
    tool = llmkit.tool_from_mcp(raw, diagnostics=diagnostics)
    assert tool.parameters["type"] == "object" and tool.description == ""
    assert [d.details["change"] for d in diagnostics] == changes
    for model in (
        llmkit.get_model("openai", "gpt-4.1"),
        llmkit.get_model("google", "gemini-3.8-flash"),
    ):
        llmkit.build_request(
            model, llmkit.Context(messages=[llmkit.user("x")], tools=[tool]), api_key="k"
        )


def test_an_mcp_name_that_is_not_a_tool_name_is_refused_unless_renamed() -> None:
    raw = {**READ_FILE, "name": "filesystem.read_file"}
    with pytest.raises(llmkit.ToolDefinitionError, match="name="):
        llmkit.tool_from_mcp(raw)
    assert llmkit.tool_from_mcp(raw, name="filesystem__read_file").name == "filesystem__read_file"


def test_an_invalid_schema_is_refused() -> None:
    with pytest.raises(llmkit.ToolDefinitionError):
        llmkit.tool_from_mcp(
            {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": 3}}}}
        )


def test_text_images_and_resources_become_parts() -> None:
    png = "iVBORw0KGgo="
    result = {
        "content": [
            {"type": "text", "text": "Found 2 files."},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///notes.md",
                    "mimeType": "text/markdown",
                    "text": "# Notes",
                },
            },
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///a.pdf",
                    "mimeType": "application/pdf",
                    "blob": "JVBERi0=",
                },
            },
            {"type": "resource_link", "uri": "file:///big.csv", "name": "big.csv"},
        ],
        "isError": False,
    }
    message = llmkit.tool_result_from_mcp(call(), result)
    assert (message.tool_call_id, message.tool_name, message.is_error) == (
        "call_1",
        "read_file",
        False,
    )
    kinds = [p.type for p in message.content]
    assert kinds == ["text", "image", "document", "document", "text"]
    notes = message.content[2]
    assert isinstance(notes, llmkit.DocumentPart)
    assert (notes.text, notes.media_type, notes.title) == (
        "# Notes",
        "text/markdown",
        "file:///notes.md",
    )
    assert message.content[3].is_pdf  # type: ignore[union-attr]
    assert message.content[4].text == "[big.csv: file:///big.csv]"  # type: ignore[union-attr]
    # and it goes to every wire
    turn = llmkit.AssistantMessage(content=[call()], stop_reason="tool_use")
    context = llmkit.Context(messages=[llmkit.user("ls"), turn, message])
    for model in (
        llmkit.get_model("anthropic", "claude-sonnet-5"),
        llmkit.get_model("openai", "gpt-4.1"),
        llmkit.get_model("openai", "gpt-6.1-sol"),
        llmkit.get_model("google", "gemini-3.8-flash"),
    ):
        llmkit.build_request(model, context, api_key="k")


def test_is_error_structured_content_and_what_has_no_part() -> None:
    diagnostics: list[llmkit.Diagnostic] = []
    result = {
        "content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}],
        "structuredContent": {"temperature": 21.5},
        "isError": True,
    }
    message = llmkit.tool_result_from_mcp(call(), result, diagnostics=diagnostics)
    assert message.is_error
    assert json.loads(message.content[0].text) == {"temperature": 21.5}  # type: ignore[union-attr]
    assert message.content[1].text == "[audio omitted]"  # type: ignore[union-attr]
    assert [d.kind for d in diagnostics] == ["document_omitted"]
    assert llmkit.tool_result_from_mcp(call(), {"content": []}).text == ""


def test_a_result_object_like_the_sdks() -> None:
    class Text(BaseModel):
        type: str = "text"
        text: str

    class Result(BaseModel):
        content: list[Text]
        isError: bool = False

    message = llmkit.tool_result_from_mcp(call(), Result(content=[Text(text="ok")], isError=True))
    assert message.text == "ok" and message.is_error
