"""OpenAI Responses request mapping (``api="openai-responses"``): Context and options → body.

Pure, no I/O. :func:`build` returns the JSON body of ``POST {base_url}/responses`` and a
diagnostic for everything it had to change. The wire is used statelessly: ``store: false``, and
reasoning models are asked for ``include: ["reasoning.encrypted_content"]`` so that their
reasoning items can be replayed from the caller's own transcript (QUIRKS F4).

How the neutral transcript maps to ``input`` items:

- a user message → ``{"role": "user", "content": ...}`` (``input_text`` / ``input_image``);
- an assistant message → its parts in order: text as ``{"role": "assistant", "content": text}``
  (with its message's ``phase``; a cited text as its output message, with its id and status),
  each replayable reasoning item as ``{"type": "reasoning", "id", "summary",
  "encrypted_content", "status"}`` (before the call it belongs to, since content order is wire
  order), each tool call as a ``function_call`` (``call_id`` = ``ToolCall.id``; its ``status``,
  ``namespace``, ``caller`` and ``async`` from ``replay``) or, for a freeform call, a
  ``custom_tool_call``; a
  computer, shell, apply-patch or MCP-approval call as its own item (:mod:`.calls`);
- a tool result → ``function_call_output`` (``custom_tool_call_output``), images and PDFs
  inline as ``input_image`` / ``input_file`` parts of ``output``; for the other client-side
  calls, the matching output item (:mod:`.calls`);
- a hosted-tool item the model produced (web search, file search, code interpreter, image
  generation, MCP, …), kept as an opaque ThinkingPart with ``replay["item"]``, goes back
  verbatim, in place, to the same model only (``thinking_dropped`` otherwise).

Documents are ``input_file`` parts (``file_data`` with a ``filename``, or ``file_url``); a text
document is ``input_text``. ``CachePoint`` s become ``prompt_cache_breakpoint`` on models with
explicit breakpoints; ``cache``/``cache_key`` map to the ``prompt_cache_*`` fields.
"""

from __future__ import annotations

from typing import Any

from ..._diagnostics import Diagnostic
from ..._errors import InvalidRequestError, ToolDefinitionError
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
from ..._tools.definition import Tool
from .. import request_features as features
from ..contract import Options
from ..prepare import Prepared, arguments_json
from ..skeleton import Origin, build_body, strict_refused
from .calls import CUSTOM, call_input_item, call_output_item
from .citations import output_annotations
from .compat import responses_flags
from .items import PASSED_BACK, input_form

__all__ = ["HOSTED", "build", "headers", "url"]

