"""llmkit against the official ``google-genai`` SDK's response types, on generated streams.

Each body from :mod:`tests.wire.gemini.streams` (realistic AI Studio and Vertex streams, CRLF
framing) is cut at hypothesis-drawn byte offsets — inside multi-byte UTF-8 characters and
between the CR and LF of a CRLF too — and decoded by ``llmkit.parse_stream`` twice (two chunkings).
Independently, every SSE payload is validated with
``google.genai.types.GenerateContentResponse.model_validate_json`` (strict: the SDK's models
forbid unknown fields) and the SDK objects are merged here, part by part. The properties:

1. **Oracle**: llmkit's message equals the SDK-side merge: text, thinking, calls (name, args —
   Vertex ``partialArgs`` rebuilt from the SDK's ``PartialArg`` objects —, id, signature),
   every thought signature (base64 of the SDK's bytes) in order, finish reason and its
   mapping, usage, response id.
2. **Generator intent**: the SDK-side merge is what the generator meant (never vacuous).
3. **Replay**: the message built back into a request gives the parts Gemini sent, one to one,
   signatures in place (only the streaming split undone), valid for the SDK's ``Content``.
4. **Events**: ``Start`` first, one terminal event last; deltas join to the parts; argument
   deltas join to ``raw_arguments`` and every ``partial_arguments`` is a prefix-consistent
   view of the final arguments.
5. **Chunking does not matter**: both chunkings give the same events and message.

Reproducible (``derandomize=True``); ``LLMKIT_ORACLE_EXAMPLES`` sets the example count (the
default keeps the module well under 30 s).
"""

from __future__ import annotations

import base64
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

import llmkit
from llmkit._wire import gemini
from llmkit._wire.contract import Options
from tests.support.chunking import cut_points, split
from tests.support.oracle import oracle_examples, oracle_settings
from tests.wire.gemini.streams import GeminiStream, gemini_streams, generate_stream

MODEL = llmkit.Model(
    provider="google", id="gemini-2.5-flash", api="gemini", reasoning=True, input=["text", "image"]
)
EXAMPLES = oracle_examples(300)
SETTINGS = oracle_settings(EXAMPLES)
STOP = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
}


# --------------------------------------------------------------------------- the SDK side


@dataclass
class SdkCall:
    name: str
    id: str | None
    args: dict[str, Any]
    signature: str | None


@dataclass
class SdkView:
    """The stream as the google-genai SDK's types describe it, merged part by part."""

    text: str = ""
    thinking: str = ""
    calls: list[SdkCall] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
    finish: str | None = None
    usage: types.GenerateContentResponseUsageMetadata | None = None
    response_id: str | None = None


def _apply(root: dict[str, Any], arg: types.PartialArg) -> None:
    """Set one ``PartialArg`` into ``root``: strings at the same path are concatenated."""
    assert arg.json_path is not None and arg.json_path.startswith("$")
    keys: list[str | int] = []
    for piece in arg.json_path[2:].replace("]", "").replace("[", ".").split("."):
        keys.append(int(piece) if piece.isdigit() else piece)
    if arg.string_value is not None:
        value: Any = arg.string_value
    elif arg.number_value is not None:
        value = arg.number_value
    elif arg.bool_value is not None:
        value = arg.bool_value
    else:
        assert arg.null_value is not None
        value = None
    node: Any = root
    for key, nxt in itertools.pairwise(keys):
        empty: Any = [] if isinstance(nxt, int) else {}
        if isinstance(node, list):
            assert isinstance(key, int)
            if key == len(node):
                node.append(empty)
            node = node[key]
        else:
            node = node.setdefault(key, empty)
    last = keys[-1]
    if isinstance(node, list):
        assert isinstance(last, int)
        if last == len(node):
            node.append(value)
            return
        old = node[last]
        node[last] = old + value if isinstance(old, str) else value
    else:
        old = node.get(last)
        node[last] = old + value if isinstance(old, str) and isinstance(value, str) else value


