"""The committed catalogue is what ``scripts/gen_catalogue.py`` makes of models.dev's data.

The test fixtures hold an excerpt of the recorded commit's TOML files
(``tests/fixtures/models.dev/``, PROVENANCE.md); the generator's entries for them, overlay
applied, must be the committed entries byte for byte, and every committed model's wire and
provider profile must exist.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit import _models

if sys.version_info < (3, 11):
    pytest.importorskip("tomli")  # the generator reads TOML; the package never does

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "models.dev"
COMMITTED = json.loads((ROOT / "llmkit" / "data" / "models.json").read_text("utf-8"))


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_catalogue", ROOT / "scripts" / "gen_catalogue.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()


def _committed() -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["provider"], e["id"]): e for e in COMMITTED["models"]}


def test_the_excerpt_generates_the_committed_entries() -> None:
    source = COMMITTED["_source"]
    text = gen.build(FIXTURE, source["commit"], source["date"])
    built = json.loads(text)
    assert built["_source"] == source
    assert built["_comment"] == COMMITTED["_comment"]
    committed = _committed()
    generated = gen.generate(FIXTURE)
    assert len(generated) >= 12
    for entry in json.loads(text)["models"]:
        key = (entry["provider"], entry["id"])
        assert entry == committed[key], key
    # Same bytes, line for line: the committed file is exactly the generator's output.
    lines = set((ROOT / "llmkit" / "data" / "models.json").read_text("utf-8").splitlines())
    for line in text.splitlines():
        if line.startswith('    {"provider": '):
            assert line in lines or line + "," in lines or line.rstrip(",") in lines, line


def test_what_the_excerpt_becomes() -> None:
    entries = {(e["provider"], e["id"]): e for e in gen.generate(FIXTURE)}
    # [[cost.tiers]] with models.dev's names; base_model facts inherited (azure/gpt-5.4).
    for key in [("openai", "gpt-5.4"), ("azure", "gpt-5.4")]:
        gpt = entries[key]
        assert gpt["cost"]["tiers"] == [
            {"size": 272_000, "input": 5.0, "output": 22.5, "cache_read": 0.5}
        ]
        assert gpt["context_window"] == 1_050_000 and gpt["max_output_tokens"] == 128_000
        assert gpt["reasoning_efforts"] == ["none", "low", "medium", "high", "xhigh"]
        assert gpt["api"] == "openai-chat" and gpt["strict_tools"] is True
    assert entries[("openai", "gpt-5.4-pro")]["api"] == "openai-responses"
    # Claude on Azure is Claude on Microsoft Foundry: the Messages wire, 1-hour writes at 2x.
    foundry = entries[("foundry-anthropic", "claude-sonnet-5")]
    assert foundry["api"] == "anthropic-messages"
    assert foundry["cost"]["cache_write_long"] == pytest.approx(2 * foundry["cost"]["input"])
    assert foundry["anthropic"] == {"supports_sampling": False}
    # Budget-only reasoning; Gemini on Google's OpenAI-compatible endpoint as well.
    assert entries[("google", "gemini-2.5-pro")]["reasoning_budget"] == {"min": 128, "max": 32_768}
    assert entries[("gemini-openai", "gemini-2.5-pro")]["api"] == "openai-chat"
    haiku = entries[("anthropic", "claude-haiku-4-5")]
    assert haiku["reasoning_budget"] == {"min": 1024}
    assert haiku["anthropic"] == {"supports_sampling": True}
    # Renamed providers and nested ids.
    assert ("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo") in entries
    assert ("openrouter", "anthropic/claude-opus-4.8") in entries
    assert ("bedrock", "anthropic.claude-sonnet-5") in entries
    # Left out: an image model, a deprecated one.
    assert ("openai", "gpt-image-1") not in entries
    assert ("anthropic", "claude-3-opus-20240229") not in entries
    assert {p for p, _ in entries} <= set(_models.provider_names())


def test_the_overlay_corrects_and_adds_with_a_reason() -> None:
    entries = gen.generate(FIXTURE)
    fixed = {
        (e["provider"], e["id"]): e for e in gen.apply_overlay(entries, gen._load(gen.OVERLAY))
    }
    assert fixed[("anthropic", "claude-fable-5")]["anthropic"]["thinking"] == "always"
    assert ("anthropic", "claude-sonnet-5-5") in fixed  # newer than the data
    with pytest.raises(SystemExit, match="no reason"):
        gen.apply_overlay(entries, {"model": [{"provider": "openai", "id": "gpt-5.4"}]})
    removed = gen.apply_overlay(
        entries, {"model": [{"provider": "openai", "id": "gpt-5.4", "reason": "r", "remove": True}]}
    )
    assert ("openai", "gpt-5.4") not in {(e["provider"], e["id"]) for e in removed}


def test_an_overlay_entry_may_copy_another_model() -> None:
    entries = gen.generate(FIXTURE)
    copy = {
        "provider": "openrouter",
        "id": "openai/gpt-5.4",
        "same_as": "openai/gpt-5.4",
        "reason": "r",
        "api": "openai-chat",
        "cost": {"input": 9.0},
    }
    fixed = {(e["provider"], e["id"]): e for e in gen.apply_overlay(entries, {"model": [copy]})}
    base, made = fixed[("openai", "gpt-5.4")], fixed[("openrouter", "openai/gpt-5.4")]
    assert made["cost"] == {"input": 9.0}  # a named field replaces, tables included
    assert made["reasoning_efforts"] == base["reasoning_efforts"]  # the rest is the copy's
    assert made["context_window"] == base["context_window"]
    assert base["strict_tools"] is True and made["strict_tools"] is False  # by its provider
    with pytest.raises(SystemExit, match="no openai/gpt-0 to copy"):
        gen.apply_overlay(entries, {"model": [{**copy, "same_as": "openai/gpt-0"}]})
    # The committed overlay's copies: Claude on Vertex AI takes the models.dev reasoning levels
    # of Anthropic's own entry.
    overlay = gen.apply_overlay(entries, gen._load(gen.OVERLAY))
    by_key = {(e["provider"], e["id"]): e for e in overlay}
    levels = by_key[("vertex-anthropic", "claude-fable-5")]["reasoning_efforts"]
    assert levels == by_key[("anthropic", "claude-fable-5")]["reasoning_efforts"]
    assert levels[-2:] == ["xhigh", "max"]


def test_every_models_wire_and_profile_exist() -> None:
    apis = set(typing.get_args(llmkit.Api))
    profiles = set(_models.provider_names())
    for entry in COMMITTED["models"]:
        assert entry["api"] in apis, entry
        assert entry["provider"] in profiles, entry


def test_the_overlay_is_small_next_to_the_data() -> None:
    overlay = gen._load(gen.OVERLAY)["model"]
    assert all(item.get("reason") for item in overlay)
    assert len(overlay) * 5 < len(COMMITTED["models"])
