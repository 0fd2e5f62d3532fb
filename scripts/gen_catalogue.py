"""Generate llmkit's model catalogue (``llmkit/data/models.json``) from a models.dev checkout.

models.dev (https://github.com/anomalyco/models.dev, MIT licence) keeps one TOML file per
provider (``providers/<id>/provider.toml``) and per model (``providers/<id>/models/*.toml``),
a model's provider-agnostic facts under ``models/<vendor>/<id>.toml`` (inherited through
``base_model``). This script reads those files for every provider llmkit speaks, maps each
model onto llmkit's catalogue entry (wire API, limits, input kinds, prices with their
``[[cost.tiers]]``, reasoning options), applies llmkit's own reviewed overlay
(``scripts/catalogue_overlay.toml``: corrections, with a reason each, and models newer than
the data) last, and writes the result. The generated file is never edited by hand: change the
overlay or this script and run it again::

    python scripts/gen_catalogue.py /path/to/models.dev

Runs on dev machines only, with Python 3.11+ (``tomllib``) or ``tomli`` installed; the package
itself never reads TOML. ``tests/test_catalogue_generator.py`` runs it over the excerpt of the
recorded commit's data in ``tests/fixtures/models.dev/``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "llmkit" / "data" / "models.json"
OVERLAY = ROOT / "scripts" / "catalogue_overlay.toml"
REPOSITORY = "https://github.com/anomalyco/models.dev"

# models.dev provider id -> the llmkit providers its models are served as, with the wire API.
# A models.dev provider missing here is one llmkit has no profile for (llmkit/data/providers.json).
PROVIDERS: dict[str, list[tuple[str, str]]] = {
    "openai": [("openai", "openai-chat")],
    "azure": [("azure", "openai-chat")],
    "anthropic": [("anthropic", "anthropic-messages")],
    "google": [("google", "gemini"), ("gemini-openai", "openai-chat")],
    "google-vertex": [("vertex", "gemini")],
    "google-vertex-anthropic": [("vertex-anthropic", "anthropic-messages")],
    "amazon-bedrock": [("bedrock", "bedrock-converse")],
    "deepseek": [("deepseek", "openai-chat")],
    "groq": [("groq", "openai-chat")],
    "mistral": [("mistral", "openai-chat")],
    "openrouter": [("openrouter", "openai-chat")],
    "xai": [("xai", "openai-chat")],
    "togetherai": [("together", "openai-chat")],
    "fireworks-ai": [("fireworks", "openai-chat")],
    "cerebras": [("cerebras", "openai-chat")],
    "lmstudio": [("lmstudio", "openai-chat")],
}

# Providers whose tool definitions take `strict` (OpenAI's and Anthropic's own APIs and Azure
# OpenAI; docs/servers.md): elsewhere strict_tools is false and schemas are sent as given.
STRICT_TOOLS = {"openai", "azure", "anthropic", "vertex-anthropic", "foundry-anthropic"}
# Anthropic bills a 1-hour cache write at twice the base input price
# (https://platform.claude.com/docs/en/about-claude/pricing); models.dev has no field for it.
LONG_WRITES = {"anthropic", "vertex-anthropic", "foundry-anthropic"}
INPUT_KINDS = ("text", "image", "pdf")
PRICES = ("input", "output", "cache_read", "cache_write")


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        data: dict[str, Any] = tomllib.load(f)
    return data


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """models.dev's ``base_model`` merge (remeda ``mergeDeep``): tables merge, the rest replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _omit(data: dict[str, Any], paths: Iterable[str]) -> None:
    for dotted in paths:
        *parents, last = dotted.split(".")
        node: Any = data
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)


def read_models(checkout: Path, provider: str) -> dict[str, dict[str, Any]]:
    """One models.dev provider's models, ``base_model`` resolved, keyed by model id."""
    base = checkout / "providers" / provider / "models"
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(base.rglob("*.toml")):
        model_id = path.relative_to(base).as_posix()[: -len(".toml")]
        data = _load(path)
        parent = data.pop("base_model", None)
        omit = data.pop("base_model_omit", [])
        if parent is not None:
            meta = _load(checkout / "models" / f"{parent}.toml")
            for key in ("benchmarks", "license", "links", "weights"):
                meta.pop(key, None)
            data = _merge(meta, data)
            _omit(data, omit)
        out[model_id] = data
    return out


