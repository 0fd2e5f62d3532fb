"""Every field google-genai's ``GenerateContentResponse`` defines, through the Gemini decoder
(docs/design.md §1: never silence, measured against the SDK's own types).

The SDK's pydantic models are walked (:func:`leaves`): every leaf field reachable from
``GenerateContentResponse`` is one probe, a minimal real response with that field set to a
marker value, validated by the SDK itself (``model_validate_json``: its models forbid unknown
fields), then decoded streamed (SSE bytes, cut at random offsets: every cut gives the same
message) and whole (``parse_response``). What llmkit made of the marker is observed:

- ``mapped``: the value is in a neutral field of the message (text, a call, usage, ids, stop
  reason, a citation);
- ``kept``: the field and its value are verbatim in ``message.provider_data`` or in a part's
  replay data, and then in the request built back for the same model (unless Gemini only sends
  the field);
- ``reported``: a diagnostic names the field.

:data:`EXPECTED` holds the decision for each path (the longest matching prefix wins); a path
the SDK gains in a new release fails :func:`test_every_sdk_field_is_classified` until it is
classified, a silent or crashing probe fails :func:`test_no_field_is_silent`. Every
``FinishReason`` value is decoded on its own (mapped, or reported as unknown).
"""

from __future__ import annotations

import enum
import json
import random
import types as pytypes
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

import llmkit
from llmkit._wire.gemini.decode import FINISH
from llmkit._wire.gemini.kept import CANDIDATE_KEPT, OUTPUT_ONLY_PART_FIELDS, RESPONSE_KEPT
from llmkit._wire.turn_failures import FAILED

MODEL = llmkit.Model(
    provider="google", id="gemini-2.5-flash", api="gemini", reasoning=True, input=["text", "image"]
)
ROOT = types.GenerateContentResponse
SDK_ONLY = {
    "sdkHttpResponse": "the SDK's record of the HTTP response",
    "automaticFunctionCallingHistory": "the SDK's own function-calling loop",
    "parsed": "the SDK's parse of structured output",
}
"""Fields the SDK fills itself; Gemini never sends them."""

EXPECTED: dict[str, str] = {
    # response
    "responseId": "mapped",
    "modelVersion": "kept",
    "createTime": "kept",
    "modelStatus.": "kept",
    "promptFeedback.": "kept",
    "usageMetadata.": "kept",  # details by modality, trafficType
    "usageMetadata.promptTokenCount": "mapped",
    "usageMetadata.candidatesTokenCount": "mapped",
    "usageMetadata.thoughtsTokenCount": "mapped",
    "usageMetadata.cachedContentTokenCount": "mapped",
    "usageMetadata.toolUsePromptTokenCount": "mapped",
    "usageMetadata.totalTokenCount": "kept",  # alone here: not the sum of the mapped counts
    # candidate
    "candidates[].index": "reported",  # a candidate other than the first
    "candidates[].finishReason": "mapped",
    "candidates[].finishMessage": "kept",
    "candidates[].tokenCount": "kept",
    "candidates[].avgLogprobs": "kept",
    "candidates[].continuationToken": "kept",
    "candidates[].safetyRatings[].": "kept",
    "candidates[].logprobsResult.": "kept",
    "candidates[].groundingMetadata.": "kept",
    "candidates[].urlContextMetadata.": "kept",
    "candidates[].citationMetadata.": "mapped",  # Vertex's "citations" (and kept)
    "candidates[].citationMetadata.citations[].license": "kept",
    "candidates[].citationMetadata.citations[].publicationDate.": "kept",
    "candidates[].content.role": "reported",  # anything but "model"
    # parts
    "candidates[].content.parts[].text": "mapped",
    "candidates[].content.parts[].thought": "mapped",
    "candidates[].content.parts[].thoughtSignature": "mapped",  # ThinkingPart.signature
    "candidates[].content.parts[].functionCall.": "mapped",
    "candidates[].content.parts[].functionCall.willContinue": "mapped",
    "candidates[].content.parts[].": "kept",  # part fields in replay, part kinds opaque
}
"""How each field is taken: path (``[]`` a list) or path prefix (ending ``.``) → class."""

BASE_PART = {"text": "Hi"}
MODIFIERS = {
    "thoughtSignature",
    "partMetadata",
    "mediaResolution",
    "videoMetadata",
    "mediaProcessing",
    "speechMetadata",
    "documentMetadata",
    "spreadsheetMetadata",
    "audioMetadata",
    "audioTranscription",
}
"""Part fields probed on a text part (the rest are part kinds of their own)."""