def sdk_view(stream: GeminiStream) -> SdkView:
    view = SdkView()
    current: SdkCall | None = None
    events = [e for e in stream.body.split(b"\r\n\r\n") if e]
    for raw in events:
        assert raw.startswith(b"data: ")
        response = types.GenerateContentResponse.model_validate_json(raw[len(b"data: ") :])
        view.response_id = view.response_id or response.response_id
        if response.usage_metadata and response.usage_metadata.prompt_token_count is not None:
            view.usage = response.usage_metadata
        for candidate in response.candidates or []:
            assert candidate.index in (None, 0)
            for part in (candidate.content.parts if candidate.content else None) or []:
                sig = part.thought_signature
                if sig:
                    view.signatures.append(base64.b64encode(sig).decode())
                fc = part.function_call
                if fc is not None:
                    if fc.name:
                        current = SdkCall(
                            fc.name,
                            fc.id,
                            dict(fc.args or {}),
                            base64.b64encode(sig).decode() if sig else None,
                        )
                        view.calls.append(current)
                    for arg in fc.partial_args or []:
                        assert current is not None
                        _apply(current.args, arg)
                elif part.text is not None:
                    if part.thought:
                        view.thinking += part.text
                    else:
                        view.text += part.text
            if candidate.finish_reason is not None and view.finish is None:
                view.finish = candidate.finish_reason.value
    return view


# --------------------------------------------------------------------------- llmkit side


def run(body: bytes, cuts: tuple[int, ...]) -> list[llmkit.Event]:
    return list(llmkit.parse_stream(MODEL, iter(split(body, cuts))))


def signatures(message: llmkit.AssistantMessage) -> list[str]:
    out = []
    for part in message.content:
        if isinstance(part, llmkit.ToolCall) and part.replay:
            out.append(part.replay["thoughtSignature"])
        elif isinstance(part, llmkit.ThinkingPart) and part.signature:
            out.append(part.signature)
    return out


def check_oracle(stream: GeminiStream, message: llmkit.AssistantMessage, view: SdkView) -> None:
    assert message.text == view.text
    assert message.thinking == view.thinking
    assert signatures(message) == view.signatures
    assert message.response_id == view.response_id
    calls = message.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [(v.name, v.args) for v in view.calls]
    for call, want in zip(calls, view.calls, strict=True):
        assert call.status == "complete"
        assert (call.replay or {}).get("thoughtSignature") == want.signature
        if want.id:
            assert (call.id, call.provider_id) == (want.id, None)
        else:
            assert call.id.startswith("call_") and call.provider_id == ""
    assert len({c.id for c in calls}) == len(calls)
    assert message.raw_stop_reason == view.finish
    expected_stop = STOP[view.finish or "STOP"]
    if expected_stop == "stop" and calls:
        expected_stop = "tool_use"  # STOP with calls (QUIRKS E1)
    assert message.stop_reason == expected_stop
    usage = view.usage
    assert usage is not None
    assert message.usage.input == usage.prompt_token_count
    assert message.usage.output == (usage.candidates_token_count or 0) + (
        usage.thoughts_token_count or 0
    )
    assert message.usage.reasoning == usage.thoughts_token_count
    assert message.usage.cache_read == usage.cached_content_token_count
    if view.finish == "MALFORMED_FUNCTION_CALL":
        assert any(d.kind == "tool_arguments_invalid" for d in message.diagnostics)


def check_intent(stream: GeminiStream, view: SdkView) -> None:
    assert view.text == stream.text and view.thinking == stream.thinking
    assert [(c.name, c.id, c.args, c.signature) for c in view.calls] == [
        (c.name, c.id, c.args, c.signature) for c in stream.calls
    ]
    assert tuple(view.signatures) == stream.signatures
    assert view.finish == stream.finish_reason


