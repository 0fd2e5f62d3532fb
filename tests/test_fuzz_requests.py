"""Fuzzing the request side with hypothesis: random valid Contexts to every wire API.

:func:`contexts` draws valid conversations: a system prompt or not; user turns with text and
images (PNG bytes, ``data:`` and ``https`` URLs); assistant turns as if decoded from any of the
four wires' providers (``provider``/``api``/``model`` set, sometimes exactly the target model so
replay data is sent back) with text, thinking carrying each wire's replay data (Anthropic
signatures, redacted thinking and server-tool blocks; Responses reasoning items; Gemini thought
signatures and signature carriers), and tool calls whose ids come in many formats (``call_…``,
``toolu_…``, Mistral's 9 characters, Kimi's ``functions.f:0``, 80-character Responses compound
ids, unicode, and empty-looking but valid ids such as ``" "``, ``"0"`` or ``"\\u200b"``), each
turn's calls answered (in any order) or not by tool results with text, images and ``is_error``;
tools with random valid JSON-schema parameters (nested objects, arrays, enums, ``$defs``/``$ref``
including a recursive one, optional fields, strict or not); and random options. The production
features (docs/design.md §5) are drawn too: documents (PDF bytes, ``data:`` and ``https`` URLs, text
documents with a title) and cache points in user turns and tool results, provider-hosted tools
for every wire next to the function tools, hosted-tool output blocks (Responses items, Gemini
code-execution parts), and the ``cache``, ``cache_key``, ``stream_tool_arguments`` options.

For each wire, ``build_request`` must either raise ``InvalidRequestError`` for a documented
reason (a strict tool the model cannot honour or strict mode cannot express, ``tool_choice``
naming an undeclared tool) or build a body that the official SDK's request types accept (the
validators of the per-wire request tests), in which every call is answered by a result before
the next turn, call and result ids match and fit the target's grammar (Anthropic, Gemini and
Responses ``^[a-zA-Z0-9_-]{1,64}$``, OpenAI Chat at most 40 characters, Mistral exactly 9
alphanumerics), images to a text-only model and PDFs to a model without ``"pdf"`` are
placeholders (reported), no cache-point marker leaks, Anthropic gets at most 4 breakpoints and
none on an empty block, a provider tool reaches only its own wire, unanswered calls are
reported, the same context gives the same request (also after a JSON round trip of the
context), and the context and options are left unmodified.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmkit
from llmkit._diagnostics import DIAGNOSTIC_KINDS
from llmkit._fake.checks import refusal
from tests.support.fuzzing import fuzz
from tests.support.helpers import consume
from tests.support.sdk import ANTHROPIC_PARAMS, CHAT_PARAMS, RESPONSES_PARAMS, validate_gemini

# --------------------------------------------------------------------------- target models

TARGETS: dict[str, dict[str, llmkit.Model]] = {
    "openai-chat": {
        "openai": llmkit.Model(
            provider="openai",
            id="gpt-4o",
            api="openai-chat",
            input=["text", "image"],
            strict_tools=True,
        ),
        "gpt-6.1-terra": llmkit.get_model("openai", "gpt-6.1-terra"),
        "mistral": llmkit.get_model("mistral", "mistral-large-4"),
        "deepseek": llmkit.get_model("deepseek", "deepseek-v4-pro"),
        "groq": llmkit.get_model("groq", "llama-3.3-70b-versatile"),
        "openrouter": llmkit.get_model("openrouter", "anthropic/claude-sonnet-5.5"),
        "vllm": llmkit.Model(
            provider="vllm", id="qwen3", api="openai-chat", base_url="http://127.0.0.1:8000/v1"
        ),
    },
    "openai-responses": {
        "gpt-5": llmkit.Model(
            provider="openai",
            id="gpt-5",
            api="openai-responses",
            reasoning=True,
            strict_tools=True,
            input=["text", "image"],
        ),
        "gpt-6.1-sol": llmkit.get_model("openai", "gpt-6.1-sol"),
        "lmstudio": llmkit.Model(
            provider="lmstudio",
            id="glm-4.7-flash",
            api="openai-responses",
            base_url="http://127.0.0.1:1234/v1",
            compat={"supports_strict": False},
        ),
    },
    "anthropic-messages": {
        "sonnet-4-5": llmkit.Model(
            provider="anthropic",
            id="claude-sonnet-4-5",
            api="anthropic-messages",
            max_output_tokens=64000,
            reasoning=True,
            input=["text", "image"],
        ),
        "sonnet-4-6": llmkit.Model(
            provider="anthropic",
            id="claude-sonnet-4-6",
            api="anthropic-messages",
            max_output_tokens=64000,
            reasoning=True,
            strict_tools=True,
            input=["text", "image", "pdf"],
        ),
        "sonnet-5-5": llmkit.get_model("anthropic", "claude-sonnet-5-5"),
        "proxy": llmkit.Model(
            provider="proxy",
            id="claude-x",
            api="anthropic-messages",
            base_url="http://127.0.0.1:9/v1",
        ),
    },
    "gemini": {
        "2.5-flash": llmkit.Model(
            provider="google",
            id="gemini-2.5-flash",
            api="gemini",
            reasoning=True,
            input=["text", "image"],
        ),
        "3-pro": llmkit.Model(
            provider="google",
            id="gemini-3-pro-preview",
            api="gemini",
            reasoning=True,
            strict_tools=True,
            input=["text", "image"],
        ),
        "2.0-flash": llmkit.Model(provider="google", id="gemini-2.0-flash", api="gemini"),
        "3.8-flash": llmkit.get_model("google", "gemini-3.8-flash"),
    },
    "bedrock-converse": {
        "claude": llmkit.Model(
            provider="bedrock",
            id="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            api="bedrock-converse",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
            reasoning=True,
            strict_tools=True,
            max_output_tokens=64000,
            input=["text", "image"],
        ),
        "nova": llmkit.Model(
            provider="bedrock",
            id="us.amazon.nova-micro-v1:0",
            api="bedrock-converse",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
        ),
    },
}
WIRES = sorted(TARGETS)
# Where assistant turns come from: every target, plus models no target is.
_OTHER_SOURCES = {
    ("moonshot", "openai-chat", "kimi-k2"),
    ("openai", "openai-responses", "gpt-5-mini"),
    ("anthropic", "anthropic-messages", "claude-opus-4-1"),
    ("google", "gemini", "gemini-3-flash"),
}
SOURCES: list[tuple[str | None, str | None, str | None]] = [
    *sorted(
        {(m.provider, m.api, m.id) for models in TARGETS.values() for m in models.values()}
        | _OTHER_SOURCES,
        key=str,
    ),
    (None, None, None),
]


# --------------------------------------------------------------------------- small values

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde"
)
PNG_B64 = base64.b64encode(PNG).decode()
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
IMAGE_URL = "https://example.com/fuzz/cat.png"
IMAGES = st.sampled_from(
    [
        PNG,
        JPEG,
        IMAGE_URL,
        "https://example.com/fuzz/photo.jpeg?size=2",
        f"data:image/png;base64,{PNG_B64}",
        llmkit.ImagePart(url="https://example.com/fuzz/diagram", media_type="image/webp"),
    ]
)
PDF = b"%PDF-1.7\n%fuzz\n"
PDF_B64 = base64.b64encode(PDF).decode()
PDF_URL = "https://example.org/fuzz/paper.pdf"
DOCUMENTS = st.sampled_from(
    [
        PDF,
        PDF_URL,
        f"data:application/pdf;base64,{PDF_B64}",
        llmkit.DocumentPart(data=PDF_B64, title="report.pdf"),
        llmkit.DocumentPart(text="plain notes", media_type="text/markdown", title="notes.md"),
        llmkit.DocumentPart(text="no title"),
    ]
)
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list('{}[]":\\ \n\u2028é😀<>')),
    ),
    max_size=24,
)
B64 = st.binary(min_size=1, max_size=24).map(lambda b: base64.b64encode(b).decode())
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
TOOL_NAME_CHARS = ALNUM + "_-"
TOOL_NAMES = st.one_of(
    st.sampled_from(["get_weather", "get_time", "search", "run-code", "f", "x" * 64]),
    st.text(alphabet=TOOL_NAME_CHARS, min_size=1, max_size=64),
)


def _alnum(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=ALNUM, min_size=n, max_size=n)


CALL_IDS = st.one_of(
    _alnum(24).map(lambda s: f"call_{s}"),  # OpenAI
    _alnum(22).map(lambda s: f"toolu_01{s}"),  # Anthropic
    _alnum(9),  # Mistral
    st.tuples(TOOL_NAMES, st.integers(0, 99)).map(lambda t: f"functions.{t[0]}:{t[1]}"),  # Kimi
    st.tuples(_alnum(24), _alnum(48)).map(lambda t: f"call_{t[0]}|fc_{t[1]}"),  # Responses, 80
    st.sampled_from(["0", "1", "_", "-", " ", "\u200b", "null", "None", "call_", "x" * 65]),
    st.text(min_size=1, max_size=100).filter(lambda s: "\x00" not in s),
)


# --------------------------------------------------------------------------- JSON schemas

FORMATS = ["date-time", "email", "uri", "uuid", "date"]


@st.composite
def schema(draw: st.DrawFn, depth: int, defs: tuple[str, ...]) -> dict[str, Any]:
    """A valid JSON Schema for one value (``defs``: names ``$ref`` may point at)."""
    kinds = ["string", "integer", "number", "boolean", "enum", "nullable", "const"]
    if depth < 3:
        kinds += ["object", "object", "array", "array", "anyOf"]
    if defs:
        kinds += ["ref", "ref"]
    kind = draw(st.sampled_from(kinds))
    s: dict[str, Any]
    if kind == "string":
        s = {"type": "string"}
        if draw(st.booleans()):
            s["format"] = draw(st.sampled_from(FORMATS))
        if draw(st.booleans()):
            s["maxLength"] = draw(st.integers(1, 100))
        if draw(st.integers(0, 4)) == 0:
            s["pattern"] = "^[a-z]+$"
    elif kind in ("integer", "number"):
        s = {"type": kind}
        if draw(st.booleans()):
            s["minimum"] = draw(st.integers(-10, 0))
        if draw(st.booleans()):
            s["exclusiveMaximum"] = draw(st.integers(1, 100))
    elif kind == "boolean":
        s = {"type": "boolean"}
    elif kind == "enum":
        values = draw(
            st.lists(
                st.one_of(TEXT, st.integers(-5, 5), st.none()), min_size=1, max_size=4, unique=True
            )
        )
        s = {"enum": values}
        if all(isinstance(v, str) for v in values) and draw(st.booleans()):
            s["type"] = "string"
    elif kind == "nullable":
        s = {"type": [draw(st.sampled_from(["string", "integer", "number", "boolean"])), "null"]}
    elif kind == "const":
        s = {"const": draw(st.one_of(TEXT, st.integers(-3, 3), st.booleans()))}
    elif kind == "object":
        s = draw(object_schema(depth + 1, defs))
    elif kind == "array":
        s = {"type": "array", "items": draw(schema(depth + 1, defs))}
        if draw(st.booleans()):
            s["minItems"] = draw(st.integers(0, 3))
    elif kind == "anyOf":
        s = {"anyOf": draw(st.lists(schema(depth + 1, defs), min_size=1, max_size=3))}
    else:
        s = {"$ref": f"#/$defs/{draw(st.sampled_from(defs))}"}
    if kind != "ref" and draw(st.integers(0, 3)) == 0:
        s["description"] = draw(TEXT)
    return s


@st.composite
def object_schema(draw: st.DrawFn, depth: int, defs: tuple[str, ...]) -> dict[str, Any]:
    names = draw(
        st.lists(st.text(alphabet=ALNUM + "_ é", min_size=1, max_size=12), max_size=4, unique=True)
    )
    props = {n: draw(schema(depth, defs)) for n in names}
    s: dict[str, Any] = {"type": "object", "properties": props}
    required = [n for n in names if draw(st.booleans())]
    if required:
        s["required"] = required
    extra = draw(st.sampled_from(["none", "none", "false", "schema"]))
    if extra == "false":
        s["additionalProperties"] = False
    elif extra == "schema":
        s["additionalProperties"] = {"type": "string"}  # a free-form dict: not strict-able
    return s


@st.composite
def parameters(draw: st.DrawFn) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for name in draw(
        st.lists(st.sampled_from(["Address", "Item", "Mode", "Point"]), max_size=2, unique=True)
    ):
        defs[name] = draw(object_schema(1, tuple(defs)))  # may refer to earlier definitions
    if draw(st.integers(0, 5)) == 0:  # a recursive definition
        defs["Node"] = {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["label"],
        }
    root = draw(object_schema(0, tuple(defs)))
    if defs:
        root["$defs"] = defs
    return root


@st.composite
def tools(draw: st.DrawFn) -> list[llmkit.Tool]:
    """Tools with unique names. Built with ``model_construct``: ``Tool()`` checks the schema
    against the metaschema (about 25 ms a tool, which would dominate the run); the schemas are
    valid by construction, and :func:`test_generated_contexts_are_valid` checks that through
    ``Tool()``."""
    names = draw(st.lists(TOOL_NAMES, max_size=3, unique=True))
    declared: list[Any] = [
        llmkit.Tool.model_construct(
            name=n,
            description=draw(st.one_of(st.just(""), TEXT)),
            parameters=draw(parameters()),
            strict=draw(st.integers(0, 4)) == 0,
        )
        for n in names
    ]
    hosted = draw(st.lists(st.sampled_from(PROVIDER_TOOLS), max_size=2, unique_by=lambda t: t.api))
    for t in hosted:  # provider tools anywhere among the function tools
        declared.insert(draw(st.integers(0, len(declared))), t)
    return declared


PROVIDER_TOOLS = [
    llmkit.ProviderTool(
        "anthropic-messages", {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}
    ),
    llmkit.ProviderTool("openai-responses", {"type": "web_search"}),
    llmkit.ProviderTool("openai-chat", {"type": "custom", "custom": {"name": "grammar_tool"}}),
    llmkit.ProviderTool("gemini", {"google_search": {}}),
]


# --------------------------------------------------------------------------- messages


@st.composite
def user_messages(draw: st.DrawFn) -> llmkit.UserMessage:
    message = llmkit.user(
        draw(TEXT),
        draw(st.lists(IMAGES, max_size=2)),
        draw(st.lists(DOCUMENTS, max_size=2)),
    )
    for _ in range(draw(st.integers(0, 2))):  # cache points anywhere, even first or twice
        message.content.insert(draw(st.integers(0, len(message.content))), llmkit.CachePoint())
    return message


def result_content() -> st.SearchStrategy[list[Any]]:
    text = TEXT.map(lambda t: llmkit.TextPart(text=t))
    document = DOCUMENTS.map(lambda d: llmkit.user("", documents=[d]).content[1])
    cache = st.just(llmkit.CachePoint())
    return st.lists(
        st.one_of(text, text, text, IMAGES.map(_image_part), document, cache), max_size=4
    )


def _image_part(image: Any) -> llmkit.ImagePart:
    return llmkit.user("", images=[image]).content[1]  # type: ignore[return-value]


@st.composite
def thinking_parts(draw: st.DrawFn, api: str | None) -> list[llmkit.ThinkingPart]:
    """Thinking as the wire ``api`` would have decoded it, replay data included."""
    text = draw(TEXT)
    if api == "anthropic-messages":
        kind = draw(st.sampled_from(["signed", "signed", "unsigned", "redacted", "server"]))
        if kind == "signed":
            return [llmkit.ThinkingPart(thinking=text, signature=draw(B64))]
        if kind == "unsigned":  # an interrupted stream left no signature
            return [llmkit.ThinkingPart(thinking=text)]
        if kind == "redacted":
            return [llmkit.ThinkingPart(redacted=True, replay={"data": draw(B64)})]
        tool_id = "srvtoolu_" + draw(_alnum(12))
        use = {
            "type": "server_tool_use",
            "id": tool_id,
            "name": "web_search",
            "input": {"query": draw(TEXT)},
        }
        result = {
            "type": "web_search_tool_result",
            "tool_use_id": tool_id,
            "content": [
                {
                    "type": "web_search_result",
                    # a page, not an image: replayed as it came, where the image check
                    # below looks for the images' own URLs
                    "url": "https://example.net/search/result",
                    "title": draw(TEXT),
                    "encrypted_content": draw(B64),
                    "page_age": None,
                }
            ],
        }
        return [
            llmkit.ThinkingPart(replay={"block": use}),
            llmkit.ThinkingPart(replay={"block": result}),
        ]
    if api == "openai-responses":
        if draw(st.integers(0, 3)) == 0:  # a hosted tool's item (web search), done or cut
            status = draw(st.sampled_from(["completed", "completed", "in_progress"]))
            item = {
                "type": "web_search_call",
                "id": "ws_" + draw(_alnum(16)),
                "status": status,
                "action": {"type": "search", "query": draw(TEXT)},
            }
            return [llmkit.ThinkingPart(replay={"item": item})]
        replay: dict[str, Any] = {
            "id": "rs_" + draw(_alnum(16)),
            "summary": [{"type": "summary_text", "text": text}] if text else [],
        }
        if draw(st.integers(0, 3)):
            replay["encrypted_content"] = "gAAAA" + draw(B64)
        return [llmkit.ThinkingPart(thinking=text, replay=replay)]
    if api == "gemini":
        kind = draw(st.sampled_from(["thought", "thought", "carrier", "carrier_next", "hosted"]))
        if kind == "hosted":  # code execution's parts, kept whole (signature inside)
            code = {"executableCode": {"language": "PYTHON", "code": draw(TEXT)}}
            result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": draw(TEXT)}}
            return [
                llmkit.ThinkingPart(replay={"gemini": "part", "part": code}),
                llmkit.ThinkingPart(replay={"gemini": "part", "part": result}),
            ]
        if kind == "thought":
            return [llmkit.ThinkingPart(thinking=text, signature=draw(st.one_of(st.none(), B64)))]
        carrier: dict[str, Any] = {"gemini": "signature"}
        if kind == "carrier_next":
            carrier["next"] = True
        return [llmkit.ThinkingPart(thinking="", signature=draw(B64), replay=carrier)]
    return [llmkit.ThinkingPart(thinking=text)]


@st.composite
def tool_calls(
    draw: st.DrawFn, api: str | None, names: list[str], used: set[str]
) -> llmkit.ToolCall:
    call_id = draw(CALL_IDS)
    while call_id in used:  # unique in the conversation
        call_id += "_"
    used.add(call_id)
    name = draw(st.one_of(st.sampled_from(names), TOOL_NAMES) if names else TOOL_NAMES)
    arguments = draw(
        st.dictionaries(
            st.text(max_size=6),
            st.one_of(
                TEXT, st.integers(), st.booleans(), st.none(), st.lists(st.integers(), max_size=3)
            ),
            max_size=3,
        )
    )
    raw = json.dumps(arguments, ensure_ascii=draw(st.booleans()))
    status = draw(st.sampled_from(["complete", "complete", "complete", "recovered", "invalid"]))
    if status == "recovered":
        raw = raw[: max(1, len(raw) - 1)]
    elif status == "invalid":
        raw, arguments = draw(TEXT), {}
    replay: dict[str, Any] | None = None
    if api == "gemini" and draw(st.booleans()):
        replay = {"thoughtSignature": draw(B64)}
    elif api == "openai-responses":
        if draw(st.integers(0, 4)) == 0:
            replay = {"item_id": "ctc_" + draw(_alnum(12)), "type": "custom_tool_call"}
            raw, arguments, status = draw(TEXT), {}, "invalid"
        elif draw(st.booleans()):
            replay = {"item_id": "fc_" + draw(_alnum(16))}
    elif api == "anthropic-messages" and draw(st.integers(0, 4)) == 0:
        replay = {
            "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_" + draw(_alnum(8))}
        }
    elif api == "openai-chat" and draw(st.integers(0, 4)) == 0:
        replay = {"extra_content": {"google": {"thought_signature": draw(B64)}}}
    provider_id = draw(st.sampled_from([None, None, None, ""]))  # "": llmkit synthesised the id
    return llmkit.ToolCall(
        id=call_id,
        name=name,
        arguments=arguments,
        raw_arguments=raw,
        status=status,
        provider_id=provider_id,
        replay=replay,
    )


@st.composite
def assistant_turn(draw: st.DrawFn, names: list[str], used: set[str]) -> llmkit.AssistantMessage:
    provider, api, model_id = draw(st.sampled_from(SOURCES))
    parts: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        parts.extend(draw(thinking_parts(api)))
    parts.extend(llmkit.TextPart(text=draw(TEXT)) for _ in range(draw(st.integers(0, 2))))
    parts.extend(draw(tool_calls(api, names, used)) for _ in range(draw(st.integers(0, 3))))
    if draw(st.integers(0, 3)) == 0:
        parts = list(draw(st.permutations(parts)))
    calls = any(isinstance(p, llmkit.ToolCall) for p in parts)
    provider_data = None
    if api == "openai-responses" and draw(st.booleans()):
        texts = sum(isinstance(p, llmkit.TextPart) for p in parts)
        provider_data = {
            "message_phases": draw(
                st.lists(
                    st.sampled_from(["commentary", "final_answer", None]),
                    min_size=texts,
                    max_size=texts,
                )
            )
        }
    elif api == "openai-chat" and draw(st.integers(0, 3)) == 0:
        provider_data = {
            "reasoning_details": [{"type": "reasoning.text", "text": draw(TEXT), "index": 0}]
        }
    return llmkit.AssistantMessage(
        content=parts,
        stop_reason="tool_use"
        if calls
        else draw(st.sampled_from(["stop", "length", "error", "aborted"])),
        provider=provider,
        api=api,
        model=model_id,
        usage=llmkit.Usage(input=draw(st.integers(0, 9999)), output=draw(st.integers(0, 9999))),
        provider_data=provider_data,
    )


@st.composite
def contexts(draw: st.DrawFn) -> llmkit.Context:
    """A valid conversation: turns alternate, and each assistant turn's calls are answered (in
    any order) by results right after it, or some of them are left unanswered."""
    declared = draw(tools())
    names = [t.name for t in declared if isinstance(t, llmkit.Tool)]
    used: set[str] = set()
    messages: list[Any] = [draw(user_messages())]
    for _ in range(draw(st.integers(0, 4))):
        turn = draw(assistant_turn(names, used))
        messages.append(turn)
        calls = turn.tool_calls
        answered = [c for c in calls if draw(st.integers(0, 5))]  # most are answered
        if answered:
            answered = list(draw(st.permutations(answered)))
        for call in answered:
            messages.append(
                llmkit.ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=draw(result_content()),
                    is_error=draw(st.booleans()),
                )
            )
        if not answered or draw(st.booleans()):
            messages.append(draw(user_messages()))
    system = draw(st.one_of(st.none(), st.just(""), TEXT))
    # model_construct: Context() would re-run each tool's metaschema check (see tools());
    # test_generated_contexts_are_valid validates a sample the normal way.
    return llmkit.Context.model_construct(system=system, messages=messages, tools=declared)


@fuzz(ci=10, cap=200)  # a check of the strategy, slow (real Tool validation): kept small
@given(context=contexts())
def test_generated_contexts_are_valid(context: llmkit.Context) -> None:
    """The strategy only makes valid Contexts (tools through the real ``Tool()`` checks), and
    they survive the durable-transcript round trip."""
    copy = llmkit.Context.model_validate_json(context.model_dump_json())
    assert copy == context
    assert copy.model_dump_json() == context.model_dump_json()


@st.composite
def options(draw: st.DrawFn, names: list[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if draw(st.booleans()):
        opts["max_tokens"] = draw(st.integers(1, 100_000))
    if draw(st.booleans()):
        opts["temperature"] = draw(st.floats(0, 2))
    if draw(st.integers(0, 3)) == 0:
        opts["top_p"] = draw(st.floats(0, 1))
    if draw(st.integers(0, 3)) == 0:
        stops = st.text(min_size=1, max_size=5)
        opts["stop"] = draw(st.one_of(stops, st.lists(stops, max_size=6)))
    if draw(st.booleans()):
        named = st.sampled_from([*names, "undeclared_tool"]).map(lambda n: {"name": n})
        opts["tool_choice"] = draw(st.one_of(st.sampled_from(["auto", "none", "required"]), named))
    if draw(st.integers(0, 3)) == 0:
        opts["parallel_tool_calls"] = draw(st.booleans())
    if draw(st.booleans()):
        opts["reasoning"] = draw(st.sampled_from(["off", "minimal", "low", "medium", "high"]))
    if draw(st.integers(0, 5)) == 0:
        opts["response_format"] = draw(parameters())
    if draw(st.integers(0, 2)) == 0:
        opts["cache"] = draw(st.sampled_from(["off", "short", "long"]))
    if draw(st.integers(0, 4)) == 0:
        opts["cache_key"] = draw(st.text(min_size=1, max_size=12))
    if draw(st.integers(0, 4)) == 0:
        opts["stream_tool_arguments"] = draw(st.booleans())
    return opts


# --------------------------------------------------------------------------- the oracles

ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


def id_rule(model: llmkit.Model) -> tuple[str, Any]:
    """The target's tool-call id grammar (docs/design.md §4), as a name and a predicate."""
    if model.api == "openai-chat":
        if model.compat.tool_call_id_format == "mistral":
            return "Mistral: 9 alphanumerics", MISTRAL_ID.match
        return "OpenAI: 1 to 40 characters", lambda s: 0 < len(s) <= 40
    return "^[a-zA-Z0-9_-]{1,64}$", ANTHROPIC_ID.match


