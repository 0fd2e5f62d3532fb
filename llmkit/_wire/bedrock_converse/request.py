"""Amazon Bedrock Converse request mapping: a Context and options → the body of ``POST
/model/{modelId}/converse-stream`` (``/converse`` when not streamed).

The model id goes in the URL (percent-encoded whole, as botocore encodes the ``{modelId}``
label: ``us.anthropic.claude-sonnet-4-5-20250929-v1:0`` → ``…-v1%3A0``; inference-profile
ARNs work the same way); the body is what botocore's ``Converse``/``ConverseStream`` input shape
defines, checked against botocore's own service model by the tests. What the mapping does
(each change reported as a request-side diagnostic):

- ``system`` → ``[{"text"}]``; ``messages`` alternate ``user``/``assistant``: tool results and
  the user turn after them share one user message, results first (Bedrock refuses two turns of
  one role in a row); a result's images (and documents) stay inside its ``toolResult`` block
  (docs/design.md §5), with ``status`` ``success``/``error``;
- tool-call ids are normalised to ``^[a-zA-Z0-9_-]{1,64}$`` (Bedrock's ``ToolUseId``) by the
  mapping every wire uses, for calls and results alike (QUIRKS B5); a call without a result
  gets a synthetic error result (G1);
- images go as ``bytes`` (base64 in the JSON body) with their format; an ``s3://`` URL as
  ``s3Location``; an ``http(s)`` URL cannot be sent (Bedrock fetches nothing and llmkit never
  does): a placeholder, ``image_omitted``. Empty text blocks are left out (Bedrock refuses
  blank text);
- reasoning is replayed as ``reasoningContent`` (``reasoningText`` with its signature, or
  ``redactedContent``) only to the model that produced it, as Claude on Bedrock requires
  (QUIRKS F1); from another model, or unsigned, visible thinking becomes text and opaque data
  is dropped (``thinking_dropped``). Server-tool blocks (Nova's code interpreter) are sent
  back verbatim to the same model only;
- tools as ``toolSpec`` with ``inputSchema.json`` (the full JSON Schema) and ``strict`` on
  models with strict support; ``tool_choice`` → ``toolChoice`` (``auto``/``any``/``tool``);
  Bedrock has no ``none``: without tool blocks in the history the tools are left out (the model
  cannot call any), with them ``toolConfig`` must be sent and the choice is reported;
- ``inferenceConfig`` (``maxTokens``, ``temperature``, ``topP``, ``stopSequences``);
  ``reasoning`` → ``additionalModelRequestFields`` in the model family's own shape: Claude
  ``thinking`` (a budget, or adaptive with ``output_config.effort``, exactly as on Anthropic's
  own API), Nova 2 ``reasoningConfig``, gpt-oss ``reasoning_effort``; elsewhere reported.

Documents and cache points: a ``DocumentPart`` (PDF bytes or an ``s3://`` URL as a
``document`` block, on models whose ``input`` has ``"pdf"``; text as text) and a ``CachePoint``
(a ``cachePoint`` block after the content before it) are mapped here by their ``type``, so they
work as soon as those parts exist in ``llmkit._messages``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from ..._diagnostics import Diagnostic, DiagnosticKind
from ..._messages import (
    AssistantMessage,
    CachePoint,
    Context,
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
)
from ..._models import Model
from ..._reasoning import CLASSIC, LEVELS, budget, effort, refuse
from ..._tools.definition import Tool
from .. import request_features as features
from ..anthropic_messages.request import supports_sampling, thinking_mode
from ..contract import Options
from ..prepare import Prepared
from ..skeleton import Origin, build_body, strict_refused
from ..turns import turns
from .history import flatten_tool_blocks

__all__ = ["DEFAULT_MAX_TOKENS", "build", "family", "headers", "url"]

DEFAULT_MAX_TOKENS = 4096
"""``maxTokens`` sent with a Claude thinking budget when neither the option nor the model's
``max_output_tokens`` gives one (the budget must stay below it)."""

_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}
_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}
_MIN_BUDGET = 1024
_IMAGE_PLACEHOLDER = "[image omitted: {}]"
_DOCUMENT_PLACEHOLDER = "[document omitted: {}]"
_NAME = re.compile(r"[^A-Za-z0-9\-()\[\]]+")  # outside Bedrock's DocumentBlock name grammar


def family(model: Model) -> str:
    """The model family by id (inference profiles and ARNs included): ``claude``, ``nova2``,
    ``gpt-oss`` or ``other``; it decides the ``reasoning`` fields."""
    model_id = model.id
    if "anthropic.claude" in model_id:
        return "claude"
    if "amazon.nova-2" in model_id:
        return "nova2"
    if "openai.gpt-oss" in model_id:
        return "gpt-oss"
    return "other"


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """A Bedrock API key as ``Authorization: Bearer`` (none without a key: SigV4 then signs
    the request, see :mod:`llmkit._auth`)."""
    out = {"accept": "application/vnd.amazon.eventstream, application/json"}
    if api_key:
        out["authorization"] = f"Bearer {api_key}"
    return out


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """``{base_url}/model/{modelId}/converse-stream`` (``/converse``), the id encoded as
    botocore encodes a URI label (everything but ``A-Za-z0-9-._~``)."""
    operation = "converse-stream" if stream else "converse"
    return f"{base_url.rstrip('/')}/model/{quote(model.id, safe='')}/{operation}"


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The ``Converse`` body and its diagnostics (see
    :meth:`~llmkit._wire.contract.WireAdapter.build`), the same for both operations: ``stream``
    changes only the URL."""
    builder: _Builder | None = None

    def fill(prepared: Prepared) -> dict[str, Any]:
        nonlocal builder
        builder = _Builder(model, prepared.diagnostics)
        body: dict[str, Any] = {"messages": builder.messages(prepared.messages)}
        if context.system:
            body["system"] = [{"text": context.system}]
        builder.options(body, context, opts)
        return body

    # Bedrock's ToolUseId has Anthropic's grammar; the stream is chosen by the URL.
    body, diags = build_body(model, context, opts, ids="token64", fill=fill, stream=None)
    assert builder is not None
    if builder.has_tool_blocks and "toolConfig" not in body:
        flatten_tool_blocks(body["messages"], diags)  # G5: no tools, no tool blocks
    return body, diags


