"""The ``llmkit`` command line, run as users run it: ``python -m llmkit ...`` in a subprocess.

Calls go to a ``FakeProvider`` in this process (real sockets), the key through the environment;
``replay`` is checked against ``llmkit.parse_stream`` on every successful recording of
``tests/fixtures``, and the JSON form of events against the form the CLI documents.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeToolCall
from tests.support.corpus import CorpusSkip, corpus_files, load_exchanges

KEY_ENV = "LLMKIT_TEST_FAKE_KEY"
WIRES = {  # fixture folder -> the wire API its recordings speak
    "openai-chat": "openai-chat",
    "openai-compatible": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic-messages": "anthropic-messages",
    "gemini": "gemini",
}

# The documented JSON form: "type" plus exactly these fields, per event type.
FIELDS = {
    "start": ("provider", "model", "index"),
    "text_start": ("index",),
    "text_delta": ("index", "delta"),
    "text_end": ("index", "text"),
    "thinking_start": ("index",),
    "thinking_delta": ("index", "delta"),
    "thinking_end": ("index", "thinking"),
    "tool_call_start": ("index", "id", "name"),
    "tool_call_delta": ("index", "id", "name", "arguments_delta", "partial_arguments"),
    "tool_call_end": ("index", "tool_call"),
    "diagnostic": ("diagnostic", "index"),
    "usage": ("usage", "index"),
    "done": ("message", "index"),
    "error": ("message", "error", "index"),
}
ERROR_FIELDS = ("status", "provider", "code", "request_id", "retry_after", "phase")


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    out.update(PYTHONIOENCODING="utf-8", **extra)
    return out


def cli(
    *args: str, input: bytes | None = None, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "llmkit", *args],
        input=input,
        capture_output=True,
        env=env(**extra_env),
        timeout=60,
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8"),
        result.stderr.decode("utf-8"),
    )


def fake_args(fake: FakeProvider, *args: str) -> list[str]:
    return [
        "fake/m",
        *args,
        "--api",
        fake.api,
        "--base-url",
        fake.base_url,
        "--api-key-env",
        KEY_ENV,
    ]


def json_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def expected_json(event: llmkit.Event) -> dict[str, Any]:
    """The documented form, spelled out without the CLI's code."""
    out: dict[str, Any] = {"type": event.type}
    for name in FIELDS[event.type]:
        value = getattr(event, name)
        if isinstance(value, Exception):
            error = {"class": type(value).__name__, "message": str(value)}
            error.update({k: getattr(value, k) for k in ERROR_FIELDS if hasattr(value, k)})
            value = error
        elif hasattr(value, "model_dump"):
            value = value.model_dump(mode="json")
        out[name] = value
    return json.loads(json.dumps(out))


def assert_one_line_error(stderr: str, starts: str) -> None:
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert lines[-1].startswith(starts), stderr
    assert len([line for line in lines if line.startswith("llmkit: error")]) == 1


# --------------------------------------------------------------------------- models


def test_models_json_lists_the_whole_catalogue() -> None:
    result = cli("models", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [m.model_dump(mode="json") for m in llmkit.models()]


def test_models_of_one_provider_as_a_table() -> None:
    result = cli("models", "anthropic")
    assert result.returncode == 0
    header, *rows = result.stdout.splitlines()
    assert header.split()[:2] == ["MODEL", "API"]
    assert [row.split()[0] for row in rows] == [
        f"anthropic/{m.id}" for m in llmkit.models("anthropic")
    ]
    assert all(row.split()[1] == "anthropic-messages" for row in rows)


def test_models_show_context_levels_prices_and_tiers() -> None:
    result = cli("models", "--provider", "openai")
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    for column in ("CONTEXT", "REASONING", "$/M IN", "$/M OUT", "$/M CACHED", "LONG PROMPT $/M"):
        assert column in header
    row = next(r for r in rows if r.split()[0] == "openai/gpt-5.4")
    cells = row.split()
    assert cells[2] == "1050000" and "none,low,medium,high,xhigh" in cells
    assert cells[-4:] == ["2.5", "15", "0.25", ">272k:5/22.5"]


def test_models_filter_by_reasoning_level_and_input() -> None:
    result = cli("models", "--reasoning", "max", "--input", "pdf", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found and all("pdf" in m["input"] for m in found)
    for m in found:
        efforts, budget = m["reasoning_efforts"], m["reasoning_budget"]
        assert (efforts and "max" in efforts) or (budget and "max" in budget), m["id"]
    assert ("openai", "gpt-5.4") not in {(m["provider"], m["id"]) for m in found}  # xhigh at most
    every = json.loads(cli("models", "--reasoning", "--json").stdout)
    assert {m["id"] for m in found} < {m["id"] for m in every}
    assert all(m["reasoning"] for m in every)


def test_models_of_an_unknown_provider_is_an_error() -> None:
    result = cli("models", "nope")
    assert result.returncode == 1 and result.stdout == ""
    assert_one_line_error(result.stderr, "llmkit: error: no model of provider 'nope'")


# --------------------------------------------------------------------------- complete


WEATHER = FakeReply(
    "Checking the weather.",
    thinking="The user wants Paris.",
    tool_calls=[FakeToolCall("get_weather", {"city": "Paris", "days": 3}, id="call_1")],
    usage={"input": 20, "output": 7},
    delta_size=4,
)


TOOL = {
    "name": "get_weather",
    "description": "Get the weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def test_complete_prints_the_answer_and_sends_the_options(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([TOOL]))
    args = ("--system", "Be brief.", "--max-tokens", "99", "--tools", str(tools))
    with FakeProvider([WEATHER]) as fake:
        result = cli(
            "complete", *fake_args(fake, "Weather in Paris?", *args), **{KEY_ENV: fake.api_key}
        )
        body = fake.requests[0].body
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Checking the weather.",
        '[tool call get_weather call_1] {"city": "Paris", "days": 3}  (complete)',
    ]
    assert "[thinking] The user wants Paris." in result.stderr
    assert (
        result.stderr.splitlines()[-1] == '[stop tool_use (raw "tool_calls"), input 20, output 7]'
    )
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    assert body["max_completion_tokens"] == 99
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]


def test_complete_refuses_a_bad_tools_file(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{**TOOL, "name": "get weather"}]))
    result = cli("complete", "openai/gpt-4.1-mini", "hi", "--tools", str(tools))
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "llmkit: error: ToolDefinitionError: Tool name")


