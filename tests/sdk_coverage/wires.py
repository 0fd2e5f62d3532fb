"""The five wires' probes: which SDK types are enumerated, and how one variant becomes real bytes.

Each wire lists its roots — the SDK's own response types — and frames a :class:`~.generate.Variant`
into what the provider would send: a whole body (``parse_response``) or a stream
(``parse_stream``: SSE, or AWS event-stream for Bedrock). A streamed variant is one event, placed
in the smallest stream that makes sense of it (a delta after the start of a block of its kind, a
terminal event last), so what llmkit does with it is what it would do with it in real traffic.

Every body is validated against the SDK's own model before it is used (:attr:`Probe.validate`):
a probe the SDK itself refuses is a harness bug, and the test says so.
"""

from __future__ import annotations

import base64
import copy
import datetime
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

import llmkit
from tests.support.eventstream import bedrock_event, bedrock_exception

from .generate import Markers, Variant, _members, plain, pydantic_variants, shape_variants

__all__ = ["WIRES", "Probe", "Wire"]


@dataclass
class Probe:
    """One field or item of an SDK type, framed for one decoding mode."""

    id: str  # ``wire:mode:path``, the allowlist's key
    wire: str
    mode: str  # "stream" or "whole"
    variant: Variant
    body: bytes | dict[str, Any]  # what llmkit is given (stream bytes, or the whole body)
    baseline: bytes | dict[str, Any]  # the same without the field
    validate: Callable[[], object]  # the SDK's own check of the variant (raises if refused)
    # A value that only restates what the rest of the body says (a Responses lifecycle
    # event's status, a Chat tool call's only type): the same body with a value that
    # contradicts it, and the stream cut after it when a later event supersedes it (a
    # non-terminal lifecycle event's status), else None. See classify.restated.
    restates: tuple[bytes, bytes | None] | None = None


@dataclass
class Wire:
    name: str
    model: llmkit.Model
    probes: Callable[[], Iterator[Probe]]


# Framing: the fields every decoder reads to put an event in its place (indices, sequence
# numbers, item ids, the role of a message that is always the assistant's). They carry nothing
# of their own to map, keep or report, so they are not probed.
FRAMING = {
    "index", "contentBlockIndex", "sequence_number", "output_index", "content_index",
    "summary_index", "item_id", "role", "object",
}  # fmt: skip


def _framing(path: str) -> bool:
    return path.rsplit(".", 1)[-1].split("=")[0].split("[")[0] in FRAMING


def _depth(limit: int) -> Callable[[str], bool]:
    return lambda path: path.count(".") >= limit or _framing(path)


def _sse(events: list[dict[str, Any]], *, named: bool = False, done: bool = False) -> bytes:
    out = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def _checker(
    adapter: TypeAdapter[Any] | type[BaseModel], body: dict[str, Any]
) -> Callable[[], object]:
    if isinstance(adapter, TypeAdapter):
        return lambda: adapter.validate_python(body)
    return lambda: adapter.model_validate(body)


# -- OpenAI Responses ----------------------------------------------------------------------------

# Response fields that echo the request (its tools, instructions, sampling settings): what the
# caller sent, not what the model produced. Not probed.
RESPONSES_ECHO = {
    "background", "conversation", "instructions", "max_output_tokens", "max_tool_calls",
    "metadata", "parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key",
    "prompt_cache_retention", "reasoning", "safety_identifier", "temperature", "text",
    "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user", "object",
    "output_text", "context_management",
}  # fmt: skip

# The item a streamed event belongs to (by the start of its type), and the content part it
# needs inside a message item.
RESPONSES_ITEM_OF = {
    "response.output_text.": ("message", "output_text"),
    "response.refusal.": ("message", "refusal"),
    "response.content_part.": ("message", None),
    "response.function_call_arguments.": ("function_call", None),
    "response.reasoning_summary_": ("reasoning", None),
    "response.reasoning_text.": ("reasoning", None),
    "response.custom_tool_call_input.": ("custom_tool_call", None),
    "response.mcp_call": ("mcp_call", None),
    "response.mcp_list_tools.": ("mcp_list_tools", None),
    "response.code_interpreter_call": ("code_interpreter_call", None),
    "response.file_search_call.": ("file_search_call", None),
    "response.web_search_call.": ("web_search_call", None),
    "response.image_generation_call.": ("image_generation_call", None),
    "response.shell_call_output_content.": ("shell_call_output", None),  # the output item's
    "response.shell_call_": ("shell_call", None),
}
RESPONSES_LIFECYCLE = {  # the events whose status is one their own type allows
    *("response.created", "response.queued", "response.in_progress"),
    *("response.failed", "response.incomplete"),
}
RESPONSES_TERMINAL = {"response.completed", "response.failed", "response.incomplete", "error"}


