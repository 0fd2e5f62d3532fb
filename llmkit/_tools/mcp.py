"""MCP tools, without an MCP dependency: :func:`tool_from_mcp` makes a :class:`~llmkit.Tool`
from an MCP tool (``tools/list``), :func:`tool_result_from_mcp` makes the
:class:`~llmkit.ToolResultMessage` from an MCP ``CallToolResult`` (``tools/call``).

Both take the MCP SDK's objects (anything with the MCP field names as attributes, pydantic
models included) or the plain JSON dicts. MCP servers send schemas llmkit's ``Tool`` would
refuse as they are; what is repaired here, each step a ``schema_rewritten`` diagnostic when a
``diagnostics`` list is given:

- no ``inputSchema`` at all, or one without ``type`` → ``type: "object"`` (MCP requires an
  object schema; many servers leave the keyword out);
- ``properties: null`` / ``required: null`` → left out;
- the root ``$schema`` (draft 2020-12, draft-07) → left out: it names the dialect, which llmkit
  validates as 2020-12 anyway, and some providers refuse the keyword.

A name that is not a valid tool name (``^[a-zA-Z0-9_-]{1,64}$``: MCP allows dots, slashes,
longer names) is refused with ``ToolDefinitionError`` unless ``name=`` gives the one to use;
it is never renamed silently (the caller needs the MCP name to call the server).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic
from .._errors import ToolDefinitionError
from .definition import Tool

if TYPE_CHECKING:
    from .._messages import ToolCall, ToolResultMessage

__all__ = ["tool_from_mcp", "tool_result_from_mcp"]

_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/yaml")


def _fields(value: Any) -> dict[str, Any]:
    """An MCP object or dict as a dict of its MCP (camelCase) field names."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # the MCP SDK's pydantic models
        dumped = dump(by_alias=True, exclude_none=True)
        if isinstance(dumped, dict):
            return dumped
    return {k: v for k, v in vars(value).items() if not k.startswith("_")}


def _rewritten(diags: list[Diagnostic] | None, name: str, path: str, change: str, why: str) -> None:
    if diags is not None:
        diags.append(
            Diagnostic(
                kind="schema_rewritten",
                message=f"{name}: {path}: {why}",
                details={"tool": name, "path": path, "change": change},
            )
        )


def tool_from_mcp(
    tool: Any, *, name: str | None = None, diagnostics: list[Diagnostic] | None = None
) -> Tool:
    """A :class:`Tool` from an MCP tool (an object with ``name``, ``description``,
    ``inputSchema``, or its dict).

    Args:
        tool: The MCP tool, as the MCP SDK gives it or as JSON.
        name: The tool name to use instead of the MCP one (for an MCP name that is not a valid
            tool name, or to keep names unique across servers). Map calls back yourself.
        diagnostics: A list that receives a ``schema_rewritten`` diagnostic per repair.

    Raises:
        ToolDefinitionError: the name is not a valid tool name (and no ``name=``), or the
            schema is not a valid JSON Schema even after the repairs above.
    """
    fields = _fields(tool)
    mcp_name = fields.get("name")
    final = name if name is not None else mcp_name
    if not isinstance(final, str):
        raise ToolDefinitionError(f"An MCP tool needs a name, got {mcp_name!r}")
    schema = fields.get("inputSchema", fields.get("input_schema"))
    if schema is None:
        _rewritten(
            diagnostics, final, "#", "type_added", "no inputSchema: an object with no properties"
        )
        schema = {"type": "object", "properties": {}}
    elif not isinstance(schema, Mapping):
        raise ToolDefinitionError(f"MCP tool {final!r}: inputSchema is not an object")
    schema = dict(schema)
    if "$schema" in schema:
        del schema["$schema"]
        _rewritten(diagnostics, final, "#/$schema", "keyword_removed", "$schema was left out")
    for key in ("properties", "required"):
        if key in schema and schema[key] is None:
            del schema[key]
            _rewritten(diagnostics, final, f"#/{key}", "null_removed", f"{key}: null was left out")
    if "type" not in schema:
        schema["type"] = "object"
        _rewritten(diagnostics, final, "#/type", "type_added", 'type: "object" was added')
    description = fields.get("description") or fields.get("title") or ""
    try:
        return Tool(name=final, description=str(description), parameters=schema)
    except ToolDefinitionError as e:
        hint = " (pass name=... with a valid tool name)" if "must match" in str(e) else ""
        raise ToolDefinitionError(f"MCP tool {mcp_name!r}: {e}{hint}") from None


def _omitted(diags: list[Diagnostic] | None, call_id: str, what: str) -> str:
    if diags is not None:
        diags.append(
            Diagnostic(
                kind="document_omitted",
                message=f"An MCP {what} in a tool result has no llmkit part; sent a placeholder",
                tool_call_id=call_id,
                details={"content": what},
            )
        )
    return f"[{what} omitted]"


def _resource(block: dict[str, Any], call_id: str, diags: list[Diagnostic] | None) -> Any:
    from .._documents import PDF, DocumentPart
    from .._messages import TextPart

    resource = _fields(block.get("resource") or {})
    uri = resource.get("uri")
    mime = str(resource.get("mimeType") or "text/plain")
    title = str(uri) if uri is not None else None
    if isinstance(resource.get("text"), str):
        if mime.startswith("text/"):
            return DocumentPart(text=resource["text"], media_type=mime, title=title)
        return TextPart(text=resource["text"])  # JSON, XML, ...: text for the model all the same
    if isinstance(resource.get("blob"), str) and mime == PDF:
        return DocumentPart(data=resource["blob"], title=title)
    return TextPart(text=_omitted(diags, call_id, f"{mime} resource"))


def tool_result_from_mcp(
    call: ToolCall, result: Any, *, diagnostics: list[Diagnostic] | None = None
) -> ToolResultMessage:
    """The result message for ``call`` from an MCP ``CallToolResult`` (an object or its dict).

    Text content becomes text, images (base64 ``data`` with ``mimeType``) images, an embedded
    text resource a text document (titled with its URI; a PDF blob a PDF document), a resource
    link a line of text naming it; ``structuredContent`` is sent as JSON text when the result
    has no text of its own; ``isError`` becomes ``is_error``. Anything else (audio, other
    blobs) is a placeholder, reported to ``diagnostics`` as ``document_omitted``.
    """
    from .._messages import ImagePart, TextPart, ToolResultMessage

    fields = _fields(result)
    parts: list[Any] = []
    texts = False  # the server sent text of its own
    for raw in fields.get("content") or ():
        block = _fields(raw)
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(TextPart(text=block["text"]))
            texts = texts or bool(block["text"])
        elif kind == "image" and isinstance(block.get("data"), str):
            parts.append(
                ImagePart(data=block["data"], media_type=str(block.get("mimeType") or "image/png"))
            )
        elif kind == "resource":
            parts.append(_resource(block, call.id, diagnostics))
        elif kind == "resource_link":
            label = block.get("title") or block.get("name") or "resource"
            parts.append(TextPart(text=f"[{label}: {block.get('uri')}]"))
        else:
            parts.append(TextPart(text=_omitted(diagnostics, call.id, str(kind or "content"))))
    structured = fields.get("structuredContent")
    if structured is not None and not texts:
        parts.insert(0, TextPart(text=json.dumps(structured, ensure_ascii=False)))
    if not parts:
        parts.append(TextPart(text=""))
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=parts,
        is_error=bool(fields.get("isError", False)),
    )
