"""The event contract every wire keeps (the conformance suite's check, shared with the fuzzers)."""

from __future__ import annotations

import llmkit


def check_contract(events: list[llmkit.Event]) -> llmkit.AssistantMessage:
    """The event contract every wire must keep; returns the final message."""
    assert isinstance(events[0], llmkit.Start)
    terminal = [e for e in events if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
    assert len(terminal) == 1 and events[-1] is terminal[0]
    message = terminal[0].message
    assert isinstance(terminal[0], llmkit.ErrorEvent) == (
        message.stop_reason in ("error", "aborted")
    )
    state: dict[int, str] = {}
    kinds = {"text": llmkit.TextPart, "thinking": llmkit.ThinkingPart, "tool_call": llmkit.ToolCall}
    for event in events:
        name = type(event).__name__
        if event.index is None:
            continue
        family = (
            "text"
            if name.startswith("Text")
            else "thinking"
            if name.startswith("Thinking")
            else "tool_call"
        )
        if name.endswith("Start"):
            assert event.index not in state, f"{name} twice for index {event.index}"
            assert event.index == len(state), "indexes are handed out in order"
            state[event.index] = "open"
        elif name.endswith("End"):
            assert state.get(event.index) == "open", f"{name} without an open block"
            state[event.index] = "closed"
        else:
            assert state.get(event.index) == "open", f"{name} outside its block"
        assert isinstance(message.content[event.index], kinds[family])
    assert all(s == "closed" for s in state.values()), "every block ends"
    assert len(state) == len(message.content)
    texts = "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta))
    assert texts == message.text
    for call in message.tool_calls:
        deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta) and e.id == call.id]
        assert "".join(d.arguments_delta for d in deltas) == call.raw_arguments
    return message