def _wire(llmkit_provider: str, api: str, model_id: str) -> str:
    """OpenAI's Responses-only models (pro, codex, deep research) go over Responses; the rest
    of an OpenAI or Azure catalogue over Chat Completions, which every one of them takes."""
    if llmkit_provider in ("openai", "azure"):
        name = model_id.rsplit("/", 1)[-1]
        if "codex" in name or "-pro" in name or "deep-research" in name or name == "o1-pro":
            return "openai-responses"
    return api


def _served(llmkit_provider: str, model_id: str) -> str | None:
    """The llmkit provider a models.dev model is served as, or None to leave it out."""
    if llmkit_provider == "azure" and model_id.startswith("claude-"):
        return "foundry-anthropic"  # Claude on Microsoft Foundry: the Anthropic Messages wire
    if llmkit_provider == "vertex" and not model_id.startswith("gemini"):
        return None  # partner models on Vertex AI use other endpoints
    return llmkit_provider


def _cost(cost: Mapping[str, Any], provider: str) -> dict[str, Any]:
    out: dict[str, Any] = {k: float(cost[k]) for k in PRICES if k in cost}
    if provider in LONG_WRITES and "input" in out:
        out["cache_write_long"] = round(2 * out["input"], 6)
    tiers = []
    for tier in cost.get("tiers", []):
        if tier.get("tier", {}).get("type", "context") != "context":
            continue
        priced = {k: float(tier[k]) for k in PRICES if k in tier}
        if provider in LONG_WRITES and "input" in priced:
            priced["cache_write_long"] = round(2 * priced["input"], 6)
        tiers.append({"size": int(tier["tier"]["size"]), **priced})
    if tiers:
        out["tiers"] = sorted(tiers, key=lambda t: t["size"])
    return out


