"""Tool blocks in a history sent without tools (docs/quirks.md G5).

Bedrock Converse refuses a request whose messages hold ``toolUse`` or ``toolResult`` blocks
without a ``toolConfig`` ("The toolConfig field must be defined when using toolUse and
toolResult content blocks"), which is what a turn without tools after a tool loop sends (a
final summary, a side question about the transcript). Declaring tools the caller did not offer
would let the model call them, so the blocks become text instead: each call as
``[tool call {id} ({name}): {arguments}]`` in its assistant turn, each result as
``[result of tool call {id} ({name})]`` followed by its content (text, images, documents), in
order. One ``tool_history_flattened`` diagnostic names the ids.
"""

from __future__ import annotations

import json
from typing import Any

from ..._diagnostics import Diagnostic

__all__ = ["flatten_tool_blocks"]


def flatten_tool_blocks(messages: list[dict[str, Any]], diags: list[Diagnostic]) -> None:
    """Rewrite ``messages`` (the body's, in place) without tool blocks, and report it."""
    names: dict[str, str] = {}
    calls: list[str] = []
    results: list[str] = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for block in message["content"]:
            # A server tool's blocks are kept whole for replay, as the provider sent them:
            # any field may be missing there.
            if "toolUse" in block:
                use = _fields(block["toolUse"])
                call_id, name = str(use.get("toolUseId", "")), str(use.get("name", ""))
                names[call_id] = name
                calls.append(call_id)
                arguments = json.dumps(use.get("input"), ensure_ascii=False, separators=(",", ":"))
                content.append({"text": f"[tool call {call_id} ({name}): {arguments}]"})
            elif "toolResult" in block:
                result = _fields(block["toolResult"])
                call_id = str(result.get("toolUseId", ""))
                results.append(call_id)
                name = f" ({names[call_id]})" if call_id in names else ""
                status = " (error)" if result.get("status") == "error" else ""
                content.append({"text": f"[result of tool call {call_id}{name}{status}]"})
                inner = result.get("content")  # none in a server tool's result, at times
                if isinstance(inner, list):
                    content.extend(inner)
            else:
                content.append(block)
        message["content"] = content
    if calls or results:
        diags.append(
            Diagnostic(
                kind="tool_history_flattened",
                message=(
                    "The history's tool calls and results were sent as text: Bedrock refuses "
                    "tool blocks in a request that declares no tools"
                ),
                details={"calls": calls, "results": results},
            )
        )


def _fields(block: Any) -> dict[str, Any]:
    return block if isinstance(block, dict) else {}