def validate_sdk(model: llmkit.Model, body: dict[str, Any]) -> None:
    """The official SDK's request types accept the body."""
    api = model.api
    if api == "openai-chat":
        consume(CHAT_PARAMS.validate_python(body))
    elif api == "openai-responses":
        # The SDK's FunctionToolParam requires `strict` (OpenAI's server defaults a missing one
        # to true); llmkit leaves the key out on purpose for servers that reject it
        # (compat.supports_strict=False, QUIRKS H2), so those bodies get `null` here.
        if "tools" in body and not model.compat.supports_strict:
            body = {**body, "tools": [{"strict": None, **t} for t in body["tools"]]}
        consume(RESPONSES_PARAMS.validate_python(body))
    elif api == "anthropic-messages":
        consume(ANTHROPIC_PARAMS.validate_python(body))
    elif api == "bedrock-converse":
        validate_bedrock(model, body)
    else:
        validate_gemini(body)


def _params(value: Any, shape: Any) -> Any:
    """botocore parameters for a rest-json body (blobs are base64 there)."""
    if getattr(shape, "is_document_type", False):
        return value
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        return {
            k: _params(v, shape.members[k]) if k in shape.members else v for k, v in value.items()
        }
    if kind == "list" and isinstance(value, list):
        return [_params(v, shape.member) for v in value]
    if kind == "blob" and isinstance(value, str):
        return base64.b64decode(value)
    return value