def _reasoning_options(model: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for option in model.get("reasoning_options", []):
        kind = option.get("type")
        if kind == "effort":
            values = [v for v in option.get("values", []) if isinstance(v, str) and v != "null"]
            out["reasoning_efforts"] = [v for v in values if v != "default"]
        elif kind == "budget_tokens":
            budget = {k: int(option[k]) for k in ("min", "max") if k in option}
            out["reasoning_budget"] = budget
    return out


def entry(
    llmkit_provider: str, api: str, model_id: str, model: Mapping[str, Any]
) -> dict[str, Any]:
    """llmkit's catalogue entry for one models.dev model."""
    limit = model.get("limit", {})
    context = int(limit.get("context") or 0)
    output = int(limit.get("output") or 0) or context
    inputs = model.get("modalities", {}).get("input", ["text"])
    out: dict[str, Any] = {
        "provider": llmkit_provider,
        "id": model_id,
        "api": api,
        "input": [k for k in INPUT_KINDS if k == "text" or k in inputs],
        "reasoning": bool(model.get("reasoning", False)),
        "strict_tools": llmkit_provider in STRICT_TOOLS,
        "context_window": context,
        "max_output_tokens": min(output, context) if context else output,
        "cost": _cost(model.get("cost", {}), llmkit_provider),
    }
    if out["reasoning"]:
        out.update(_reasoning_options(model))
    if api == "anthropic-messages" or (api == "bedrock-converse" and "anthropic." in model_id):
        # models.dev's `temperature = false` is Claude refusing sampling parameters. How it
        # thinks (budget, adaptive) stays with the wire's reading of the Claude version: the
        # data lists effort values for Opus 4.5 too, which takes budgets, not adaptive thinking.
        out["anthropic"] = {"supports_sampling": bool(model.get("temperature", True))}
    return out


def _kept(model: Mapping[str, Any]) -> bool:
    """Chat models only: text out, not retired by the provider, with a known context size."""
    if model.get("status") == "deprecated":
        return False
    if "text" not in model.get("modalities", {}).get("output", []):
        return False
    return bool(model.get("limit", {}).get("context"))


def generate(checkout: Path) -> list[dict[str, Any]]:
    """Every catalogue entry from the models.dev data, before the overlay."""
    out: list[dict[str, Any]] = []
    for source, targets in PROVIDERS.items():
        if not (checkout / "providers" / source).is_dir():
            continue
        for model_id, model in read_models(checkout, source).items():
            if not _kept(model):
                continue
            for llmkit_provider, api in targets:
                served = _served(llmkit_provider, model_id)
                if served is None:
                    continue
                if served == "foundry-anthropic":
                    api = "anthropic-messages"
                out.append(entry(served, _wire(served, api, model_id), model_id, model))
    return out


def apply_overlay(
    entries: list[dict[str, Any]], overlay: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """llmkit's corrections and newer models, applied last. A correction replaces the fields it
    names (tables merge); an entry the data lacks is added whole (it names its ``api``), or as
    a copy of another entry (``same_as = "provider/id"``, generated or another overlay entry)
    with the fields it names replaced (tables too). Every one carries a reason."""
    by_key = {(e["provider"], e["id"]): e for e in entries}
    items = overlay.get("model", [])
    copies = []  # same_as entries: after the others, so that they may copy any of them
    for item in items:
        fix = dict(item)
        if not fix.pop("reason", ""):
            raise SystemExit(f"overlay entry {fix.get('provider')}/{fix.get('id')} has no reason")
        fix.pop("source", None)
        key = (fix["provider"], fix["id"])
        if "same_as" in fix:
            copies.append(fix)
        elif fix.pop("remove", False):
            by_key.pop(key, None)
        elif key in by_key:
            by_key[key] = _merge(by_key[key], fix)
        elif "api" not in fix:
            continue  # a correction to a model this data lacks (a test excerpt)
        else:
            fix.setdefault("strict_tools", fix["provider"] in STRICT_TOOLS)
            by_key[key] = fix
    for fix in copies:
        same_as = fix.pop("same_as")
        base = by_key.get(tuple(same_as.split("/", 1)))  # type: ignore[arg-type]
        if base is None:
            raise SystemExit(f"overlay entry {fix['provider']}/{fix['id']}: no {same_as} to copy")
        fix.setdefault("strict_tools", fix["provider"] in STRICT_TOOLS)
        by_key[(fix["provider"], fix["id"])] = {**base, **fix}
    return [by_key[k] for k in sorted(by_key)]


# The order of an entry's keys in the file: the generated ones and the overlay's alike.
KEY_ORDER = (
    "provider", "id", "api", "input", "reasoning", "reasoning_efforts", "reasoning_budget",
    "strict_tools", "structured_output", "forced_tool_choice", "long_cache", "cache_points",
    "eager_input_streaming", "context_window", "max_output_tokens", "cost", "anthropic",
)  # fmt: skip


def _ordered(entry: Mapping[str, Any]) -> dict[str, Any]:
    rank = {k: i for i, k in enumerate(KEY_ORDER)}
    return {k: entry[k] for k in sorted(entry, key=lambda k: (rank.get(k, len(rank)), k))}


def render(entries: list[dict[str, Any]], commit: str, date: str) -> str:
    """The catalogue file: provenance first, then one model per line, sorted."""
    head = {
        "_comment": (
            "Generated by scripts/gen_catalogue.py from models.dev data (MIT licence) and "
            "llmkit's reviewed overlay (scripts/catalogue_overlay.toml). Do not edit: change the "
            "overlay or the script and run it again. Prices are USD per million tokens; a price "
            "left out is unknown, not free. cost.tiers: above `size` input tokens, every price a "
            "tier names replaces the base price. Read lazily on first get_model()/models()."
        ),
        "_source": {"repository": REPOSITORY, "commit": commit, "date": date, "licence": "MIT"},
    }
    lines = [json.dumps(head, indent=2)[:-2] + ",", '  "models": [']
    rows = [
        "    " + json.dumps(_ordered(e), separators=(", ", ": "), ensure_ascii=False)
        for e in entries
    ]
    lines.append(",\n".join(rows))
    lines.append("  ]\n}\n")
    return "\n".join(lines)


def _revision(checkout: Path) -> tuple[str, str]:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    return git("rev-parse", "HEAD"), git("log", "-1", "--format=%cs")


def build(checkout: Path, commit: str, date: str, overlay: Path = OVERLAY) -> str:
    """The catalogue file's text for a checkout at ``commit`` (dated ``date``)."""
    return render(apply_overlay(generate(checkout), _load(overlay)), commit, date)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a models.dev git checkout")
    parser.add_argument("--commit", help="the checkout's commit (default: git rev-parse HEAD)")
    parser.add_argument("--date", help="the commit's date, YYYY-MM-DD (default: from git)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    ns = parser.parse_args(argv)
    commit, date = ns.commit, ns.date
    if commit is None or date is None:
        found = _revision(ns.checkout)
        commit, date = commit or found[0], date or found[1]
    text = build(ns.checkout, commit, date)
    ns.output.write_text(text, encoding="utf-8")
    count = text.count('"provider": ')
    print(f"{ns.output}: {count} models from models.dev {commit[:12]} ({date})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
