"""The command line tries itself without a key (``--fake``), says what to do when the key is
missing (no ``api_key=``: the command line has no flag for it), and tells a capture replayed
with the wrong ``--api`` what it is."""

from __future__ import annotations

import json

import pytest

import llmkit
from tests.support.corpus import FIXTURES
from tests.test_cli import cli

PROVIDERS = {  # a catalogue provider per wire (and per platform)
    "openai-chat": "groq",
    "openai-responses": "openai",
    "anthropic-messages": "anthropic",
    "gemini": "google",
    "bedrock-converse": "bedrock",
    "vertex": "vertex",
}


@pytest.mark.parametrize("which", sorted(PROVIDERS))
def test_fake_plays_the_model_on_its_own_wire(which: str) -> None:
    provider = PROVIDERS[which]
    model = next(m for m in llmkit.models(provider) if which in (m.api, m.provider))
    result = cli("complete", f"{provider}/{model.id}", "Hello there", "--fake", "--json")
    assert result.returncode == 0, result.stderr
    (done,) = [json.loads(line) for line in result.stdout.splitlines()]
    message = done["message"]
    assert message["api"] == model.api and message["stop_reason"] == "stop"
    assert message["content"][0]["text"].endswith("You said: Hello there")
    assert f"plays {provider}/{model.id} on {model.api}" in result.stderr
    assert message["usage"]["input"] > 0


def test_fake_streams_too() -> None:
    result = cli("complete", "openai/gpt-4.1-mini", "Hi", "--fake", "--stream")
    assert result.returncode == 0, result.stderr
    assert "You said: Hi" in result.stdout


def test_missing_key_says_what_the_command_line_takes() -> None:
    result = cli("complete", "openai/gpt-4.1-mini", "Hi")
    assert result.returncode == 1
    line = result.stderr.strip()
    assert line.startswith("llmkit: error: MissingAPIKeyError: No API key for provider 'openai'")
    assert "OPENAI_API_KEY" in line and "--api-key-env" in line and "--fake" in line
    assert "api_key=" not in line


@pytest.mark.parametrize("wrong", ["openai-chat", "openai-responses", "gemini"])
def test_replay_with_the_wrong_api_says_so(wrong: str) -> None:
    capture = FIXTURES / "anthropic-messages" / "anthropic-sdk-python__tool_use_response.txt"
    result = cli("replay", str(capture), "--api", wrong)
    assert result.returncode == 1
    assert (
        f"this body is in the anthropic-messages format, not {wrong}: try --api "
        "anthropic-messages" in result.stderr
    )
