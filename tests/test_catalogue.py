"""The model catalogue (``llmkit/data/models.json``, generated from models.dev by
``scripts/gen_catalogue.py``): shape, consistency, lookups, laziness."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import llmkit
from llmkit import _models

PROVIDERS = {
    "openai", "anthropic", "google", "deepseek", "groq", "mistral", "openrouter", "xai",
    "together", "fireworks", "cerebras", "azure", "gemini-openai", "foundry-anthropic",
    "ollama", "vllm", "llamacpp", "lmstudio", "bedrock", "vertex", "vertex-anthropic",
}  # fmt: skip
ROOT = Path(__file__).resolve().parent.parent
LOCAL = {"ollama", "vllm", "llamacpp", "lmstudio"}
PER_RESOURCE = {
    "azure",
    "foundry-anthropic",
}  # base URL is the user's own resource, not in the profile
CLOUD = {
    "bedrock": "bedrock", "vertex": "vertex", "vertex-anthropic": "vertex",
    "azure": "azure", "foundry-anthropic": "azure",
}  # platform  # fmt: skip
REQUIRED = {
    "provider", "id", "api", "input", "reasoning", "strict_tools",
    "context_window", "max_output_tokens", "cost",
}  # fmt: skip
ONE_PER_PROVIDER = {
    "openai": "gpt-6.1-terra",
    "anthropic": "claude-sonnet-5-5",
    "google": "gemini-3.8-flash",
    "deepseek": "deepseek-flash",
    "groq": "openai/gpt-oss-120b",
    "mistral": "mistral-medium-3.5",
    "openrouter": "anthropic/claude-sonnet-5.5",
    "xai": "grok-4.7",
    "together": "deepseek-ai/DeepSeek-V4.1-Flash",
    "fireworks": "accounts/fireworks/models/glm-5p3",
    "cerebras": "gpt-oss-120b",
    "azure": "gpt-4.1",
    "foundry-anthropic": "claude-sonnet-5",
    "gemini-openai": "gemini-3.8-flash",
    "ollama": "qwen3:8b",
    "vllm": "Qwen/Qwen3-8B",
    "llamacpp": "ggml-org/gpt-oss-20b-GGUF",
    "lmstudio": "openai/gpt-oss-20b",
    "bedrock": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    "vertex": "gemini-2.5-flash",
    "vertex-anthropic": "claude-haiku-4-5@20251001",
}


def _raw() -> dict[str, Any]:
    text = resources.files("llmkit").joinpath("data/models.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


RAW = _raw()
ENTRIES: list[dict[str, Any]] = RAW["models"]


def _name(entry: dict[str, Any]) -> str:
    return f"{entry['provider']}/{entry['id']}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_name)
def test_entry_validates_as_model(entry: dict[str, Any]) -> None:
    model = llmkit.Model.model_validate(entry)
    assert (model.provider, model.id) == (entry["provider"], entry["id"])
    assert set(entry) >= REQUIRED, f"missing {REQUIRED - set(entry)}"
    assert set(entry["cost"]) <= {
        "input",
        "output",
        "cache_read",
        "cache_write",
        "cache_write_long",
        "tiers",
    }


def test_provider_id_pairs_are_unique() -> None:
    pairs = [(e["provider"], e["id"]) for e in ENTRIES]
    dupes = {p for p in pairs if pairs.count(p) > 1}
    assert not dupes
    assert len(_models._catalogue()) == len(ENTRIES)


def test_sorted_by_provider_then_id() -> None:
    pairs = [(e["provider"], e["id"]) for e in ENTRIES]
    assert pairs == sorted(pairs)


def test_one_model_per_line_each_starting_with_its_provider() -> None:
    # The layout a lookup relies on to parse only its provider's lines (_provider_entries).
    text = resources.files("llmkit").joinpath("data/models.json").read_text("utf-8")
    lines = [line for line in text.splitlines() if line.startswith('    {"provider": ')]
    assert len(lines) == len(ENTRIES)
    for line, entry in zip(lines, ENTRIES, strict=True):
        assert json.loads(line.rstrip(",")) == entry
    for provider in PROVIDERS:
        expected = {e["id"]: e for e in ENTRIES if e["provider"] == provider}
        assert _models._provider_entries(provider) == expected


def test_hundreds_of_models_with_provenance() -> None:
    assert len(ENTRIES) >= 500
    source = RAW["_source"]
    assert source["repository"] == "https://github.com/anomalyco/models.dev"
    assert len(source["commit"]) == 40 and source["licence"] == "MIT"
    docs = (ROOT / "docs" / "providers.md").read_text("utf-8")
    assert source["commit"] in docs and source["date"] in docs


def test_api_values_are_valid() -> None:
    valid = set(typing.get_args(llmkit.Api))
    assert valid == {
        "openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse"
    }  # fmt: skip
    assert {e["api"] for e in ENTRIES} <= valid
    for e in ENTRIES:
        if e["provider"] in ("anthropic", "vertex-anthropic", "foundry-anthropic"):
            assert e["api"] == "anthropic-messages", _name(e)
        elif e["provider"] in ("google", "vertex"):
            assert e["api"] == "gemini", _name(e)
        elif e["provider"] == "bedrock":
            assert e["api"] == "bedrock-converse", _name(e)
        elif e["provider"] in {"openai", "azure"}:
            assert e["api"] in {"openai-chat", "openai-responses"}, _name(e)
        else:
            assert e["api"] == "openai-chat", _name(e)


def test_every_listed_provider_is_present() -> None:
    present = {e["provider"] for e in ENTRIES}
    assert present == PROVIDERS


@pytest.mark.parametrize("entry", ENTRIES, ids=_name)
def test_numbers_are_sane(entry: dict[str, Any]) -> None:
    ctx, out = entry["context_window"], entry["max_output_tokens"]
    assert isinstance(ctx, int) and ctx > 0
    assert isinstance(out, int) and out > 0
    assert out <= ctx
    kinds = ["text", "image", "pdf"]
    assert entry["input"][0] == "text" and entry["input"] == [
        k for k in kinds if k in entry["input"]
    ]
    assert isinstance(entry["reasoning"], bool) and isinstance(entry["strict_tools"], bool)
    cost = dict(entry["cost"])
    tiers = cost.pop("tiers", [])
    # models.dev's own figures: a price may be free (0.0, e.g. OpenRouter's ":free" models) or
    # absent (unknown), never negative.
    for prices in [cost, *tiers]:
        assert all(isinstance(v, (int, float)) and v >= 0 for v in prices.values())
    sizes = [t["size"] for t in tiers]
    assert sizes == sorted(set(sizes)) and all(size > 0 for size in sizes)
    assert all(len(t) > 1 for t in tiers), "a tier prices something"
    if entry["provider"] in LOCAL:
        assert not any(cost.values()), "local servers cost nothing"
    if entry.get("reasoning_efforts") or entry.get("reasoning_budget"):
        assert entry["reasoning"]


def test_anthropic_cache_writes_are_one_and_a_quarter_times_input() -> None:
    for e in ENTRIES:
        if e["provider"] == "anthropic" or "anthropic.claude" in e["id"]:
            c = e["cost"]
            assert c["cache_write"] == pytest.approx(1.25 * c["input"]), _name(e)
            if e["provider"] in ("anthropic", "vertex-anthropic") or "cache_write_long" in c:
                # 1-hour writes; Bedrock's price for them is unknown here (None, not 0)
                assert c["cache_write_long"] == pytest.approx(2 * c["input"]), _name(e)
            assert c["cache_read"] < c["input"], _name(e)


def test_strict_tools_only_where_documented() -> None:
    for e in ENTRIES:
        expected = e["provider"] in {
            "openai", "azure", "anthropic", "vertex-anthropic", "foundry-anthropic"
        }  # fmt: skip
        assert e["strict_tools"] is expected, _name(e)


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_every_provider_has_a_profile(provider: str) -> None:
    profile = _models._providers().get(provider)
    assert profile is not None, f"no profile for {provider} in providers.json"
    model = llmkit.Model(provider=provider, id="x", api="openai-chat")
    assert model.platform == CLOUD.get(provider)
    if provider in PER_RESOURCE:
        assert model.api_key_env
    else:
        assert model.base_url, f"{provider} profile has no base_url"
    if provider in LOCAL:
        assert model.api_key_required is False
    elif provider != "vertex-anthropic":  # OAuth tokens only: no key variable
        assert model.api_key_env


def test_gemini_openai_profile_points_at_googles_openai_endpoint() -> None:
    model = llmkit.get_model("gemini-openai", "gemini-3.8-flash")
    assert model.base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert model.api_key_env == "GEMINI_API_KEY"


@pytest.mark.parametrize(("provider", "model_id"), sorted(ONE_PER_PROVIDER.items()))
def test_get_model_one_per_provider(provider: str, model_id: str) -> None:
    model = llmkit.get_model(provider, model_id)
    assert (model.provider, model.id) == (provider, model_id)
    assert model in llmkit.models(provider)


def test_get_model_deepseek_v4_flash_from_the_issue() -> None:
    model = llmkit.get_model("deepseek", "deepseek-v4-flash")
    assert model.api == "openai-chat"
    assert model.base_url.startswith("https://api.deepseek.com")
    assert model.api_key_env == "DEEPSEEK_API_KEY"
    assert model.cost.input > 0 and model.context_window and model.max_output_tokens


def test_models_filters_by_provider() -> None:
    anthropic = llmkit.models("anthropic")
    assert anthropic and all(m.provider == "anthropic" for m in anthropic)
    assert {m.id for m in anthropic} == {e["id"] for e in ENTRIES if e["provider"] == "anthropic"}
    assert len(llmkit.models()) >= len(ENTRIES)


@pytest.mark.parametrize(
    ("provider", "typo", "expected"),
    [
        ("anthropic", "claude-sonet-5-5", "anthropic/claude-sonnet-5-5"),
        ("deepseek", "deepseek-v4-flesh", "deepseek/deepseek-v4-flash"),
        ("google", "gemini-3.8-flsh", "google/gemini-3.8-flash"),
    ],
)
def test_unknown_model_suggests_near_misses(provider: str, typo: str, expected: str) -> None:
    with pytest.raises(llmkit.UnknownModelError) as info:
        llmkit.get_model(provider, typo)
    assert expected in info.value.suggestions
    assert expected in str(info.value)


def test_unknown_model_with_known_id_suggests_other_providers() -> None:
    with pytest.raises(llmkit.UnknownModelError) as info:
        llmkit.get_model("no-such-provider", "gpt-6.1-terra")
    assert "openai/gpt-6.1-terra" in info.value.suggestions


def test_catalogue_is_not_loaded_at_import() -> None:
    code = (
        "import llmkit, llmkit._models as m\n"
        "assert m._catalogue_entries.cache_info().currsize == 0, 'loaded at import'\n"
        "model = llmkit.get_model('anthropic', 'claude-sonnet-5-5')\n"
        "assert m._catalogue_entries.cache_info().currsize == 0, 'parsed every provider'\n"
        "assert m._provider_entries.cache_info().currsize == 1\n"
        "assert list(m._validated) == [('anthropic', 'claude-sonnet-5-5')], 'validated all'\n"
        "assert llmkit.get_model('anthropic', 'claude-sonnet-5-5') is model\n"
        "assert model in llmkit.models('anthropic')\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# -- prices: unknown is not free, and a 1-hour cache write has its own price ------------------


def _priced(**cost: float | None) -> llmkit.Model:
    return llmkit.Model(
        provider="x", id="y", api="anthropic-messages", base_url="http://h", cost=cost
    )


def test_an_unknown_price_is_not_a_zero_one() -> None:
    usage = llmkit.Usage(input=1_000, output=100, cache_read=400)
    assert _priced().cost_of(usage) is None  # nothing known
    assert _priced(input=0.0, output=0.0, cache_read=0.0).cost_of(usage) == 0.0  # free
    # a cache read with no known read price makes the cost unknown, never billed as free
    assert _priced(input=1.0, output=2.0).cost_of(usage) is None
    assert _priced(input=1.0, output=2.0).cost_of(llmkit.Usage(input=1_000, output=100)) == (
        pytest.approx((1_000 * 1.0 + 100 * 2.0) / 1e6)
    )
    assert llmkit.ModelCost().input is None


def test_one_hour_cache_writes_are_priced_at_their_own_price() -> None:
    model = llmkit.get_model("anthropic", "claude-sonnet-5-5")
    c = model.cost
    usage = llmkit.Usage(input=10_000, output=100, cache_write=6_000)
    expected = (
        4_000 * c.input + 2_000 * c.cache_write + 4_000 * c.cache_write_long + 100 * c.output
    ) / 1e6
    assert model.cost_of(usage, long_writes=4_000) == pytest.approx(expected)
    assert _priced(input=1.0, output=2.0, cache_write=1.25).cost_of(usage, long_writes=1) is None


def test_the_anthropic_stream_prices_its_1h_writes() -> None:
    model = llmkit.get_model("anthropic", "claude-sonnet-5-5")
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 3000,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 2000},
        "output_tokens": 5,
    }
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model.id,
                "content": [],
                "stop_reason": None,
                "usage": usage,
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    raw = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
    message = list(llmkit.parse_stream(model, [raw]))[-1].message
    c = model.cost
    expected = (
        10 * c.input + 1000 * c.cache_write + 2000 * c.cache_write_long + 5 * c.output
    ) / 1e6
    assert message.usage.cache_write == 3000
    assert message.usage.cost == pytest.approx(expected)


# -- tiered prices: above a tier's size, the tier's prices bill every bucket they name -------


def _tiered() -> llmkit.Model:
    return llmkit.Model(
        provider="x",
        id="y",
        api="openai-chat",
        base_url="http://h",
        cost={
            "input": 2.0,
            "output": 10.0,
            "cache_read": 0.2,
            "cache_write": 2.5,
            "tiers": [
                {"size": 200_000, "input": 4.0, "output": 15.0, "cache_read": 0.4},
                {"size": 500_000, "input": 8.0},
            ],
        },
    )


def test_at_a_tiers_size_the_base_prices_bill() -> None:
    usage = llmkit.Usage(input=200_000, output=1_000, cache_read=100_000)
    # 100k uncached at 2.0 + 100k cached at 0.2 + 1k out at 10.0
    assert _tiered().cost_of(usage) == pytest.approx(0.2 + 0.02 + 0.01)


def test_above_a_tiers_size_every_bucket_it_prices_is_billed_at_its_price() -> None:
    usage = llmkit.Usage(input=200_001, output=1_000, cache_read=100_000, cache_write=1_000)
    # 99,001 uncached at 4.0 + 100k cached at 0.4 + 1k out at 15.0, and the cache write (the
    # tier leaves it out) at the base 2.5
    expected = (99_001 * 4.0 + 100_000 * 0.4 + 1_000 * 15.0 + 1_000 * 2.5) / 1e6
    assert _tiered().cost_of(usage) == pytest.approx(expected)


def test_the_highest_tier_exceeded_applies_and_keeps_the_base_for_what_it_omits() -> None:
    usage = llmkit.Usage(input=600_000, output=1_000, cache_read=100_000)
    # input at the 500k tier's 8.0; output and cache reads at base prices (the 500k tier names
    # neither; the 200k tier does not apply any more)
    expected = (500_000 * 8.0 + 100_000 * 0.2 + 1_000 * 10.0) / 1e6
    assert _tiered().cost_of(usage) == pytest.approx(expected)


def test_usage_cost_across_gpt_5_4s_272k_tier() -> None:
    model = llmkit.get_model("openai", "gpt-5.4")
    below = llmkit.Usage(input=272_000, output=1_000)
    above = llmkit.Usage(input=272_001, output=1_000)
    assert model.cost_of(below) == pytest.approx((272_000 * 2.5 + 1_000 * 15.0) / 1e6)
    assert model.cost_of(above) == pytest.approx((272_001 * 5.0 + 1_000 * 22.5) / 1e6)


def test_the_stream_bills_a_long_prompt_at_its_tier() -> None:
    from llmkit.testing import FakeProvider, FakeReply

    tiered = _tiered()
    with FakeProvider([FakeReply("ok", usage={"input": 300_000, "output": 10})]) as fake:
        model = fake.model().model_copy(update={"cost": tiered.cost})
        message = llmkit.complete(
            model, llmkit.Context(messages=[llmkit.user("hi")]), api_key=fake.api_key
        )
    assert message.usage.cost == pytest.approx((300_000 * 4.0 + 10 * 15.0) / 1e6)
