"""The feature examples (``examples/features/``, one per page of the feature docs) run as a user
runs them, against the fake provider, and print what they are there to show."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FEATURES = Path(__file__).resolve().parent.parent / "examples" / "features"

EXPECTED = {
    "structured_output.py": [
        "partial: Stockholm",
        "partial: Stockholm, Oslo, Copenhagen",
        "decoded: Stockholm (984,748), Oslo (709,037), Copenhagen (660,842)",
        "sent output_config.format: json_schema with 1 $defs",
        "refused: cities[0].country - Field required",
    ],
    "prompt_caching.py": [
        "anthropic top-level: {'type': 'ephemeral', 'ttl': '1h'}",
        "anthropic breakpoint: {'type': 'ephemeral', 'ttl': '1h'}",
        "usage: 2000 tokens written to the cache, cost $0.008240",
        "openai: manual-v3 24h",
        "vllm: option_unsupported - cache_key was not sent as given: "
        "vllm takes no prompt_cache_key",
    ],
    "documents.py": [
        "anthropic-messages: ['text', 'document', 'document']",
        "openai-chat: ['text', 'file', 'text']",
        "openai-responses: ['input_text', 'input_file', 'input_text']",
        "gemini: ['text', 'inlineData', 'text']",
        "text-only: ['document_omitted']",
        "refused: 400 messages.0.content.1: 'fake-model' does not support PDF input. (HTTP 400)",
    ],
    "hosted_tools.py": [
        "tools sent: ['custom', 'web_search_20250305']",
        "left out: ['gemini']",
        "kept for replay: ['server_tool_use', 'web_search_tool_result'] then: Sunny, 18°C.",
        "sent back: ['server_tool_use', 'web_search_tool_result', 'text']",
    ],
    "count_tokens.py": [
        "anthropic-messages: 23 input tokens (/v1/messages/count_tokens)",
        "openai-responses: 24 input tokens (/v1/responses/input_tokens)",
        "gemini: 22 input tokens (/v1beta/models/fake-model:countTokens)",
        "async: 22",
    ],
    "mcp_tools.py": [
        "tools: ['read_file', 'list_allowed_directories'] "
        "repairs: ['keyword_removed', 'type_added']",
        "The file says: hello from notes.txt",
    ],
    "tool_streaming.py": [
        "partial: {'path': 'poem.txt', 'text': 'Roses are red, violets are blue.'}",
        "sent: True",
        "gemini: ['stream_tool_arguments was not sent: only Gemini on Vertex AI streams "
        "function-call arguments']",
    ],
}


def test_every_feature_example_is_tested_here() -> None:
    assert sorted(p.name for p in FEATURES.glob("[!_]*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_feature_example_runs(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONIOENCODING"] = "utf-8"
    result = subprocess.run(
        [sys.executable, str(FEATURES / name)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=90,
        cwd=FEATURES.parent.parent,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for expected in EXPECTED[name]:
        assert expected in lines, (expected, lines)