IMAGE_PLACEHOLDER = "[image omitted: the model cannot see images]"
HOSTED = "item"
"""``ThinkingPart.replay`` key of a hosted-tool output item kept verbatim for replay."""


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """Auth headers: ``Authorization: Bearer`` (no header when there is no key)."""
    return {"authorization": f"Bearer {api_key}"} if api_key else {}


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """The endpoint."""
    return base_url.rstrip("/") + "/responses"


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The ``/responses`` body and its diagnostics (see
    :meth:`~llmkit._wire.contract.WireAdapter.build`), stateless: ``store: false`` (a reasoning
    model's encrypted reasoning asked for, QUIRKS F4); ``"stream": true`` when streamed."""

    def fill(prepared: Prepared) -> dict[str, Any]:
        diags = prepared.diagnostics
        marks = features.Breakpoints(model, opts, diags)
        calls: dict[str, ToolCall] = {}  # client-side calls sent so far, by id
        items: list[dict[str, Any]] = []
        for m in prepared.messages:
            if isinstance(m, UserMessage):
                content = _user_content(m.content, model, diags, marks)
                items.append({"role": "user", "content": content})
            elif isinstance(m, AssistantMessage):
                items.extend(_assistant_items(m, model, diags, calls))
            else:
                items.append(_tool_output(m, model, diags, calls, marks))
        marks.report()

        body: dict[str, Any] = {"model": model.id}
        if context.system:
            body["instructions"] = context.system
        body["input"] = items
        tools = [_tool(t, model, diags) for t in features.function_tools(context)]
        tools += features.provider_tools(context, model, diags)
        if tools:
            body["tools"] = tools
        _options(body, model, opts, diags)
        # Stateless by default: nothing is kept server-side, so history is always sent in full
        # and reasoning travels as encrypted content (QUIRKS F4). provider_options may override
        # both.
        body["store"] = False
        if model.reasoning:
            body["include"] = ["reasoning.encrypted_content"]
        return body

    # Responses call ids are at most 64 characters; token64 (^[a-zA-Z0-9_-]{1,64}$) is a safe
    # subset, so foreign ids (Kimi's "functions.f:0", compound "call_…|fc_…" ids) are rewritten
    # collision-free for calls and results (QUIRKS B5).
    return build_body(
        model, context, opts, ids="token64", fill=fill, stream={"stream": True} if stream else None
    )


# -- input items ----------------------------------------------------------------------------


def _image(p: ImagePart, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    if "image" not in model.input:
        diags.append(
            Diagnostic(
                kind="image_omitted",
                message=f"{model.id} takes no images; an image was replaced by a placeholder",
            )
        )
        return {"type": "input_text", "text": IMAGE_PLACEHOLDER}
    src = p.url if p.url is not None else f"data:{p.media_type};base64,{p.data}"
    return {"type": "input_image", "image_url": src, "detail": "auto"}


def _document(p: DocumentPart, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    if p.text is not None:
        return {"type": "input_text", "text": features.document_text(p)}
    if not features.reads_pdf(model):
        return {"type": "input_text", "text": features.omit_document(diags, model, p)}
    if p.url is not None:
        return {"type": "input_file", "file_url": p.url}
    data = f"data:{p.media_type};base64,{p.data}"
    return {"type": "input_file", "filename": features.filename(p), "file_data": data}


def _parts(
    parts: list[UserPart], model: Model, diags: list[Diagnostic], marks: features.Breakpoints
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, TextPart):
            out.append({"type": "input_text", "text": p.text})
        elif isinstance(p, CachePoint):
            marks.after(out)
        elif isinstance(p, DocumentPart):
            out.append(_document(p, model, diags))
        else:
            out.append(_image(p, model, diags))
    return out


def _plain(parts: list[UserPart], model: Model) -> bool:
    """Whether the parts are text only (CachePoints a model ignores leave the body exactly as
    it is without them)."""
    ignored = () if model.cache_points else (CachePoint,)
    return all(isinstance(p, (TextPart, *ignored)) for p in parts)


def _user_content(
    parts: list[UserPart], model: Model, diags: list[Diagnostic], marks: features.Breakpoints
) -> str | list[dict[str, Any]]:
    if _plain(parts, model):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    return _parts(parts, model, diags, marks)


def _replayable(part: ThinkingPart) -> bool:
    replay = part.replay or {}
    return isinstance(replay.get("id"), str) and bool(replay.get("encrypted_content"))


def _reasoning_item(replay: dict[str, Any]) -> dict[str, Any]:
    # Only id, summary, encrypted_content and status: OpenAI rejects plaintext reasoning
    # `content` on input items, and needs `summary` even when it is empty.
    summary = [
        {"type": "summary_text", "text": s["text"]}
        for s in replay.get("summary") or ()
        if isinstance(s, dict) and isinstance(s.get("text"), str)
    ]
    item = {
        "type": "reasoning",
        "id": replay["id"],
        "summary": summary,
        "encrypted_content": replay["encrypted_content"],
    }
    if replay.get("status") in ("completed", "incomplete"):
        item["status"] = replay["status"]
    return item


def _assistant_items(
    m: AssistantMessage, model: Model, diags: list[Diagnostic], calls: dict[str, ToolCall]
) -> list[dict[str, Any]]:
    origin = Origin(m, model, diags)
    same = origin.same
    kept, dropped = _reasoning_to_replay(m, same)
    hosted = sum(isinstance(p, ThinkingPart) and _hosted(p) for p in m.content)
    if hosted and not same:
        origin.dropped(
            f"{hosted} hosted-tool item(s) from {origin.name} were not replayed: they are only "
            "valid for the model that produced them",
            parts=hosted,
            reasons=["another model produced it"],
        )
    if dropped:
        origin.dropped(
            "Reasoning was not replayed: " + "; ".join(sorted(set(dropped))),
            parts=len(dropped),
            reasons=sorted(set(dropped)),
        )
    # A function_call that carries its fc_ item id must come with the reasoning item it
    # follows ("…provided without its required 'reasoning' item", QUIRKS F4), so the id is sent
    # only when every reasoning item of this turn is replayed; call_id alone pairs the results.
    pair_ids = bool(kept) and not dropped
    # gpt-5.x labels each message "commentary" or "final_answer"; OpenAI asks for the label
    # back on replay (dropping it degrades later turns). One entry per TextPart.
    data = (m.provider_data or {}) if same else {}
    phases, ids = data.get("message_phases"), data.get("message_ids")
    statuses = data.get("message_statuses")
    out: list[dict[str, Any]] = []
    texts = 0
    for i, part in enumerate(m.content):
        if isinstance(part, TextPart):
            phase, item_id, status = (_nth(v, texts) for v in (phases, ids, statuses))
            texts += 1
            annotations = output_annotations(part) if same and isinstance(item_id, str) else None
            if part.text and annotations:
                # Cited text goes back as the output message it came in, annotations and all.
                message = {
                    "type": "message",
                    "id": item_id,
                    "role": "assistant",
                    "status": status if status in _STATUSES else "completed",
                    "content": [
                        {"type": "output_text", "text": part.text, "annotations": annotations}
                    ],
                }
                if phase in ("commentary", "final_answer"):
                    message["phase"] = phase
                out.append(message)
            elif part.text:
                # A plain assistant message: the output-message form would need its msg_ id,
                # which is not resolvable with store=false.
                message = {"role": "assistant", "content": part.text}
                if phase in ("commentary", "final_answer"):
                    message["phase"] = phase
                out.append(message)
        elif isinstance(part, ThinkingPart):
            item = (part.replay or {}).get(HOSTED)
            if isinstance(item, dict):
                if same and item.get("status") == "in_progress":
                    # Only .added arrived (a cut stream): not a complete item to send back.
                    origin.dropped(
                        f"An incomplete {item.get('type')} item was not sent back",
                        action="dropped",
                        item_type=item.get("type"),
                    )
                elif same:  # a hosted tool's item, verbatim and in place
                    out.append(input_form(item))
            elif i in kept:
                out.append(_reasoning_item(part.replay or {}))
        else:
            out.append(_call_item(part, pair_ids, calls, same))
    return out


_STATUSES = ("in_progress", "completed", "incomplete")  # of an output message


def _nth(values: Any, n: int) -> Any:
    """Entry ``n`` of a per-TextPart list kept in ``provider_data`` (``None`` if none)."""
    return values[n] if isinstance(values, list) and n < len(values) else None


def _hosted(part: ThinkingPart) -> bool:
    return isinstance((part.replay or {}).get(HOSTED), dict)


def _reasoning_to_replay(m: AssistantMessage, same: bool) -> tuple[set[int], list[str]]:
    """Positions of the reasoning parts to send, and why each other one is not sent."""
    kept: set[int] = set()
    dropped: list[str] = []
    followed = False  # walking backwards: has a text, call or hosted item come after this one?
    for i in range(len(m.content) - 1, -1, -1):
        part = m.content[i]
        if isinstance(part, ThinkingPart) and _hosted(part):
            followed = followed or same  # replayed only to the same model
        elif not isinstance(part, ThinkingPart):
            followed = followed or isinstance(part, ToolCall) or bool(part.text)
        elif not same:
            # Reasoning is opaque and model-bound: another model's (an Anthropic signature,
            # a Gemini thought) cannot be sent here.
            dropped.append("another model produced it")
        elif not _replayable(part):
            # An rs_ id without its encrypted content is "not found" with store=false (F4).
            dropped.append("it has no encrypted_content")
        elif (part.replay or {}).get("status") == "in_progress":
            dropped.append("it never completed")  # only .added arrived (a cut stream)
        elif not followed:
            # A reasoning item needs the item that followed it ("…provided without its
            # required following item", QUIRKS F4): one that ended the turn is not sent.
            dropped.append("nothing followed it in its turn")
        else:
            kept.add(i)
    return kept, dropped


def _call_item(
    call: ToolCall, pair_ids: bool, calls: dict[str, ToolCall], same: bool
) -> dict[str, Any]:
    replay = call.replay or {}
    other = call_input_item(call, pair_ids)  # computer, shell, patch, MCP approval (.calls)
    if other is not None:
        calls[call.id] = call
        return other
    item: dict[str, Any]
    if replay.get("type") in FREEFORM_CALLS:
        # A freeform (custom tool) call, from this wire or Chat: its input is plain text.
        calls[call.id] = call
        item = {"type": CUSTOM, "call_id": call.id, "name": call.name, "input": call.raw_arguments}
    else:
        item = {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments_json(call),
        }
    for key in PASSED_BACK if same else ():  # namespace, caller, async: back as they came
        if key in replay:
            item[key] = replay[key]
    item_id = replay.get("item_id")
    if pair_ids and isinstance(item_id, str) and item_id:
        item["id"] = item_id
    return item


def _tool_output(
    m: ToolResultMessage,
    model: Model,
    diags: list[Diagnostic],
    calls: dict[str, ToolCall],
    marks: features.Breakpoints,
) -> dict[str, Any]:
    call = calls.get(m.tool_call_id)
    if call is not None:
        other = call_output_item(m, call, diags)  # the matching output item (see .calls)
        if other is not None:
            return other
    # Responses takes a result's images and files inline: `output` may be a list of
    # input_text, input_image and input_file parts, so nothing moves to a separate user message.
    output: str | list[dict[str, Any]]
    media = any(
        isinstance(p, ImagePart) or (isinstance(p, DocumentPart) and p.is_pdf) for p in m.content
    )
    marked = model.cache_points and any(isinstance(p, CachePoint) for p in m.content)
    if media or marked:
        output = _parts(m.content, model, diags, marks)
    else:
        output = features.result_text(m.content)
    kind = "function_call_output" if call is None else "custom_tool_call_output"
    return {"type": kind, "call_id": m.tool_call_id, "output": output}


# -- tools and options ----------------------------------------------------------------------


def _tool(t: Tool, model: Model, diags: list[Diagnostic]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "function", "name": t.name}
    if t.description:
        out["description"] = t.description
    if t.strict:
        if not (model.strict_tools and responses_flags(model).supports_strict):
            raise strict_refused(t, model)
        out["parameters"], rewrites = _strict(t.parameters, t.name)
        diags.extend(rewrites)
        out["strict"] = True
    else:
        out["parameters"] = t.parameters
        if responses_flags(model).supports_strict:
            # Unlike Chat Completions, Responses treats a *missing* `strict` as strict and
            # normalises the schema (optional fields become required): a non-strict tool
            # must say `strict: false`. Servers that reject the key get none (QUIRKS H2).
            out["strict"] = False
    return out


def _strict(schema: dict[str, Any], name: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    from ..._schema.strict import openai_strict_schema

    try:
        return openai_strict_schema(schema, name)
    except ToolDefinitionError as e:  # strict mode cannot express this schema
        raise InvalidRequestError(f"{name}: {e}") from None


def _options(body: dict[str, Any], model: Model, opts: Options, diags: list[Diagnostic]) -> None:
    def unsupported(option: str, why: str) -> None:
        diags.append(
            Diagnostic(
                kind="option_unsupported",
                message=f"{option} was not sent: {why}",
                details={"option": option},
            )
        )

    if opts.max_tokens is not None:
        body["max_output_tokens"] = opts.max_tokens
    if opts.temperature is not None:
        body["temperature"] = opts.temperature
    if opts.top_p is not None:
        body["top_p"] = opts.top_p
    if opts.stop:
        unsupported("stop", "the Responses API has no stop sequences")
    has_tools = bool(body.get("tools"))
    choice = features.forced_choice(model, opts, diags)
    if choice is not None:
        if not has_tools:
            unsupported("tool_choice", "the request declares no tools")
        elif isinstance(choice, dict):
            body["tool_choice"] = {"type": "function", "name": choice["name"]}
        else:
            body["tool_choice"] = choice
    if opts.parallel_tool_calls is not None:
        if not has_tools:
            unsupported("parallel_tool_calls", "the request declares no tools")
        else:
            body["parallel_tool_calls"] = opts.parallel_tool_calls
    reasoning: dict[str, Any] = {}
    if opts.reasoning is not None:
        if not model.reasoning:
            unsupported("reasoning", f"{model.id} is not a reasoning model")
        elif opts.reasoning != "off":
            reasoning["effort"] = effort(model, opts.reasoning, CLASSIC, unsupported)
        elif (off := off_effort(model)) is not None:
            reasoning["effort"] = off
        else:
            reasoning["effort"] = "minimal"
            unsupported("reasoning='off'", "reasoning cannot be turned off; sent 'minimal'")
    if model.reasoning:
        # Without a summary the model's reasoning stays invisible (only encrypted).
        reasoning["summary"] = "auto"
        body["reasoning"] = reasoning
    if opts.response_format is not None:
        if model.structured_output is False:
            unsupported("response_format", f"{model.id} has no structured output")
        else:
            body["text"] = {"format": _response_format(model, opts.response_format, diags)}
    features.openai_cache(body, model, opts, diags)


def _response_format(model: Model, fmt: Any, diags: list[Diagnostic]) -> dict[str, Any]:
    name, schema = features.output_schema(fmt, diags)
    if not responses_flags(model).supports_strict:
        return {"type": "json_schema", "name": name, "schema": schema}  # as written (H2)
    strict, rewrites = _strict(schema, name)
    diags.extend(rewrites)
    return {"type": "json_schema", "name": name, "schema": strict, "strict": True}
