"""Per-model Anthropic behaviour (``Model.anthropic``): thinking mode and sampling parameters,
from the catalogue's flags or, for ids it does not know, from the Claude family and version."""

from __future__ import annotations

from typing import Any

import pytest

import llmkit
from llmkit._wire.anthropic_messages.request import supports_sampling, thinking_mode
from tests.support.bodies import sent_kinds

CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


def body(model: llmkit.Model, **options: Any) -> tuple[dict[str, Any], list[str]]:
    return sent_kinds(None, model, CONTEXT, api_key="k", max_tokens=32000, **options)


def custom(model_id: str) -> llmkit.Model:
    return llmkit.Model(provider="anthropic", id=model_id, api="anthropic-messages", reasoning=True)


@pytest.mark.parametrize(
    ("model_id", "mode", "sampling"),
    [
        ("claude-3-7-sonnet-20250219", "budget", True),
        ("claude-haiku-4-5", "budget", True),
        ("claude-sonnet-4-6", "adaptive", True),
        ("claude-opus-4-7", "adaptive", False),
        ("claude-sonnet-5", "adaptive", False),
        ("claude-opus-5-5-20261001", "always", False),
        ("claude-fable-5-1", "always", False),
    ],
)
def test_inferred_from_the_id_when_the_catalogue_does_not_say(
    model_id: str, mode: str, sampling: bool
) -> None:
    model = custom(model_id)
    assert (thinking_mode(model), supports_sampling(model)) == (mode, sampling)


def test_catalogue_flags_win() -> None:
    model = custom("claude-sonnet-5").model_copy(
        update={"compat": llmkit.AnthropicCompat(supports_sampling=True)}
    )
    assert supports_sampling(model) is True
    for m in llmkit.models("anthropic"):
        # Sampling from the catalogue (models.dev's `temperature`); the thinking mode from it
        # where llmkit's overlay sets one, else from the Claude version.
        assert m.compat.supports_sampling is not None
        if m.reasoning:
            assert thinking_mode(m) in ("budget", "adaptive", "always"), m.id


def test_budget_models_get_a_budget_adaptive_ones_an_effort() -> None:
    sent, _ = body(custom("claude-haiku-4-5"), reasoning="medium")
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    sent, _ = body(llmkit.get_model("anthropic", "claude-sonnet-5-5"), reasoning="high")
    assert sent["thinking"] == {"type": "adaptive"} and sent["output_config"] == {"effort": "high"}


def test_always_thinking_models_cannot_turn_it_off() -> None:
    sent, found = body(llmkit.get_model("anthropic", "claude-fable-5-1"), reasoning="off")
    assert "thinking" not in sent and found == ["option_unsupported"]


def test_sampling_parameters_dropped_where_refused() -> None:
    sent, found = body(
        llmkit.get_model("anthropic", "claude-sonnet-5-5"), temperature=0.3, top_p=0.9
    )
    assert "temperature" not in sent and "top_p" not in sent
    assert found == ["option_unsupported", "option_unsupported"]
    sent, found = body(custom("claude-haiku-4-5"), temperature=0.3)
    assert sent["temperature"] == 0.3 and found == []