def _responses_probes() -> Iterator[Probe]:
    from openai.types.responses import Response, ResponseStreamEvent
    from openai.types.responses.response_output_refusal import ResponseOutputRefusal
    from openai.types.responses.response_output_text import ResponseOutputText

    marks = Markers()

    def skip_whole(path: str) -> bool:
        head = path.split(".")[0].split("[")[0]
        return head in RESPONSES_ECHO or path.count(".") >= 4 or _framing(path)

    for v in pydantic_variants(Response, marks, skip=skip_whole):
        yield Probe(
            f"responses:whole:{v.path}",
            "responses",
            "whole",
            v,
            v.body,
            v.baseline,
            _checker(Response, v.body),
        )

    output_annotation = Response.model_fields["output"].annotation
    items = {
        m.model_fields["type"].annotation.__args__[0]: m
        for m in _members(output_annotation.__args__[0])  # type: ignore[union-attr]
    }
    response = plain(Response) | {"id": "resp_1", "model": "gpt-5", "status": "in_progress"}
    created = {"type": "response.created", "sequence_number": 0, "response": response}
    completed = {
        "type": "response.completed",
        "sequence_number": 9,
        "response": response | {"status": "completed"},
    }
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)

    def skip_stream(path: str) -> bool:
        head = path.split(".")[0]
        if _framing(path) or path.rsplit(".", 1)[-1] == "obfuscation":  # random padding
            return True
        if (
            head == "response" and "." in path
        ):  # the Response itself is probed whole; its status and usage here
            return path.count(".") >= 2 or path.split(".")[1].split("[")[0] in RESPONSES_ECHO | {
                "output"
            }
        return path.count(".") >= 3 or _framing(path)

    for member in _members(ResponseStreamEvent):
        kind = member.model_fields["type"].annotation.__args__[0]
        minimal = plain(member)
        item_probe = Variant(f"{kind}", minimal, value="item", baseline={})
        for v in [item_probe, *pydantic_variants(member, marks, skip=skip_stream)]:
            context: list[dict[str, Any]] = []
            for prefix, (item_type, part_type) in RESPONSES_ITEM_OF.items():
                if kind.startswith(prefix):
                    item = plain(items[item_type]) | {"id": "plain"}
                    context.append(
                        {
                            "type": "response.output_item.added",
                            "sequence_number": 1,
                            "output_index": 0,
                            "item": item,
                        }
                    )
                    if part_type:
                        part_model = (
                            ResponseOutputText
                            if part_type == "output_text"
                            else (ResponseOutputRefusal)
                        )
                        context.append(
                            {
                                "type": "response.content_part.added",
                                "sequence_number": 2,
                                "item_id": "plain",
                                "output_index": 0,
                                "content_index": 0,
                                "part": plain(part_model),
                            }
                        )
                    break

            def frame(
                event: dict[str, Any] | None, kind: str = kind, context: list[Any] = context
            ) -> bytes:
                if kind == "response.created":
                    events = [event, completed] if event else [completed]
                    return _sse([e for e in events if e], named=True)
                head = [created, *context]
                tail = [] if kind in RESPONSES_TERMINAL else [completed]
                return _sse([*head, *([event] if event else []), *tail], named=True)

            path = v.path if v is item_probe else f"{kind}.{v.path}"
            restates = None
            if v.path.startswith("response.status=") and kind in RESPONSES_LIFECYCLE:
                contradicting = v.body | {"response": v.body["response"] | {"status": "completed"}}
                cut = (
                    None
                    if kind in RESPONSES_TERMINAL
                    else _sse(
                        [*([] if kind == "response.created" else [created, *context]), v.body],
                        named=True,
                    )
                )
                restates = (frame(contradicting), cut)
            yield Probe(
                f"responses:stream:{path}",
                "responses",
                "stream",
                v,
                frame(v.body),
                frame(v.baseline or None),
                _checker(adapter, v.body),
                restates,
            )


