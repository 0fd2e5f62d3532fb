"""Streaming UIs, both ways: llmkit events as the Vercel AI SDK "UI message stream" (protocol
v1), and the page's ``UIMessage`` history back into a :class:`~llmkit.Context`.

The AI SDK's front ends (``useChat`` in React, Svelte and Vue, or ``readUIMessageStream``
anywhere) read a server-sent event stream of JSON *parts*, ``data: {json}\\n\\n`` each, ended
by ``data: [DONE]``. :func:`to_ui_stream` (and :func:`ato_ui_stream`) write that stream from
llmkit's events, and :data:`UI_STREAM_HEADERS` are the response headers it goes with::

    from starlette.responses import StreamingResponse
    from llmkit.ui import UI_STREAM_HEADERS, ato_ui_stream

    async def events():
        async with llmkit.astream(model, context) as stream:
            async for event in stream:
                yield event

    return StreamingResponse(ato_ui_stream(events()), headers=UI_STREAM_HEADERS)

The input may hold several llmkit streams back to back (a tool loop): each one, from its
``Start`` to its ``Done``/``ErrorEvent``, is one *step* of a single UI message, and a
:class:`~llmkit.ToolResultMessage` between steps is the result of one of the calls before it.

=========================================  ================================================
llmkit                                     UI message stream part
=========================================  ================================================
(before anything)                          ``start`` (``messageId`` only when given)
``Start``                                  ``start-step``
``TextStart``/``TextDelta``/``TextEnd``    ``text-start`` (at the first non-empty delta),
                                           ``text-delta``, ``text-end``; id
                                           ``text-{step}-{index}``
``Thinking*``                              ``reasoning-start/delta/end``, id
                                           ``reasoning-{step}-{index}``; a part with no
                                           text (a redacted block, a bare signature) is
                                           not sent
``ToolCallStart``/``ToolCallDelta``        ``tool-input-start`` (once the name is known),
                                           ``tool-input-delta`` (the argument text exactly
                                           as received); ``toolCallId`` is ``ToolCall.id``
``Done``/``ErrorEvent`` (per call, in content   ``tool-input-available`` with the final
order)                                     arguments when the final ``ToolCall.status`` is
                                           ``complete``; otherwise ``tool-input-error``
                                           with the raw argument text as ``input`` and a
                                           short reason
``ErrorEvent`` (stop reason ``error``)          ``error`` (a message safe for an end user)
``ErrorEvent`` (stop reason ``aborted``)        ``abort``
``Done``/``ErrorEvent``                         ``finish-step``
``ToolResultMessage``                      ``tool-output-available`` (``output``: its text)
                                           or ``tool-output-error`` (``is_error``)
``ApprovalRequest``                        ``tool-approval-request``
``Approval`` (``approved=False``)          ``tool-output-denied``
``TextEnd`` with ``citations``             ``source-url`` (a citation with a URL) or
                                           ``source-document``, after ``text-end``
(end of each step)                         ``data-llmkit``: what the exact round trip
                                           needs (below)
(after everything)                         ``finish`` with ``finishReason``, then
                                           ``data: [DONE]``
=========================================  ================================================

A call's ``tool-input-available`` waits for the end of its step because llmkit may still
decide, at the terminal event, that a call is not safe to act on (a refusal turn marks its
calls ``recovered``): a client-side tool never runs on arguments llmkit did not accept.

``finishReason`` is the last step's stop reason in the protocol's vocabulary, as the AI SDK's
own providers map them: ``stop`` and ``pause`` → ``stop``, ``length`` → ``length``,
``tool_use`` → ``tool-calls``, ``content_filter`` and ``refusal`` → ``content-filter``,
``error`` → ``error``, ``aborted`` → ``other`` (after an ``abort`` part). ``finish`` is always
the last part before ``[DONE]``, after an ``error`` too; when the input itself raises an
:class:`~llmkit.LLMError` (say ``stream()`` could not connect), the stream still ends
``error``, ``finish`` (``error``), ``[DONE]``.

With ``data_parts=True``, llmkit's own record rides along as data parts (each also lands in
the UI message's ``parts``): ``{"type": "data-llmkit-diagnostic", "data": <Diagnostic as
JSON>}`` for each ``DiagnosticEvent``, and at each step's end ``{"type": "data-llmkit-step",
"data": {"stop_reason", "raw_stop_reason", "usage"}}`` (llmkit's exact values). They are off
by default: a diagnostic is meant for the developer, not necessarily for the end user.

The output is a pure function of the input: no clock, no random ids.

**Back from the page.** :func:`from_ui_messages` turns the ``messages`` a ``useChat`` page
posts into a :class:`~llmkit.Context` (its input is untrusted: anything malformed is an
:class:`~llmkit.InvalidRequestError` naming the message and part); :func:`approvals` reads the
page's answers to approval requests. The round trip is exact: what a later request needs and
the protocol has no field for (thinking signatures and replay data, empty or redacted thinking,
a call's exact argument text, status, provider id and replay data, the message's provider,
api, model, response id and provider data, citations, a result's order and non-text content)
travels under ``"llmkit"``: in each step's ``data-llmkit`` part and in a result's
``providerMetadata``. A page can forge all of it: keep the history on the server (by chat id)
where that matters (docs/streaming-ui.md).
"""

from __future__ import annotations

from ._approval import Approval, ApprovalRequest
from ._history import approvals, from_ui_messages
from ._stream import (
    FINISH_REASONS,
    UI_STREAM_HEADERS,
    UIStreamItem,
    ato_ui_stream,
    safe_error_text,
    to_ui_stream,
)

__all__ = [
    "FINISH_REASONS",
    "UI_STREAM_HEADERS",
    "Approval",
    "ApprovalRequest",
    "UIStreamItem",
    "approvals",
    "ato_ui_stream",
    "from_ui_messages",
    "safe_error_text",
    "to_ui_stream",
]

for _value in (
    Approval,
    ApprovalRequest,
    approvals,
    from_ui_messages,
    ato_ui_stream,
    safe_error_text,
    to_ui_stream,
):
    _value.__module__ = __name__  # reprs and docs say llmkit.ui.X, not the private module
del _value
