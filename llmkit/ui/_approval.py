"""Tool approval as the AI SDK does it: the request the server streams, the page's answer.

The server streams an :class:`ApprovalRequest` after the step that made the call (the page
shows Approve / Deny); the page posts its answer on the next turn, which :func:`approvals`
reads as :class:`Approval` s. A refusal goes to the model as :meth:`Approval.refusal` and to
the page as ``tool-output-denied`` (give the ``Approval`` to ``to_ui_stream``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._messages import TextPart, ToolCall, ToolResultMessage

__all__ = ["Approval", "ApprovalRequest", "refusal_text"]


@dataclass(frozen=True)
class ApprovalRequest:
    """Ask the page to approve a tool call before it runs (a ``tool-approval-request`` part).

    Give it to ``to_ui_stream`` after the step whose ``Done`` holds the call (or at the start
    of a stream that continues the message holding it).

    Attributes:
        tool_call_id: The ``ToolCall.id`` to approve.
        approval_id: The id the page answers with; ``None`` makes the deterministic
            ``"approval-{tool_call_id}"``.
    """

    tool_call_id: str
    approval_id: str | None = None

    @property
    def id(self) -> str:
        """The approval id sent: ``approval_id``, or ``"approval-{tool_call_id}"``."""
        return self.approval_id if self.approval_id is not None else f"approval-{self.tool_call_id}"


def refusal_text(reason: str | None) -> str:
    """What the model reads when the user denied a call (``reason``: the page's, if any)."""
    text = "The user denied this tool call."
    return f"{text} Reason: {reason}" if reason else text


@dataclass(frozen=True)
class Approval:
    """The page's answer to an :class:`ApprovalRequest` (from :func:`approvals`).

    Attributes:
        tool_call_id: The call it answers.
        approval_id: The approval id the page answered.
        approved: True when the user approved the call.
        reason: The reason the page gave, if any (untrusted text from the browser).
    """

    tool_call_id: str
    approval_id: str
    approved: bool
    reason: str | None = None

    def refusal(self, call: ToolCall) -> ToolResultMessage:
        """The result that tells the model the user denied ``call`` (``is_error``, the reason
        in its text): exactly what ``from_ui_messages`` makes of the ``output-denied`` part
        the page shows once this ``Approval`` went through ``to_ui_stream``."""
        return ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextPart(text=refusal_text(self.reason))],
            is_error=True,
        )
