"""What a Gemini response holds besides parts, finish reason and counts: kept verbatim on
``message.provider_data`` (docs/design.md §1: never silence), each under one key.

Measured against google-genai's own types (``GenerateContentResponse``, ``Candidate``,
``GenerateContentResponseUsageMetadata``, ``Part``; ``tests/wire/gemini/test_sdk_fields.py``
walks them): every field is mapped by the decoder, kept here, or reported.

- Response fields: ``modelVersion`` → ``"model_version"``, ``createTime`` (Vertex) →
  ``"create_time"``, ``modelStatus`` → ``"model_status"``, ``promptFeedback`` →
  ``"prompt_feedback"``.
- Candidate fields: ``finishMessage`` → ``"finish_message"``, ``safetyRatings`` →
  ``"safety_ratings"``, ``avgLogprobs`` → ``"avg_logprobs"``, ``tokenCount`` →
  ``"token_count"``, ``continuationToken`` → ``"continuation_token"``; ``logprobsResult`` →
  ``"logprobs_result"``, a stream's chunks joined (their ``chosenCandidates`` and
  ``topCandidates`` in order, ``logProbabilitySum`` added up).
- ``usageMetadata`` beyond the counts :class:`~llmkit.Usage` holds (token details by modality,
  ``trafficType``) → ``"usage_metadata"``; ``totalTokenCount`` too when it is not the sum of
  the counts llmkit maps (it always is, today).
- A field no version of this table knows, on the response or a candidate: kept under its own
  name and reported once (``event_unknown``).

A stream repeats most of these on every chunk: the last value holds, and the sink hears of a
value only when it changed.

``continuationToken`` comes with finish reason ``CONTINUATION`` (stop reason ``length``): the
per-request token limit was reached before the model finished. To get the rest, send the same
request again with ``provider_options={"continuationToken": token}``; the answer continues the
text where this one stopped (google-genai's ``automatic_continuation`` does exactly that).
"""

from __future__ import annotations

from typing import Any

from ..contract import DeltaSink

__all__ = [
    "CANDIDATE_KEPT",
    "CANDIDATE_MAPPED",
    "OUTPUT_ONLY_PART_FIELDS",
    "PART_MODIFIERS",
    "RESPONSE_KEPT",
    "RESPONSE_MAPPED",
    "USAGE_MAPPED",
    "Kept",
    "extras",
]

RESPONSE_MAPPED = frozenset({"candidates", "usageMetadata", "responseId", "error"})
"""Response fields the decoder reads itself."""

RESPONSE_KEPT = {
    "modelVersion": "model_version",
    "createTime": "create_time",
    "modelStatus": "model_status",
    "promptFeedback": "prompt_feedback",
}
"""Response fields kept verbatim, by ``provider_data`` key."""

CANDIDATE_MAPPED = frozenset(
    {
        "content",
        "finishReason",
        "index",
        "citationMetadata",
        "groundingMetadata",
        "urlContextMetadata",
        "logprobsResult",
    }
)
"""Candidate fields the decoder reads itself (grounding is also kept, by the decoder)."""

CANDIDATE_KEPT = {
    "finishMessage": "finish_message",
    "safetyRatings": "safety_ratings",
    "avgLogprobs": "avg_logprobs",
    "tokenCount": "token_count",
    "continuationToken": "continuation_token",
}
"""Candidate fields kept verbatim, by ``provider_data`` key."""

USAGE_MAPPED = frozenset(
    {
        "promptTokenCount",
        "candidatesTokenCount",
        "thoughtsTokenCount",
        "cachedContentTokenCount",
        "toolUsePromptTokenCount",
        "totalTokenCount",
    }
)
"""``usageMetadata`` counts that :class:`~llmkit.Usage` holds (the total as their sum)."""

PART_MODIFIERS = frozenset(
    {
        "thought",
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
)
"""Part fields that describe a part rather than being its content (a part's kind is its first
other field)."""

OUTPUT_ONLY_PART_FIELDS = frozenset({"audioTranscription"})
"""Part fields Gemini only sends: kept in replay data, never sent back."""

_MISSING = object()


def extras(part: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any] | None:
    """The fields of ``part`` beyond ``known`` (its content and signature), verbatim, or
    ``None``: kept in the part's replay data and sent back with it (docs/design.md §3)."""
    if len(part) == 1 and known[0] in part:
        return None  # the hot path: a plain text part or call
    found = {k: v for k, v in part.items() if k not in known}
    return found or None


class Kept:
    """A response's kept fields, merged over a stream's chunks."""

    __slots__ = ("_last", "_logprobs", "_sink", "_usage")

    def __init__(self, sink: DeltaSink) -> None:
        self._sink = sink
        self._last: dict[str, Any] = {}  # provider_data key → the value last given the sink
        self._usage: dict[str, Any] = {}  # usageMetadata beyond the mapped counts
        self._logprobs: dict[str, Any] | None = None

    def keep(self, key: str, value: Any) -> None:
        """``value`` on ``provider_data[key]``, when it changed."""
        if self._last.get(key, _MISSING) != value:
            self._last[key] = value
            self._sink.provider_data(key, value)

    def response(self, chunk: dict[str, Any]) -> None:
        """The response fields of one chunk."""
        self._fields(chunk, RESPONSE_MAPPED, RESPONSE_KEPT, "response")

    def candidate(self, candidate: dict[str, Any]) -> None:
        """The candidate fields of one chunk's first candidate."""
        self._fields(candidate, CANDIDATE_MAPPED, CANDIDATE_KEPT, "candidate")

    def _fields(
        self, obj: dict[str, Any], mapped: frozenset[str], kept: dict[str, str], what: str
    ) -> None:
        """Every field of ``obj`` llmkit does not map, on ``provider_data`` (an unknown one
        under its own name, reported); a candidate's logprobs are joined over the chunks."""
        for field, value in obj.items():
            if field in mapped or value is None:
                if field == "logprobsResult" and isinstance(value, dict):
                    self._join_logprobs(value)
                continue
            key = kept.get(field)
            if key is None:
                key = field
                self._sink.unknown(
                    field, f"Unknown {what} field {field!r} kept on provider_data", field=field
                )
            self.keep(key, value)

    def usage(self, metadata: dict[str, Any], mapped_total: int | None) -> None:
        """``usageMetadata`` beyond the counts llmkit maps (``mapped_total``: their sum)."""
        rest = self._usage
        changed = False
        for field, value in metadata.items():
            if field == "totalTokenCount":
                if value == mapped_total:
                    continue
            elif field in USAGE_MAPPED:
                continue
            if rest.get(field, _MISSING) != value:
                rest[field] = value
                changed = True
        if changed:
            self._sink.provider_data("usage_metadata", rest)

    def _join_logprobs(self, result: dict[str, Any]) -> None:
        # Each streamed chunk carries the log probabilities of its own tokens.
        joined = self._logprobs
        if joined is None:
            joined = self._logprobs = {}
        for field, value in result.items():
            if field in ("chosenCandidates", "topCandidates") and isinstance(value, list):
                joined.setdefault(field, []).extend(value)
            elif field == "logProbabilitySum" and isinstance(value, (int, float)):
                total = joined.get(field)
                joined[field] = value + total if isinstance(total, (int, float)) else value
            else:
                joined[field] = value
        self._sink.provider_data("logprobs_result", joined)
