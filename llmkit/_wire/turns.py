"""Messages as alternating user and assistant turns, for the wires whose tool results are
blocks of a user message (Anthropic Messages, Bedrock Converse).

Tool results and the user turn after them share one user message (QUIRKS G1); an assistant
turn with no content (aborted before any) is left out, as both APIs refuse it. Each wire maps
the messages' content; this module only groups it. The messages come from
:func:`~llmkit._wire.prepare.prepare`, so every result answers a call of the assistant turn
before it (a result that answers none was already made user text there, ``orphan_tool_call``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._errors import InvalidRequestError
from .._messages import AssistantMessage, Message, ToolResultMessage, UserMessage

__all__ = ["Blocks", "turns"]

Blocks = list[dict[str, Any]]
"""A turn's content blocks, in the wire's shape."""


def turns(
    messages: Sequence[Message],
    *,
    user: Callable[[UserMessage], Blocks],
    assistant: Callable[[AssistantMessage], Blocks],
    result: Callable[[ToolResultMessage], Blocks],
) -> list[dict[str, Any]]:
    """``[{"role": ..., "content": [...]}, ...]``, each message's blocks mapped by the wire:
    ``user``, ``assistant``, ``result``."""
    out: list[dict[str, Any]] = []

    def user_blocks() -> Blocks:
        if not out or out[-1]["role"] != "user":
            out.append({"role": "user", "content": []})
        content: Blocks = out[-1]["content"]
        return content

    for m in messages:
        if isinstance(m, ToolResultMessage):
            user_blocks().extend(result(m))
        elif isinstance(m, UserMessage):
            user_blocks().extend(user(m))
        else:
            blocks = assistant(m)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
    if any(not turn["content"] for turn in out):
        # Both APIs refuse an empty turn; their empty text blocks were left out (user("")).
        raise InvalidRequestError(
            "A user turn has nothing this API can send (empty text is not accepted): give the "
            "message some text, or leave it out"
        )
    return out
