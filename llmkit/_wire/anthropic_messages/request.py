"""Anthropic Messages request mapping: a Context and options → the ``POST /v1/messages`` body.

The decoding half lives in :mod:`llmkit._wire.anthropic_messages.decode`, which re-exports
:func:`build`, :func:`headers` and :func:`url` so that the module satisfies the adapter
contract on its own.

What the mapping guarantees (each change reported as a request-side diagnostic):

- tool-call ids are normalised to ``^[a-zA-Z0-9_-]{1,64}$`` by one collision-free mapping
  applied to ``tool_use`` and ``tool_result`` alike (``tool_call_id_normalized``, QUIRKS B5); a
  call without a result gets a synthetic error result (``orphan_tool_call``, G1), and a result
  that answers no call of the turn before it is sent as user text (G1: an orphan
  ``tool_result`` is a 400 too);
- consecutive tool results (and a user turn right after them) form one user message, results
  first, as Anthropic requires (G1); a result's images stay inside its ``tool_result`` block;
- thinking, redacted thinking and server-tool blocks are replayed verbatim and in order, but
  only to the model that produced them (F1); from another model, or with an empty signature
  (an interrupted stream), visible thinking becomes a text block and opaque data is dropped
  (``thinking_dropped``);
- ``max_tokens`` is always sent: the option, else the model's ``max_output_tokens``, else
  :data:`DEFAULT_MAX_TOKENS` (reported as ``option_unsupported`` with ``details.default``);
- ``reasoning`` becomes a thinking budget (``thinking.budget_tokens``) or, on models with
  adaptive thinking, ``thinking: {"type": "adaptive"}`` plus ``output_config.effort``;
  sampling options thinking forbids are dropped (``option_unsupported``);
- documents are ``document`` blocks (base64, url or text source, ``title``; a PDF to a model
  without ``"pdf"`` input is a placeholder, ``document_omitted``), also inside tool results;
- ``cache`` and ``CachePoint`` s are ``cache_control`` (:mod:`.caching`); ``response_format`` is
  ``output_config.format`` with the schema rewritten for Anthropic (:mod:`llmkit._schema.anthropic`)
  on models that take it; ``stream_tool_arguments`` is ``eager_input_streaming`` on each tool;
  provider tools for this wire are appended to ``tools`` verbatim; a forced ``tool_choice`` to a
  model that refuses one is sent as ``auto`` (reported).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..._diagnostics import Diagnostic
from ..._messages import (
    AssistantMessage,
    CachePoint,
    Citation,
    Context,
    DocumentPart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
    UserPart,
)
from ..._models import Model
from ..._reasoning import BUDGETS, LEVELS, budget, effort, refuse
from ..._tools.definition import Tool
from .. import request_features as features
from ..contract import Options
from ..prepare import Prepared
from ..skeleton import Origin, build_body, strict_refused
from ..turns import turns
from .caching import MARK, control, place
from .compat import claude_flags

__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "THINKING_BUDGETS",
    "VERTEX_VERSION",
    "build",
    "headers",
    "url",
]

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header every request carries."""

