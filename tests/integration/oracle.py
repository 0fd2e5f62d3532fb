"""What a llama-server response says, read with plain ``json`` and no llmkit.

llama-server writes one ``data: <json>`` line and a blank line per SSE event (and ``data:
[DONE]`` at the end of a stream that finished). This reader assembles such a body the obvious
way: content and ``reasoning_content`` concatenated, tool calls grouped by ``index`` with the
first id and name kept and the argument strings joined, the first ``finish_reason``, the last
``usage``. The integration suite compares llmkit's messages with it. (The default run's replay
of the committed captures uses ``tests/support/corpus.py``, the corpus's own independent reader.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class Reply:
    """The assembled response (choice 0)."""

    text: str = ""
    reasoning: str = ""
    calls: list[Call] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    id: str = ""
    done: bool = False  # ``data: [DONE]`` seen
    error: dict[str, Any] | None = None
    events: int = 0

    @property
    def stop_reason(self) -> str:
        """llmkit's name for how the reply ended (one of its closed set of stop reasons)."""
        if self.error is not None or not self.done:
            return "error"
        if self.finish_reason == "length":
            return "length"
        if self.calls:
            return "tool_use"
        return "stop"


def data_lines(body: bytes) -> list[str]:
    """The ``data`` payloads of an SSE body, in order."""
    out = []
    for block in body.decode("utf-8").split("\n\n"):
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue  # keep-alive comments
            assert line.startswith("data: "), f"unexpected SSE line {line!r}"
            out.append(line[len("data: ") :])
    return out


def read_stream(body: bytes) -> Reply:
    reply = Reply()
    by_index: dict[int, Call] = {}
    for data in data_lines(body):
        reply.events += 1
        if data == "[DONE]":
            reply.done = True
            continue
        chunk = json.loads(data)
        if "error" in chunk:
            reply.error = chunk["error"]
            continue
        reply.id = reply.id or chunk.get("id") or ""
        if chunk.get("usage"):
            reply.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            reply.text += delta.get("content") or ""
            reply.reasoning += delta.get("reasoning_content") or ""
            for entry in delta.get("tool_calls") or []:
                call = by_index.get(entry["index"])
                if call is None:
                    call = by_index[entry["index"]] = Call()
                    reply.calls.append(call)
                function = entry.get("function") or {}
                call.id = call.id or entry.get("id") or ""
                call.name = call.name or function.get("name") or ""
                call.arguments += function.get("arguments") or ""
            if reply.finish_reason is None:
                reply.finish_reason = choice.get("finish_reason")
    return reply


def read_json(body: bytes) -> Reply:
    """A non-streamed ``chat.completion`` body."""
    doc = json.loads(body)
    if "error" in doc:
        return Reply(error=doc["error"], done=True)
    (choice,) = doc["choices"]
    message = choice["message"]
    return Reply(
        text=message.get("content") or "",
        reasoning=message.get("reasoning_content") or "",
        calls=[
            Call(c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in message.get("tool_calls") or []
        ],
        finish_reason=choice["finish_reason"],
        usage=doc.get("usage"),
        id=doc.get("id") or "",
        done=True,
    )
