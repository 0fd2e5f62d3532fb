"""``llmkit.ui`` against the real client: the AI SDK's own code reads llmkit's UI streams.

For every case of ``tests/support/ui_cases.py`` (every wire from the fake provider: text, reasoning,
parallel calls, a cut-off call, broken arguments, a mid-stream error, a length stop, a two-step
tool loop; a refusal; every emulated OpenAI-compatible server), ``tests/ui/read_stream.mjs``
runs the body through what ``useChat`` runs (``DefaultChatTransport`` with its
``uiMessageChunkSchema`` validation, then ``readUIMessageStream``), and the UI message it
assembles must say what llmkit's final messages say. Every chunk must also type-check as the
package's ``UIMessageChunk`` (``tsc --strict``, which also refuses keys the type does not have,
something the schema's loose objects let through).

Needs ``node`` and ``npm ci --prefix tests/ui``; see ``tests/support/ui_node.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from llmkit.ui import FINISH_REASONS, UI_STREAM_HEADERS, safe_error_text, to_ui_stream

from .support.ui_cases import SECRET, Case, builders, built
from .support.ui_node import UI_DIR, node, run_node

CASES = builders()
CHUNK_SIZES = (1, 3, 17, 4096)  # bytes per read: cut anywhere, mid-character included


@pytest.fixture(scope="module")
def node_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, Case], dict[str, str], Any]:
    """Every case, its UI stream, and what the AI SDK client made of them (one node run)."""
    node()
    cases = built()
    bodies = {name: "".join(to_ui_stream(case.items)) for name, case in cases.items()}
    path = tmp_path_factory.mktemp("ui") / "cases.json"
    path.write_text(
        json.dumps(
            [
                {"name": name, "sse": body, "chunkSize": CHUNK_SIZES[i % len(CHUNK_SIZES)]}
                for i, (name, body) in enumerate(bodies.items())
            ]
        )
    )
    return cases, bodies, run_node("read_stream.mjs", str(path))


@pytest.fixture(scope="module")
def read(node_run: tuple[dict[str, Case], dict[str, str], Any]) -> dict[str, tuple[Case, str, Any]]:
    """Each case by name: the case, its UI stream, and what the client made of it."""
    cases, bodies, results = node_run
    return {name: (cases[name], bodies[name], results["cases"][name]) for name in cases}


def test_the_headers_are_the_packages(
    node_run: tuple[dict[str, Case], dict[str, str], Any],
) -> None:
    assert node_run[2]["headers"] == UI_STREAM_HEADERS


def _joined(parts: list[dict[str, Any]], kind: str) -> str:
    return "".join(p["text"] for p in parts if p["type"] == kind)


@pytest.mark.parametrize("name", CASES)
def test_the_ai_client_assembles_what_llmkit_assembled(
    name: str, read: dict[str, tuple[Case, str, Any]]
) -> None:
    case, body, got = read[name]
    # Every chunk passed the package's schema, on its own and inside the client's reader.
    assert got["invalid"] == []
    assert got["chunks"] == got["dataLines"] > 0
    assert got["done"]
    assert got["lastChunkType"] == "finish"
    assert got["finishReason"] == FINISH_REASONS[case.last.stop_reason]

    if got["message"] is None:  # the client shows a message once a part has content
        assert not any(m.content for m in case.messages)
        parts: list[dict[str, Any]] = []
    else:
        parts = got["message"]["parts"]
        assert [p["type"] for p in parts].count("step-start") == len(case.messages)
    assert _joined(parts, "text") == "".join(m.text for m in case.messages)
    assert _joined(parts, "reasoning") == "".join(m.thinking for m in case.messages)

    tools = [p for p in parts if p["type"].startswith("tool-")]
    calls = [c for m in case.messages for c in m.tool_calls]
    assert [(p["toolCallId"], p["type"]) for p in tools] == [
        (c.id, f"tool-{c.name}") for c in calls
    ]
    results = {r.tool_call_id: r for r in case.results}
    for part, call in zip(tools, calls, strict=True):
        result = results.get(call.id)
        if call.status == "complete":
            assert part["input"] == call.arguments
            assert part["state"] == (
                "input-available"
                if result is None
                else "output-error"
                if result.is_error
                else "output-available"
            )
        else:  # never offered as runnable: the raw text, and why
            assert part["input"] == call.raw_arguments  # ai 7 keeps the chunk's input here
            assert part["state"] == "output-error"
            assert part["errorText"]
        if result is not None and result.is_error:
            assert part["errorText"] == result.text
        elif result is not None:
            assert part["output"] == result.text

    failed = [
        error
        for m, error in zip(case.messages, case.errors, strict=True)
        if m.stop_reason == "error" and error
    ]
    assert got["errors"] == [{"name": "Error", "message": safe_error_text(e)} for e in failed]
    assert SECRET not in body


def test_the_cases_cover_every_part_type(read: dict[str, tuple[Case, str, Any]]) -> None:
    """The cases above reach every part llmkit.ui writes by default (abort aside: it needs a
    caller who stops reading, which the unit tests cover)."""
    seen = {
        json.loads(line[len("data: ") :])["type"]
        for _, body, _ in read.values()
        for line in body.split("\n\n")
        if line.startswith("data: {")
    }
    assert seen == {
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-input-error",
        "tool-output-available",
        "tool-output-error",
        "error",
        "finish-step",
        "data-llmkit",
        "finish",
    }


CANARY = '{"type": "finish", "finish_reason": "stop"}'  # a misspelt key the schema lets through


def test_every_chunk_type_checks_as_the_packages_ui_message_chunk(
    read: dict[str, tuple[Case, str, Any]], tmp_path: Path
) -> None:
    chunks = [
        json.loads(line[len("data: ") :])
        for _, body, _ in read.values()
        for line in body.split("\n\n")
        if line.startswith("data: {")
    ]
    # Data parts too: the page sees them only with data_parts=True.
    for case, _, _ in read.values():
        for line in "".join(to_ui_stream(case.items, data_parts=True)).split("\n\n"):
            if line.startswith("data: {") and '"type":"data-' in line:
                chunks.append(json.loads(line[len("data: ") :]))
    header = 'import type { UIMessageChunk } from "ai";\n'
    unique = dict.fromkeys(json.dumps(c, ensure_ascii=False) for c in chunks)
    lines = [f"export const c{i}: UIMessageChunk = {c};" for i, c in enumerate(unique)]
    (tmp_path / "chunks.ts").write_text(header + "\n".join(lines) + "\n")
    (tmp_path / "canary.ts").write_text(
        f"{header}export const canary: UIMessageChunk = {CANARY};\n"
    )
    modules = UI_DIR / "node_modules"
    config = {
        "compilerOptions": {
            "strict": True,
            "noEmit": True,
            "target": "es2022",
            "module": "esnext",
            "moduleResolution": "bundler",
            "skipLibCheck": True,
            "types": [],
            "paths": {"ai": [str(modules / "ai")]},
        },
        "files": ["chunks.ts", "canary.ts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    done = subprocess.run(
        [node(), str(modules / "typescript" / "bin" / "tsc"), "-p", ".", "--pretty", "false"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error TS" in line]
    assert len(chunks) > 1000
    assert [e for e in errors if not e.startswith("canary.ts")] == []
    # The check has teeth: the misspelt key is refused.
    assert len(errors) == 1
    assert "TS2353" in errors[0]
    assert "finish_reason" in errors[0]