def test_complete_reads_the_prompt_from_stdin() -> None:
    with FakeProvider([FakeReply("ok")]) as fake:
        result = cli(
            "complete", *fake_args(fake, "-"), input="Grüße\n".encode(), **{KEY_ENV: fake.api_key}
        )
        assert fake.requests[0].body["messages"][-1]["content"] == "Grüße\n"
    assert result.stdout == "ok\n"


def test_complete_json_is_the_terminal_event_and_stream_json_every_event() -> None:
    with FakeProvider([WEATHER, WEATHER]) as fake:
        whole = cli("complete", *fake_args(fake, "hi", "--json"), **{KEY_ENV: fake.api_key})
        streamed = cli(
            "complete", *fake_args(fake, "hi", "--json", "--stream"), **{KEY_ENV: fake.api_key}
        )
    (done,) = json_lines(whole.stdout)
    lines = json_lines(streamed.stdout)
    assert done["type"] == "done" and lines[-1]["type"] == "done"
    message = llmkit.AssistantMessage.model_validate(done["message"])
    assert message.text == "Checking the weather." and message.tool_calls[0].arguments == {
        "city": "Paris",
        "days": 3,
    }
    assert lines[0] == {"type": "start", "provider": "fake", "model": "m", "index": None}
    deltas = [line for line in lines if line["type"] == "tool_call_delta"]
    assert "".join(d["arguments_delta"] for d in deltas) == '{"city": "Paris", "days": 3}'
    assert deltas[-1]["partial_arguments"] == {"city": "Paris", "days": 3}
    assert {line["type"] for line in lines} >= {"thinking_delta", "text_delta", "usage"}
    for line in lines:
        assert set(line) == {"type", *FIELDS[line["type"]]}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_until(proc: subprocess.Popen[bytes], needle: bytes, timeout: float = 20) -> bytes:
    """Read the child's stdout as it comes until ``needle`` appears (it is still running)."""
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never printed {needle!r}; got {seen!r}"
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, f"stdout closed before {needle!r}; got {seen!r}"
            seen += chunk
    return seen


@pytest.fixture
def stalled() -> Iterator[tuple[FakeProvider, subprocess.Popen[bytes]]]:
    """``complete --stream`` against a reply that stalls in the middle of the arguments."""
    reply = FakeReply(
        "Hi there",
        tool_calls=[FakeToolCall("get_weather", {"city": "Paris"}, id="call_1")],
        delta_size=4,
        stall_after=6,  # role, 2 text deltas, the call's head, 2 argument deltas
    )
    with FakeProvider([reply]) as fake:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llmkit", "complete", *fake_args(fake, "hi", "--stream")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env(**{KEY_ENV: fake.api_key}),
            # Ctrl-C as a terminal delivers it: a job started in the background by a
            # non-interactive shell (a CI runner's `cmd &`) inherits SIGINT ignored, and Python
            # keeps an inherited SIG_IGN, so the child would never see the interrupt.
            preexec_fn=_default_sigint,
        )
        try:
            yield fake, proc
        finally:
            proc.kill()
            proc.communicate()


