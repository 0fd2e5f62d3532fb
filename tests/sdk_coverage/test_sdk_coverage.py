"""Nothing silently, measured against the SDKs' own types.

Every field and item that the official SDKs define for a response (enumerated from their
unions by :mod:`.wires`, so a new SDK release adds probes by itself) goes through
``parse_stream`` and ``parse_response`` and back through ``build_request``; each is mapped,
kept or reported (:mod:`.classify`). Fails on any crash, on a silent probe not in
``silent.txt``, and on a line of ``silent.txt`` that is no longer silent: the list only shrinks.

``python -m tests.sdk_coverage`` prints the per-wire table and the silent probes; the table is
also printed at the end of a pytest run that ran these tests.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from .classify import QUIET, Outcome, inherit, run
from .generate import Variant
from .report import collect, table
from .wires import WIRES, Probe

ALLOWLIST = Path(__file__).with_name("silent.txt")
SDKS = ("openai", "anthropic", "google-genai", "botocore")


def _off_pin() -> list[str]:
    """The SDKs installed at another version than the test extra pins (the allowlist holds for
    the pinned versions only)."""
    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    try:
        import tomllib
    except ImportError:  # Python 3.10: google-genai 3.6 is not installable there anyway
        return ["tomllib"]
    extra = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]["test"]
    off = []
    for requirement in extra:
        name, _, pin = requirement.split(";")[0].partition("==")
        if name.strip() in SDKS and pin and version(name.strip()) != pin.strip():
            off.append(f"{name.strip()} {version(name.strip())} (pinned {pin.strip()})")
    return off


OFF_PIN = _off_pin()
pytestmark = pytest.mark.skipif(
    bool(OFF_PIN),
    reason="needs Python 3.11+ (google-genai 3.6)"
    if OFF_PIN == ["tomllib"]
    else f"SDKs off their pins: {', '.join(OFF_PIN)}",
)


@cache
def outcomes() -> tuple[Outcome, ...]:
    return tuple(collect())


def allowlisted() -> set[str]:
    """The probe ids of ``silent.txt``: one a line, ``#`` starts a comment."""
    ids = set()
    for line in ALLOWLIST.read_text().splitlines():
        probe = line.split("#", 1)[0].strip()
        if probe:
            ids.add(probe)
    return ids


def test_every_probe_is_valid_and_nothing_crashes() -> None:
    crashes = [f"{o.probe.id}: {o.detail}" for o in outcomes() if o.kind == "crash"]
    assert not crashes, "\n\n".join(crashes[:10]) + f"\n\n({len(crashes)} crashes)"


def test_no_silent_probe_outside_the_allowlist() -> None:
    silent = sorted(o.probe.id for o in outcomes() if o.kind == "silent")
    new = [probe for probe in silent if probe not in allowlisted()]
    assert not new, "silently dropped (map, keep or report them):\n" + "\n".join(new)


def test_the_allowlist_only_shrinks() -> None:
    silent = {o.probe.id for o in outcomes() if o.kind == "silent"}
    stale = sorted(allowlisted() - silent)
    assert not stale, f"no longer silent: delete these lines from {ALLOWLIST.name}:\n" + "\n".join(
        stale
    )


@pytest.mark.parametrize("wire", [w.name for w in WIRES])
def test_every_wire_is_probed_streamed_and_whole(wire: str) -> None:
    modes = {o.probe.mode for o in outcomes() if o.probe.wire == wire}
    assert modes == {"stream", "whole"}


@pytest.mark.parametrize(
    "probe",
    [
        # one item of each union the harness enumerates: a walker that lost a union fails here
        "responses:whole:output[function_call]",
        "responses:stream:response.output_text.delta.delta",
        "chat:stream:choices[Choice].delta.tool_calls[function].function.arguments",
        "chat:whole:choices[Choice].message.tool_calls[custom].custom.input",
        "chat:whole:choices[Choice].message.content",
        "anthropic:whole:content[tool_use].toolset_name",
        "anthropic:stream:content_block_delta.delta[citations_delta]",
        "gemini:whole:candidates[Candidate].content.parts[Part].text",
        "gemini:stream:usageMetadata.cachedContentTokenCount",
        "bedrock:whole:output[message].content[toolUse].name",
        "bedrock:stream:contentBlockDelta.delta[reasoningContent][text]",
    ],
)
def test_the_unions_are_enumerated(probe: str) -> None:
    assert probe in {o.probe.id for o in outcomes()}


def summary() -> str | None:
    """The per-wire table, if the probes ran in this process."""
    return table(list(outcomes())) if outcomes.cache_info().currsize else None


def _probe(body: dict[str, Any], baseline: dict[str, Any], markers: set[Any]) -> Probe:
    variant = Variant("x", body, markers, baseline=baseline)
    return Probe("anthropic:whole:x", "anthropic", "whole", variant, body, baseline, lambda: None)


def _message(*content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    usage = {"input_tokens": 1, "output_tokens": 1}
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": list(content), "stop_reason": "end_turn", "usage": usage,
            **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (_message({"type": "text", "text": "Mk1"}), "mapped"),  # in the neutral parts
        (_message(stop_sequence="Mk1"), "kept"),  # on provider_data
        (_message({"type": "text", "text": "hi"}, stop_reason="Mk1"), "mapped"),  # raw reason
        (_message(), "silent"),  # the marker is nowhere: dropped without a word
    ],
)
def test_the_classifier_tells_the_outcomes_apart(body: dict[str, Any], kind: str) -> None:
    model = next(w.model for w in WIRES if w.name == "anthropic")
    assert run(model, _probe(body, _message(), {"Mk1"})).kind == kind


def test_a_field_inside_a_reported_item_is_reported() -> None:
    def outcome(path: str, kind: str, detail: str = "") -> Outcome:
        probe = _probe(_message(), _message(), set())
        probe.id = f"bedrock:stream:{path}"
        return Outcome(probe, kind, detail=detail)

    found = inherit(
        [
            outcome("delta[image]", "reported"),
            outcome("delta[image].source[bytes]", "mapped", QUIET),  # a quiet item inside
            outcome("delta[image].source[s3Location].uri", "silent"),
            outcome("delta[text]", "silent"),  # not inside: stays silent
        ]
    )
    assert [o.kind for o in found] == ["reported", "reported", "reported", "silent"]
