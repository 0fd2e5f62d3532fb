"""The request skeleton every wire fills in, and the replay rule every wire follows.

:func:`build_body` is the order every request builder shares: the options and tools are
checked (:func:`~llmkit._wire.prepare.check_tools`), the history is prepared for the wire's id
grammar (:func:`~llmkit._wire.prepare.prepare`), the wire maps it (``fill``: messages, system,
tools, its option fields), then the stream fields, then ``provider_options`` last (they win).

:class:`Origin` is the replay rule, once: opaque data a provider attached to an assistant turn
(thinking signatures, encrypted reasoning, hosted-tool items, thought signatures) goes back
only to the model that produced it, and whatever is not sent is reported
(``thinking_dropped``) saying where it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import InvalidRequestError
from .._ids import IdGrammar
from .._messages import AssistantMessage, Context, ThinkingPart, ToolCall
from .._models import Model
from .._options import REASONING_LEVELS, Options
from .._tools.definition import Tool
from .prepare import Prepared, check_tools, prepare

__all__ = ["THINKING_TEXT", "Origin", "build_body", "strict_refused"]

THINKING_TEXT = "<thinking>\n{}\n</thinking>"
"""How a thinking part that cannot be replayed as thinking is sent as text."""


def build_body(
    model: Model,
    context: Context,
    opts: Options,
    *,
    ids: IdGrammar,
    fill: Callable[[Prepared], dict[str, Any]],
    stream: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The JSON body and its diagnostics, in the order every wire shares.

    Args:
        model: The target model.
        context: The conversation; never modified.
        opts: The checked options.
        ids: The id grammar of the wire's tool calls (ids outside it are rewritten).
        fill: The wire's mapping of the prepared history (its diagnostics list is the
            request's) to the body, options included.
        stream: The fields that ask for a streamed response (``None``: not streamed).

    Raises:
        InvalidRequestError: an unknown ``reasoning`` level, duplicate tool names, or a
            ``tool_choice`` naming an undeclared tool.
    """
    if opts.reasoning is not None and opts.reasoning not in REASONING_LEVELS:
        levels = ", ".join(map(repr, REASONING_LEVELS))
        raise InvalidRequestError(f"reasoning must be one of {levels}, not {opts.reasoning!r}")
    check_tools(context, opts.tool_choice, model.api)
    prepared = prepare(context, ids)
    body = fill(prepared)
    if stream:
        body.update(stream)
    if opts.provider_options:
        body.update(opts.provider_options)
    return body, prepared.diagnostics


class Origin:
    """Where an assistant turn came from, against the model it is sent to: whether its opaque
    replay data may be sent (:attr:`same`), and the ``thinking_dropped`` reports when not."""

    __slots__ = ("diags", "name", "same")

    def __init__(self, message: AssistantMessage, model: Model, diags: list[Diagnostic]) -> None:
        self.same = (message.provider, message.api, message.model) == (
            model.provider,
            model.api,
            model.id,
        )
        self.name = f"{message.provider}/{message.api}/{message.model}"
        self.diags = diags

    def dropped(self, message: str, tool_call_id: str | None = None, **details: Any) -> None:
        """Report replay data that was not sent (``thinking_dropped``, ``from`` this origin)."""
        self.diags.append(
            Diagnostic(
                kind="thinking_dropped",
                message=message,
                tool_call_id=tool_call_id,
                details={**details, "from": self.name},
            )
        )

    def call_replay(self, call: ToolCall) -> None:
        """A tool call's replay data from another model (a Gemini thought signature,
        OpenRouter reasoning details) means nothing here and is never sent (QUIRKS F2, F3)."""
        if call.replay and not self.same:
            self.dropped(
                "Replay data of a tool call from another model was not sent",
                call.id,
                keys=sorted(call.replay),
            )

    def thinking_as_text(self, part: ThinkingPart, why: str | None) -> str | None:
        """A thinking part that cannot be replayed as thinking (``why``; ``None``: it came
        from another model): its text, to send as text, or ``None`` when it has none to show
        (opaque or redacted) and is dropped. Either way reported."""
        because = why or f"it came from {self.name}, not this model"
        if part.thinking and not part.redacted:
            self.dropped(f"A thinking part was sent as text because {because}", action="text")
            return THINKING_TEXT.format(part.thinking)
        self.dropped(f"An opaque thinking part was dropped because {because}", action="dropped")
        return None


def strict_refused(tool: Tool, model: Model) -> InvalidRequestError:
    """The refusal of a ``strict`` tool for a model (or server) without strict tool schemas."""
    return InvalidRequestError(
        f"Tool {tool.name!r} is strict, but {model.provider}/{model.id} does not support "
        "strict tool schemas"
    )
