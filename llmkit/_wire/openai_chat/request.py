"""OpenAI Chat Completions request building (``api="openai-chat"``).

Pure: a Context and options in, the URL/headers/JSON body out, plus a diagnostic for every
change made to fit the target server. Server quirks come from ``model.compat``
(:class:`llmkit.OpenAIChatCompat`, ``compat.py``), never from provider names in code.

Documents: a PDF is a ``file`` part (``file_data`` as a data URL, with a ``filename``); Chat takes
no file URL, so a URL document is a placeholder (``document_omitted``); a text document is
text. A tool result's PDFs follow the run of tool messages in one user message, as its images
do (tool messages carry text only). ``CachePoint`` s become ``prompt_cache_breakpoint`` on
models with explicit breakpoints; ``cache``/``cache_key`` map to the ``prompt_cache_*`` fields
(:func:`~llmkit._wire.request_features.openai_cache`).
"""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._errors import InvalidRequestError, ToolDefinitionError
from ..._ids import IdGrammar
from ..._messages import (
    FREEFORM_CALLS,
    AssistantMessage,
    CachePoint,
    Context,
    DocumentPart,
    ImagePart,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserPart,
)
from ..._models import Model
from ..._reasoning import CLASSIC, effort, off_effort
from .. import request_features as features
from ..contract import Options
from ..prepare import Prepared, arguments_json
from ..skeleton import Origin, build_body, strict_refused
from .compat import chat_flags

__all__ = ["build", "headers", "url"]

ASSISTANT_AFTER_TOOLS = "I have processed the tool results."
DEEPSEEK_EFFORT = {"minimal": "low", "low": "low", "medium": "high", "high": "high"}


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """Auth headers: ``Authorization: Bearer`` (Azure: ``api-key``); none without a key."""
    if not api_key:
        return {}
    if chat_flags(model).auth == "azure":
        return {"api-key": api_key}
    return {"authorization": f"Bearer {api_key}"}


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """The endpoint (Azure's deployment form: rewritten by :mod:`llmkit._auth.azure`)."""
    return base_url.rstrip("/") + "/chat/completions"


