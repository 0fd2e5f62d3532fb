"""OpenAI Chat Completions (``api="openai-chat"``), also every OpenAI-compatible server.

Two pure halves, no I/O and no JSON repair:

- :func:`build` maps a Context and options to the URL, headers and JSON body;
- :class:`Decoder` turns each SSE event into neutral deltas for the assembler, and
  :func:`decode_response` does the same for a non-streamed body (one path for both).
"""

from __future__ import annotations

import json
from typing import Any

from httpx_sse import ServerSentEvent

from .._assembler import Assembler
from .._classify import error_from_body
from .._diagnostics import Diagnostic
from .._errors import InvalidRequestError, ToolDefinitionError
from .._messages import (
    AssistantMessage,
    Context,
    ImagePart,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from .._models import Model
from ._common import Options, arguments_json, check_tools, prepare

__all__ = ["Decoder", "build", "decode_response", "headers"]

FINISH: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",  # the legacy functions API
    "content_filter": "content_filter",
    "eos": "stop",  # some local servers
}
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")  # QUIRKS F8
MAX_MALFORMED = 100  # report at most this many malformed events one by one


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """Auth headers: ``Authorization: Bearer`` (no header when there is no key)."""
    return {"authorization": f"Bearer {api_key}"} if api_key else {}


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """The endpoint."""
    return base_url.rstrip("/") + "/chat/completions"


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The JSON body for ``context`` and the diagnostics of what had to change."""
    check_tools(context, opts.tool_choice)
    prepared = prepare(context, "openai")
    diags = prepared.diagnostics
    messages: list[dict[str, Any]] = []
    if context.system:
        role = "developer" if model.compat.supports_developer_role and model.reasoning else "system"
        messages.append({"role": role, "content": context.system})
    pending_images: list[dict[str, Any]] = []
    for m in prepared.messages:
        if not isinstance(m, ToolResultMessage) and pending_images:
            messages.append({"role": "user", "content": pending_images})
            pending_images = []
        if isinstance(m, UserMessage):
            messages.append({"role": "user", "content": _user_content(m.content, model, diags)})
        elif isinstance(m, AssistantMessage):
            messages.append(_assistant(m, model, diags))
        else:
            messages.append(_tool_result(m, model, diags, pending_images))
    if pending_images:
        messages.append({"role": "user", "content": pending_images})

    body: dict[str, Any] = {"model": model.id, "messages": messages}
    if context.tools:
        body["tools"] = [_tool(t, model, diags) for t in context.tools]
    _options(body, model, context, opts, diags)
    if stream:
        body["stream"] = True
        if model.compat.supports_usage_in_streaming:
            body["stream_options"] = {"include_usage": True}
    if opts.provider_options:
        body.update(opts.provider_options)
    return body, diags


def _user_content(
    parts: list[TextPart | ImagePart], model: Model, diags: list[Diagnostic]
) -> str | list[dict[str, Any]]:
    if all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    out: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, TextPart):
            out.append({"type": "text", "text": p.text})
        elif "image" not in model.input:
            diags.append(
                Diagnostic(
                    kind="image_omitted",
                    message=f"{model.id} takes no images; an image was replaced by a placeholder",
                )
            )
            out.append({"type": "text", "text": "[image omitted: the model cannot see images]"})
        else:
            src = p.url if p.url is not None else f"data:{p.media_type};base64,{p.data}"
            out.append({"type": "image_url", "image_url": {"url": src}})
    return out


def _assistant(m: AssistantMessage, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    text = "".join(p.text for p in m.content if isinstance(p, TextPart))
    calls = [p for p in m.content if isinstance(p, ToolCall)]
    thinking = [p for p in m.content if isinstance(p, ThinkingPart)]
    if thinking:
        # Chat Completions has no field to send reasoning back to OpenAI itself.
        diags.append(
            Diagnostic(
                kind="thinking_dropped",
                message="Thinking parts cannot be replayed over Chat Completions; dropped",
                details={"parts": len(thinking)},
            )
        )
    out: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_json(c)},
            }
            for c in calls
        ]
    return out


def _tool_result(
    m: ToolResultMessage,
    model: Model,
    diags: list[Diagnostic],
    pending_images: list[dict[str, Any]],
) -> dict[str, Any]:
    text = "".join(p.text for p in m.content if isinstance(p, TextPart))
    images = [p for p in m.content if isinstance(p, ImagePart)]
    if images:
        # Tool messages carry text only: the images go in one user message right after the
        # run of tool messages (DESIGN §4).
        pending_images.append(
            {"type": "text", "text": f"Images from tool result {m.tool_call_id}:"}
        )
        content = _user_content(list(images), model, diags)
        if isinstance(content, list):
            pending_images.extend(content)
    return {"role": "tool", "tool_call_id": m.tool_call_id, "content": text}


def _tool(t: Any, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": t.name, "parameters": t.parameters}
    if t.description:
        fn["description"] = t.description
    if t.strict:
        if not (model.strict_tools and model.compat.supports_strict):
            raise InvalidRequestError(
                f"Tool {t.name!r} is strict, but {model.provider}/{model.id} does not support "
                "strict tool schemas"
            )
        fn["parameters"], rewrites = _strict(t.parameters, t.name)
        diags.extend(rewrites)
        fn["strict"] = True  # only ever sent when set and supported (QUIRKS H2)
    return {"type": "function", "function": fn}


def _options(
    body: dict[str, Any], model: Model, context: Context, opts: Options, diags: list[Diagnostic]
) -> None:
    def unsupported(option: str, why: str) -> None:
        diags.append(
            Diagnostic(
                kind="option_unsupported",
                message=f"{option} was not sent: {why}",
                details={"option": option},
            )
        )

    if opts.max_tokens is not None:
        body[model.compat.max_tokens_field] = opts.max_tokens
    if opts.temperature is not None:
        body["temperature"] = opts.temperature
    if opts.top_p is not None:
        body["top_p"] = opts.top_p
    if opts.stop:
        body["stop"] = opts.stop
    if opts.tool_choice is not None:
        if not context.tools:
            unsupported("tool_choice", "the request declares no tools")
        elif isinstance(opts.tool_choice, dict):
            body["tool_choice"] = {
                "type": "function",
                "function": {"name": opts.tool_choice["name"]},
            }
        else:
            body["tool_choice"] = opts.tool_choice
    if opts.parallel_tool_calls is not None:
        if not context.tools:
            unsupported("parallel_tool_calls", "the request declares no tools")
        elif not model.compat.supports_parallel_tool_calls:
            unsupported("parallel_tool_calls", f"{model.provider} does not accept it")
        else:
            body["parallel_tool_calls"] = opts.parallel_tool_calls
    if opts.reasoning is not None:
        if not model.reasoning:
            unsupported("reasoning", f"{model.id} is not a reasoning model")
        elif opts.reasoning == "off":
            body["reasoning_effort"] = "minimal"
            unsupported("reasoning='off'", "reasoning cannot be turned off; sent 'minimal'")
        else:
            body["reasoning_effort"] = opts.reasoning
    if opts.response_format is not None:
        body["response_format"] = _response_format(opts.response_format, diags)


def _strict(schema: dict[str, Any], name: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    from .._schema import openai_strict_schema

    try:
        return openai_strict_schema(schema, name)
    except ToolDefinitionError as e:  # strict mode cannot express this schema
        raise InvalidRequestError(f"{name}: {e}") from None


def _response_format(fmt: Any, diags: list[Diagnostic]) -> dict[str, Any]:
    from pydantic import BaseModel

    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        name, schema = fmt.__name__, fmt.model_json_schema()
    elif isinstance(fmt, dict):
        name, schema = str(fmt.get("title", "response")), fmt
    else:
        raise InvalidRequestError("response_format must be a pydantic model class or a JSON schema")
    strict, rewrites = _strict(schema, name)
    diags.extend(rewrites)
    return {"type": "json_schema", "json_schema": {"name": name, "schema": strict, "strict": True}}


# -- decoding -----------------------------------------------------------------------------


def _usage(u: dict[str, Any]) -> Usage:
    # OpenAI: prompt_tokens includes cached tokens and completion_tokens includes reasoning
    # tokens: already llmkit's convention.
    pd = u.get("prompt_tokens_details") or {}
    cd = u.get("completion_tokens_details") or {}
    prompt, output, reasoning = (
        u.get("prompt_tokens"),
        u.get("completion_tokens"),
        cd.get("reasoning_tokens"),
    )
    total = u.get("total_tokens")
    if (
        isinstance(output, int)
        and isinstance(reasoning, int)
        and isinstance(prompt, int)
        and reasoning > 0
        and total == prompt + output + reasoning
    ):
        # xAI leaves reasoning out of completion_tokens (total = prompt + completion +
        # reasoning); llmkit's output always includes it.
        output += reasoning
    return Usage(
        input=prompt,
        output=output,
        cache_read=pd.get("cached_tokens"),
        reasoning=reasoning,
    )


class Decoder:
    """Streamed Chat Completions: SSE events → neutral deltas."""

    __slots__ = ("_asm", "_malformed", "_model", "_other_choices", "_refusal", "_started", "done")

    def __init__(self, asm: Assembler, model: Model) -> None:
        self._asm = asm
        self._model = model
        self._started = False
        self._malformed = 0
        self._refusal = False
        self._other_choices = False
        self.done = False

    def feed(self, sse: ServerSentEvent) -> None:
        """One SSE event."""
        data = sse.data
        if self.done:
            return  # anything after [DONE] is ignored
        if data == "[DONE]":
            self.done = True
            self._asm.complete()
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            chunk = None
        if not isinstance(chunk, dict):
            self._malformed_event(data)
            return
        self.chunk(chunk, data)

    def chunk(self, chunk: dict[str, Any], seed: str, *, whole: bool = False) -> None:
        """One decoded chunk (``whole``: a non-streamed body, whose calls have no index)."""
        asm = self._asm
        if not self._started:
            self._started = True
            asm.meta(chunk.get("id") or None, seed=seed)
        elif chunk.get("id"):
            asm.meta(chunk["id"])
        err = chunk.get("error")
        if err:  # an error payload inside a 200 stream (QUIRKS A5, A7)
            asm.fail(error_from_body(chunk, provider=self._model.provider))
            self.done = True
            return
        usage = chunk.get("usage")
        if usage:  # any chunk may carry usage, the final one has empty choices (A8, J1)
            asm.usage(_usage(usage))
        for choice in chunk.get("choices") or ():
            self._choice(choice, whole)

    def eof(self) -> None:
        """End of the byte stream."""
        if not self.done:
            self._asm.end_of_stream()

    def _choice(self, choice: dict[str, Any], whole: bool) -> None:
        asm = self._asm
        if choice.get("index", 0) != 0:
            if not self._other_choices:
                self._other_choices = True
                asm.diagnostic("event_unknown", "Choices other than the first were ignored (n > 1)")
            return
        delta = choice.get("delta") or choice.get("message") or {}
        content = delta.get("content")
        if content:
            if isinstance(content, str):
                asm.text(content)
            elif isinstance(content, list):
                self._content_parts(content)
        for name in REASONING_FIELDS:
            value = delta.get(name)
            if value and isinstance(value, str):
                asm.thinking(value)
                break  # chutes sends two of them with the same text
        refusal = delta.get("refusal")
        if refusal:
            self._refusal = True
            asm.text(refusal)
        calls = delta.get("tool_calls")
        if calls:
            for position, tc in enumerate(calls):
                fn = tc.get("function") or {}
                asm.tool_call(
                    tc.get("index", position if whole else None),
                    tc.get("id") or fn.get("id"),  # llama.cpp put the id in function (D4)
                    fn.get("name"),
                    fn.get("arguments"),
                    position=position,
                    replay={"extra_content": tc["extra_content"]}
                    if tc.get("extra_content")
                    else None,
                )
        if choice.get("usage"):  # Moonshot reports usage inside the choice
            asm.usage(_usage(choice["usage"]))
        reason = choice.get("finish_reason")
        if reason:
            mapped = FINISH.get(reason)
            if mapped == "stop" and self._refusal:
                mapped = "refusal"
            if reason == "error":  # OpenRouter: an error after generation started (A7, E5)
                asm.fail(
                    error_from_body(choice.get("error") or {"message": "finish_reason: error"})
                )
                self.done = True
                return
            asm.finish(reason, mapped)

    def _content_parts(self, parts: list[Any]) -> None:
        # Mistral magistral sends content as typed parts, thinking included.
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                self._asm.text(part["text"])
            elif part.get("type") == "thinking":
                for inner in part.get("thinking") or ():
                    if isinstance(inner, dict) and isinstance(inner.get("text"), str):
                        self._asm.thinking(inner["text"])

    def _malformed_event(self, data: str) -> None:
        self._malformed += 1
        if self._malformed <= MAX_MALFORMED:
            self._asm.diagnostic(
                "event_malformed",
                "An SSE event that is not a JSON object was skipped",
                excerpt=data[:80],
            )


def decode_response(asm: Assembler, model: Model, body: Any, seed: str) -> None:
    """A non-streamed ``chat.completion`` body through the same neutral deltas; ``seed`` (the
    body text) makes synthesised ids deterministic."""
    if not isinstance(body, dict):
        asm.fail(error_from_body({"message": "The response body is not a JSON object"}))
        return
    if body.get("error"):
        asm.fail(error_from_body(body, provider=model.provider))
        return
    decoder = Decoder(asm, model)
    decoder.chunk(body, seed, whole=True)
    if not decoder.done:
        asm.complete()
