"""What a Gemini response holds besides parts, finish reason and counts, over streams of real
bytes re-split at random offsets (docs/design.md §1, never silence;
:mod:`llmkit._wire.gemini.kept`)."""

from __future__ import annotations

import json
from typing import Any

import llmkit
from tests.wire.gemini.test_decode import MODEL, SIG_A, call, chunk, final, kinds, sse

RATINGS = [
    {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "LOW"},
]


def _request(context: llmkit.Context, model: llmkit.Model = MODEL, **options: Any) -> Any:
    return json.loads(llmkit.build_request(model, context, api_key="k", **options).content)


def test_candidate_and_response_fields_are_kept() -> None:
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}
    first = chunk({"text": "Hel"}, usage=usage, createTime="2026-12-07T01:02:03.5Z")
    first["candidates"][0]["safetyRatings"] = RATINGS[:1]
    last = chunk({"text": "lo"}, finish="STOP", usage=usage)
    last["candidates"][0].update(
        safetyRatings=RATINGS, finishMessage="done", avgLogprobs=-0.25, tokenCount=2
    )
    last["modelStatus"] = {"modelStage": "STABLE"}
    msg = final(sse(first, last))
    assert msg.text == "Hello" and not kinds(msg)
    assert msg.provider_data == {
        "model_version": "gemini-2.5-flash",
        "create_time": "2026-12-07T01:02:03.5Z",
        "safety_ratings": RATINGS,  # the last value holds
        "finish_message": "done",
        "avg_logprobs": -0.25,
        "token_count": 2,
        "model_status": {"modelStage": "STABLE"},
    }
    assert llmkit.AssistantMessage.model_validate_json(msg.model_dump_json()) == msg


def test_streamed_logprobs_are_joined() -> None:
    def logprobs(token: str, lp: float) -> dict[str, Any]:
        chosen = {"token": token, "logProbability": lp}
        return {
            "chosenCandidates": [chosen],
            "topCandidates": [{"candidates": [chosen]}],
            "logProbabilitySum": lp,
        }

    one = chunk({"text": "a"})
    one["candidates"][0]["logprobsResult"] = logprobs("a", -0.5)
    two = chunk({"text": "b"}, finish="STOP", usage={"promptTokenCount": 1})
    two["candidates"][0]["logprobsResult"] = logprobs("b", -0.25)
    msg = final(sse(one, two))
    assert msg.provider_data is not None
    joined = msg.provider_data["logprobs_result"]
    assert [c["token"] for c in joined["chosenCandidates"]] == ["a", "b"]
    assert len(joined["topCandidates"]) == 2 and joined["logProbabilitySum"] == -0.75


def test_usage_details_are_kept_as_vertex_streams_them() -> None:
    """Vertex sends only ``trafficType`` until the last chunk, then the counts and their split
    by modality: the counts are mapped, the rest kept verbatim."""
    details = [{"modality": "TEXT", "tokenCount": 8}, {"modality": "IMAGE", "tokenCount": 258}]
    full = {
        "promptTokenCount": 266,
        "candidatesTokenCount": 3,
        "totalTokenCount": 269,
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": details,
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 3}],
    }
    msg = final(
        sse(
            chunk({"text": "A cat"}, usage={"trafficType": "ON_DEMAND"}),
            chunk({"text": "."}, finish="STOP", usage=full),
        )
    )
    assert (msg.usage.input, msg.usage.output) == (266, 3)
    assert msg.provider_data is not None
    kept = msg.provider_data["usage_metadata"]
    assert kept == {
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": details,
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": 3}],
    }  # totalTokenCount is the sum of the mapped counts: not repeated


def test_a_total_that_is_not_the_sum_is_kept() -> None:
    usage = {"promptTokenCount": 4, "candidatesTokenCount": 1, "totalTokenCount": 9}
    msg = final(sse(chunk({"text": "x"}, finish="STOP", usage=usage)))
    assert (msg.provider_data or {})["usage_metadata"] == {"totalTokenCount": 9}


def test_continuation_token_and_how_to_continue_E4() -> None:
    """``CONTINUATION``: the per-request token limit, not the end. The token is kept; the same
    request again with ``provider_options={"continuationToken": ...}`` gets the rest."""
    body = chunk({"text": "The first half"}, finish="CONTINUATION", usage={"promptTokenCount": 3})
    body["candidates"][0]["continuationToken"] = "Q09OVElOVUU="
    msg = final(sse(body))
    assert (msg.stop_reason, msg.raw_stop_reason) == ("length", "CONTINUATION")
    token = (msg.provider_data or {})["continuation_token"]
    assert token == "Q09OVElOVUU=" and not kinds(msg)
    context = llmkit.Context(messages=[llmkit.user("Write a long story")])
    again = _request(context, provider_options={"continuationToken": token})
    assert again["continuationToken"] == token
    assert again["contents"] == _request(context)["contents"]  # the same request