class _Builder:
    """One request being built: the body and the diagnostics of what changed."""

    def __init__(self, model: Model, context: Context, opts: Options, prepared: Prepared) -> None:
        self.model = model
        self.compat = chat_flags(model)
        self.context = context
        self.opts = opts
        self.prepared = prepared
        self.diags = prepared.diagnostics
        self.breakpoints = features.Breakpoints(model, opts, self.diags)

    def report(self, kind: Any, message: str, **details: Any) -> None:
        self.diags.append(Diagnostic(kind=kind, message=message, details=details))

    def messages(self) -> list[dict[str, Any]]:
        prepared = self.prepared
        out: list[dict[str, Any]] = []
        if self.context.system:
            developer = self.compat.supports_developer_role and self.model.reasoning
            out.append(
                {"role": "developer" if developer else "system", "content": self.context.system}
            )
        images: list[dict[str, Any]] = []
        for m in prepared.messages:
            if not isinstance(m, ToolResultMessage):
                if images:
                    self.after_tools(out)
                    out.append({"role": "user", "content": images})
                    images = []
                if isinstance(m, UserMessage):
                    self.after_tools(out)
            if isinstance(m, UserMessage):
                out.append({"role": "user", "content": self.user_content(m.content)})
            elif isinstance(m, AssistantMessage):
                out.append(self.assistant(m))
            else:
                out.append(self.tool_result(m, images))
        if images:
            self.after_tools(out)
            out.append({"role": "user", "content": images})
        return out

    def after_tools(self, out: list[dict[str, Any]]) -> None:
        """Before a user message: Mistral answers "Unexpected role 'user' after role 'tool'"
        unless an assistant turn comes between (QUIRKS G2)."""
        if self.compat.requires_assistant_after_tool_result and out and out[-1]["role"] == "tool":
            out.append({"role": "assistant", "content": ASSISTANT_AFTER_TOOLS})
            self.report("message_inserted", "Inserted an assistant turn after tool results")

    def user_content(self, parts: list[UserPart]) -> str | list[dict[str, Any]]:
        # CachePoints a model ignores leave the body exactly as it is without them.
        ignored = () if self.model.cache_points else (CachePoint,)
        if all(isinstance(p, (TextPart, *ignored)) for p in parts):
            return "".join(p.text for p in parts if isinstance(p, TextPart))
        out: list[dict[str, Any]] = []
        for p in parts:
            if isinstance(p, TextPart):
                out.append({"type": "text", "text": p.text})
            elif isinstance(p, CachePoint):
                self.breakpoints.after(out)
            elif isinstance(p, DocumentPart):
                out.append(self.document(p))
            elif "image" not in self.model.input:
                self.report("image_omitted", f"{self.model.id} takes no images; sent a placeholder")
                out.append({"type": "text", "text": "[image omitted: the model cannot see images]"})
            else:
                src = p.url if p.url is not None else f"data:{p.media_type};base64,{p.data}"
                out.append({"type": "image_url", "image_url": {"url": src}})
        return out

    def document(self, p: DocumentPart) -> dict[str, Any]:
        if p.text is not None:
            return {"type": "text", "text": features.document_text(p)}
        if not features.reads_pdf(self.model):
            return {"type": "text", "text": features.omit_document(self.diags, self.model, p)}
        if p.url is not None:
            why = "Chat Completions takes no file URL (send the PDF bytes)"
            return {"type": "text", "text": features.omit_document(self.diags, self.model, p, why)}
        data = f"data:{p.media_type};base64,{p.data}"
        return {"type": "file", "file": {"filename": features.filename(p), "file_data": data}}

    def assistant(self, m: AssistantMessage) -> dict[str, Any]:
        model, compat = self.model, self.compat
        origin = Origin(m, model, self.diags)
        mine = origin.same
        text = "".join(p.text for p in m.content if isinstance(p, TextPart))
        calls = [p for p in m.content if isinstance(p, ToolCall)]
        thinking = [p for p in m.content if isinstance(p, ThinkingPart)]
        if calls and compat.empty_content_with_tool_calls:
            content: str | None = text  # Groq: content must be a string (QUIRKS G3)
        else:
            content = text if text or not calls else None
        out: dict[str, Any] = {"role": "assistant", "content": content}
        replay = compat.reasoning_replay == "always" or (
            compat.reasoning_replay == "tool_turns" and bool(calls)
        )
        if replay:
            # DeepSeek/Kimi need reasoning back on tool-call turns (QUIRKS F6); thinking from
            # another model is not sent as if it were this model's.
            reasoning = "".join(p.thinking for p in thinking if not p.redacted) if mine else ""
            out[compat.reasoning_replay_field] = reasoning
            if thinking and not mine:
                origin.dropped("Reasoning from another model was not replayed")
        elif thinking:
            origin.dropped(
                "Thinking is not replayed to this server over Chat Completions",
                parts=len(thinking),
            )
        details = (m.provider_data or {}).get("reasoning_details")
        if compat.replay_reasoning_details and mine and details:
            out["reasoning_details"] = details  # verbatim (QUIRKS F7)
        audio = (m.provider_data or {}).get("audio") if mine else None
        if isinstance(audio, dict) and isinstance(audio.get("id"), str) and audio["id"]:
            out["audio"] = {"id": audio["id"]}  # the model's earlier audio answer, by id
        if calls:
            out["tool_calls"] = [self.call(c, mine) for c in calls]
        return out

    def call(self, c: ToolCall, mine: bool) -> dict[str, Any]:
        if (c.replay or {}).get("type") in FREEFORM_CALLS:
            # A freeform (custom tool) call, from this wire or Responses: its input verbatim.
            return {
                "id": c.id,
                "type": "custom",
                "custom": {"name": c.name, "input": c.raw_arguments},
            }
        entry: dict[str, Any] = {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": arguments_json(c)},
        }
        extra = (c.replay or {}).get("extra_content")
        if extra is not None and self.compat.replay_extra_content and mine:
            entry["extra_content"] = extra  # Gemini thought signature (QUIRKS F3)
        return entry

    def tool_result(self, m: ToolResultMessage, images: list[dict[str, Any]]) -> dict[str, Any]:
        text = features.result_text(m.content)
        media = [
            p
            for p in m.content
            if isinstance(p, ImagePart) or (isinstance(p, DocumentPart) and p.is_pdf)
        ]
        if media:
            # Tool messages carry text only: the images and PDFs follow the run of tool
            # messages in one user message (docs/design.md §4).
            what = "Images" if all(isinstance(p, ImagePart) for p in media) else "Attachments"
            images.append({"type": "text", "text": f"{what} from tool result {m.tool_call_id}:"})
            content = self.user_content(list(media))
            if isinstance(content, list):
                images.extend(content)
        body: str | list[dict[str, Any]] = text
        if self.model.cache_points and any(isinstance(p, CachePoint) for p in m.content):
            parts = [{"type": "text", "text": text}]
            self.breakpoints.after(parts)  # on the result's text, the part before the point
            body = parts
        out: dict[str, Any] = {"role": "tool", "tool_call_id": m.tool_call_id, "content": body}
        if self.compat.requires_tool_result_name:
            out["name"] = m.tool_name  # Mistral, Gemini's compat endpoint (QUIRKS G4)
        return out

    def tool(self, t: Any) -> dict[str, Any]:
        fn: dict[str, Any] = {"name": t.name, "parameters": t.parameters}
        if t.description:
            fn["description"] = t.description
        if t.strict:
            if not (self.model.strict_tools and self.compat.supports_strict):
                raise strict_refused(t, self.model)
            fn["parameters"] = self.strict(t.parameters, t.name)
            fn["strict"] = True  # only ever sent when set and supported (QUIRKS H2)
        return {"type": "function", "function": fn}

    def strict(self, schema: dict[str, Any], name: str) -> dict[str, Any]:
        from ..._schema.strict import openai_strict_schema

        try:
            result, rewrites = openai_strict_schema(schema, name)
        except ToolDefinitionError as e:  # strict mode cannot express this schema
            raise InvalidRequestError(f"{name}: {e}") from None
        self.diags.extend(rewrites)
        return result

    def unsupported(self, option: str, why: str) -> None:
        self.report("option_unsupported", f"{option} was not sent: {why}", option=option)

    def options(self, body: dict[str, Any]) -> None:
        opts, compat, has_tools = self.opts, self.compat, bool(body.get("tools"))
        if opts.max_tokens is not None:
            body[compat.max_tokens_field] = opts.max_tokens
        if opts.temperature is not None:
            body["temperature"] = opts.temperature
        if opts.top_p is not None:
            body["top_p"] = opts.top_p
        if opts.stop:
            body["stop"] = opts.stop
        choice = features.forced_choice(self.model, opts, self.diags)
        if choice is not None:
            if not has_tools:
                self.unsupported("tool_choice", "the request declares no tools")
            elif isinstance(choice, dict):
                name = choice["name"]
                body["tool_choice"] = {"type": "function", "function": {"name": name}}
            else:
                body["tool_choice"] = choice
        if opts.parallel_tool_calls is not None:
            if not has_tools:
                self.unsupported("parallel_tool_calls", "the request declares no tools")
            elif not compat.supports_parallel_tool_calls:
                self.unsupported("parallel_tool_calls", f"{self.model.provider} does not accept it")
            else:
                body["parallel_tool_calls"] = opts.parallel_tool_calls
        if opts.reasoning is not None:
            self.reasoning(body, opts.reasoning)
        if opts.response_format is not None:
            if self.model.structured_output is False:
                self.unsupported("response_format", f"{self.model.id} has no structured output")
            else:
                body["response_format"] = self.response_format(opts.response_format)
        features.openai_cache(body, self.model, opts, self.diags)
        self.breakpoints.report()
        if compat.supports_store:
            body["store"] = False  # stateless by default: nothing kept server-side

    def reasoning(self, body: dict[str, Any], level: str) -> None:
        fmt = self.compat.thinking_format
        if not self.model.reasoning:
            self.unsupported("reasoning", f"{self.model.id} is not a reasoning model")
        elif fmt == "none":
            self.unsupported("reasoning", f"{self.model.provider} has no reasoning control")
        elif fmt == "openai":
            if level != "off":
                body["reasoning_effort"] = effort(self.model, level, CLASSIC, self.unsupported)
            elif (off := off_effort(self.model)) is not None:
                body["reasoning_effort"] = off
            else:
                body["reasoning_effort"] = "minimal"
                self.unsupported(
                    "reasoning='off'", "reasoning cannot be turned off; sent 'minimal'"
                )
        elif fmt == "deepseek":
            body["thinking"] = {"type": "disabled" if level == "off" else "enabled"}
            if level != "off":
                sent = effort(self.model, level, CLASSIC, self.unsupported)
                body["reasoning_effort"] = (
                    sent if self.model.reasoning_efforts else DEEPSEEK_EFFORT[sent]
                )
        elif fmt == "zai":
            body["thinking"] = {"type": "disabled" if level == "off" else "enabled"}
        elif fmt == "qwen":
            body["enable_thinking"] = level != "off"
        elif fmt == "chat_template":
            kwargs = dict(body.get("chat_template_kwargs") or {})
            kwargs["enable_thinking"] = level != "off"
            body["chat_template_kwargs"] = kwargs
        elif level == "off":  # openrouter
            body["reasoning"] = {"enabled": False}
        else:
            sent = effort(self.model, level, (*CLASSIC, "xhigh"), self.unsupported)
            body["reasoning"] = {"effort": sent}

    def response_format(self, fmt: Any) -> dict[str, Any]:
        name, schema = features.output_schema(fmt, self.diags)
        if not self.compat.supports_strict:
            # No strict mode to rewrite for: the schema goes as written. llama-server builds
            # its grammar from it, so every constraint kept is one enforced.
            return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        strict = self.strict(schema, name)
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": strict, "strict": True},
        }


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The ``/chat/completions`` body and its diagnostics (see
    :meth:`~llmkit._wire.contract.WireAdapter.build`): ``"stream": true`` when streamed, with
    ``stream_options.include_usage`` where the server takes it."""

    def fill(prepared: Prepared) -> dict[str, Any]:
        b = _Builder(model, context, opts, prepared)
        body: dict[str, Any] = {"model": model.id, "messages": b.messages()}
        tools = [b.tool(t) for t in features.function_tools(context)]
        tools += features.provider_tools(context, model, b.diags)
        if tools:
            body["tools"] = tools
        b.options(body)
        return body

    streamed: dict[str, Any] | None = None
    if stream:
        streamed = {"stream": True}
        if chat_flags(model).supports_usage_in_streaming:
            streamed["stream_options"] = {"include_usage": True}
    ids: IdGrammar = "alnum9" if chat_flags(model).tool_call_id_format == "mistral" else "token40"
    return build_body(model, context, opts, ids=ids, fill=fill, stream=streamed)
