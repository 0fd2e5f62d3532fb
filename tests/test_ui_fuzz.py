"""Hostile ``UIMessage`` JSON (a browser sends it): ``from_ui_messages`` and ``approvals``
answer with a ``Context`` or an ``InvalidRequestError``, never another exception."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import llmkit
from llmkit.ui import Approval, approvals, from_ui_messages

KEYS = [
    "id", "role", "parts", "type", "text", "state", "toolCallId", "toolName", "input",
    "output", "errorText", "approval", "approved", "reason", "data", "message", "content",
    "ui", "raw_arguments", "arguments", "status", "provider_id", "replay", "signature",
    "redacted", "citations", "mediaType", "url", "filename", "providerMetadata",
    "resultProviderMetadata", "callProviderMetadata", "llmkit", "index", "tool_name",
    "stop_reason", "provider", "api", "model", "thinking", "__proto__",
]  # fmt: skip
TYPES = [
    "text", "reasoning", "file", "step-start", "tool-get_weather", "tool-", "dynamic-tool",
    "data-llmkit", "data-x", "source-url", "source-document", "tool_call", "thinking",
]  # fmt: skip
STATES = [
    "input-streaming", "input-available", "approval-requested", "approval-responded",
    "output-available", "output-error", "output-denied", "done",
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),  # NaN and infinities too: Python's json reads them
    st.text(max_size=12),
    st.text(st.characters(min_codepoint=0xD7FE, max_codepoint=0xE001), min_size=1, max_size=3),
    st.sampled_from([*TYPES, *STATES, "system", "user", "assistant", "data:image/png;base64,"]),
    st.sampled_from(["https://x.test/a.png", "data:image/png;base64,iVBORw0KGgo=", "{}", "{"]),
)


def _nested(value: Any, depth: int) -> Any:
    for n in range(depth):
        value = [value] if n % 2 else {"data": value}
    return value


json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=5)), inner, max_size=5),
        st.builds(_nested, inner, st.integers(90, 1500)),  # past MAX_DEPTH, past recursion
    ),
    max_leaves=20,
)

VALID: list[Any] = [
    {"id": "s", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
    {
        "id": "u",
        "role": "user",
        "parts": [
            {"type": "text", "text": "Hi"},
            {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,iVBORw0KGgo="},
        ],
    },
    {
        "id": "a",
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "Hmm", "state": "done"},
            {"type": "text", "text": "Sure", "state": "done"},
            {
                "type": "tool-get_weather",
                "toolCallId": "c1",
                "state": "output-available",
                "input": {"city": "Paris"},
                "output": "Sunny",
                "resultProviderMetadata": {"llmkit": {"index": 0}},
            },
            {
                "type": "tool-get_weather",
                "toolCallId": "c2",
                "state": "approval-responded",
                "input": {},
                "approval": {"id": "ap", "approved": False, "reason": "no"},
            },
            {
                "type": "data-llmkit",
                "data": {
                    "message": {"stop_reason": "tool_use", "provider": "p", "api": "gemini"},
                    "content": [
                        {"type": "thinking", "ui": 0, "signature": "s"},
                        {"type": "text", "ui": 0, "citations": [{"url": "https://x.test"}]},
                        {"type": "tool_call", "id": "c1", "raw_arguments": '{"city":"Paris"}'},
                        {"type": "tool_call", "id": "c2", "raw_arguments": "{}"},
                    ],
                },
            },
        ],
    },
]


WEATHER = llmkit.Tool(name="get_weather", parameters={"type": "object", "properties": {}})
MODELS = [
    llmkit.Model(provider="fake", id="m", api=api, base_url="http://127.0.0.1:9")
    for api in (
        "openai-chat",
        "openai-responses",
        "anthropic-messages",
        "gemini",
        "bedrock-converse",
    )
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*path, i))
    return out


PATHS = _paths(VALID)


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return out


def _survives(messages: Any) -> None:
    diagnostics: list[llmkit.Diagnostic] = []
    refused = ""
    try:
        context = from_ui_messages(messages, diagnostics=diagnostics)
    except llmkit.InvalidRequestError as error:
        refused = str(error)
    else:
        assert isinstance(context, llmkit.Context)
        context.model_dump_json()  # whatever came in, the result is a sound Context ...
        context.tools = [WEATHER]
        for model in MODELS:  # ... that every wire either sends or refuses, typed
            with contextlib.suppress(llmkit.InvalidRequestError):
                llmkit.build_request(model, context, api_key="k")
    assert refused == "" or refused.startswith("UI message history")
    try:
        found = approvals(messages)
    except llmkit.InvalidRequestError:
        pass
    else:
        assert all(isinstance(a, Approval) for a in found.values())


def test_the_valid_history_is_taken() -> None:
    context = from_ui_messages(VALID)
    assert len(context.messages) == 3  # user, assistant, one result (the other awaits approval)
    assert set(approvals(VALID)) == {"c2"}


@given(st.sampled_from(PATHS), json_values)
def test_any_value_anywhere_in_a_valid_history_is_taken_or_refused(
    path: tuple[Any, ...], value: Any
) -> None:
    _survives(_replace(VALID, path, value))


@given(st.sampled_from(PATHS))
def test_any_key_or_item_removed_is_taken_or_refused(path: tuple[Any, ...]) -> None:
    if not path:
        return
    broken = copy.deepcopy(VALID)
    target = broken
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    _survives(broken)


@given(json_values)
def test_arbitrary_json_is_taken_or_refused(value: Any) -> None:
    _survives(value)
    _survives([value])
    _survives([{"id": "m", "role": "assistant", "parts": [value]}])


HOSTILE: list[Any] = [
    "\ud800",  # json.loads makes a lone surrogate of the escape "\ud800"
    "ok \udfff",
    {"\udbff": 1},
    float("nan"),
    float("inf"),
    -float("inf"),
    _nested("deep", 101),  # just past MAX_DEPTH
    _nested("deep", 5000),  # past Python's recursion limit
    10**400,
    {1: "a non-string key"},
    b"bytes",
    {"a set": {1, 2}},
]


def test_every_hostile_value_at_every_place_is_refused_or_sound() -> None:
    """Deterministic, exhaustive: what hypothesis meets only by luck (values Python's json
    reads but cannot write back, nesting that exhausts recursion) at every place of a history."""
    refused = 0
    for path in PATHS:
        for n, value in enumerate(HOSTILE):
            try:
                _survives(_replace(VALID, path, value))
            except Exception as error:
                raise AssertionError(f"{path} = HOSTILE[{n}]") from error
            try:
                from_ui_messages(_replace(VALID, path, value))
            except llmkit.InvalidRequestError:
                refused += 1
    assert refused > len(PATHS) * 5  # most of them are refused outright