def test_part_fields_stay_with_their_part_and_go_back() -> None:
    """``partMetadata`` (or any other part field) on a thought, a text and a call is kept with
    its part and sent back on it, in place, to the same model only."""
    meta = {"source": "notes.txt"}
    parts: list[dict[str, Any]] = [
        {"text": "plan", "thought": True, "partMetadata": meta},
        {"text": "Hello", "partMetadata": {"stream": 2}},
        {**call("lookup", args={"q": 1}, id="c1"), "thoughtSignature": SIG_A, "partMetadata": meta},
    ]
    msg = final(sse(chunk(*parts[:2]), chunk(parts[2], finish="STOP", usage={})))
    assert (msg.thinking, msg.text, msg.tool_calls[0].arguments) == ("plan", "Hello", {"q": 1})
    assert msg.tool_calls[0].replay == {"thoughtSignature": SIG_A, "fields": {"partMetadata": meta}}
    context = llmkit.Context(messages=[llmkit.user("q"), msg, llmkit.user("go on")])
    assert _request(context)["contents"][1]["parts"] == parts
    other = llmkit.Model(provider="google", id="gemini-2.0-flash", api="gemini")
    assert "partMetadata" not in json.dumps(_request(context, other))


def test_output_only_part_fields_are_kept_not_sent() -> None:
    transcription = {"text": "hello there", "languageCode": "en"}
    part = {"text": "Hi", "audioTranscription": transcription}
    msg = final(sse(chunk(part, finish="STOP", usage={})))
    assert msg.text == "Hi"
    carrier = msg.content[0]
    assert isinstance(carrier, llmkit.ThinkingPart)
    assert carrier.replay == {
        "gemini": "signature",
        "next": True,
        "fields": {"audioTranscription": transcription},
    }
    context = llmkit.Context(messages=[llmkit.user("q"), msg, llmkit.user("go on")])
    assert _request(context)["contents"][1]["parts"] == [{"text": "Hi"}]


def test_vertex_citations_are_read() -> None:
    """Vertex names them ``citationMetadata.citations`` (AI Studio ``citationSources``)."""
    body = chunk({"text": "Water boils at 100 C."}, finish="STOP", usage={})
    source = {"startIndex": 0, "endIndex": 5, "uri": "https://example.org", "license": "CC"}
    body["candidates"][0]["citationMetadata"] = {"citations": [source]}
    msg = final(sse(body))
    (cited,) = msg.content[0].citations  # type: ignore[union-attr]
    assert (cited.url, cited.start, cited.end, cited.provider_data) == (
        "https://example.org",
        0,
        5,
        source,
    )


def test_unknown_fields_are_kept_and_reported() -> None:
    body = chunk({"text": "x"}, finish="STOP", usage={}, futureField={"a": 1})
    body["candidates"][0]["futureCandidateField"] = [1]
    body["candidates"][0]["content"]["role"] = "assistant"
    msg = final(sse(body))
    assert msg.provider_data is not None
    assert msg.provider_data["futureField"] == {"a": 1}
    assert msg.provider_data["futureCandidateField"] == [1]
    reported = " ".join(d.message for d in msg.diagnostics)
    assert "futureField" in reported and "futureCandidateField" in reported
    assert "'assistant'" in reported


def test_vertex_streamed_arguments_with_logprobs_and_part_fields_D8() -> None:
    """A call streamed as ``partialArgs`` chunks (QUIRKS D8) goes by a fast path that skips
    decoding chunks alike but for their fragment: chunks with log probabilities (joined, never
    the same) or a part field take the full path, and nothing of theirs is lost."""
    words = ["Rome", " is", " old", " and", " big"] * 8

    def fragment(n: int, word: str, **fields: Any) -> dict[str, Any]:
        piece = {"jsonPath": "$.city", "stringValue": word, "willContinue": n < len(words) - 1}
        body = chunk({**call(partialArgs=[piece], willContinue=True), **fields})
        body["candidates"][0]["logprobsResult"] = {
            "chosenCandidates": [{"token": "t", "logProbability": -0.5}],  # alike
            "logProbabilitySum": -0.5,
        }
        return body

    meta = {"partMetadata": {"lane": 1}}
    chunks = [
        chunk(call("find", willContinue=True)),
        *(fragment(n, w, **(meta if n == 20 else {})) for n, w in enumerate(words)),
        chunk(call(), finish="STOP", usage={"promptTokenCount": 3}),
    ]
    # Written compactly, as Vertex does: the fast path's shape.
    body = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\r\n\r\n" for c in chunks)
    msg = final(body.encode())
    (c,) = msg.tool_calls
    assert c.arguments == {"city": "".join(words)} and c.status == "complete"
    assert c.replay == {"fields": meta}
    joined = (msg.provider_data or {})["logprobs_result"]
    assert len(joined["chosenCandidates"]) == len(words)
    assert joined["logProbabilitySum"] == -0.5 * len(words)
