"""What every request builder needs before it maps messages to its own wire shape.

:func:`prepare` takes the caller's Context and returns a list of messages that is valid to send
to the target, with a diagnostic for each change: tool-call ids normalised to the wire's id
grammar by one collision-free mapping applied to calls and results alike (QUIRKS B5,
``tool_call_id_normalized``), a synthetic error result for every call left without one, and a
result that answers no call of the assistant turn before it sent as user text after that turn's
results (QUIRKS G1, ``orphan_tool_call``: every wire refuses such a result). The caller's
Context is never modified.
"""

from __future__ import annotations

import json
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import InvalidRequestError
from .._ids import IdGrammar, id_mapper
from .._messages import (
    AssistantMessage,
    Context,
    Message,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    check_tool_names,
)
from .._tools.definition import Tool
from .._tools.provider import ProviderTool

__all__ = ["Prepared", "arguments_json", "check_tools", "prepare"]

ORPHAN_RESULT = "Error: this tool call was not executed (no result was recorded)."


class Prepared:
    """Messages ready for a wire mapper, plus what was changed to get there.

    A plain class, not a dataclass: making the dataclass (its generated methods compiled) cost
    every process's first request ~1.5M instructions (docs/benchmarks.md, cold start)."""

    __slots__ = ("diagnostics", "messages")

    def __init__(self, messages: list[Message], diagnostics: list[Diagnostic]) -> None:
        self.messages = messages
        self.diagnostics = diagnostics


def check_tools(
    context: Context, tool_choice: str | dict[str, Any] | None, api: str | None = None
) -> None:
    """Refuse duplicate tool names and a ``tool_choice`` naming an undeclared tool (a named
    provider tool of the target ``api`` counts as declared, and may not share a function
    tool's name)."""
    check_tool_names(context.tools, InvalidRequestError)
    names = {t.name for t in context.tools if isinstance(t, Tool)}
    for t in context.tools:
        if isinstance(t, ProviderTool) and t.api == api and t.name is not None:
            if t.name in names:
                raise InvalidRequestError(
                    f"Duplicate tool name {t.name!r}: a provider tool and a function tool share it"
                )
            names.add(t.name)
    if isinstance(tool_choice, dict):
        name = tool_choice.get("name")
        if name not in names:
            raise InvalidRequestError(f"tool_choice names {name!r}, which is not a declared tool")
    elif tool_choice not in (None, "auto", "none", "required"):
        raise InvalidRequestError(
            "tool_choice must be 'auto', 'none', 'required' or {'name': ...}, "
            f"not {tool_choice!r}"
        )


def prepare(context: Context, grammar: IdGrammar) -> Prepared:
    """Normalise ids to ``grammar`` and answer orphan calls (see the module docstring).

    Raises:
        InvalidRequestError: the Context has no messages (a system prompt alone included):
            every API refuses it, so it is not sent.
    """
    if not context.messages:
        raise InvalidRequestError(
            "The context has no messages (a system prompt alone is not a conversation): add a "
            "user message"
        )
    diagnostics: list[Diagnostic] = []
    ids: list[str] = []
    for m in context.messages:
        if isinstance(m, AssistantMessage):
            ids.extend(c.id for c in m.tool_calls)
        elif isinstance(m, ToolResultMessage):
            ids.append(m.tool_call_id)
    mapping = id_mapper(ids, grammar)
    for old, new in mapping.items():
        diagnostics.append(
            Diagnostic(
                kind="tool_call_id_normalized",
                message=f"Tool call id rewritten to fit the {grammar} id grammar",
                tool_call_id=old,
                details={"id": new, "grammar": grammar},
            )
        )

    out: list[Message] = []
    # calls still waiting for a result: original id -> the call as sent (id mapped)
    pending: dict[str, ToolCall] = {}
    stray: list[Message] = []  # results answering no call, as user text after the results

    def answer_orphans() -> None:
        for original, call in pending.items():
            diagnostics.append(
                Diagnostic(
                    kind="orphan_tool_call",
                    message="A tool call had no result; sent a synthetic error result",
                    tool_call_id=original,  # the id in the caller's Context
                    details={"name": call.name, "sent_id": call.id},
                )
            )
            out.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextPart(text=ORPHAN_RESULT)],
                    is_error=True,
                )
            )
        pending.clear()
        out.extend(stray)
        stray.clear()

    for m in context.messages:
        if isinstance(m, ToolResultMessage):
            if m.tool_call_id not in pending:  # no call, or answered already
                stray.append(_as_text(m, diagnostics))
                continue
            pending.pop(m.tool_call_id)
            if m.tool_call_id in mapping:
                m = m.model_copy(update={"tool_call_id": mapping[m.tool_call_id]})
            out.append(m)
            continue
        answer_orphans()
        if isinstance(m, AssistantMessage) and m.tool_calls:
            for call in m.tool_calls:
                pending[call.id] = call.model_copy(update={"id": mapping.get(call.id, call.id)})
            if any(c.id in mapping for c in m.tool_calls):
                m = m.model_copy(
                    update={
                        "content": [
                            p.model_copy(update={"id": mapping[p.id]})
                            if isinstance(p, ToolCall) and p.id in mapping
                            else p
                            for p in m.content
                        ]
                    }
                )
        out.append(m)
    answer_orphans()
    return Prepared(out, diagnostics)


def _as_text(m: ToolResultMessage, diagnostics: list[Diagnostic]) -> UserMessage:
    """A result that answers no call of the turn before it, as a user turn of text."""
    diagnostics.append(
        Diagnostic(
            kind="orphan_tool_call",
            message="A tool result answered no tool call of the turn before it; sent as text",
            tool_call_id=m.tool_call_id,
            details={"name": m.tool_name, "result_without_call": True},
        )
    )
    status = " (error)" if m.is_error else ""
    head = TextPart(text=f"[result of tool call {m.tool_call_id} ({m.tool_name}){status}]")
    return UserMessage(content=[head, *m.content])


def arguments_json(call: ToolCall) -> str:
    """The arguments text to replay: the exact text when it was strict JSON, else the
    recovered value; never ``""`` (vLLM rejects it, QUIRKS D3)."""
    if call.status == "complete" and call.raw_arguments.strip():
        return call.raw_arguments
    return json.dumps(call.arguments, ensure_ascii=False)
