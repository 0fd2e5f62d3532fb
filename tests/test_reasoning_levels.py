"""Reasoning levels, ``"xhigh"`` and ``"max"`` included, mapped per model on every wire: a
model's own values (the catalogue's ``reasoning_efforts`` / ``reasoning_budget``, from
models.dev), and a level the model lacks sent as the nearest lower level it has (its lowest if
none is lower), reported as ``option_unsupported``."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmkit

CONTEXT = llmkit.Context(messages=[llmkit.user("q")])


def _build(model: llmkit.Model, level: str, **options: Any) -> tuple[dict[str, Any], list[str]]:
    request = llmkit.build_request(model, CONTEXT, api_key="k", reasoning=level, **options)
    body: dict[str, Any] = json.loads(request.content)
    reported = [
        d.details.get("option", "")
        for d in request.extensions["llmkit.diagnostics"]
        if d.kind == "option_unsupported"
    ]
    return body, reported


def _catalogued(provider: str, id: str) -> llmkit.Model:
    model = llmkit.get_model(provider, id)
    if "{" in model.base_url or not model.base_url:  # a per-resource or per-region URL
        model = model.model_copy(update={"base_url": "https://example.test/v1"})
    return model


# (provider, id, level, the value sent, whether reported), read from the body by `_sent`
CASES = [
    # openai-chat: GPT-5.4 takes none, low, medium, high, xhigh
    ("openai", "gpt-5.4", "xhigh", "xhigh", False),
    ("openai", "gpt-5.4", "max", "xhigh", True),
    ("openai", "gpt-5.4", "minimal", "low", True),
    ("openai", "gpt-5.4", "off", "none", False),
    ("azure", "gpt-5.4", "xhigh", "xhigh", False),
    # openai-responses: GPT-5.4 pro takes medium, high, xhigh only
    ("openai", "gpt-5.4-pro", "low", "medium", True),
    ("openai", "gpt-5.4-pro", "max", "xhigh", True),
    # DeepSeek V4 takes high and max
    ("deepseek", "deepseek-v4-pro", "max", "max", False),
    ("deepseek", "deepseek-v4-pro", "medium", "high", True),
    # OpenRouter's reasoning.effort, from the model's own list
    ("openrouter", "openai/gpt-5.4", "xhigh", "xhigh", False),
    # anthropic-messages, adaptive thinking: Opus 4.8 takes low .. max
    ("anthropic", "claude-opus-4-8", "max", "max", False),
    ("anthropic", "claude-opus-4-8", "xhigh", "xhigh", False),
    ("anthropic", "claude-opus-4-8", "minimal", "low", True),
    ("foundry-anthropic", "claude-opus-4-8", "xhigh", "high", True),  # none there
    # Opus 4.6 has no xhigh: the nearest lower level
    ("anthropic", "claude-opus-4-6", "xhigh", "high", True),
    # anthropic-messages, budgets (Claude 4.5): xhigh's budget; max unknown for the model
    ("anthropic", "claude-sonnet-4-5", "xhigh", 32768, False),
    ("anthropic", "claude-sonnet-4-5", "max", 32768, True),
    # gemini, budgets: Gemini 2.5 Pro takes 128 .. 32,768 tokens
    ("google", "gemini-2.5-pro", "max", 32768, False),
    ("google", "gemini-2.5-pro", "xhigh", 24576, True),
    ("google", "gemini-2.5-pro", "high", 24576, False),
    # gemini, levels: Gemini 3.5 Flash takes minimal .. high
    ("google", "gemini-3.5-flash", "max", "high", True),
    ("google", "gemini-3.5-flash", "minimal", "minimal", False),
    # bedrock-converse: Claude's adaptive effort, gpt-oss's reasoning_effort
    ("bedrock", "anthropic.claude-opus-4-8", "max", "max", False),
    ("bedrock", "openai.gpt-oss-120b-1:0", "xhigh", "high", True),
]


def _sent(body: dict[str, Any]) -> Any:
    if "reasoning_effort" in body:
        return body["reasoning_effort"]
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict) and "effort" in reasoning:
        return reasoning["effort"]
    thinking = body.get("thinking") or {}
    if thinking.get("type") == "enabled":
        return thinking["budget_tokens"]
    if "output_config" in body:
        return body["output_config"]["effort"]
    extra = body.get("additionalModelRequestFields")
    if extra is not None:
        return _sent(extra)
    config = body["generationConfig"]["thinkingConfig"]
    return config.get("thinkingLevel", config.get("thinkingBudget"))


@pytest.mark.parametrize(("provider", "model_id", "level", "sent", "reported"), CASES)
def test_each_model_gets_its_own_value_for_a_level(
    provider: str, model_id: str, level: str, sent: Any, reported: bool
) -> None:
    model = _catalogued(provider, model_id)
    body, options = _build(model, level)
    assert _sent(body) == sent
    assert options == ([f"reasoning={level!r}"] if reported else [])


def test_every_wire_is_covered() -> None:
    apis = {_catalogued(p, i).api for p, i, *_ in CASES}
    assert apis == {
        "openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse"
    }  # fmt: skip


def test_a_model_the_catalogue_does_not_describe_takes_the_wires_levels() -> None:
    custom = llmkit.Model(
        provider="vllm", id="m", api="openai-chat", base_url="http://127.0.0.1:9/v1"
    ).model_copy(update={"reasoning": True, "compat": llmkit.OpenAIChatCompat()})
    body, options = _build(custom, "max")
    assert body["reasoning_effort"] == "high" and options == ["reasoning='max'"]
    body, options = _build(custom, "medium")
    assert body["reasoning_effort"] == "medium" and options == []


def test_a_budget_stays_below_max_tokens_and_says_so() -> None:
    model = _catalogued("anthropic", "claude-sonnet-4-5")
    body, options = _build(model, "xhigh", max_tokens=20_000)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 19_999}
    assert options == ["reasoning='xhigh'"]


def test_registered_levels_win() -> None:
    model = llmkit.Model(
        provider="openai",
        id="my-model",
        api="openai-responses",
        reasoning=True,
        reasoning_efforts=("low", "high", "max"),
    )
    body, options = _build(model, "xhigh")
    assert body["reasoning"]["effort"] == "high"
    assert options == ["reasoning='xhigh'"]
    body, options = _build(model, "max")
    assert body["reasoning"]["effort"] == "max" and options == []


def test_a_level_that_is_none_is_refused_before_anything_is_sent() -> None:
    model = _catalogued("openai", "gpt-5.4")
    with pytest.raises(llmkit.InvalidRequestError, match="'xhigh'"):
        llmkit.build_request(model, CONTEXT, api_key="k", reasoning="ultra")  # type: ignore[arg-type]