VERTEX_VERSION = "vertex-2023-10-16"
"""Claude on Vertex AI: ``anthropic_version`` in the body, which has no ``model`` field (the
model is in the URL)."""

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` when neither the option nor the model's ``max_output_tokens`` gives one (the
wire requires the field)."""

THINKING_BUDGETS: dict[str, int] = BUDGETS
"""``reasoning`` level → ``thinking.budget_tokens`` on models with manual extended thinking
(``"max"``: the model's own maximum, where the catalogue knows it; llmkit._reasoning)."""

_MIN_BUDGET = 1024  # the API refuses smaller budgets; the budget must also be < max_tokens
_EFFORTS = ("low", "medium", "high")  # adaptive thinking's levels on a Claude not catalogued
# For ids the catalogue does not know, the Claude family and version decide (model.compat
# flags set in the catalogue win): 4.6 and later take adaptive thinking with an effort level;
# Fable and Opus 5.5+ cannot turn it off; Opus 4.7 and every Claude 5 refuse sampling params.
_T = TypeVar("_T")
_CLAUDE = re.compile(r"claude-(opus|sonnet|haiku|fable)-(\d+)(?:-(\d{1,2}))?(?!\d)")


def _flag_or_id(
    flag: _T | None, model: Model, unknown: _T, rule: Callable[[str, tuple[int, int]], _T]
) -> _T:
    """How every Claude capability below is decided: the catalogue's flag when it is set, else
    ``rule`` on the Claude family and ``(major, minor)`` version in the id, else ``unknown``
    (an id that names no Claude version)."""
    if flag is not None:
        return flag
    match = _CLAUDE.search(model.id)
    if match is None:
        return unknown
    return rule(match.group(1), (int(match.group(2)), int(match.group(3) or 0)))


def _thinking_by_version(family: str, version: tuple[int, int]) -> str:
    if family == "fable" or (family == "opus" and version >= (5, 5)):
        return "always"
    return "adaptive" if version >= (4, 6) else "budget"


def thinking_mode(model: Model) -> str:
    """``budget``, ``adaptive`` or ``always`` for this model (flag first, then the id)."""
    return _flag_or_id(claude_flags(model).thinking, model, "budget", _thinking_by_version)


def supports_structured_output(model: Model) -> bool:
    """Whether ``output_config.format`` may be sent (flag first, then the id: Claude 4.5 and
    later, Opus 4.1, every Fable)."""
    return _flag_or_id(
        model.structured_output,
        model,
        False,
        lambda family, v: family == "fable" or v >= (4, 5) or (family == "opus" and v >= (4, 1)),
    )


def supports_eager_streaming(model: Model) -> bool:
    """Whether tools may carry ``eager_input_streaming`` (flag first, then the id: Claude 4 and
    later)."""
    return _flag_or_id(
        model.eager_input_streaming,
        model,
        False,
        lambda family, v: family == "fable" or v >= (4, 0),
    )


def supports_sampling(model: Model) -> bool:
    """Whether non-default temperature/top_p may be sent (flag first, then the id: not to
    Claude 5 and later, Opus 4.7 and later, or Fable)."""
    return _flag_or_id(
        claude_flags(model).supports_sampling,
        model,
        True,
        lambda family, v: (
            not (v >= (5, 0) or family == "fable" or (family == "opus" and v >= (4, 7)))
        ),
    )


_IMAGE_PLACEHOLDER = "[image omitted: the model cannot see images]"
_Report = Callable[..., None]  # reports an option that was not sent as given


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """``x-api-key`` (when there is a key) and ``anthropic-version`` (on Vertex AI neither:
    the version is in the body and the platform authenticates, :mod:`llmkit._auth`)."""
    if model.platform == "vertex":
        return {"x-api-key": api_key} if api_key else {}
    out = {"anthropic-version": ANTHROPIC_VERSION}
    if api_key:
        out["x-api-key"] = api_key
    return out


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """The endpoint: ``{base_url}/messages`` (the base URL ends in ``/v1``); on Vertex AI
    ``{base_url}/publishers/anthropic/models/{id}:streamRawPredict`` (``:rawPredict``)."""
    if model.platform == "vertex":
        method = "streamRawPredict" if stream else "rawPredict"
        return f"{base_url.rstrip('/')}/publishers/anthropic/models/{model.id}:{method}"
    return base_url.rstrip("/") + "/messages"


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The ``/messages`` body and its diagnostics (see
    :meth:`~llmkit._wire.contract.WireAdapter.build`): ``"stream": true`` when streamed; on
    Vertex AI ``anthropic_version`` in place of ``model``."""

    def fill(prepared: Prepared) -> dict[str, Any]:
        diags = prepared.diagnostics
        body: dict[str, Any] = {"model": model.id}
        if model.platform == "vertex":
            body = {"anthropic_version": VERTEX_VERSION}
        if context.system:
            body["system"] = context.system
        body["messages"] = _messages(prepared.messages, model, diags)
        eager = _eager(model, opts, diags)
        tools = [_tool(t, model, eager, diags) for t in features.function_tools(context)]
        # Copied: a cache breakpoint may be put on one, and the caller's spec is never modified.
        tools += [dict(spec) for spec in features.provider_tools(context, model, diags)]
        if tools:
            body["tools"] = tools
        _options(body, model, opts, diags)
        place(body, control(model, opts, diags), diags, top_level=opts.cache in ("short", "long"))
        return body

    return build_body(
        model, context, opts, ids="token64", fill=fill, stream={"stream": True} if stream else None
    )


# -- messages -----------------------------------------------------------------------------


def _messages(
    messages: Sequence[Message], model: Model, diags: list[Diagnostic]
) -> list[dict[str, Any]]:
    return turns(
        messages,
        user=lambda m: _user_content(m.content, model, diags),
        assistant=lambda m: _assistant(m, model, diags),
        result=lambda m: [_tool_result(m, model, diags)],
    )


def _user_content(
    parts: Sequence[UserPart], model: Model, diags: list[Diagnostic]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, TextPart):
            if p.text:  # Anthropic refuses empty text blocks
                out.append({"type": "text", "text": p.text})
        elif isinstance(p, CachePoint):
            out.append({"type": MARK})  # becomes cache_control on the block before it
        elif isinstance(p, DocumentPart):
            out.append(_document(p, model, diags))
        elif "image" not in model.input:
            diags.append(
                Diagnostic(
                    kind="image_omitted",
                    message=f"{model.id} takes no images; an image was replaced by a placeholder",
                )
            )
            out.append({"type": "text", "text": _IMAGE_PLACEHOLDER})
        elif p.url is not None:
            out.append({"type": "image", "source": {"type": "url", "url": p.url}})
        else:
            source = {"type": "base64", "media_type": p.media_type, "data": p.data}
            out.append({"type": "image", "source": source})
    return out


def _document(p: DocumentPart, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    if p.text is not None:
        # The text source is text/plain whatever the text/* type (the only one Anthropic takes).
        source: dict[str, Any] = {"type": "text", "media_type": "text/plain", "data": p.text}
    elif not features.reads_pdf(model):
        return {"type": "text", "text": features.omit_document(diags, model, p)}
    elif p.url is not None:
        source = {"type": "url", "url": p.url}
    else:
        source = {"type": "base64", "media_type": p.media_type, "data": p.data}
    block: dict[str, Any] = {"type": "document", "source": source}
    if p.title:
        block["title"] = p.title
    return block


def _tool_result(m: ToolResultMessage, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.tool_call_id}
    if all(isinstance(p, TextPart) for p in m.content):
        text = "".join(p.text for p in m.content if isinstance(p, TextPart))
        if text:
            block["content"] = text
    else:
        # Images and documents go inside the tool_result block on Anthropic (docs/design.md §4).
        content = _user_content(m.content, model, diags)
        if content:
            block["content"] = content
    if m.is_error:
        block["is_error"] = True
    return block


# The fields each citation type takes in a request (anthropic.types.TextCitationParam); the
# response's other fields (``file_id``) are left out.
_CITATION_FIELDS: dict[str, frozenset[str]] = {
    "char_location": frozenset(
        (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_char_index",
            "end_char_index",
        )
    ),
    "page_location": frozenset(
        (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_page_number",
            "end_page_number",
        )
    ),
    "content_block_location": frozenset(
        (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_block_index",
            "end_block_index",
        )
    ),
    "search_result_location": frozenset(
        (
            "type",
            "cited_text",
            "search_result_index",
            "source",
            "title",
            "start_block_index",
            "end_block_index",
        )
    ),
    "web_search_result_location": frozenset(
        ("type", "cited_text", "encrypted_index", "title", "url")
    ),
}


def _citation_param(c: Citation) -> dict[str, Any] | None:
    """An Anthropic citation as the request's text block takes it; ``None`` for a citation
    that came from another wire (it has no Anthropic object to send)."""
    raw = c.provider_data
    kind = raw.get("type") if raw else None
    fields = _CITATION_FIELDS.get(kind) if isinstance(kind, str) else None
    if raw is None or fields is None:
        return None
    return {k: v for k, v in raw.items() if k in fields}


def _assistant(m: AssistantMessage, model: Model, diags: list[Diagnostic]) -> list[dict[str, Any]]:
    origin = Origin(m, model, diags)
    blocks: list[dict[str, Any]] = []
    for p in m.content:
        if isinstance(p, TextPart):
            if p.text:
                block: dict[str, Any] = {"type": "text", "text": p.text}
                if p.citations and origin.same:
                    cited = [c for c in map(_citation_param, p.citations) if c is not None]
                    if cited:
                        block["citations"] = cited
                blocks.append(block)
        elif isinstance(p, ThinkingPart):
            blocks.extend(_thinking(p, origin))
        else:
            blocks.append(_tool_use(p, origin))
    return blocks


def _tool_use(call: ToolCall, origin: Origin) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.name}
    block["input"] = call.arguments  # a recovered call replays its recovered value
    replay = call.replay or {}
    caller, toolset = replay.get("caller"), replay.get("toolset_name")
    if origin.same and isinstance(caller, dict):
        block["caller"] = caller  # programmatic tool calling: who made the call
    if origin.same and isinstance(toolset, str):
        block["toolset_name"] = toolset  # the toolset this member tool belongs to
    origin.call_replay(call)
    return block


def _thinking(p: ThinkingPart, origin: Origin) -> list[dict[str, Any]]:
    replay = p.replay or {}
    why = None  # from another model
    if origin.same:
        block = replay.get("block")
        if isinstance(block, dict) and "input_json" not in replay:
            return [block]  # a server-tool block (web search, code execution), verbatim
        if isinstance(block, dict):
            # Its input was cut short (max_tokens, a broken stream): not a valid block to send.
            origin.dropped(
                f"An incomplete {block.get('type')} block was not sent back", action="dropped"
            )
            return []
        data = replay.get("data")
        if p.redacted and isinstance(data, str) and data:
            return [{"type": "redacted_thinking", "data": data}]
        if not p.redacted and p.signature:
            return [{"type": "thinking", "thinking": p.thinking, "signature": p.signature}]
        # An interrupted stream leaves no signature, which is never valid (QUIRKS F1).
        why = "it has no signature (the stream that produced it was interrupted)"
    text = origin.thinking_as_text(p, why)
    return [] if text is None else [{"type": "text", "text": text}]


# -- tools and options --------------------------------------------------------------------


def _eager(model: Model, opts: Options, diags: list[Diagnostic]) -> bool:
    """Whether each tool asks for fine-grained input streaming (``stream_tool_arguments``)."""
    if not opts.stream_tool_arguments:
        return False
    if supports_eager_streaming(model):
        return True
    diags.append(
        Diagnostic(
            kind="option_unsupported",
            message=f"stream_tool_arguments was not sent: {model.id} has no eager input streaming",
            details={"option": "stream_tool_arguments"},
        )
    )
    return False


def _tool(t: Tool, model: Model, eager: bool, diags: list[Diagnostic]) -> dict[str, Any]:
    # The full JSON Schema is sent, $defs and nested objects included (Anthropic takes draft
    # 2020-12 as is). A strict tool's schema gets the structured-output transform: strict tools
    # have the same schema limits as output_config.format (QUIRKS H5).
    out: dict[str, Any] = {"name": t.name}
    if t.description:
        out["description"] = t.description
    out["input_schema"] = t.parameters
    if t.strict:
        if not model.strict_tools:
            raise strict_refused(t, model)
        from ..._schema.anthropic import anthropic_output_schema

        out["input_schema"], rewrites = anthropic_output_schema(t.parameters, t.name)
        diags.extend(rewrites)
        out["strict"] = True
    if eager:
        out["eager_input_streaming"] = True
    return out


def _options(body: dict[str, Any], model: Model, opts: Options, diags: list[Diagnostic]) -> None:
    def unsupported(option: str, why: str, **details: Any) -> None:
        diags.append(
            Diagnostic(
                kind="option_unsupported",
                message=f"{option} was not sent as given: {why}",
                details={"option": option, **details},
            )
        )

    max_tokens = opts.max_tokens if opts.max_tokens is not None else model.max_output_tokens
    if max_tokens is None:
        # Nothing was given, and the wire requires a limit: say which one llmkit chose.
        max_tokens = DEFAULT_MAX_TOKENS
        diags.append(
            Diagnostic(
                kind="option_unsupported",
                message=(
                    f"max_tokens was not given and {model.id} has no known output limit; "
                    f"Anthropic requires one, so {DEFAULT_MAX_TOKENS} was sent"
                ),
                details={"option": "max_tokens", "given": None, "sent": DEFAULT_MAX_TOKENS},
            )
        )
    body["max_tokens"] = max_tokens

    choice = _tool_choice(
        opts, features.forced_choice(model, opts, diags), bool(body.get("tools")), unsupported
    )
    forced = choice is not None and choice["type"] in ("any", "tool")
    thinking = _reasoning(body, model, opts, max_tokens, forced, unsupported)

    sampling = supports_sampling(model)
    if opts.temperature is not None:
        if not sampling:
            unsupported("temperature", f"{model.id} refuses non-default sampling parameters")
        elif thinking:  # the API refuses temperature changes with thinking on
            unsupported("temperature", "thinking is on, which requires the default temperature")
        else:
            body["temperature"] = opts.temperature
    if opts.top_p is not None:
        if not sampling:
            unsupported("top_p", f"{model.id} refuses non-default sampling parameters")
        elif thinking and opts.top_p < 0.95:  # with thinking, top_p may only be 0.95..1
            unsupported("top_p", "thinking is on, which allows top_p only from 0.95 to 1")
        else:
            body["top_p"] = opts.top_p
    if opts.stop:
        body["stop_sequences"] = opts.stop
    if choice is not None:
        body["tool_choice"] = choice
    if opts.response_format is not None:
        _response_format(body, model, opts.response_format, diags, unsupported)
    if opts.cache_key is not None:
        unsupported("cache_key", "Anthropic keys its cache by the prompt prefix; it takes no key")


def _response_format(
    body: dict[str, Any], model: Model, fmt: Any, diags: list[Diagnostic], unsupported: _Report
) -> None:
    from ..._schema.anthropic import anthropic_output_schema

    schema = features.output_schema(fmt, None)[1]  # no name on this wire
    if not supports_structured_output(model):
        unsupported(
            "response_format",
            f"{model.id} takes no output_config.format (structured output); describe the "
            "format in the prompt or use a tool",
        )
        return
    transformed, rewrites = anthropic_output_schema(schema, "response_format")
    diags.extend(rewrites)
    body.setdefault("output_config", {})["format"] = {"type": "json_schema", "schema": transformed}


def _tool_choice(
    opts: Options, wanted: Any, has_tools: bool, unsupported: _Report
) -> dict[str, Any] | None:
    choice: dict[str, Any] | None = None
    if wanted is not None:
        if not has_tools:
            unsupported("tool_choice", "the request declares no tools")
        elif isinstance(wanted, dict):
            choice = {"type": "tool", "name": wanted["name"]}
        elif wanted == "required":
            choice = {"type": "any"}
        else:
            choice = {"type": wanted}  # "auto" or "none"
    if opts.parallel_tool_calls is not None:
        if not has_tools:
            unsupported("parallel_tool_calls", "the request declares no tools")
        elif choice is not None and choice["type"] == "none":
            unsupported("parallel_tool_calls", "tool_choice 'none' allows no calls at all")
        elif opts.parallel_tool_calls is False:
            choice = choice or {"type": "auto"}
            choice["disable_parallel_tool_use"] = True
        # True is Anthropic's default: nothing to send.
    return choice


def _reasoning(
    body: dict[str, Any],
    model: Model,
    opts: Options,
    max_tokens: int,
    forced: bool,
    unsupported: _Report,
) -> bool:
    """Map ``reasoning`` onto ``thinking``; returns whether thinking is on."""
    level = opts.reasoning
    if level is None:
        return False
    if not model.reasoning:
        unsupported("reasoning", f"{model.id} is not a reasoning model")
        return False
    mode = thinking_mode(model)
    if level == "off":
        if mode == "always":
            unsupported("reasoning='off'", f"{model.id} always thinks; it cannot be turned off")
            return True
        body["thinking"] = {"type": "disabled"}
        return False
    if level not in LEVELS:
        raise refuse(level)
    if forced:
        # "Thinking may not be enabled when tool_choice forces tool use" (a 400): the explicit
        # tool choice wins.
        unsupported("reasoning", "thinking cannot be combined with a forced tool_choice")
        return False
    if mode in ("adaptive", "always"):
        body["thinking"] = {"type": "adaptive"}
        body.setdefault("output_config", {})["effort"] = effort(model, level, _EFFORTS, unsupported)
        return True
    wanted = budget(model, level, unsupported)
    tokens = min(wanted, max_tokens - 1)
    if tokens < _MIN_BUDGET:
        unsupported(
            "reasoning", f"a thinking budget needs max_tokens > {_MIN_BUDGET}, got {max_tokens}"
        )
        return False
    if tokens < wanted:
        unsupported(
            f"reasoning={level!r}",
            f"the thinking budget was reduced to {tokens} to stay below max_tokens",
            budget=tokens,
        )
    body["thinking"] = {"type": "enabled", "budget_tokens": tokens}
    return True
