"""Running every wire's probes, and the per-wire table."""

from __future__ import annotations

from collections import Counter

from .classify import Outcome, inherit, run
from .wires import WIRES

__all__ = ["KINDS", "PACKAGES", "collect", "silent_lines", "table"]

KINDS = ("mapped", "kept", "reported", "silent", "crash")


def collect() -> list[Outcome]:
    """Every probe of every wire, run."""
    return inherit([run(wire.model, probe) for wire in WIRES for probe in wire.probes()])


def table(outcomes: list[Outcome]) -> str:
    """Markdown: one row per wire, each cell ``stream / whole``."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for o in outcomes:
        counts[o.probe.wire, o.probe.mode, "probes"] += 1
        counts[o.probe.wire, o.probe.mode, o.kind] += 1
        if o.replayed:
            counts[o.probe.wire, o.probe.mode, "replayed"] += 1
    columns = ("probes", *KINDS, "replayed")
    lines = [
        "| wire (stream / whole) | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for wire in WIRES:
        cells = [
            f"{counts[wire.name, 'stream', c]} / {counts[wire.name, 'whole', c]}" for c in columns
        ]
        lines.append(f"| {wire.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


PACKAGES = {
    "responses": "llmkit/_wire/openai_responses",
    "chat": "llmkit/_wire/openai_chat",
    "anthropic": "llmkit/_wire/anthropic_messages",
    "gemini": "llmkit/_wire/gemini",
    "bedrock": "llmkit/_wire/bedrock_converse",
}


def silent_lines(outcomes: list[Outcome], *, with_crashes: bool = False) -> list[str]:
    """The allowlist's lines for these outcomes (and crashes, with their detail)."""
    out = [f"{o.probe.id}  # {PACKAGES[o.probe.wire]}" for o in outcomes if o.kind == "silent"]
    if with_crashes:
        out += [f"CRASH {o.probe.id}: {o.detail}" for o in outcomes if o.kind == "crash"]
    return out