# -- OpenAI Chat ---------------------------------------------------------------------------------


def _chat_probes() -> Iterator[Probe]:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    marks = Markers()
    for root, mode in ((ChatCompletionChunk, "stream"), (ChatCompletion, "whole")):
        for v in pydantic_variants(root, marks, skip=_depth(5)):
            if v.path.startswith("object=") or v.path == "obfuscation":
                continue  # the discriminator; random padding, as on Responses
            body: Any = v.body
            baseline: Any = v.baseline
            restates = None
            if mode == "stream":
                if v.path.endswith("tool_calls[function].type=function"):  # its only type
                    other = copy.deepcopy(body)
                    other["choices"][0]["delta"]["tool_calls"][0]["type"] = "other"
                    restates = (_sse([other], done=True), None)
                body, baseline = _sse([body], done=True), _sse([baseline], done=True)
            check = _checker(root, v.body)
            yield Probe(f"chat:{mode}:{v.path}", "chat", mode, v, body, baseline, check, restates)


# -- Anthropic Messages --------------------------------------------------------------------------

ANTHROPIC_BLOCK_OF_DELTA = {
    "text_delta": "text",
    "citations_delta": "text",
    "input_json_delta": "tool_use",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
}


def _anthropic_probes() -> Iterator[Probe]:
    from anthropic.types import ContentBlock, Message, RawMessageStreamEvent

    marks = Markers()
    for v in pydantic_variants(Message, marks, skip=_depth(5)):
        if v.path.startswith(("type=", "role=")):
            continue
        yield Probe(f"anthropic:whole:{v.path}", "anthropic", "whole", v, v.body, v.baseline,
                    _checker(Message, v.body))  # fmt: skip

    blocks = {m.model_fields["type"].annotation.__args__[0]: m for m in _members(ContentBlock)}
    message = plain(Message) | {"id": "msg_1", "model": "claude-sonnet-4-5"}
    start = {"type": "message_start", "message": message}
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 0},
    }
    stop = {"type": "message_stop"}
    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    for member in _members(RawMessageStreamEvent):
        kind = member.model_fields["type"].annotation.__args__[0]
        item_probe = Variant(kind, plain(member), value="item", baseline={})
        for v in [item_probe, *pydantic_variants(member, marks, skip=_depth(5))]:
            if v.path.startswith(("message.type=", "message.role=")):
                continue
            block = None
            if kind == "content_block_delta":
                block = ANTHROPIC_BLOCK_OF_DELTA.get(v.body.get("delta", {}).get("type"), "text")
            elif kind == "content_block_stop":
                block = "text"

            def frame(
                event: dict[str, Any] | None, kind: str = kind, block: str | None = block
            ) -> bytes:
                events: list[dict[str, Any]] = [start]
                if kind == "message_start":
                    events = [event] if event else []
                if block:
                    events.append(
                        {
                            "type": "content_block_start",
                            "index": 0,
                            "content_block": plain(blocks[block]),
                        }
                    )
                if event and kind != "message_start":
                    events.append(event)
                if (block and kind != "content_block_stop") or kind == "content_block_start":
                    events.append({"type": "content_block_stop", "index": 0})
                if kind not in ("message_delta", "message_start"):
                    # a message_start's stop reason and usage are what the probe is about:
                    # no message_delta overrides them (programmatic tool calling sends them so)
                    events.append(delta)
                if kind != "message_stop":
                    events.append(stop)
                return _sse(events, named=True)

            path = v.path if v is item_probe else f"{kind}.{v.path}"
            yield Probe(
                f"anthropic:stream:{path}",
                "anthropic",
                "stream",
                v,
                frame(v.body),
                frame(v.baseline or None),
                _checker(adapter, v.body),
            )


# -- Gemini --------------------------------------------------------------------------------------