class _Builder:
    """One request being built: the diagnostics of what changed."""

    def __init__(self, model: Model, diags: list[Diagnostic]) -> None:
        self.model = model
        self.diags = diags
        self.has_tool_blocks = False

    def report(
        self, kind: DiagnosticKind, message: str, tool_call_id: str | None = None, **details: Any
    ) -> None:
        self.diags.append(
            Diagnostic(kind=kind, message=message, tool_call_id=tool_call_id, details=details)
        )

    # -- messages -------------------------------------------------------------------------

    def messages(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        return turns(
            messages,
            user=lambda m: self.content(m.content),
            assistant=self.assistant,
            result=self.tool_result,
        )

    def content(self, parts: Sequence[Any]) -> list[dict[str, Any]]:
        """User or tool-result content: text, images, documents and cache points."""
        out: list[dict[str, Any]] = []
        for p in parts:
            if isinstance(p, TextPart):
                if p.text:
                    out.append({"text": p.text})
            elif isinstance(p, ImagePart):
                out.append(self.image(p))
            elif isinstance(p, DocumentPart):
                out.append(self.document(p))
            elif isinstance(p, CachePoint) and out:
                # a cache point caches the prompt up to the content before it
                out.append({"cachePoint": {"type": "default"}})
        return out

    def image(self, p: ImagePart) -> dict[str, Any]:
        if "image" not in self.model.input:
            return self.omitted("image_omitted", f"{self.model.id} takes no images")
        if p.url is not None:
            if p.url.startswith("s3://"):
                suffix = p.url.rsplit(".", 1)[-1].lower().replace("jpg", "jpeg")
                s3_format = _FORMATS.get(p.media_type or "", suffix)
                if s3_format in _FORMATS.values():
                    source = {"s3Location": {"uri": p.url}}
                    return {"image": {"format": s3_format, "source": source}}
            return self.omitted(
                "image_omitted", "Bedrock takes image bytes or s3:// URLs, not http(s) URLs"
            )
        fmt = _FORMATS.get(p.media_type or "")
        if fmt is None:
            return self.omitted("image_omitted", f"Bedrock cannot read {p.media_type} images")
        return {"image": {"format": fmt, "source": {"bytes": p.data}}}

    def document(self, p: DocumentPart) -> dict[str, Any]:
        """A ``DocumentPart``: its ``data`` or ``s3://`` ``url`` as a PDF ``document`` block, its
        ``text`` as text."""
        title, text = p.title, p.text
        if isinstance(text, str):
            head = f"[{title}]\n" if title else ""
            return {"text": head + text}  # a text document goes as text
        if "pdf" not in self.model.input:
            return self.omitted("document_omitted", f"{self.model.id} does not read PDFs")
        name = _NAME.sub(" ", str(title or "document")).strip()[:200] or "document"
        data, link = p.data, p.url
        if isinstance(data, str):
            source: dict[str, Any] = {"bytes": data}
        elif isinstance(link, str) and link.startswith("s3://"):
            source = {"s3Location": {"uri": link}}
        else:
            return self.omitted(
                "document_omitted", "Bedrock takes document bytes or s3:// URLs, not http(s)"
            )
        return {"document": {"format": "pdf", "name": name, "source": source}}

    def omitted(self, kind: DiagnosticKind, why: str) -> dict[str, Any]:
        what = "image" if kind == "image_omitted" else "document"
        self.report(kind, f"An {what} was replaced by a placeholder: {why}")
        template = _IMAGE_PLACEHOLDER if kind == "image_omitted" else _DOCUMENT_PLACEHOLDER
        return {"text": template.format(why)}

    def tool_result(self, m: ToolResultMessage) -> list[dict[str, Any]]:
        """The ``toolResult`` block, then a ``cachePoint`` if the result held one: Bedrock takes
        no cache point inside a tool result, so it caches up to the result's end instead."""
        self.has_tool_blocks = True
        content = self.content(m.content)
        cached = any("cachePoint" in b for b in content)
        content = [b for b in content if "cachePoint" not in b]
        if not content:
            content.append({"text": "(no output)" if not m.is_error else "(error)"})
        block = {
            "toolUseId": m.tool_call_id,
            "content": content,
            "status": "error" if m.is_error else "success",
        }
        out: list[dict[str, Any]] = [{"toolResult": block}]
        if cached:
            out.append({"cachePoint": {"type": "default"}})
        return out

    def assistant(self, m: AssistantMessage) -> list[dict[str, Any]]:
        origin = Origin(m, self.model, self.diags)
        blocks: list[dict[str, Any]] = []
        for p in m.content:
            if isinstance(p, TextPart):
                cited = [
                    dict(c.provider_data)
                    for c in p.citations
                    if origin.same and c.provider_data and "location" in c.provider_data
                ]
                if p.text and cited:  # sent back as it came: text and its sources
                    content = {"content": [{"text": p.text}], "citations": cited}
                    blocks.append({"citationsContent": content})
                elif p.text:
                    blocks.append({"text": p.text})
            elif isinstance(p, ThinkingPart):
                blocks.extend(self.thinking(p, origin))
            else:
                blocks.append(self.tool_use(p, origin))
        return blocks

    def tool_use(self, call: ToolCall, origin: Origin) -> dict[str, Any]:
        self.has_tool_blocks = True
        origin.call_replay(call)
        # A recovered call replays its recovered value (the input must be an object).
        return {"toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments}}

    def thinking(self, p: ThinkingPart, origin: Origin) -> list[dict[str, Any]]:
        replay = p.replay or {}
        why = None  # from another model
        if origin.same:
            block = replay.get("bedrock")
            if isinstance(block, dict):
                self.has_tool_blocks = self.has_tool_blocks or "toolUse" in block
                return [block]  # a server-tool block (Nova's code interpreter), verbatim
            redacted = replay.get("redacted")
            if p.redacted and isinstance(redacted, str) and redacted:
                return [{"reasoningContent": {"redactedContent": redacted}}]
            if not p.redacted and p.signature:
                reasoning = {"text": p.thinking, "signature": p.signature}
                return [{"reasoningContent": {"reasoningText": reasoning}}]
            why = "it has no signature (unsigned reasoning, or an interrupted stream)"
        text = origin.thinking_as_text(p, why)
        return [] if text is None else [{"text": text}]

    # -- tools and options ----------------------------------------------------------------

    def options(self, body: dict[str, Any], context: Context, opts: Options) -> None:
        model = self.model
        config: dict[str, Any] = {}
        max_tokens = opts.max_tokens
        choice = self.tool_config(body, context, opts)
        forced = choice is not None and ("any" in choice or "tool" in choice)
        thinking, max_tokens = self.reasoning(body, opts, max_tokens, forced)
        if max_tokens is not None:
            config["maxTokens"] = max_tokens
        sampling = family(model) != "claude" or supports_sampling(model)
        for option, key in (("temperature", "temperature"), ("top_p", "topP")):
            value = getattr(opts, option)
            if value is None:
                continue
            if not sampling:
                self.unsupported(option, f"{model.id} refuses non-default sampling parameters")
            elif thinking and (option == "temperature" or value < 0.95):
                self.unsupported(option, "Claude's thinking allows no such value")
            elif value > 1:  # inferenceConfig takes 0..1 for both
                self.unsupported(option, "Bedrock takes 0 to 1; sent 1", sent=1.0)
                config[key] = 1.0
            else:
                config[key] = value
        if opts.stop:
            config["stopSequences"] = opts.stop
        if config:
            body["inferenceConfig"] = config
        if opts.response_format is not None:
            self.unsupported(
                "response_format",
                "structured output is not mapped on bedrock-converse; describe the format in "
                "the prompt or use a tool",
            )

    def unsupported(self, option: str, why: str, **details: Any) -> None:
        self.report(
            "option_unsupported",
            f"{option} was not sent as given: {why}",
            option=option,
            **details,
        )

    def tool_config(
        self, body: dict[str, Any], context: Context, opts: Options
    ) -> dict[str, Any] | None:
        choice: dict[str, Any] | None = None
        requested = opts.tool_choice
        tools = [self.tool(t) for t in features.function_tools(context)]
        # The provider tools for this wire, as given (e.g. {"systemTool": ...}).
        tools += features.provider_tools(context, self.model, self.diags)
        if requested is not None and not tools:
            self.unsupported("tool_choice", "the request declares no tools")
        elif isinstance(requested, dict):
            choice = {"tool": {"name": requested["name"]}}
        elif requested == "required":
            choice = {"any": {}}
        elif requested == "auto":
            choice = {"auto": {}}
        if opts.parallel_tool_calls is False:
            self.unsupported("parallel_tool_calls", "Bedrock Converse has no such setting")
        if not tools:  # (a provider tool for another wire was left out, reported)
            return None
        if requested == "none" and not self.has_tool_blocks:
            return None  # no tools, no calls: Bedrock has no "none" choice
        if requested == "none":
            self.unsupported(
                "tool_choice",
                "Bedrock has no 'none' choice, and the history's tool blocks require the tools "
                "to be declared; they were sent without a choice",
            )
        tool_config: dict[str, Any] = {"tools": tools}
        if choice is not None:
            tool_config["toolChoice"] = choice
        body["toolConfig"] = tool_config
        return choice

    def tool(self, t: Tool) -> dict[str, Any]:
        spec: dict[str, Any] = {"name": t.name}
        if t.description:  # a NonEmptyString on Bedrock
            spec["description"] = t.description
        spec["inputSchema"] = {"json": t.parameters}
        if t.strict:
            if not self.model.strict_tools:
                raise strict_refused(t, self.model)
            spec["strict"] = True
        return {"toolSpec": spec}

    def reasoning(
        self, body: dict[str, Any], opts: Options, max_tokens: int | None, forced: bool
    ) -> tuple[bool, int | None]:
        """Map ``reasoning`` onto the family's fields; returns (Claude thinking is on, the
        ``maxTokens`` to send)."""
        level, model = opts.reasoning, self.model
        if level is None:
            return False, max_tokens
        if level not in ("off", *LEVELS):
            raise refuse(level)
        if not model.reasoning:
            self.unsupported("reasoning", f"{model.id} is not a reasoning model")
            return False, max_tokens
        kind = family(model)
        fields: dict[str, Any] = {}
        on = False
        if kind == "claude":
            on, max_tokens = self.claude_thinking(fields, level, max_tokens, forced)
        elif kind == "nova2":
            if level != "off":
                config = {"type": "enabled", "maxReasoningEffort": self.effort(level)}
                fields["reasoningConfig"] = config
        elif kind == "gpt-oss" and level != "off":
            fields["reasoning_effort"] = self.effort(level)
        else:
            self.unsupported(
                "reasoning", f"llmkit knows no reasoning setting for {model.id} on Bedrock"
            )
        if fields:
            extra = body.setdefault("additionalModelRequestFields", {})
            extra.update(fields)
        return on, max_tokens

    def effort(self, level: str) -> str:
        """A Nova 2 or gpt-oss effort: the model's own levels where the catalogue has them."""
        sent = effort(self.model, level, CLASSIC, self.unsupported)
        return sent if self.model.reasoning_efforts else _EFFORT[sent]

    def claude_thinking(
        self, fields: dict[str, Any], level: str, max_tokens: int | None, forced: bool
    ) -> tuple[bool, int | None]:
        """Claude's ``thinking`` as on Anthropic's own API (the same model flags decide)."""
        mode = thinking_mode(self.model)
        if level == "off":
            if mode == "always":
                self.unsupported("reasoning='off'", f"{self.model.id} always thinks")
                return True, max_tokens
            fields["thinking"] = {"type": "disabled"}
            return False, max_tokens
        if forced:  # "Thinking may not be enabled when tool_choice forces tool use"
            self.unsupported("reasoning", "thinking cannot be combined with a forced tool_choice")
            return False, max_tokens
        if mode in ("adaptive", "always"):
            fields["thinking"] = {"type": "adaptive"}
            sent = effort(self.model, level, ("low", "medium", "high"), self.unsupported)
            fields["output_config"] = {"effort": sent}
            return True, max_tokens
        limit = max_tokens or self.model.max_output_tokens or DEFAULT_MAX_TOKENS
        wanted = budget(self.model, level, self.unsupported)
        tokens = min(wanted, limit - 1)
        if tokens < _MIN_BUDGET:
            self.unsupported("reasoning", f"a thinking budget needs max_tokens > {_MIN_BUDGET}")
            return False, max_tokens
        if tokens < wanted:
            self.unsupported(
                f"reasoning={level!r}",
                f"the thinking budget was reduced to {tokens} to stay below max_tokens",
                budget=tokens,
            )
        fields["thinking"] = {"type": "enabled", "budget_tokens": tokens}
        return True, limit  # maxTokens must exceed the budget: always sent with one
