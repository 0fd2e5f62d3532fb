"""Cold start: what a fresh process pays before its first streamed tool call is in
hand.

Each contestant is a fresh ``python -c`` process that, timed from its first statement, imports
its library, builds one client or request, makes one streaming request to the loopback server
(a small OpenAI Chat stream — Anthropic Messages for the anthropic SDK — of 4 tool calls, 40
argument deltas: :data:`COLDSTART_N`) and reads it to the end, then prints the seconds and what
it read (checked by the parent). Contestants (the same work for each):

- ``import httpx, pydantic``: the reference (imports only, nothing else);
- ``llmkit, first request``: the target row, nothing sent: ``import llmkit``, the same
  ``Model`` and ``Context`` with one tool as ``llmkit`` below, ``llmkit.build_request(...)``;
- ``pydantic, one model class``: ``import httpx, pydantic``, then one two-field model class
  defined, ``defer_build`` as llmkit's are (``from pydantic import BaseModel`` imports
  pydantic's schema machinery, the first subclass ``pydantic.fields``, ``pydantic.types`` and
  ``annotated_types``);
- ``pydantic, one model validated``: the same class without ``defer_build``, and one instance:
  what any code using pydantic pays (the first validator also loads pydantic's plugin loader,
  which reads every installed distribution's entry points). This bounds the target row as long
  as llmkit's types are pydantic models: validating the caller's ``Model`` and ``Context`` is
  what builds llmkit's first validators (8 of them for this request: ``Model``, its
  ``ModelCost`` and two compat classes, ``Context``, ``Tool``, ``UserMessage``, ``TextPart``);
- ``floor``: ``import httpx, httpx_sse, json``, one ``httpx.Client``, ``connect_sse``,
  ``json.loads`` per event, fragments joined and parsed once;
- ``llmkit``: ``import llmkit``, a ``Model`` and a ``Context`` with one tool,
  ``llmkit.stream(...)`` read to the end;
- ``openai-sdk``: ``import openai``, ``OpenAI(base_url=...)``,
  ``chat.completions.create(stream=True)`` iterated;
- ``anthropic-sdk``: ``import anthropic``, ``Anthropic(base_url=...)``,
  ``messages.create(stream=True)`` iterated.

The interpreter's own start-up is not in the figure (it is the same for all); the whole
process's wall time, start-up and exit included, is recorded too. One untimed round first
(bytecode caches, the page cache), then ``reps`` rounds, the order rotating every round; the
median is reported.

Every process imports httpx as a plain install does: ``import httpx`` also tries to load its
command-line client (``httpx._main``: click, pygments, rich) and, where click and pygments are
installed — the test and bench extras pull them in — pays several milliseconds for them before
failing on rich. A ``pip install llmkit`` has none of them; that import time, the same for
every contestant, would flatter every ratio to ``import httpx, pydantic``. So each process
starts, untimed, by making ``import click`` fail (:data:`_PREAMBLE`).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from .streams import PROMPT, TOOLS, StreamSpec, expected_calls

COLDSTART_N = 40
REFERENCE = "import httpx, pydantic"
FIRST_REQUEST = "llmkit, first request"
ONE_MODEL = "pydantic, one model class"
ONE_VALIDATED = "pydantic, one model validated"
CONTESTANTS = (
    REFERENCE,
    FIRST_REQUEST,
    ONE_MODEL,
    ONE_VALIDATED,
    "floor",
    "llmkit",
    "openai-sdk",
    "anthropic-sdk",
)
SENDS = ("floor", "llmkit", "openai-sdk", "anthropic-sdk")  # the others build, never send
PACKAGES = {"openai-sdk": "openai", "anthropic-sdk": "anthropic", "floor": "httpx_sse"}

# Untimed: httpx's optional command-line client fails to import at once, as in a plain install
# (see the module docstring).
_PREAMBLE = "import sys\nsys.modules.setdefault('click', None)\n"
_HEAD = _PREAMBLE + "import time\n_t = time.perf_counter()\n"
_TAIL = "\nprint(__import__('json').dumps({'seconds': time.perf_counter() - _t, 'read': read}))\n"

_name, _description, _schema = TOOLS["edits"]
# The Model and Context of the llmkit contestants (the same in both).
_LLMKIT_REQUEST = f"""
import llmkit

model = llmkit.Model(provider="openai", id="gpt-4.1-mini", api="openai-chat",
                     base_url=URL + "/v1")
context = llmkit.Context(
    messages=[llmkit.user({PROMPT!r})],
    tools=[llmkit.Tool(name={_name!r}, description={_description!r}, parameters={_schema!r})],
)
"""
_SNIPPETS = {
    REFERENCE: "import httpx, pydantic\nread = None",
    FIRST_REQUEST: _LLMKIT_REQUEST
    + """request = llmkit.build_request(model, context, api_key="sk-bench")
read = None
""",
    ONE_MODEL: """
import httpx, pydantic

class Call(pydantic.BaseModel, defer_build=True):
    name: str
    arguments: dict

read = None
""",
    ONE_VALIDATED: """
import httpx, pydantic

class Call(pydantic.BaseModel):
    name: str
    arguments: dict

Call(name="apply_edits", arguments={})
read = None
""",
    "floor": f"""
import json
import httpx
from httpx_sse import connect_sse