def validate_bedrock(model: llmkit.Model, body: dict[str, Any]) -> None:
    """botocore's ParamValidator on ConverseStream's input shape (bedrock-runtime's model)."""
    session = pytest.importorskip("botocore.session")
    validate = pytest.importorskip("botocore.validate")
    shape = (
        session.get_session()
        .get_service_model("bedrock-runtime")
        .operation_model("ConverseStream")
        .input_shape
    )
    report = validate.ParamValidator().validate(
        {"modelId": model.id, **_params(body, shape)}, shape
    )
    assert not report.has_errors(), report.generate_report()


def wire_pairs(api: str, body: dict[str, Any]) -> list[tuple[list[str | None], list[str | None]]]:
    """Per turn with calls: (call ids, result ids), checking that the results come right
    after the calls (before the next turn), as each wire requires."""
    turns: list[tuple[list[str | None], list[str | None]]] = []
    if api == "openai-chat":
        msgs = body["messages"]
        for i, m in enumerate(msgs):
            if m["role"] == "tool":
                assert i > 0 and msgs[i - 1]["role"] in ("assistant", "tool"), "stray tool message"
            if m["role"] == "assistant" and m.get("tool_calls"):
                j, got = i + 1, []
                while j < len(msgs) and msgs[j]["role"] == "tool":
                    got.append(msgs[j]["tool_call_id"])
                    j += 1
                turns.append(([c["id"] for c in m["tool_calls"]], got))
    elif api == "anthropic-messages":
        msgs = body["messages"]
        for i, m in enumerate(msgs):
            content = m["content"] if isinstance(m["content"], list) else []
            kinds = [b["type"] for b in content]
            if "tool_result" in kinds:
                # tool_result blocks first, and only for the assistant turn right before
                assert m["role"] == "user"
                assert kinds == sorted(kinds, key=lambda k: k != "tool_result"), kinds
                assert i > 0 and msgs[i - 1]["role"] == "assistant", "tool_result without its turn"
            uses = [b["id"] for b in content if b["type"] == "tool_use"]
            if m["role"] == "assistant":
                nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
                results = [
                    b["tool_use_id"]
                    for b in nxt
                    if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
                if uses or results:
                    turns.append((uses, results))
    elif api == "openai-responses":
        pending: dict[str, str] = {}
        calls: list[str | None] = []
        outputs: list[str | None] = []
        for item in body["input"]:
            kind = item.get("type")
            if kind in ("function_call", "custom_tool_call"):
                assert item["call_id"] not in pending, "a call id used twice"
                pending[item["call_id"]] = kind
                calls.append(item["call_id"])
            elif kind in ("function_call_output", "custom_tool_call_output"):
                assert pending.pop(item["call_id"]) + "_output" == kind, "output type mismatch"
                outputs.append(item["call_id"])
            elif item.get("role") == "user":
                assert not pending, f"a user turn before the results of {sorted(pending)}"
        assert not pending, f"calls without output: {sorted(pending)}"
        turns.append((calls, outputs))
    elif api == "bedrock-converse":
        msgs = body["messages"]
        roles = [m["role"] for m in msgs]
        assert all(a != b for a, b in itertools.pairwise(roles)), f"roles must alternate: {roles}"
        for i, m in enumerate(msgs):
            uses = [b["toolUse"]["toolUseId"] for b in m["content"] if "toolUse" in b]
            if m["role"] == "assistant" and uses:
                nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
                results = [b["toolResult"]["toolUseId"] for b in nxt if "toolResult" in b]
                turns.append((uses, results))
    else:
        contents = body["contents"]
        for i, c in enumerate(contents):
            parts = c["parts"]
            fcalls = [p["functionCall"] for p in parts if "functionCall" in p]
            responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
            if responses:
                assert c["role"] == "user"
                kinds = ["functionResponse" in p for p in parts]
                assert kinds == sorted(kinds, reverse=True), "responses first, then images"
                previous = contents[i - 1]["parts"] if i > 0 else []
                assert any("functionCall" in p for p in previous), "responses without calls"
            if fcalls:
                assert c["role"] == "model"
                nxt = contents[i + 1]["parts"] if i + 1 < len(contents) else []
                answers = [p["functionResponse"] for p in nxt if "functionResponse" in p]
                assert [a["name"] for a in answers] == [f["name"] for f in fcalls], "in call order"
                turns.append(([f.get("id") for f in fcalls], [a.get("id") for a in answers]))
    return turns


def check_quirks(model: llmkit.Model, body: dict[str, Any]) -> None:
    """Replay rules from docs/quirks.md that the SDK types cannot see."""
    compat = model.compat
    if model.api in ("openai-chat", "openai-responses") and not compat.supports_strict:
        for t in body.get("tools", []):  # H2: the key itself is refused
            assert "strict" not in t and "strict" not in t.get("function", {}), t
    if model.api == "openai-chat":
        roles = [m["role"] for m in body["messages"]]
        if compat.requires_assistant_after_tool_result:  # G2 (Mistral)
            for before, after in itertools.pairwise(roles):
                assert (before, after) != ("tool", "user"), f"user right after tool: {roles}"
        if compat.empty_content_with_tool_calls:  # G3 (Groq)
            for m in body["messages"]:
                if m.get("tool_calls"):
                    assert isinstance(m["content"], str), m
    elif model.api == "anthropic-messages":  # F1: never an empty signature
        for m in body["messages"]:
            for block in m["content"] if isinstance(m["content"], list) else []:
                if block["type"] == "thinking":
                    assert block["signature"], block
                elif block["type"] == "redacted_thinking":
                    assert block["data"], block
    elif model.api == "openai-responses":  # F4: a reasoning item never ends its turn
        items = body["input"]
        for i, item in enumerate(items):
            if item.get("type") == "reasoning":
                assert item.get("encrypted_content"), "reasoning without encrypted_content"
                following = items[i + 1] if i + 1 < len(items) else {}
                assert following and following.get("role") != "user", "reasoning ends its turn"
                assert not str(following.get("type", "")).endswith("_output")
    elif model.id.startswith("gemini-3"):  # F2: the first call of a model turn is signed
        for c in body["contents"]:
            calls = [p for p in c["parts"] if "functionCall" in p]
            if calls:
                assert calls[0].get("thoughtSignature"), c


def check_body(model: llmkit.Model, context: llmkit.Context, request: Any) -> None:
    body = json.loads(request.content)
    validate_sdk(model, body)
    check_quirks(model, body)
    diagnostics = request.extensions["llmkit.diagnostics"]
    assert all(d.kind in DIAGNOSTIC_KINDS for d in diagnostics)
    rule, valid = id_rule(model)
    seen: list[str] = []
    for calls, results in wire_pairs(model.api, body):
        assert Counter(calls) == Counter(results), f"calls {calls} answered by {results}"
        for call_id in calls:
            if call_id is None:  # Gemini: paired by position and name
                continue
            assert valid(call_id), f"{call_id!r} breaks the {rule} id grammar"
            seen.append(call_id)
    assert len(seen) == len(set(seen)), "two calls got the same wire id"
    # images to a text-only model are placeholders, reported
    images = sum(
        isinstance(p, llmkit.ImagePart)
        for m in context.messages
        if not isinstance(m, llmkit.AssistantMessage)
        for p in m.content
    )
    if images and "image" not in model.input:
        assert (
            PNG_B64 not in request.content.decode()
            and "example.com/fuzz" not in request.content.decode()
        )
        assert any(d.kind == "image_omitted" for d in diagnostics)

    # unanswered calls are answered by llmkit, and reported with the caller's id
    answered = {m.tool_call_id for m in context.messages if isinstance(m, llmkit.ToolResultMessage)}
    unanswered = {
        c.id
        for m in context.messages
        if isinstance(m, llmkit.AssistantMessage)
        for c in m.tool_calls
        if c.id not in answered
    }
    orphans = {d.tool_call_id for d in diagnostics if d.kind == "orphan_tool_call"}
    assert orphans == unanswered, f"orphan_tool_call reported {orphans}, unanswered {unanswered}"
    check_features(model, context, body, diagnostics)


def check_features(
    model: llmkit.Model, context: llmkit.Context, body: dict[str, Any], diagnostics: list[Any]
) -> None:
    """The production features (docs/design.md §5) on the wire."""
    text = json.dumps(body)
    # what the fake provider refuses as the real API would, llmkit never sends
    assert refusal(model.api, body, model.input) is None, refusal(model.api, body, model.input)
    assert '"type": "cache_point"' not in text, "a CachePoint marker leaked onto the wire"
    pdfs = [
        p
        for m in context.messages
        if not isinstance(m, llmkit.AssistantMessage)
        for p in m.content
        if isinstance(p, llmkit.DocumentPart) and p.is_pdf
    ]
    if pdfs and "pdf" not in model.input:
        assert PDF_B64 not in text and PDF_URL not in text
        assert any(d.kind == "document_omitted" for d in diagnostics)
    if model.api == "openai-chat":
        assert PDF_URL not in text  # Chat takes no file URL
    if model.api == "anthropic-messages":
        marks = text.count('"cache_control"')
        assert marks <= 4, f"{marks} breakpoints"
    # a breakpoint may sit on a provider tool (a cache point first in the conversation)
    sent = [{k: v for k, v in t.items() if k != "cache_control"} for t in body.get("tools") or []]
    for t in context.tools:
        if isinstance(t, llmkit.ProviderTool):
            assert (t.spec in sent) == (t.api == model.api), (t.api, model.api)
    if model.api == "openai-responses":
        for item in body["input"]:
            assert item.get("status") != "in_progress", "an incomplete hosted item was replayed"


def refusal_is_documented(
    model: llmkit.Model, context: llmkit.Context, opts: dict[str, Any], error: Exception
) -> None:
    """An InvalidRequestError must name one of the documented reasons, and that reason must
    really hold."""
    text = str(error)
    choice = opts.get("tool_choice")
    if "tool_choice names" in text:
        assert isinstance(choice, dict) and choice["name"] not in {t.name for t in context.tools}
    elif "is strict, but" in text:
        assert any(getattr(t, "strict", False) for t in context.tools)
    elif "says nothing about its type" in text:  # Anthropic structured output needs types
        assert model.api == "anthropic-messages" and "response_format" in opts
    elif "a provider tool and a function tool share it" in text:
        assert any(isinstance(t, llmkit.ProviderTool) for t in context.tools)
    elif "cannot be sent in OpenAI strict mode" in text:
        assert model.api in ("openai-chat", "openai-responses")
        assert any(getattr(t, "strict", False) for t in context.tools) or "response_format" in opts
    elif "A user turn has nothing this API can send" in text:  # Anthropic/Bedrock: no ""
        assert model.api in ("anthropic-messages", "bedrock-converse")
    elif "The context has no messages" in text:
        assert not context.messages
    else:
        raise AssertionError(f"InvalidRequestError for an undocumented reason: {text}")


def must_refuse(model: llmkit.Model, context: llmkit.Context, opts: dict[str, Any]) -> bool:
    """Whether the request has to be refused before sending (docs/design.md §3)."""
    choice = opts.get("tool_choice")
    if isinstance(choice, dict) and choice["name"] not in {t.name for t in context.tools}:
        return True
    strict_ok = model.strict_tools
    if model.api in ("openai-chat", "openai-responses"):  # compat servers may not take it
        strict_ok = strict_ok and model.compat.supports_strict
    return any(getattr(t, "strict", False) for t in context.tools) and not strict_ok


def build(model: llmkit.Model, context: llmkit.Context, opts: dict[str, Any]) -> Any:
    return llmkit.build_request(model, context, api_key="k", **opts)


@pytest.mark.parametrize("wire", WIRES)
@fuzz(ci=50)
@given(data=st.data())
def test_random_contexts_build_valid_requests(wire: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(TARGETS[wire])), label="target")
    model = TARGETS[wire][name]
    context = data.draw(contexts(), label="context")
    opts = data.draw(
        options([t.name for t in context.tools if isinstance(t, llmkit.Tool)]), label="options"
    )
    before = context.model_dump_json()
    opts_before = json.dumps(opts, sort_keys=True)
    try:
        request = build(model, context, opts)
    except llmkit.InvalidRequestError as e:
        refusal_is_documented(model, context, opts, e)
        assert context.model_dump_json() == before, "a refused build modified the context"
        return
    finally:
        assert json.dumps(opts, sort_keys=True) == opts_before, "build_request modified options"
    assert not must_refuse(model, context, opts), "an option the model cannot honour was sent"
    assert context.model_dump_json() == before, "build_request modified the context"
    check_body(model, context, request)
    # the same context, and (in a quarter of the runs: Tool validation is slow) its JSON round
    # trip, give the same request
    others = [build(model, context, opts)]
    if data.draw(st.integers(0, 3), label="round trip") == 0:
        others.append(build(model, llmkit.Context.model_validate_json(before), opts))
    for other in others:
        assert other.content == request.content
        assert str(other.url) == str(request.url)
        assert other.extensions["llmkit.diagnostics"] == request.extensions["llmkit.diagnostics"]
    assert context.model_dump_json() == before


