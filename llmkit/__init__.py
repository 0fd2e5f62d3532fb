"""llmkit: a transport-only LLM client toolkit.

One provider-neutral conversation in, one HTTP request out; the provider's response, whole or
streamed, back as provider-neutral events and messages. Running tools and driving the tool loop
stay in the caller's code. See docs/design.md for the contract; everything public is re-exported
here from private modules.
"""

# No ``from __future__ import annotations`` and only private module-level names here: the
# public-API test checks that vars(llmkit) holds nothing that is not in __all__.
import importlib as _importlib
import typing as _typing

from ._version import __version__

if _typing.TYPE_CHECKING:
    from ._api import (
        acomplete,
        aparse_stream,
        astream,
        build_request,
        complete,
        parse_error,
        parse_response,
        parse_stream,
        stream,
    )
    from ._count import acount_tokens, count_tokens
    from ._diagnostics import Diagnostic, DiagnosticKind
    from ._documents import CachePoint, DocumentPart
    from ._errors import (
        APIConnectionError,
        APIError,
        APITimeoutError,
        AuthenticationError,
        BadRequestError,
        ContextLengthError,
        InvalidRequestError,
        LLMError,
        MissingAPIKeyError,
        NotFoundError,
        OutputValidationError,
        OverloadedError,
        PermissionDeniedError,
        RateLimitError,
        ServerError,
        StreamError,
        ToolArgumentsError,
        ToolDefinitionError,
        UnknownModelError,
    )
    from ._events import (
        DiagnosticEvent,
        Done,
        ErrorEvent,
        Event,
        Start,
        TextDelta,
        TextEnd,
        TextStart,
        ThinkingDelta,
        ThinkingEnd,
        ThinkingStart,
        ToolCallDelta,
        ToolCallEnd,
        ToolCallStart,
        UsageEvent,
    )
    from ._messages import (
        AssistantMessage,
        Citation,
        Context,
        ImagePart,
        Message,
        StopReason,
        TextPart,
        ThinkingPart,
        ToolCall,
        ToolCallStatus,
        ToolResultMessage,
        Usage,
        UserMessage,
        tool_result,
        user,
    )
    from ._models import (
        Api,
        CostTier,
        Model,
        ModelCost,
        get_model,
        models,
        register_model,
    )
    from ._options import RequestOptions
    from ._output import decode_output
    from ._streams import AsyncEventStream, EventStream
    from ._tools.arguments import decode_tool_call
    from ._tools.definition import Injected, Tool, tool, tool_from_function
    from ._tools.mcp import tool_from_mcp, tool_result_from_mcp
    from ._tools.provider import ProviderTool
    from ._transport import Timeouts
    from ._wire.anthropic_messages.compat import AnthropicCompat
    from ._wire.openai_chat.compat import OpenAIChatCompat
    from ._wire.openai_responses.compat import OpenAIResponsesCompat

if _typing.TYPE_CHECKING:
    from ._client import Client