# --------------------------------------------------------------------------- the SDK walk


def _strip(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, pytypes.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


@dataclass
class Leaf:
    path: str  # "candidates[].content.parts[].text"
    tp: Any


def leaves(
    cls: type[BaseModel], path: str = "", seen: frozenset[type] = frozenset()
) -> Iterator[Leaf]:
    """Every leaf field under ``cls`` (a model met again on its own path is a leaf)."""
    for name, info in cls.model_fields.items():
        alias = info.alias or name
        if not path and alias in SDK_ONLY:
            continue
        here = f"{path}.{alias}" if path else alias
        tp = _strip(info.annotation)
        while typing.get_origin(tp) is list:
            tp = _strip(typing.get_args(tp)[0])
            here += "[]"
        if isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in seen:
            yield from leaves(tp, here, seen | {cls, tp})
        else:
            yield Leaf(here, tp)


class Marks:
    def __init__(self) -> None:
        self.n = 0

    def value(self, tp: Any) -> Any:
        self.n += 1
        n = self.n
        if tp is bool:
            return True
        if tp is int:
            return 910000 + n
        if tp is float:
            return n + 0.25
        if tp in (str, bytes):
            return f"Mk{n:06d}"  # valid base64 too (bytes fields)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return next(m.value for m in tp if not m.value.endswith("UNSPECIFIED"))
        if typing.get_origin(tp) is typing.Literal:
            return typing.get_args(tp)[0]
        if isinstance(tp, type) and tp.__name__ == "datetime":
            return f"2026-12-07T01:02:{n % 60:02d}.5Z"
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return {}
        return {f"mk{n}": f"Mk{n:06d}"}  # dict[str, Any], Any


def _set(obj: dict[str, Any], segments: list[str], value: Any) -> None:
    head, rest = segments[0], segments[1:]
    listed = head.endswith("[]")
    key = head.removesuffix("[]")
    while key.endswith("[]"):
        key = key.removesuffix("[]")
    if not rest:
        obj[key] = [value] if listed else value
        return
    if listed:
        inner = obj[key][0] if isinstance(obj.get(key), list) and obj[key] else {}
        obj[key] = [inner]
    else:
        inner = obj.setdefault(key, {})
    _set(inner, rest, value)


def probe_body(leaf: Leaf, value: Any) -> dict[str, Any]:
    """A minimal response with ``leaf`` set to ``value``."""
    body: dict[str, Any] = {
        "candidates": [
            {"content": {"role": "model", "parts": [dict(BASE_PART)]}, "finishReason": "STOP"}
        ],
        "responseId": "resp-1",
    }
    segments = leaf.path.split(".")
    parts_prefix = "candidates[].content.parts[]."
    if leaf.path.startswith(parts_prefix):
        sub = leaf.path.removeprefix(parts_prefix).split(".")
        field = sub[0].removesuffix("[]")
        if field in ("text", "thought"):
            part: dict[str, Any] = dict(BASE_PART)
        elif field in MODIFIERS:
            part = dict(BASE_PART)
        elif field == "functionCall":
            part = {"functionCall": {"name": "lookup", "args": {}}}
            if sub[1].startswith("partialArgs"):
                part["functionCall"] = {"name": "lookup", "partialArgs": [{"jsonPath": "$.k"}]}
                if sub[-1] in ("jsonPath", "willContinue"):
                    part["functionCall"]["partialArgs"][0]["stringValue"] = "v"
                if sub[-1] == "jsonPath":
                    value = f"$.{value}"
        else:
            part = {}
        _set(part, sub, value)
        body["candidates"][0]["content"]["parts"] = [part]
        return body
    if leaf.path.startswith("candidates[].citationMetadata.citations[].") and leaf.tp is int:
        _set(body, segments, value)
        if leaf.path.endswith("startIndex"):  # a span needs both ends
            body["candidates"][0]["citationMetadata"]["citations"][0]["endIndex"] = value + 1
        body["candidates"][0]["content"]["parts"] = [{"text": "x" * (value + 1)}]
        return body
    _set(body, segments, value)
    return body


# --------------------------------------------------------------------------- decoding


def _pieces(body: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(body):
        n = rng.choice((1, 3, 7, 64, 500))
        out.append(body[i : i + n])
        i += n
    return out


def streamed(body: dict[str, Any]) -> llmkit.AssistantMessage:
    data = f"data: {json.dumps(body)}\r\n\r\n".encode()
    reference: llmkit.AssistantMessage | None = None
    for seed in (None, 1, 2):
        chunks = [data] if seed is None else _pieces(data, seed)
        events = list(llmkit.parse_stream(MODEL, chunks))
        last = events[-1]
        assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
        if reference is None:
            reference = last.message
        else:
            assert last.message.model_dump() == reference.model_dump()
    assert reference is not None
    return reference


def whole(body: dict[str, Any]) -> llmkit.AssistantMessage:
    try:
        return llmkit.parse_response(MODEL, body)
    except llmkit.APIError as e:  # a failed turn (MALFORMED_FUNCTION_CALL, ...)
        partial = e.partial
    assert partial is not None
    return partial


def _has_pair(tree: Any, key: str, value: Any) -> bool:
    if isinstance(tree, dict):
        if key in tree and tree[key] == value:
            return True
        return any(_has_pair(v, key, value) for v in tree.values())
    if isinstance(tree, list):
        return any(_has_pair(v, key, value) for v in tree)
    return False


def _has_value(tree: Any, value: Any) -> bool:
    if isinstance(value, (dict, list)) and tree == value:
        return True
    if isinstance(tree, dict):
        return any(_has_value(v, value) for v in tree.values())
    if isinstance(tree, list):
        return any(_has_value(v, value) for v in tree)
    if isinstance(value, str) and isinstance(tree, str):
        return value in tree
    return tree == value and type(tree) is type(value)


def _split(message: llmkit.AssistantMessage) -> tuple[Any, Any]:
    """The message as JSON: (its neutral fields, what it keeps verbatim)."""
    dump = message.model_dump(mode="json")
    kept: list[Any] = [dump.pop("provider_data")]
    dump.pop("diagnostics")
    for part in dump["content"]:
        kept.append(part.pop("replay", None))
        for citation in part.get("citations") or []:
            kept.append(citation.pop("provider_data", None))
    return dump, kept


RENAMED = {
    **RESPONSE_KEPT,
    **{f"candidates[].{field}": key for field, key in CANDIDATE_KEPT.items()},
}
"""Fields kept whole under a ``provider_data`` key of their own."""

CHECKS: dict[str, Callable[[llmkit.AssistantMessage], bool]] = {
    "candidates[].content.parts[].thought": lambda m: m.thinking == "Hi" and not m.text,
    "candidates[].content.parts[].functionCall.willContinue": (
        lambda m: [c.name for c in m.tool_calls] == ["lookup"]
    ),
    "candidates[].content.parts[].functionCall.partialArgs[].boolValue": (
        lambda m: m.tool_calls[0].arguments == {"k": True}
    ),
    "candidates[].content.parts[].functionCall.partialArgs[].nullValue": (
        lambda m: m.tool_calls[0].arguments == {"k": None}
    ),
    "candidates[].content.parts[].functionCall.partialArgs[].willContinue": (
        lambda m: m.tool_calls[0].raw_arguments.startswith('{"k":"v')
    ),
    "candidates[].finishReason": lambda m: m.raw_stop_reason is not None,
}
"""A mapped field whose value is no marker (a flag, a closed vocabulary): what it changes."""


def observe(leaf: Leaf, value: Any, message: llmkit.AssistantMessage) -> set[str]:
    key = leaf.path.rsplit(".", 1)[-1]
    while key.endswith("[]"):
        key, value = key.removesuffix("[]"), [value]
    neutral, kept = _split(message)
    found: set[str] = set()
    check = CHECKS.get(leaf.path)
    if check is not None:
        if check(message):
            found.add("mapped")
    elif _has_value(neutral, value) and not isinstance(value, bool):
        found.add("mapped")
    renamed = RENAMED.get(leaf.path)
    if _has_pair(kept, key, value) or (renamed and (kept[0] or {}).get(renamed) == value):
        found.add("kept")
    names = {s.removesuffix("[]") for s in leaf.path.split(".")}
    for d in message.diagnostics:
        text = f"{d.message} {json.dumps(d.details, default=str)}"
        if any(name in text for name in names if name not in ("candidates", "content")):
            found.add("reported")
    return found


def expected(path: str) -> str | None:
    best: tuple[int, str] | None = None
    for rule, kind in EXPECTED.items():
        matches = path == rule or (rule.endswith(".") and path.startswith(rule))
        if matches and (best is None or len(rule) > best[0]):
            best = (len(rule), kind)
    return None if best is None else best[1]


@dataclass
class Probe:
    leaf: Leaf
    value: Any
    body: dict[str, Any]


def probes() -> list[Probe]:
    marks = Marks()
    out = []
    for leaf in leaves(ROOT):
        value = marks.value(leaf.tp)
        out.append(Probe(leaf, value, probe_body(leaf, value)))
    return out


PROBES = probes()


# --------------------------------------------------------------------------- tests


def test_every_sdk_field_is_classified() -> None:
    paths = [p.leaf.path for p in PROBES]
    assert len(paths) > 150  # the walk reached the parts, usage details, grounding
    missing = [p for p in paths if expected(p) is None]
    assert not missing, f"google-genai fields llmkit has not classified: {missing}"
    unused = [r for r in EXPECTED if not any(p == r or p.startswith(r) for p in paths)]
    assert not unused, f"rules that match no SDK field any more: {unused}"
    for name in SDK_ONLY:
        assert any((f.alias or n) == name for n, f in ROOT.model_fields.items())


def test_probes_are_valid_sdk_responses() -> None:
    for probe in PROBES:
        ROOT.model_validate_json(json.dumps(probe.body))


@pytest.mark.parametrize("mode", ["streamed", "whole"])
def test_no_field_is_silent(mode: str) -> None:
    decode = streamed if mode == "streamed" else whole
    tally: Counter[str] = Counter()
    wrong = []
    for probe in PROBES:
        message = decode(probe.body)
        found = observe(probe.leaf, probe.value, message)
        want = expected(probe.leaf.path)
        tally[want or "?"] += 1
        if want not in found:
            wrong.append((probe.leaf.path, want, sorted(found)))
    assert not wrong, f"{len(wrong)} of {len(PROBES)} fields not as classified: {wrong}"
    assert tally["mapped"] and tally["kept"] and tally["reported"]


def test_part_fields_go_back_to_the_same_model() -> None:
    """A part's own fields kept in replay data are in the request built back (output-only
    ones excepted); another model gets none of them."""
    other = llmkit.Model(provider="google", id="gemini-2.0-flash", api="gemini")
    checked = 0
    for probe in PROBES:
        path = probe.leaf.path
        if not path.startswith("candidates[].content.parts[].") or expected(path) != "kept":
            continue
        field = probe.leaf.path.split(".")[3].removesuffix("[]")
        message = streamed(probe.body)
        context = llmkit.Context(messages=[llmkit.user("q"), message, llmkit.user("more")])
        sent = json.loads(llmkit.build_request(MODEL, context, api_key="k").content)["contents"][1][
            "parts"
        ]
        part = probe.body["candidates"][0]["content"]["parts"][0]
        if field in OUTPUT_ONLY_PART_FIELDS:
            assert field not in json.dumps(sent)
            assert _has_pair(_split(message)[1], field, part[field])  # still kept
        else:
            assert sent == [part], probe.leaf.path
        if field in MODIFIERS - {"thoughtSignature"}:
            elsewhere = llmkit.build_request(other, context, api_key="k").content
            assert field not in json.loads(elsewhere)["contents"][1].__repr__()
        checked += 1
    assert checked > 40


@pytest.mark.parametrize("reason", [r.value for r in types.FinishReason])
@pytest.mark.parametrize("mode", ["streamed", "whole"])
def test_every_finish_reason_maps_or_is_reported_E4(reason: str, mode: str) -> None:
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": reason}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1},
        "responseId": "resp-1",
    }
    message = (streamed if mode == "streamed" else whole)(body)
    assert message.raw_stop_reason == reason
    kinds = [d.kind for d in message.diagnostics]
    if reason in FINISH:
        assert message.stop_reason == FINISH[reason] and not kinds
    elif reason in FAILED:
        assert message.stop_reason == "error" and FAILED[reason][0] in kinds
    else:  # OTHER, FINISH_REASON_UNSPECIFIED, IMAGE_OTHER, NO_IMAGE: no neutral meaning
        assert message.stop_reason == "stop" and "stop_reason_unknown" in kinds


@pytest.mark.parametrize("reason", [r.value for r in types.BlockedReason])
def test_every_prompt_block_reason_is_a_content_filter(reason: str) -> None:
    feedback = {"blockReason": reason, "blockReasonMessage": "no", "safetyRatings": []}
    body = {"promptFeedback": feedback, "responseId": "resp-1"}
    ROOT.model_validate_json(json.dumps(body))
    for message in (streamed(body), whole(body)):
        assert (message.stop_reason, message.raw_stop_reason) == ("content_filter", reason)
        assert message.provider_data == {"prompt_feedback": feedback}
