"""Finish reasons that mean the turn failed (QUIRKS E4, D6).

Gemini and Bedrock end a turn that went wrong with a finish reason, not an error: Gemini's
``MALFORMED_FUNCTION_CALL`` (its content often empty), ``UNEXPECTED_TOOL_CALL``, ...; Bedrock's
``malformed_tool_use``, ``malformed_model_output``. Those are failures, never an empty success.
Gemini's come on its own wire and, passed through unchanged, from its OpenAI-compatible endpoint
on Chat Completions; every decoder that meets one ends the turn here, the same way.
"""

from __future__ import annotations

from typing import Any

from .._diagnostics import DiagnosticKind
from .._errors import APIError
from .contract import DeltaSink

__all__ = ["FAILED", "fail_turn"]

FAILED: dict[str, tuple[DiagnosticKind, str]] = {
    "MALFORMED_FUNCTION_CALL": ("tool_arguments_invalid", "the model wrote a malformed call"),
    "UNEXPECTED_TOOL_CALL": ("tool_call_unknown_name", "the model called an undeclared tool"),
    "MALFORMED_RESPONSE": ("event_malformed", "Gemini produced a malformed response"),
    "MISSING_THOUGHT_SIGNATURE": ("thinking_dropped", "the request lacked a thought signature"),
    "MALFORMED_MODEL_OUTPUT": ("event_malformed", "the model produced malformed output"),
    "MALFORMED_TOOL_USE": ("tool_arguments_invalid", "the model wrote a malformed tool call"),
}
"""Finish reason (upper case) → the diagnostic kind and what it means."""


def fail_turn(
    sink: DeltaSink, reason: str, detail: Any, provider: str | None, body: Any = None
) -> bool:
    """End the turn with ``ErrorEvent`` if ``reason`` is one of :data:`FAILED` (compared in upper
    case); return whether it was. ``body``: the provider's payload, kept on the error."""
    failed = FAILED.get(reason.upper())
    if failed is None:
        return False
    kind, what = failed
    sink.finish(reason, "error")
    sink.diagnostic(
        kind, f"The turn ended with {reason}: {what}", finish_reason=reason, finish_message=detail
    )
    message = f"{what} ({reason})" + (f": {detail}" if detail else "")
    if body is None:
        body = {"finishReason": reason, "finishMessage": detail}
    sink.fail(APIError(message, provider=provider, code=reason, body=body))
    return True