client = httpx.Client(timeout=None)
body = {{
    "model": "gpt-4.1-mini", "stream": True,
    "messages": [{{"role": "user", "content": {PROMPT!r}}}],
    "tools": [{{"type": "function", "function": {{
        "name": {_name!r}, "description": {_description!r}, "parameters": {_schema!r}}}}}],
}}
slots = {{}}
with connect_sse(client, "POST", URL + "/v1/chat/completions", json=body,
                 headers={{"authorization": "Bearer sk-bench"}}) as source:
    for sse in source.iter_sse():
        if sse.data == "[DONE]":
            break
        for choice in json.loads(sse.data)["choices"]:
            for tc in choice["delta"].get("tool_calls") or ():
                slots.setdefault(tc["index"], []).append(tc["function"].get("arguments") or "")
read = [len(json.dumps(json.loads("".join(f)))) for f in slots.values()]
""",
    "llmkit": _LLMKIT_REQUEST
    + """with llmkit.stream(model, context, api_key="sk-bench", max_retries=0) as events:
    for event in events:
        pass
read = [len(__import__("json").dumps(c.arguments)) for c in events.message.tool_calls]
""",
    "openai-sdk": f"""
import openai

client = openai.OpenAI(api_key="sk-bench", base_url=URL + "/v1", max_retries=0)
stream = client.chat.completions.create(
    model="gpt-4.1-mini", stream=True,
    messages=[{{"role": "user", "content": {PROMPT!r}}}],
    tools=[{{"type": "function", "function": {{
        "name": {_name!r}, "description": {_description!r}, "parameters": {_schema!r}}}}}],
)
slots = {{}}
for chunk in stream:
    for choice in chunk.choices:
        for tc in choice.delta.tool_calls or ():
            slots.setdefault(tc.index, []).append(tc.function.arguments or "")
import json
read = [len(json.dumps(json.loads("".join(f)))) for f in slots.values()]
""",
    "anthropic-sdk": f"""
import anthropic

client = anthropic.Anthropic(api_key="sk-bench", base_url=URL, max_retries=0)
stream = client.messages.create(
    model="claude-sonnet-4-5", max_tokens=64000, stream=True,
    messages=[{{"role": "user", "content": {PROMPT!r}}}],
    tools=[{{"name": {_name!r}, "description": {_description!r}, "input_schema": {_schema!r}}}],
)
blocks = {{}}
for event in stream:
    if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
        blocks.setdefault(event.index, []).append(event.delta.partial_json)
import json
read = [len(json.dumps(json.loads("".join(f)))) for f in blocks.values()]
""",
}


def api_of(name: str) -> str:
    return "anthropic-messages" if name == "anthropic-sdk" else "openai-chat"


def expected_read(name: str) -> list[int] | None:
    """What the process must print as ``read``: the length of each call's arguments."""
    if name not in SENDS:
        return None
    calls = expected_calls(StreamSpec(api_of(name), "edits", COLDSTART_N))
    return [len(json.dumps(c.arguments)) for c in calls]


def code(name: str, url: str) -> str:
    """The statements one fresh process runs (timed from their first line)."""
    return _HEAD + f"URL = {url!r}\n" + _SNIPPETS[name] + _TAIL


def measure(
    base_url: Callable[[str], str],
    *,
    reps: int = 15,
    contestants: list[str] | None = None,
    python: Callable[..., subprocess.CompletedProcess[str]],
    log: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """``base_url(api)``: the loopback URL serving the small stream of ``api``; ``python``:
    runs ``python <args>`` in a fresh interpreter. Returns medians and problems per
    contestant."""
    import importlib.util

    names = [
        n
        for n in (contestants or list(CONTESTANTS))
        if n not in PACKAGES or importlib.util.find_spec(PACKAGES[n]) is not None
    ]
    seconds: dict[str, list[float]] = {n: [] for n in names}
    walls: dict[str, list[float]] = {n: [] for n in names}
    problems: dict[str, str] = {}
    for rep in range(reps + 1):  # round 0 is not timed
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            if name in problems:
                continue
            start = time.perf_counter()
            proc = python("-c", code(name, base_url(api_of(name))), timeout=120)
            wall = time.perf_counter() - start
            lines = proc.stdout.strip().splitlines()
            if proc.returncode != 0 or not lines:
                tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
                problems[name] = f"exit {proc.returncode}: {tail}"[:500]
                continue
            out = json.loads(lines[-1])
            if out["read"] != expected_read(name):
                problems[name] = "wrong result: the calls differ from the generated ones"
                continue
            if rep:
                seconds[name].append(out["seconds"])
                walls[name].append(wall)
    result: dict[str, Any] = {"reps": reps, "n": COLDSTART_N, "contestants": {}}
    for name in names:
        entry: dict[str, Any] = {}
        if name in problems:
            entry["problem"] = problems[name]
        elif seconds[name]:
            entry["seconds"] = statistics.median(seconds[name])
            entry["wall"] = statistics.median(walls[name])
            entry["spread"] = [min(seconds[name]), max(seconds[name])]
        result["contestants"][name] = entry
        if "seconds" in entry:
            ms, wall = entry["seconds"] * 1000, entry["wall"] * 1000
            log(f"cold start {name}: {ms:.0f} ms (whole process {wall:.0f} ms)")
        else:
            log(f"cold start {name}: FAILED {entry.get('problem')}")
    return result


def failures(result: dict[str, Any] | None) -> list[str]:
    if not result:
        return []
    return [
        f"coldstart/{name}: {entry['problem']}"
        for name, entry in result["contestants"].items()
        if "problem" in entry
    ]


if __name__ == "__main__":  # print one contestant's code, to run it by hand
    print(code(sys.argv[1] if len(sys.argv) > 1 else "llmkit", "http://127.0.0.1:8000/s/KEY"))
