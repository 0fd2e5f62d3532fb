"""Replay recorded Chat Completions responses through ``llmkit.parse_stream``, with the checks of
``corpus_checks.py``: OpenAI's own recordings (``tests/fixtures/openai-chat/``) and those of
OpenAI-compatible servers (``tests/fixtures/openai-compatible/<server>/``): Groq, Mistral,
DeepSeek, xAI, OpenRouter, vLLM, Ollama, llama.cpp, Z.ai, Alibaba, Hugging Face, Together,
Avian, Bedrock's and Vercel's gateways. These servers are where the quirks live, and
``corpus.expected_openai_chat`` reads each one the way the recording means it:

* Mistral and old Ollama send tool calls without ``index`` (QUIRKS C1): one call per id.
* OpenRouter/Novita repeats id ``"0"`` and the name on every delta (B1, D4) and sends no
  ``finish_reason`` at all; Ollama says ``"stop"`` with a tool call: ``tool_use`` either way (E1).
* Alibaba continues calls with ``"id": ""`` (B2); the anthropic gateway starts at ``index`` 1.
* Groq ends two streams with ``event: error`` (tool_use_failed) and no ``[DONE]`` (D6): the
  replay must end in ``ErrorEvent`` with the text and reasoning received so far.
* vLLM sends ``reasoning`` and ``reasoning_content`` with the same text (F8): counted once.
* xAI's ``completion_tokens`` excludes reasoning tokens; llmkit's ``Usage.output`` includes them.
* The anthropic-gateway capture ends ``data: [DONE]\\n`` without the final blank line; the
  terminator was sent, so the stream is complete.

HTTP error exchanges (401, 404, 429 …) are not replayed here; they belong to transport tests.
"""

from __future__ import annotations

import pytest

from tests.support.corpus import Exchange
from tests.wire.openai_chat.corpus_checks import (
    STREAM_CHECKS,
    check_json_response,
    exchange_params,
    is_json_200,
    is_sse_200,
)

STREAMS = exchange_params("openai-chat", is_sse_200)
JSON_BODIES = exchange_params("openai-chat", is_json_200)
COMPATIBLE_STREAMS = exchange_params("openai-compatible", is_sse_200)
COMPATIBLE_JSON_BODIES = exchange_params("openai-compatible", is_json_200)


@pytest.mark.parametrize("exchange", STREAMS + COMPATIBLE_STREAMS)
@pytest.mark.parametrize("check", list(STREAM_CHECKS))
def test_stream(check: str, exchange: Exchange) -> None:
    STREAM_CHECKS[check](exchange)


@pytest.mark.parametrize("exchange", JSON_BODIES + COMPATIBLE_JSON_BODIES)
def test_json_response(exchange: Exchange) -> None:
    check_json_response(exchange)


def test_corpus_is_not_empty() -> None:
    # Guards against a path mistake that would silently collect zero cases.
    assert len(STREAMS) >= 20
    assert len(JSON_BODIES) >= 5
    assert len(COMPATIBLE_STREAMS) >= 50
    assert len(COMPATIBLE_JSON_BODIES) >= 1