def test_complete_stream_shows_text_and_arguments_as_they_arrive(
    stalled: tuple[FakeProvider, subprocess.Popen[bytes]],
) -> None:
    fake, proc = stalled
    seen = read_until(proc, b'{"city":')
    assert seen == b'Hi there\n[tool call get_weather call_1] {"city":'  # "Paris" not sent yet
    fake.close()  # the stream is cut: the CLI reports the failure
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 1
    assert_one_line_error(err.decode(), "llmkit: error: StreamError: ")


def test_ctrl_c_exits_130_quietly(stalled: tuple[FakeProvider, subprocess.Popen[bytes]]) -> None:
    fake, proc = stalled
    read_until(proc, b'{"city":')
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert err == b""
    assert fake.wait_for_disconnects(1)  # leaving closed the connection


def test_api_error_is_one_line_and_exit_1() -> None:
    with FakeProvider([FakeError(401)]) as fake:
        result = cli("complete", *fake_args(fake, "hi"), **{KEY_ENV: fake.api_key})
    assert result.returncode == 1 and result.stdout == ""
    assert_one_line_error(result.stderr, "llmkit: error: AuthenticationError: ")


def test_failed_stream_prints_the_partial_then_the_error() -> None:
    reply = FakeReply("partial answer that will be cut", delta_size=4, drop_after=3)
    with FakeProvider([reply, reply]) as fake:
        human = cli("complete", *fake_args(fake, "hi", "--stream"), **{KEY_ENV: fake.api_key})
        as_json = cli("complete", *fake_args(fake, "hi", "--json"), **{KEY_ENV: fake.api_key})
    assert human.returncode == as_json.returncode == 1
    assert human.stdout == "partial \n"
    assert_one_line_error(human.stderr, "llmkit: error: StreamError: ")
    (error,) = json_lines(as_json.stdout)
    assert error["type"] == "error" and error["error"]["class"] == "StreamError"
    assert error["message"]["stop_reason"] == "error"
    assert error["message"]["content"] == [{"type": "text", "text": "partial "}]


def test_missing_key_names_the_variable() -> None:
    with FakeProvider() as fake:
        result = cli("complete", *fake_args(fake, "hi"))
        assert fake.requests == []
    assert result.returncode == 1
    assert_one_line_error(
        result.stderr,
        f"llmkit: error: MissingAPIKeyError: No API key for provider 'fake': set {KEY_ENV}",
    )