def check_events(events: list[llmkit.Event]) -> None:
    assert isinstance(events[0], llmkit.Start)
    ends = [i for i, e in enumerate(events) if isinstance(e, (llmkit.Done, llmkit.ErrorEvent))]
    assert ends == [len(events) - 1]
    last = events[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    message = last.message
    assert "".join(e.delta for e in events if isinstance(e, llmkit.TextDelta)) == message.text
    thinking = "".join(e.delta for e in events if isinstance(e, llmkit.ThinkingDelta))
    assert thinking == message.thinking
    for index, part in enumerate(message.content):
        if not isinstance(part, llmkit.ToolCall):
            continue
        deltas = [e for e in events if isinstance(e, llmkit.ToolCallDelta) and e.index == index]
        assert "".join(d.arguments_delta for d in deltas) == part.raw_arguments
        for delta in deltas:
            assert delta.id == part.id
            _prefix_consistent(delta.partial_arguments, part.arguments)


def _prefix_consistent(partial: Any, final: Any) -> None:
    """A partial value is the final one with a suffix missing: every key present has a value
    that is itself a prefix of the final value (strings: prefixes; lists: leading items)."""
    if isinstance(final, dict):
        assert isinstance(partial, dict)
        assert list(partial) == list(final)[: len(partial)]
        for key, value in partial.items():
            _prefix_consistent(value, final[key])
    elif isinstance(final, list):
        assert isinstance(partial, list) and len(partial) <= len(final)
        for a, b in zip(partial, final[: len(partial)], strict=True):
            _prefix_consistent(a, b)
    elif isinstance(final, str):
        assert isinstance(partial, str) and final.startswith(partial)
    elif partial is not None:
        assert partial == final or isinstance(final, (int, float))


def expected_replay(stream: GeminiStream) -> list[dict[str, Any]]:
    """The model turn Gemini should get back: its parts one to one, signatures in place, with
    only the streaming split undone (consecutive unsigned text or thought parts join; a signed
    part is never merged into another, QUIRKS F2)."""
    out: list[dict[str, Any]] = []
    open_kind: str | None = None  # "text" / "thought" while the last part may grow
    calls = iter(stream.calls)
    for chunk in stream.chunks:
        for part in chunk["candidates"][0].get("content", {}).get("parts", []):
            sig = part.get("thoughtSignature")
            if "functionCall" in part:
                open_kind = None
                if part["functionCall"].get("name"):
                    spec = next(calls)
                    fc: dict[str, Any] = {"name": spec.name, "args": spec.args}
                    if spec.id:
                        fc["id"] = spec.id
                    out.append({"functionCall": fc, **({"thoughtSignature": sig} if sig else {})})
                continue
            text = part["text"]
            if part.get("thought"):
                if open_kind == "thought":
                    out[-1]["text"] += text
                else:
                    out.append({"text": text, "thought": True})
                if sig:
                    out[-1]["thoughtSignature"] = sig
                open_kind = None if sig else "thought"
            elif sig:
                out.append({"text": text, "thoughtSignature": sig})
                open_kind = "text" if text else None
            elif text:
                if open_kind == "text":
                    out[-1]["text"] += text
                else:
                    out.append({"text": text})
                open_kind = "text"
    return out


def check_replay(stream: GeminiStream, message: llmkit.AssistantMessage) -> None:
    """Sent back to the same model, the turn is the parts Gemini sent (QUIRKS F2, B4)."""
    results = [llmkit.tool_result(c, "ok") for c in message.tool_calls]
    context = llmkit.Context(messages=[llmkit.user("q"), message, *results])
    body, diags = gemini.build(MODEL, context, Options(), stream=True)
    assert not diags
    turns = [c for c in body["contents"] if c["role"] == "model"]
    parts = turns[0]["parts"] if turns else []
    assert parts == expected_replay(stream)
    for content in body["contents"]:
        types.Content.model_validate_json(json.dumps(content))


@SETTINGS
@given(st.data())
def test_llmkit_matches_the_google_genai_sdk(data: st.DataObject) -> None:
    stream = data.draw(gemini_streams())
    view = sdk_view(stream)
    check_intent(stream, view)
    first = run(stream.body, data.draw(cut_points(stream.body)))
    second = run(stream.body, data.draw(cut_points(stream.body)))
    check_events(first)
    last = first[-1]
    assert isinstance(last, (llmkit.Done, llmkit.ErrorEvent))
    check_oracle(stream, last.message, view)
    if stream.finish_reason != "MALFORMED_FUNCTION_CALL":
        check_replay(stream, last.message)
    assert [type(e) for e in first] == [type(e) for e in second]
    other = second[-1]
    assert isinstance(other, (llmkit.Done, llmkit.ErrorEvent))
    assert other.message.model_dump() == last.message.model_dump()


def test_seeded_generator_is_deterministic_and_sdk_valid() -> None:
    # The benchmark front end gives the same bytes for a seed, and they are valid too.
    for seed in range(20):
        stream = generate_stream(seed)
        assert generate_stream(seed).body == stream.body
        check_intent(stream, sdk_view(stream))
