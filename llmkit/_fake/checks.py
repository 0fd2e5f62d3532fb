"""What the fake provider refuses before answering, the way each real API refuses it (HTTP 400 in
the wire's error shape), so that a user's tests catch a request the provider would reject:

- a PDF document (or an image) to a model that cannot read one (``FakeProvider(input=...)``);
- Anthropic: ``cache_control`` on an empty text block, more than 4 blocks with ``cache_control``
  (the top-level one included), a 1-hour breakpoint after a 5-minute one;
- OpenAI: a ``file_data`` without its ``filename`` (Chat ``file`` parts, Responses
  ``input_file``);
- Bedrock Converse: ``toolUse``/``toolResult`` blocks in a request without ``toolConfig``
  (docs/quirks.md G5);
- a hosted-tool type the wire does not know (Anthropic ``tools[].type``, Responses
  ``tools[].type``, Chat ``tools[].type``, a Gemini ``tools[]`` entry's field).

Each check takes the parsed body and returns the error message, or ``None``. The type lists
are the official SDKs' request unions at the time of writing (a newer tool type is then
refused here until the list is updated, as an old API version would refuse it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

__all__ = ["CHECKS", "refusal"]

ANTHROPIC_TOOL_TYPES = frozenset(
    {
        "custom",
        "bash_20250124",
        "browser_toolset_20260801",
        "code_execution_20250522",
        "code_execution_20250825",
        "code_execution_20260120",
        "code_execution_20260521",
        "computer_toolset_20260801",
        "memory_20250818",
        "text_editor_20250124",
        "text_editor_20250429",
        "text_editor_20250728",
        "tool_search_tool_bm25",
        "tool_search_tool_bm25_20251119",
        "tool_search_tool_regex",
        "tool_search_tool_regex_20251119",
        "web_fetch_20250910",
        "web_fetch_20260209",
        "web_fetch_20260309",
        "web_fetch_20260318",
        "web_search_20250305",
        "web_search_20260209",
        "web_search_20260318",
    }
)
RESPONSES_TOOL_TYPES = frozenset(
    {
        "apply_patch",
        "code_interpreter",
        "computer",
        "computer_use_preview",
        "custom",
        "file_search",
        "function",
        "image_generation",
        "local_shell",
        "mcp",
        "namespace",
        "programmatic_tool_calling",
        "shell",
        "tool_search",
        "web_search",
        "web_search_2025_08_26",
        "web_search_preview",
        "web_search_preview_2025_03_11",
    }
)
CHAT_TOOL_TYPES = frozenset({"function", "custom"})
GEMINI_TOOL_FIELDS = frozenset(
    {
        "retrieval",
        "computerUse",
        "fileSearch",
        "googleSearch",
        "googleMaps",
        "codeExecution",
        "enterpriseWebSearch",
        "functionDeclarations",
        "googleSearchRetrieval",
        "parallelAiSearch",
        "urlContext",
        "mcpServers",
        "exaAiSearch",
    }
)
MAX_BREAKPOINTS = 4


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _model(body: dict[str, Any]) -> str:
    model = body.get("model")
    return model if isinstance(model, str) else "fake-model"


# -- Anthropic Messages -------------------------------------------------------------------------


def _anthropic_blocks(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every block that may carry ``cache_control``, in prompt order, with its location."""
    for i, tool in enumerate(_dicts(body.get("tools"))):
        yield f"tools.{i}", tool
    for i, block in enumerate(_dicts(body.get("system"))):
        yield f"system.{i}", block
    for i, message in enumerate(_dicts(body.get("messages"))):
        for j, block in enumerate(_dicts(message.get("content"))):
            where = f"messages.{i}.content.{j}"
            yield where, block
            if block.get("type") == "tool_result":
                for k, inner in enumerate(_dicts(block.get("content"))):
                    yield f"{where}.content.{k}", inner


def anthropic(body: dict[str, Any], reads: Collection[str]) -> str | None:
    """Anthropic Messages (and its counting endpoint)."""
    for i, tool in enumerate(_dicts(body.get("tools"))):
        kind = tool.get("type")
        if kind is not None and kind not in ANTHROPIC_TOOL_TYPES:
            return (
                f"tools.{i}: Input tag {kind!r} found using 'type' does not match any of the "
                f"expected tags: {', '.join(repr(t) for t in sorted(ANTHROPIC_TOOL_TYPES))}"
            )
    ttls: list[str] = []  # of every breakpoint, in prompt order
    for where, block in _anthropic_blocks(body):
        kind = block.get("type")
        source = _obj(block.get("source"))
        if kind == "document" and source.get("type") in ("base64", "url") and "pdf" not in reads:
            return f"{where}: '{_model(body)}' does not support PDF input."
        if kind == "image" and "image" not in reads:
            return f"{where}: '{_model(body)}' does not support image input."
        control = block.get("cache_control")
        if not isinstance(control, dict):
            continue
        if kind == "text" and not str(block.get("text", "")).strip():
            return f"{where}.text: cache_control cannot be set for empty text blocks"
        ttls.append(str(control.get("ttl", "5m")))
    top = body.get("cache_control")
    if isinstance(top, dict):  # it marks the last cacheable block: last in prompt order
        ttls.append(str(top.get("ttl", "5m")))
    if len(ttls) > MAX_BREAKPOINTS:
        return (
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {len(ttls)}."
        )
    if "5m" in ttls and "1h" in ttls[ttls.index("5m") :]:
        return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"
    return None