def test_unknown_model_suggests_close_names() -> None:
    result = cli("complete", "openai/gpt-4.1-mni", "hi")
    assert result.returncode == 1
    assert_one_line_error(result.stderr, "llmkit: error: Unknown model openai/gpt-4.1-mni.")
    assert "openai/gpt-4.1-mini" in result.stderr and "--api" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["complete"],  # no model, no prompt
        ["complete", "openai/gpt-4.1-mini", "hi", "--max-tokens", "many"],
        ["complete", "openai/gpt-4.1-mini", "hi", "--reasoning", "extreme"],
        ["replay", "-"],  # no --api
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = cli(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: llmkit") and "Traceback" not in result.stderr


# --------------------------------------------------------------------------- request


def test_request_prints_what_would_be_sent_with_the_key_redacted() -> None:
    secret = "sk-test-0123456789abcdef"
    with FakeProvider() as fake:
        result = cli(
            "request",
            "openai/gpt-4.1-mini",
            "Hi",
            "--base-url",
            fake.base_url,
            "--max-tokens",
            "50",
            OPENAI_API_KEY=secret,
        )
        assert fake.requests == []  # nothing was sent
    assert result.returncode == 0, result.stderr
    assert secret not in result.stdout + result.stderr
    head, _, body = result.stdout.partition("\n\n")
    request_line, *headers = head.splitlines()
    assert request_line == f"POST {fake.base_url}/chat/completions"
    assert "authorization: Bearer <redacted>" in headers
    assert "content-type: application/json" in headers
    assert json.loads(body) == {
        "model": "gpt-4.1-mini",
        "messages": [{"role": "user", "content": "Hi"}],
        "max_completion_tokens": 50,
        "store": False,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_request_without_a_key_says_so_and_still_prints() -> None:
    result = cli("request", "anthropic/claude-haiku-4-5", "Hi")
    assert result.returncode == 0
    assert "x-api-key: <redacted>" in result.stdout.splitlines()
    assert "note: no key in ANTHROPIC_API_KEY" in result.stderr


# --------------------------------------------------------------------------- replay


def successful_recordings(folder: str) -> list[bytes]:
    bodies = []
    for path in corpus_files(folder):
        try:
            exchanges = load_exchanges(path)
        except CorpusSkip:
            continue
        bodies += [e.body for e in exchanges if e.status == 200 and e.is_sse]
    return bodies


def split_streams(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Cut concatenated event streams after each terminal event."""
    streams: list[list[dict[str, Any]]] = [[]]
    for line in lines:
        streams[-1].append(line)
        if line["type"] in ("done", "error"):
            streams.append([])
    assert streams[-1] == []
    return streams[:-1]


@pytest.mark.parametrize("folder", list(WIRES))
def test_replay_decodes_every_recording_like_parse_stream(folder: str, tmp_path: Path) -> None:
    bodies = successful_recordings(folder)
    assert bodies
    files = []
    for n, body in enumerate(bodies):
        files.append(tmp_path / f"{n:03}.sse")
        files[-1].write_bytes(body)
    api = WIRES[folder]
    result = cli("replay", *map(str, files), "--api", api, "--json")
    model = llmkit.Model(provider="replay", id=api, api=api)  # what replay decodes as by default
    expected = [[expected_json(e) for e in llmkit.parse_stream(model, [body])] for body in bodies]
    assert split_streams(json_lines(result.stdout)) == expected
    failed = sum(stream[-1]["type"] == "error" for stream in expected)
    assert result.returncode == (1 if failed else 0)
    assert len(result.stderr.splitlines()) == failed


def chat_chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "r1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def test_replay_reads_a_pipe_as_it_arrives() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "llmkit", "replay", "-", "--api", "openai-chat", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(chat_chunk({"content": "Hel"}))
        proc.stdin.flush()
        seen = read_until(proc, b'"text_delta"')  # decoded before the rest of the body exists
        proc.stdin.write(chat_chunk({"content": "lo"}, "stop") + b"data: [DONE]\n\n")
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    lines = json_lines((seen + out).decode())
    assert proc.returncode == 0, err
    assert [line["delta"] for line in lines if line["type"] == "text_delta"] == ["Hel", "lo"]
    assert lines[-1]["type"] == "done"


def test_replay_as_a_catalogue_model_and_human_lines(tmp_path: Path) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(chat_chunk({"content": "Hi"}, "stop") + b"data: [DONE]\n\n")
    result = cli("replay", str(capture), "--api", "openai-chat", "--model", "openai/gpt-4.1-mini")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == 'start provider="openai" model="gpt-4.1-mini"'
    assert 'text_delta [0] delta="Hi"' in lines
    assert lines[-1].startswith('done [stop stop (raw "stop")')
    assert any(line.startswith("diagnostic usage_missing") for line in lines)


def test_replay_of_a_json_body_and_of_a_json_error(tmp_path: Path) -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ],
    }
    ok = cli("replay", "-", "--api", "openai-chat", "--json", input=json.dumps(body).encode())
    (done,) = json_lines(ok.stdout)
    assert done["type"] == "done" and done["message"]["content"] == [
        {"type": "text", "text": "whole"}
    ]
    error = {
        "error": {
            "message": "Incorrect API key",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    bad = cli("replay", "-", "--api", "openai-chat", input=json.dumps(error).encode())
    assert bad.returncode == 1 and bad.stdout == ""
    assert_one_line_error(bad.stderr, "llmkit: error: ")
    assert "Incorrect API key" in bad.stderr


def test_replay_of_a_missing_file_goes_on_with_the_others(tmp_path: Path) -> None:
    capture = tmp_path / "ok.sse"
    capture.write_bytes(b"data: [DONE]\n\n")
    result = cli(
        "replay", str(tmp_path / "missing.sse"), str(capture), "--api", "openai-chat", "--json"
    )
    assert result.returncode == 1
    assert [line["type"] for line in json_lines(result.stdout)][-1] in ("done", "error")
    assert result.stderr.startswith("llmkit: error: cannot read ")


def test_a_reader_that_goes_away_stops_replay_quietly(tmp_path: Path) -> None:
    # `llmkit replay FILE --json | head -1`: stdout closes early. That is not a failure to read
    # FILE (a BrokenPipeError is an OSError): no error line, and exit 1 as Python's own CLIs do.
    body = b"".join(
        f'data: {{"id":"c","choices":[{{"index":0,"delta":{{"content":"w{i} "}}}}]}}\n\n'.encode()
        for i in range(20_000)
    )
    capture = tmp_path / "long.sse"
    capture.write_bytes(body + b"data: [DONE]\n\n")
    command = [sys.executable, "-m", "llmkit", "replay", str(capture), "--api", "openai-chat"]
    with subprocess.Popen(
        [*command, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # the reader goes away after one line
        err = proc.stderr.read()
        status = proc.wait(timeout=60)
    assert status == 1
    assert b"cannot read" not in err and b"Traceback" not in err, err
