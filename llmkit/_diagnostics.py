"""Diagnostics: the record of every repair, inference, rewrite or drop llmkit made.

llmkit never changes what a provider sent, or what the caller asked for, without saying so.
Each such step produces a :class:`Diagnostic` with a stable ``kind`` from the closed set
:data:`DiagnosticKind`. Diagnostics travel on ``AssistantMessage.diagnostics``, as
``DiagnosticEvent`` in streams, and on built requests as
``request.extensions["llmkit.diagnostics"]``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DIAGNOSTIC_KINDS", "Diagnostic", "DiagnosticKind"]

DiagnosticKind = Literal[
    # tool-call arguments
    "tool_arguments_recovered",  # details.mode: "repaired" | "partial"
    "tool_arguments_invalid",
    "tool_arguments_duplicate",  # a repeated full payload was not appended (QUIRKS D5)
    "tool_arguments_duplicate_keys",  # an object repeats a key: the last wins, call recovered
    "arguments_coerced",
    "arguments_extra_keys",  # keys the tool does not define: ignored (a model) or kept (a dict)
    # tool-call identity and grouping
    "tool_call_id_synthesized",
    "tool_call_id_duplicate",
    "tool_call_id_changed",  # a second id for one call was ignored (QUIRKS B3)
    "tool_call_index_reused",
    "tool_call_index_missing",
    "tool_call_index_mismatch",  # arguments for an unknown index joined the one open call (C3)
    "tool_call_unknown_name",
    "tool_call_name_changed",
    "tool_call_not_executable",  # e.g. a call in a refusal turn (QUIRKS E3)
    # stop reasons and stream shape
    "stop_reason_inferred",
    "stop_reason_unknown",
    "stop_reason_conflict",  # a second, different finish reason arrived (QUIRKS E2)
    "stream_truncated",
    "event_malformed",
    "event_unknown",
    "usage_missing",
    "invalid_unicode",  # lone surrogates or invalid UTF-8 replaced by U+FFFD
    # request side
    "option_unsupported",
    "schema_rewritten",
    "image_omitted",
    "document_omitted",  # a PDF to a model that cannot read one, or a URL a wire cannot take
    "thinking_dropped",
    "tool_call_id_normalized",
    "orphan_tool_call",
    "tool_history_flattened",  # tool blocks sent as text to a wire that needs tools for them
    "message_inserted",  # a turn the server requires was added (Mistral, QUIRKS G2)
    # llmkit.ui
    "ui_part_skipped",  # a part of a page's UIMessage that from_ui_messages does not take
]

DIAGNOSTIC_KINDS: frozenset[str] = frozenset(DiagnosticKind.__args__)  # type: ignore[attr-defined]


class Diagnostic(BaseModel):
    """One repair, inference, rewrite or drop, with a stable kind.

    Attributes:
        kind: What happened; one of :data:`DiagnosticKind`. Stable across versions.
        message: A human-readable sentence. Never contains secrets or whole bodies.
        tool_call_id: The (final, llmkit) id of the tool call concerned, if any.
        details: Machine-readable specifics (for example ``{"mode": "partial"}``).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    kind: DiagnosticKind
    message: str
    tool_call_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