# Public name -> the private module that defines it. Imported on first use (PEP 562), as
# pydantic does: `import llmkit` stays cheap, and each module loads when a name needs it.
_EXPORTS: dict[str, str] = {
    "APIConnectionError": "._errors",
    "APIError": "._errors",
    "APITimeoutError": "._errors",
    "AnthropicCompat": "._wire.anthropic_messages.compat",
    "Api": "._models",
    "AssistantMessage": "._messages",
    "AsyncEventStream": "._streams",
    "AuthenticationError": "._errors",
    "BadRequestError": "._errors",
    "CachePoint": "._documents",
    "Citation": "._messages",
    "Client": "._client",
    "Context": "._messages",
    "ContextLengthError": "._errors",
    "Diagnostic": "._diagnostics",
    "DiagnosticEvent": "._events",
    "DiagnosticKind": "._diagnostics",
    "DocumentPart": "._documents",
    "Done": "._events",
    "ErrorEvent": "._events",
    "Event": "._events",
    "EventStream": "._streams",
    "ImagePart": "._messages",
    "Injected": "._tools.definition",
    "InvalidRequestError": "._errors",
    "LLMError": "._errors",
    "Message": "._messages",
    "MissingAPIKeyError": "._errors",
    "CostTier": "._models",
    "Model": "._models",
    "ModelCost": "._models",
    "NotFoundError": "._errors",
    "OpenAIChatCompat": "._wire.openai_chat.compat",
    "OpenAIResponsesCompat": "._wire.openai_responses.compat",
    "OutputValidationError": "._errors",
    "OverloadedError": "._errors",
    "PermissionDeniedError": "._errors",
    "ProviderTool": "._tools.provider",
    "RateLimitError": "._errors",
    "RequestOptions": "._options",
    "ServerError": "._errors",
    "Start": "._events",
    "StopReason": "._messages",
    "StreamError": "._errors",
    "TextDelta": "._events",
    "TextEnd": "._events",
    "TextPart": "._messages",
    "TextStart": "._events",
    "ThinkingDelta": "._events",
    "ThinkingEnd": "._events",
    "ThinkingPart": "._messages",
    "ThinkingStart": "._events",
    "Timeouts": "._transport",
    "Tool": "._tools.definition",
    "ToolArgumentsError": "._errors",
    "ToolCall": "._messages",
    "ToolCallDelta": "._events",
    "ToolCallEnd": "._events",
    "ToolCallStart": "._events",
    "ToolCallStatus": "._messages",
    "ToolDefinitionError": "._errors",
    "ToolResultMessage": "._messages",
    "UnknownModelError": "._errors",
    "Usage": "._messages",
    "UsageEvent": "._events",
    "UserMessage": "._messages",
    "acomplete": "._api",
    "acount_tokens": "._count",
    "aparse_stream": "._api",
    "astream": "._api",
    "build_request": "._api",
    "complete": "._api",
    "count_tokens": "._count",
    "decode_output": "._output",
    "decode_tool_call": "._tools.arguments",
    "get_model": "._models",
    "models": "._models",
    "parse_error": "._api",
    "parse_response": "._api",
    "parse_stream": "._api",
    "register_model": "._models",
    "stream": "._api",
    "tool": "._tools.definition",
    "tool_from_function": "._tools.definition",
    "tool_from_mcp": "._tools.mcp",
    "tool_result": "._messages",
    "tool_result_from_mcp": "._tools.mcp",
    "user": "._messages",
}

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AnthropicCompat",
    "Api",
    "AssistantMessage",
    "AsyncEventStream",
    "AuthenticationError",
    "BadRequestError",
    "CachePoint",
    "Citation",
    "Client",
    "Context",
    "ContextLengthError",
    "CostTier",
    "Diagnostic",
    "DiagnosticEvent",
    "DiagnosticKind",
    "DocumentPart",
    "Done",
    "ErrorEvent",
    "Event",
    "EventStream",
    "ImagePart",
    "Injected",
    "InvalidRequestError",
    "LLMError",
    "Message",
    "MissingAPIKeyError",
    "Model",
    "ModelCost",
    "NotFoundError",
    "OpenAIChatCompat",
    "OpenAIResponsesCompat",
    "OutputValidationError",
    "OverloadedError",
    "PermissionDeniedError",
    "ProviderTool",
    "RateLimitError",
    "RequestOptions",
    "ServerError",
    "Start",
    "StopReason",
    "StreamError",
    "TextDelta",
    "TextEnd",
    "TextPart",
    "TextStart",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingPart",
    "ThinkingStart",
    "Timeouts",
    "Tool",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolCallStatus",
    "ToolDefinitionError",
    "ToolResultMessage",
    "UnknownModelError",
    "Usage",
    "UsageEvent",
    "UserMessage",
    "__version__",
    "acomplete",
    "acount_tokens",
    "aparse_stream",
    "astream",
    "build_request",
    "complete",
    "count_tokens",
    "decode_output",
    "decode_tool_call",
    "get_model",
    "models",
    "parse_error",
    "parse_response",
    "parse_stream",
    "register_model",
    "stream",
    "tool",
    "tool_from_function",
    "tool_from_mcp",
    "tool_result",
    "tool_result_from_mcp",
    "user",
]


if not _typing.TYPE_CHECKING:  # hidden from type checkers: a misspelt name stays an error there

    def __getattr__(name: str) -> _typing.Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'llmkit' has no attribute {name!r}")
        value = getattr(_importlib.import_module(module, __name__), name)
        if getattr(value, "__module__", "").startswith("llmkit._"):
            # Re-homed, as httpx does: reprs, tracebacks and docs say llmkit.Context, not
            # llmkit._messages.Context (pickling finds it here too).
            value.__module__ = __name__
        globals()[name] = value  # later lookups skip __getattr__
        return value


def __dir__() -> list[str]:
    return sorted(__all__)