# --------------------------------------------------------------------------- regressions
# Minimal contexts for the bugs the fuzzer found, asserting the right behaviour (each fails
# until llmkit is fixed; see docs/fuzzing.md "Findings").


def _unanswered(call_id: str) -> llmkit.Context:
    call = llmkit.ToolCall(id=call_id, name="f", arguments={}, raw_arguments="{}")
    turn = llmkit.AssistantMessage(content=[call], stop_reason="tool_use")
    return llmkit.Context(messages=[llmkit.user("x"), turn, llmkit.user("y")])


@pytest.mark.parametrize("wire", WIRES)
def test_orphan_tool_call_names_the_call_by_its_id_in_the_context(wire: str) -> None:
    # Kimi's "functions.f:0" is rewritten for every target; the orphan_tool_call diagnostic
    # must still name the call the caller has ("functions.f:0"), as tool_call_id_normalized
    # does (its details.id holds the wire id), not the rewritten wire id.
    model = next(iter(TARGETS[wire].values()))
    request = build(model, _unanswered("functions.f:0"), {})
    diagnostics = request.extensions["llmkit.diagnostics"]
    [orphan] = [d for d in diagnostics if d.kind == "orphan_tool_call"]
    [normalized] = [d for d in diagnostics if d.kind == "tool_call_id_normalized"]
    assert normalized.tool_call_id == "functions.f:0"
    assert orphan.tool_call_id == "functions.f:0"


def test_mistral_tool_result_images_keep_an_assistant_turn_between_tool_and_user_G2() -> None:
    # The images of a tool result follow the run of tool messages in a user message (docs/design.md
    # §4); Mistral refuses a user message right after a tool message (QUIRKS G2), so the
    # minimal assistant turn must go before that user message too.
    model = TARGETS["openai-chat"]["mistral"]
    call = llmkit.ToolCall(id="abcdefghi", name="f", arguments={}, raw_arguments="{}")
    context = llmkit.Context(
        messages=[
            llmkit.user("x"),
            llmkit.AssistantMessage(content=[call], stop_reason="tool_use"),
            llmkit.tool_result(call, "see the picture", images=[PNG]),
            llmkit.user("and?"),
        ]
    )
    body = json.loads(build(model, context, {}).content)
    roles = [m["role"] for m in body["messages"]]
    assert ("tool", "user") not in set(itertools.pairwise(roles)), roles
    assert PNG_B64 in json.dumps(body)  # the image is still sent
