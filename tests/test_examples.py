"""Every example runs, as a user runs it (``python examples/<name>.py``), against the fake
provider (no key in the environment), and prints what it is there to show."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import llmkit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(name: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=90,
    )


def test_every_example_is_tested_here() -> None:
    source = Path(__file__).read_text("utf-8")
    for path in EXAMPLES.glob("[!_]*.py"):
        assert f'"{path.name}"' in source, f"{path.name} has no test"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("tool_loop.py", ()),
        ("tool_loop_anthropic.py", ("--fake",)),
        ("tool_loop_responses.py", ("--fake",)),
        ("tool_loop_gemini.py", ("--fake",)),
        ("tool_loop.py", ("--provider", "bedrock", "--fake")),
        ("tool_loop.py", ("--provider", "vertex", "--fake")),
    ],
)
def test_tool_loop(name: str, args: tuple[str, ...]) -> None:
    result = run(name, *args)
    assert result.returncode == 0, result.stderr
    assert "fake provider" in result.stderr
    assert re.search(r"refused get_weather\(.*\): .*days", result.stdout)  # the bad call, sent back
    assert "Pack light layers" in result.stdout.splitlines()[-1]


def test_approval_denied_call_goes_back_and_the_loop_goes_on() -> None:
    result = run("approval.py", stdin="n\ny\n")  # deny the first deletion, allow the second
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert 'The model wants to run delete_file({"path": "thesis.tex"})' in lines
    assert "-> denied: delete_file" in lines
    assert "-> delete_file: Deleted build/cache.bin" in lines
    assert (
        lines[-2]
        == "Deleted build/cache.bin. You declined deleting thesis.tex, so I left it alone."
    )
    assert lines[-1] == "Files left: notes/todo.txt, thesis.tex"


def test_approval_with_yes_and_with_no_answers_at_all() -> None:
    everything = run("approval.py", "--yes")
    assert everything.stdout.splitlines()[-1] == "Files left: notes/todo.txt"
    nothing = run("approval.py")  # stdin ends at once: every call denied
    assert nothing.stdout.count("(no answer: denied)") == 2
    assert (
        nothing.stdout.splitlines()[-1] == "Files left: build/cache.bin, notes/todo.txt, thesis.tex"
    )


def test_executor_timeout_definitive_failure_and_concurrency_bound() -> None:
    result = run("executor.py")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "x check_stock({'sku': 'Z-999'}) -> Unknown product code 'Z-999'" in out
    assert "x supplier_eta({'sku': 'C-300'}) -> supplier_eta timed out after 0.5 s" in out
    turn = float(re.search(r"turn took ([\d.]+) s", out).group(1))  # type: ignore[union-attr]
    assert turn < 5  # the 30-second tool was cut at its own 0.5-second timeout
    assert "(at most 2 tools ran at once; limit 2)" in out
    assert "Z-999 is not one of our product codes" in out
    assert "at most 1 tools ran at once" in run("executor.py", "--max-concurrency", "1").stdout


def test_executor_aborts_the_loop_on_an_outage() -> None:
    result = run("executor.py", "--outage")
    assert result.returncode == 1
    assert "aborted: inventory database unreachable" in result.stderr
    assert "can ship" not in result.stdout  # no answer: nothing went back to the model


def test_resume_continues_a_failed_stream_in_a_new_process(tmp_path: Path) -> None:
    transcript = tmp_path / "transcript.json"
    result = run("resume.py", "--transcript", str(transcript))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "the stream failed: StreamError:" in out
    assert "[new process] loaded 4 messages; the last one ends with" in out
    assert "[new process] stop_reason='error': 'Paris, the next three days" in out
    assert out.splitlines()[-1].startswith("Paris, the next three days: Monday is sunny")
    assert out.splitlines()[-1].endswith("Pack light layers and an umbrella.")
    context = llmkit.Context.model_validate_json(transcript.read_text("utf-8"))
    roles = [m.role for m in context.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    partial = context.messages[-1]
    assert isinstance(partial, llmkit.AssistantMessage) and partial.stop_reason == "error"
    assert partial.text and "Paris" in partial.text


def test_function_tools_schemas_coercion_and_an_image_result() -> None:
    result = run("function_tools.py", "--schemas")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(
        "search_products(query: string, max_price?: number | null, tags?: array | null, "
        "limit?: integer)\n"
    )
    assert "price_chart(title: string, prices: object, color?: string)" in out
    first_schema = json.loads(out[out.index("{") : out.index("\n}\n") + 2])
    assert first_schema["required"] == ["query"]
    assert first_schema["properties"]["limit"]["default"] == 5
    assert re.search(r"price_chart\(.*\) -> a \d+-byte PNG", out)
    assert out.splitlines()[-1] == (
        "2 LED lamps cost at most 60 EUR: Arc desk lamp (39 EUR), Clip reading lamp (19.5 EUR). "
        "The chart (24x48 PNG) shows the Clip reading lamp is the cheapest."
    )


def test_stream_ui_shows_the_arguments_filling_in() -> None:
    result = run("stream_ui.py")  # stdout is a pipe: one line per update
    assert result.returncode == 0, result.stderr
    updates = [line for line in result.stdout.splitlines() if line.startswith("[update ")]
    subjects = [m.group(1) for u in updates if (m := re.search(r"subject: (.*?)(?: body:|$)", u))]
    assert subjects[0] != "Team lunch on Friday" and "Team lunch on Friday".startswith(subjects[0])
    assert subjects[-1] == "Team lunch on Friday"
    assert len(set(subjects)) >= 3  # the subject grew over several updates
    assert "(streaming)" in updates[0] and "(complete)" in updates[-1]
    assert result.stdout.splitlines()[-1] == (
        "Would send to ana@example.com, bo@example.com: 'Team lunch on Friday' (120 chars)"
    )


def test_framework_on_the_seams_on_every_wire() -> None:
    result = run("framework.py")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for wire in (
        "openai-chat",
        "openai-responses",
        "anthropic-messages",
        "gemini",
        "bedrock-converse",
    ):
        assert (
            f'[{wire}] get_weather({{"city":"Paris"}}) -> Paris: 18 C, light rain'
            in out.replace('"city": "Paris"', '"city":"Paris"')
        )
        assert f"[{wire}] convert(" in out and "-> 64.4 F" in out
        assert f"[{wire}] Paris: 18 C (64.4 F) and light rain. Take an umbrella." in out
        assert f"[{wire}] BadRequestError (status 400): not retried" in out
        assert (
            f"[{wire}] retry log: OverloadedError (retryable), again in 0.02 s; "
            "StreamError (retryable), again in 0.05 s; BadRequestError (not retryable)"
        ) in out
        assert f"[{wire}] 6 requests sent by the framework's own client" in out