# -- OpenAI Chat Completions and Responses ------------------------------------------------------


def _openai_tools(body: dict[str, Any], known: frozenset[str]) -> str | None:
    for i, tool in enumerate(_dicts(body.get("tools"))):
        kind = tool.get("type")
        if kind not in known:
            supported = ", ".join(repr(t) for t in sorted(known))
            return f"Invalid value: {kind!r}. Supported values are: {supported}. (tools[{i}].type)"
    return None


def _only_some(kind: str, where: str) -> str:
    return f"Invalid content type. {kind} is only supported by certain models. ({where})"


def openai_chat(body: dict[str, Any], reads: Collection[str]) -> str | None:
    """Chat Completions."""
    for i, message in enumerate(_dicts(body.get("messages"))):
        for j, part in enumerate(_dicts(message.get("content"))):
            kind, where = part.get("type"), f"messages[{i}].content[{j}]"
            if kind == "file":
                file = _obj(part.get("file"))
                if "pdf" not in reads:
                    return f"Invalid content type. file is not supported with this model. ({where})"
                if "file_data" in file and not file.get("filename"):
                    return f"Missing required parameter: '{where}.file.filename'."
            elif kind == "image_url" and "image" not in reads:
                return _only_some("image_url", where)
    return _openai_tools(body, CHAT_TOOL_TYPES)


def _responses_parts(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    items = body.get("input")
    for i, item in enumerate(_dicts(items)):
        for key in ("content", "output"):
            for j, part in enumerate(_dicts(item.get(key))):
                yield f"input[{i}].{key}[{j}]", part


def openai_responses(body: dict[str, Any], reads: Collection[str]) -> str | None:
    """Responses (and its counting endpoint)."""
    for where, part in _responses_parts(body):
        kind = part.get("type")
        if kind == "input_file":
            if "pdf" not in reads:
                return (
                    f"Invalid content type. input_file is not supported with this model. ({where})"
                )
            if "file_data" in part and not part.get("filename"):
                return f"Missing required parameter: '{where}.filename'."
        elif kind == "input_image" and "image" not in reads:
            return (
                f"Invalid content type. input_image is only supported by certain models. ({where})"
            )
    return _openai_tools(body, RESPONSES_TOOL_TYPES)


# -- Gemini -------------------------------------------------------------------------------------


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def gemini(body: dict[str, Any], reads: Collection[str]) -> str | None:
    """generateContent / streamGenerateContent / countTokens."""
    inner = body.get("generateContentRequest")
    if isinstance(inner, dict):
        body = inner  # the countTokens form
    for i, content in enumerate(_dicts(body.get("contents"))):
        for j, part in enumerate(_dicts(content.get("parts"))):
            blob = part.get("inlineData") or part.get("fileData")
            mime = blob.get("mimeType") if isinstance(blob, dict) else None
            if mime == "application/pdf" and "pdf" not in reads:
                return (
                    "Unable to submit request because it has a mimeType parameter with value "
                    f"application/pdf, which is not supported. (contents[{i}].parts[{j}])"
                )
            if isinstance(mime, str) and mime.startswith("image/") and "image" not in reads:
                return (
                    "Unable to submit request because it has a mimeType parameter with value "
                    f"{mime}, which is not supported. (contents[{i}].parts[{j}])"
                )
    for i, tool in enumerate(_dicts(body.get("tools"))):
        for name in tool:
            if _camel(name) not in GEMINI_TOOL_FIELDS:
                return (
                    f"Invalid JSON payload received. Unknown name \"{name}\" at 'tools[{i}]': "
                    "Cannot find field."
                )
    return None


def bedrock_converse(body: dict[str, Any], reads: Collection[str]) -> str | None:
    """Tool blocks need a ``toolConfig`` (QUIRKS G5)."""
    if "toolConfig" in body:
        return None
    for message in _dicts(body.get("messages")):
        if any("toolUse" in b or "toolResult" in b for b in _dicts(message.get("content"))):
            return (
                "The toolConfig field must be defined when using toolUse and toolResult "
                "content blocks."
            )
    return None


CHECKS: dict[str, Callable[[dict[str, Any], Collection[str]], str | None]] = {
    "anthropic-messages": anthropic,
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "gemini": gemini,
    "bedrock-converse": bedrock_converse,
}
"""The check of each wire, by ``Model.api``."""


def refusal(api: str, body: dict[str, Any], reads: Collection[str]) -> str | None:
    """Why the real API would refuse ``body`` (400), or ``None``."""
    check = CHECKS.get(api)
    return check(body, reads) if check is not None else None