def _gemini_probes() -> Iterator[Probe]:
    from google.genai.types import GenerateContentResponse

    marks = Markers()
    for v in pydantic_variants(GenerateContentResponse, marks, skip=_depth(6)):
        check = _checker(GenerateContentResponse, v.body)
        yield Probe(f"gemini:whole:{v.path}", "gemini", "whole", v, v.body, v.baseline, check)
        yield Probe(
            f"gemini:stream:{v.path}",
            "gemini",
            "stream",
            v,
            _sse([v.body]),
            _sse([v.baseline]),
            check,
        )


# -- Bedrock Converse ----------------------------------------------------------------------------


def _blobs_to_bytes(shape: Any, value: Any) -> Any:
    """A JSON value of ``shape`` as botocore's validator wants it (bytes, datetimes)."""
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        return {
            k: _blobs_to_bytes(shape.members[k], v) if k in shape.members else v
            for k, v in value.items()
        }
    if kind == "list" and isinstance(value, list):
        return [_blobs_to_bytes(shape.member, v) for v in value]
    if kind == "map" and isinstance(value, dict):
        return {k: _blobs_to_bytes(shape.value, v) for k, v in value.items()}
    if kind == "blob" and isinstance(value, str):
        return base64.b64decode(value)
    if kind == "timestamp" and isinstance(value, str):
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


def _shape_checker(shape: Any, value: dict[str, Any]) -> Callable[[], object]:
    def check() -> object:
        from botocore.validate import ParamValidator

        report = ParamValidator().validate(_blobs_to_bytes(shape, value), shape)
        if report.has_errors():
            raise ValueError(report.generate_report())
        return None

    return check


def _bedrock_probes() -> Iterator[Probe]:
    import botocore.session

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    marks = Markers()
    whole = service.operation_model("Converse").output_shape
    for v in shape_variants(whole, marks, skip=_depth(5)):
        yield Probe(f"bedrock:whole:{v.path}", "bedrock", "whole", v, v.body, v.baseline,
                    _shape_checker(whole, v.body))  # fmt: skip

    events = service.operation_model("ConverseStream").output_shape.members["stream"]
    start = bedrock_event("messageStart", {"role": "assistant"})
    stop = bedrock_event("messageStop", {"stopReason": "end_turn"})
    metadata = bedrock_event(
        "metadata",
        {
            "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
            "metrics": {"latencyMs": 0},
        },
    )
    tool_start = bedrock_event(
        "contentBlockStart",
        {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "plain", "name": "plain"}}},
    )
    block_stop = bedrock_event("contentBlockStop", {"contentBlockIndex": 0})
    for v in shape_variants(events, marks, skip=_depth(5)):
        name = next(iter(v.body))
        shape = events.members[name]
        is_exception = bool(shape.metadata.get("exception"))
        tool = "delta" in v.body[name] and "toolUse" in v.body[name]["delta"]

        def frame(payload: dict[str, Any] | None, name: str = name, exc: bool = is_exception,
                  tool: bool = tool) -> bytes:  # fmt: skip
            if payload is None:
                event = b""
            elif exc:
                event = bedrock_exception(name, payload)
            else:
                event = bedrock_event(name, payload)
            out = [] if name == "messageStart" else [start]
            if tool:
                out.append(tool_start)
            out.append(event)
            if name == "contentBlockDelta":
                out.append(block_stop)
            if exc:
                return b"".join(out)
            if name not in ("messageStop", "metadata"):
                out.append(stop)
            if name != "metadata":
                out.append(metadata)
            return b"".join(out)

        baseline = v.baseline.get(name)
        yield Probe(
            f"bedrock:stream:{v.path}",
            "bedrock",
            "stream",
            v,
            frame(v.body[name]),
            frame(baseline),
            _shape_checker(shape, v.body[name]),
        )


def _model(name: str, **update: Any) -> llmkit.Model:
    """A catalogue model (its prices make ``Usage.cost``, which some fields change)."""
    return llmkit.get_model(name).model_copy(update=update)


WIRES = [
    Wire("responses", _model("openai/gpt-5", api="openai-responses"), _responses_probes),
    Wire("chat", _model("openai/gpt-4o"), _chat_probes),
    Wire("anthropic", _model("anthropic/claude-sonnet-4-5"), _anthropic_probes),
    Wire("gemini", _model("google/gemini-2.5-flash"), _gemini_probes),
    Wire(
        "bedrock",
        _model(
            "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
        ),
        _bedrock_probes,
    ),
]
