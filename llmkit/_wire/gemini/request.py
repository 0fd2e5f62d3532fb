"""Gemini ``generateContent`` / ``streamGenerateContent`` request building (``api="gemini"``).

Pure: a Context and options in, the URL/headers/JSON body out, plus a diagnostic for every
change made to fit Gemini. The mapping:

- ``systemInstruction``; ``contents`` alternating ``user``/``model``; images as ``inlineData``
  (``fileData`` for URLs);
- a model turn's parts one-to-one with the message's parts: text, ``thought`` parts and
  ``functionCall`` parts, each with the ``thoughtSignature`` it arrived with, sent back to the
  same model only (QUIRKS F2). A Gemini 3 model requires a signature on the first
  ``functionCall`` of a turn; history from another model gets the documented placeholder
  :data:`SKIP_SIGNATURE` there, reported as ``thinking_dropped``;
- every result of one batch of calls in one ``user`` content, as ``functionResponse`` parts in
  call order, each with the ``name`` of its call and the call ``id`` when Gemini gave one
  (QUIRKS B4, G4); a result's images follow the responses as parts;
- tools as ``functionDeclarations`` with ``parametersJsonSchema`` (the full JSON Schema);
  models that predate it (:data:`OPENAPI_SUBSET_MODELS`) get ``parameters`` in the OpenAPI
  subset, rewritten by :func:`llmkit._schema.gemini.gemini_openapi_schema` (QUIRKS H3);
- ``toolConfig.functionCallingConfig`` (AUTO / ANY / NONE, allowed function names;
  ``streamFunctionCallArguments`` for ``stream_tool_arguments``, on Vertex AI only) and
  ``generationConfig`` (max output tokens, temperature, top-p, stop sequences,
  ``responseMimeType`` + ``responseJsonSchema``, ``thinkingConfig`` from ``reasoning``);
- documents as ``inlineData`` / ``fileData`` (``application/pdf``), a text document as text;
  provider tools for this wire (``{"google_search": {}}``, ``{"code_execution": {}}``, …) as
  their own ``tools`` entries; hosted-tool parts the model produced (``executableCode``,
  ``codeExecutionResult``, kept as opaque ThinkingParts) back verbatim to the same model.
  Gemini caches prefixes implicitly: ``CachePoint`` s need nothing; ``cache="long"``/``"off"``
  and ``cache_key`` have no field and are reported.
"""

from __future__ import annotations

import mimetypes
import re
from typing import Any

from ..._diagnostics import Diagnostic, DiagnosticKind
from ..._errors import InvalidRequestError, ToolDefinitionError
from ..._messages import (
    AssistantMessage,
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
from ..._reasoning import budget, effort
from ..._tools.definition import Tool
from .. import request_features as features
from ..contract import Options
from ..prepare import Prepared
from ..skeleton import Origin, build_body, strict_refused
from .kept import OUTPUT_ONLY_PART_FIELDS

__all__ = [
    "HOSTED_PART",
    "OPENAPI_SUBSET_MODELS",
    "SIGNATURE_CARRIER",
    "SKIP_SIGNATURE",
    "build",
    "headers",
    "url",
]

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The placeholder Google documents for a ``functionCall`` whose signature is unknown (history
from another model, or a call injected by the caller): Gemini 3 then skips validation."""

HOSTED_PART = "part"
"""``ThinkingPart.replay["gemini"]`` of a hosted-tool part the model produced (``executableCode``,
``codeExecutionResult``, …), kept verbatim in ``replay["part"]`` and sent back, in place, to the
same model."""

SIGNATURE_CARRIER = "signature"
"""``ThinkingPart.replay["gemini"]`` of a part that only carries a ``thoughtSignature`` Gemini
sent on a part that is neither a thought nor a call (the decoder's side of QUIRKS F2;
``TextPart`` has no replay field). With ``replay["next"]`` the signature belongs to the text
that follows (it arrived on that text); without, it arrived on an empty text part (Gemini 3's
trailing one) and goes back as such an empty part, in place."""

OPENAPI_SUBSET_MODELS = re.compile(r"^(?:models/)?(?:gemini-1\.|gemini-pro|gemini-2\.0|gemma-)")
"""Model ids that get ``parameters`` in the OpenAPI subset instead of ``parametersJsonSchema``
(which arrived with Gemini 2.5); every later model takes the full JSON Schema."""

_GENERATION = re.compile(r"gemini-(\d+)")
_STOP_SEQUENCES = 5  # Gemini refuses more than five stop sequences
# thinkingBudget per level for Gemini 2.5 (flash: 0-24576, pro: 128-32768).
_BUDGETS = {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
_IMAGE_OMITTED = "[image omitted: the model cannot see images]"


def headers(model: Model, api_key: str | None) -> dict[str, str]:
    """Auth header: ``x-goog-api-key`` (none without a key)."""
    return {"x-goog-api-key": api_key} if api_key else {}


def url(model: Model, base_url: str, *, stream: bool) -> str:
    """``{base}/models/{id}:streamGenerateContent?alt=sse`` or ``:generateContent``; on
    Vertex AI ``{base}/publishers/google/models/{id}:…``.

    ``alt=sse`` is always sent: without it Gemini streams one JSON array (QUIRKS A10).
    """
    base = base_url.rstrip("/")
    name = model.id if model.id.startswith("models/") else f"models/{model.id}"
    if model.platform == "vertex":  # Vertex AI: the model is a publisher's (docs/cloud.md)
        name = f"publishers/google/{name}"
    if stream:
        return f"{base}/{name}:streamGenerateContent?alt=sse"
    return f"{base}/{name}:generateContent"


def _fields(replay: dict[str, Any] | None) -> dict[str, Any]:
    """A part's own fields kept in its replay data (``partMetadata``, ``videoMetadata``, ...),
    as Gemini takes them back: the output-only ones left out (docs/design.md §3)."""
    fields = (replay or {}).get("fields")
    if not isinstance(fields, dict):
        return {}
    return {k: v for k, v in fields.items() if k not in OUTPUT_ONLY_PART_FIELDS}


def _generation(model: Model) -> int:
    """The Gemini generation of a model id (``gemini-3-pro-preview`` → 3; 0 when unknown)."""
    found = _GENERATION.search(model.id)
    return int(found.group(1)) if found else 0


def _requires_signature(model: Model) -> bool:
    # Gemini 3 validates signatures on function calls (400 "Function call is missing a
    # thought_signature", QUIRKS F2); Gemini 2.5 accepts calls without one.
    return _generation(model) >= 3


class _Builder:
    """One request being built: the body and the diagnostics of what changed."""

    def __init__(self, model: Model, context: Context, opts: Options, prepared: Prepared) -> None:
        self.model = model
        self.context = context
        self.opts = opts
        self.prepared = prepared
        self.diags = prepared.diagnostics
        self.calls: dict[str, tuple[str, str | None]] = {}  # call id -> (name, Gemini id)

    def report(
        self, kind: DiagnosticKind, message: str, tool_call_id: str | None = None, **details: Any
    ) -> None:
        self.diags.append(
            Diagnostic(kind=kind, message=message, tool_call_id=tool_call_id, details=details)
        )

    def unsupported(self, option: str, why: str) -> None:
        self.report("option_unsupported", f"{option} was not sent: {why}", option=option)

    # -- contents ------------------------------------------------------------------------

    def contents(self) -> list[dict[str, Any]]:
        messages = self.prepared.messages
        for m in messages:
            if isinstance(m, AssistantMessage):
                for c in m.tool_calls:
                    self.calls[c.id] = (c.name, _gemini_id(c, m))
        out: list[dict[str, Any]] = []
        batch: list[ToolCall] = []  # the calls of the last model turn, in order
        i = 0
        while i < len(messages):
            m = messages[i]
            if isinstance(m, ToolResultMessage):
                run: list[ToolResultMessage] = []
                while i < len(messages):
                    result = messages[i]
                    if not isinstance(result, ToolResultMessage):
                        break
                    run.append(result)
                    i += 1
                out.append(self.responses(run, batch))
                continue
            if isinstance(m, UserMessage):
                out.append({"role": "user", "parts": self.user_parts(m.content)})
            else:
                batch = m.tool_calls
                parts = self.model_parts(m)
                if parts:  # an empty turn (aborted before any output) holds nothing to send
                    out.append({"role": "model", "parts": parts})
            i += 1
        return out

    def user_parts(self, content: list[UserPart]) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for p in content:
            if isinstance(p, TextPart):
                parts.append({"text": p.text})
            elif isinstance(p, DocumentPart):
                parts.append(self.document(p))
            elif isinstance(p, ImagePart):
                parts.append(self.image(p))
            # A CachePoint needs nothing: Gemini caches prompt prefixes implicitly.
        return parts or [{"text": ""}]  # Gemini refuses a content without parts

    def document(self, p: DocumentPart) -> dict[str, Any]:
        if p.text is not None:
            return {"text": features.document_text(p)}
        if not features.reads_pdf(self.model):
            return {"text": features.omit_document(self.diags, self.model, p)}
        if p.data is not None:
            return {"inlineData": {"mimeType": p.media_type, "data": p.data}}
        return {"fileData": {"mimeType": p.media_type, "fileUri": p.url}}

    def image(self, p: ImagePart) -> dict[str, Any]:
        if "image" not in self.model.input:
            self.report("image_omitted", f"{self.model.id} takes no images; sent a placeholder")
            return {"text": _IMAGE_OMITTED}
        if p.data is not None:
            return {"inlineData": {"mimeType": p.media_type, "data": p.data}}
        file: dict[str, Any] = {"fileUri": p.url}
        mime = p.media_type or (mimetypes.guess_type(p.url or "")[0])
        if mime:
            file = {"mimeType": mime, **file}
        return {"fileData": file}

    def model_parts(self, m: AssistantMessage) -> list[dict[str, Any]]:
        model = self.model
        origin = Origin(m, model, self.diags)
        mine = origin.same
        parts: list[dict[str, Any]] = []
        pending: dict[str, Any] | None = None  # carried for the text that follows (F2)

        def flush() -> None:
            nonlocal pending
            if pending:  # nothing took it: back on an empty text part, in place
                parts.append({"text": "", **pending})
            pending = None

        dropped = 0
        first_call = True
        for p in m.content:
            if isinstance(p, TextPart):
                part: dict[str, Any] = {"text": p.text}
                if pending:
                    part.update(pending)
                    pending = None
                elif not p.text:
                    continue
                parts.append(part)
                continue
            flush()
            if isinstance(p, ThinkingPart):
                hosted = (p.replay or {}).get(HOSTED_PART)
                if not mine:
                    # Thoughts and signatures are only valid for the model that made them.
                    dropped += 1
                elif (p.replay or {}).get("gemini") == HOSTED_PART and isinstance(hosted, dict):
                    parts.append(hosted)  # a hosted tool's part, verbatim and in place
                elif (p.replay or {}).get("gemini") == SIGNATURE_CARRIER:
                    carried = _fields(p.replay)
                    if p.signature:
                        carried["thoughtSignature"] = p.signature
                    if p.replay and p.replay.get("next"):
                        pending = carried or None
                    elif carried:
                        parts.append({"text": "", **carried})
                elif p.redacted:
                    dropped += 1  # Gemini never redacts; nothing it could read back
                else:
                    thought: dict[str, Any] = {**_fields(p.replay), "text": p.thinking}
                    thought["thought"] = True
                    if p.signature:
                        thought["thoughtSignature"] = p.signature
                    parts.append(thought)
            else:
                parts.append(self.function_call(p, m, origin, first_call))
                first_call = False
        flush()
        if dropped:
            origin.dropped(
                "Thinking from another model (or redacted thinking) was not replayed to Gemini",
                parts=dropped,
            )
        return parts

    def function_call(
        self, c: ToolCall, m: AssistantMessage, origin: Origin, first: bool
    ) -> dict[str, Any]:
        call: dict[str, Any] = {"name": c.name, "args": c.arguments}
        gemini_id = _gemini_id(c, m)
        if gemini_id:
            call["id"] = gemini_id
        part: dict[str, Any] = {"functionCall": call}
        if origin.same:
            part.update(_fields(c.replay))
        signature = (c.replay or {}).get("thoughtSignature") if origin.same else None
        if isinstance(signature, str) and signature:
            part["thoughtSignature"] = signature
        elif first and _requires_signature(self.model):
            part["thoughtSignature"] = SKIP_SIGNATURE
            origin.dropped(
                "No thought signature for this call (history from another model); sent "
                f"Gemini's documented placeholder {SKIP_SIGNATURE!r}",
                c.id,
                placeholder=SKIP_SIGNATURE,
            )
        return part

    def responses(self, run: list[ToolResultMessage], batch: list[ToolCall]) -> dict[str, Any]:
        # Gemini wants every response to a batch of parallel calls in one content, as many as
        # there were calls, in call order, each named (QUIRKS G4, F2).
        order = {c.id: n for n, c in enumerate(batch)}
        run = sorted(run, key=lambda r: order.get(r.tool_call_id, len(order)))
        parts: list[dict[str, Any]] = []
        images: list[dict[str, Any]] = []
        for r in run:
            name, gemini_id = self.calls.get(r.tool_call_id, (r.tool_name, None))
            text = features.result_text(r.content)
            # Google's convention: "output" for a result, "error" for a failure.
            response: dict[str, Any] = {
                "name": name,
                "response": {"error" if r.is_error else "output": text},
            }
            if gemini_id:
                response["id"] = gemini_id
            parts.append({"functionResponse": response})
            media = [
                p
                for p in r.content
                if isinstance(p, ImagePart) or (isinstance(p, DocumentPart) and p.is_pdf)
            ]
            if media:
                what = "Images" if all(isinstance(p, ImagePart) for p in media) else "Files"
                images.append({"text": f"{what} returned by {name} ({r.tool_call_id}):"})
                for p in media:
                    if isinstance(p, ImagePart):
                        images.append(self.image(p))
                    elif isinstance(p, DocumentPart):
                        images.append(self.document(p))
        return {"role": "user", "parts": parts + images}

    # -- tools and options ---------------------------------------------------------------

    def declaration(self, t: Tool) -> dict[str, Any]:
        if t.strict and not self.model.strict_tools:
            raise strict_refused(t, self.model)
        out: dict[str, Any] = {"name": t.name}
        if t.description:
            out["description"] = t.description
        if OPENAPI_SUBSET_MODELS.search(self.model.id):
            params = self.openapi(t.parameters, t.name)
            if params.get("properties"):  # an empty object is sent as no parameters
                out["parameters"] = params
        else:
            out["parametersJsonSchema"] = t.parameters
        return out

    def openapi(self, schema: dict[str, Any], name: str) -> dict[str, Any]:
        from ..._schema.gemini import gemini_openapi_schema

        try:
            result, rewrites = gemini_openapi_schema(schema, name)
        except ToolDefinitionError as e:
            raise InvalidRequestError(f"{name}: {e}") from None
        self.diags.extend(rewrites)
        return result

    def tool_config(self, has_tools: bool) -> dict[str, Any] | None:
        choice = features.forced_choice(self.model, self.opts, self.diags)
        tools = features.function_tools(self.context)
        config: dict[str, Any] = {}
        if choice is not None:
            if not has_tools:
                self.unsupported("tool_choice", "the request declares no tools")
            elif isinstance(choice, dict):
                config = {"mode": "ANY", "allowedFunctionNames": [choice["name"]]}
            else:
                config = {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]}
        strict = self.model.strict_tools and any(t.strict for t in tools)
        if strict and config.get("mode", "AUTO") == "AUTO":
            # Gemini's strict mode is per request: VALIDATED is AUTO with schema adherence.
            config["mode"] = "VALIDATED"
        if self.opts.parallel_tool_calls is not None:
            self.unsupported("parallel_tool_calls", "Gemini has no such option")
        if self.opts.stream_tool_arguments:
            if streams_arguments(self.model):
                config["streamFunctionCallArguments"] = True
            else:
                self.unsupported(
                    "stream_tool_arguments",
                    "only Gemini on Vertex AI streams function-call arguments",
                )
        return {"functionCallingConfig": config} if config else None

    def generation_config(self) -> dict[str, Any]:
        opts = self.opts
        config: dict[str, Any] = {}
        if opts.max_tokens is not None:
            config["maxOutputTokens"] = opts.max_tokens
        if opts.temperature is not None:
            config["temperature"] = opts.temperature
        if opts.top_p is not None:
            config["topP"] = opts.top_p
        if opts.stop:
            config["stopSequences"] = opts.stop[:_STOP_SEQUENCES]
            if len(opts.stop) > _STOP_SEQUENCES:
                self.unsupported(
                    "stop", f"Gemini takes at most {_STOP_SEQUENCES} stop sequences; sent the first"
                )
        thinking = self.thinking_config()
        if thinking:
            config["thinkingConfig"] = thinking
        if opts.response_format is not None:
            if self.model.structured_output is False:
                self.unsupported("response_format", f"{self.model.id} has no structured output")
            else:
                config.update(self.response_format(opts.response_format))
        return config

    def thinking_config(self) -> dict[str, Any] | None:
        level, model = self.opts.reasoning, self.model
        if level is None:
            # Thought summaries only stream when asked for: ask, so thinking is visible.
            return {"includeThoughts": True} if model.reasoning else None
        if not model.reasoning:
            self.unsupported("reasoning", f"{model.id} is not a reasoning model")
            return None
        pro = "pro" in model.id
        if _generation(model) >= 3:
            levels = ("low", "high") if pro else ("minimal", "low", "medium", "high")
            if level == "off":
                sent = (model.reasoning_efforts or levels)[0]
                self.unsupported(
                    "reasoning='off'", f"{model.id} cannot turn thinking off; sent {sent!r}"
                )
            else:
                sent = effort(model, level, levels, self.unsupported)
            config: dict[str, Any] = {"thinkingLevel": sent}
        elif level == "off":
            if pro:  # Gemini 2.5 Pro cannot turn thinking off; 128 is its smallest budget
                self.unsupported(
                    "reasoning='off'", f"{model.id} cannot turn thinking off; sent 128"
                )
                return {"thinkingBudget": 128, "includeThoughts": True}
            return {"thinkingBudget": 0}
        else:
            config = {"thinkingBudget": budget(model, level, self.unsupported, _BUDGETS)}
        config["includeThoughts"] = True
        return config

    def response_format(self, fmt: Any) -> dict[str, Any]:
        name, schema = features.output_schema(fmt, None)  # the name is only used in diagnostics
        if OPENAPI_SUBSET_MODELS.search(self.model.id):
            subset = self.openapi(schema, name)
            return {"responseMimeType": "application/json", "responseSchema": subset}
        return {"responseMimeType": "application/json", "responseJsonSchema": schema}


def streams_arguments(model: Model) -> bool:
    """Whether ``streamFunctionCallArguments`` may be sent (flag first, then the endpoint:
    only Vertex AI streams function-call arguments)."""
    if model.eager_input_streaming is not None:
        return model.eager_input_streaming
    host = model.base_url.split("://", 1)[-1].split("/", 1)[0]
    return host == "aiplatform.googleapis.com" or host.endswith("-aiplatform.googleapis.com")


def _cache(model: Model, opts: Options, diags: list[Diagnostic]) -> None:
    if opts.cache in ("long", "off"):
        features.unsupported(
            diags,
            f"cache={opts.cache!r}",
            "Gemini caches prompt prefixes implicitly, with no lifetime or switch to send",
        )
    if opts.cache_key is not None:
        features.unsupported(diags, "cache_key", "Gemini takes no prompt-cache key")


def _gemini_id(call: ToolCall, message: AssistantMessage) -> str | None:
    """The id to send back for ``call``: only one Gemini gave (QUIRKS B4). A synthesised id, or
    one from another wire API, is llmkit's own and never shown to Gemini: calls and responses
    are then paired by position and name, as Gemini before version 3 does."""
    if message.api != "gemini" or call.provider_id == "":
        return None
    return call.id


def build(
    model: Model, context: Context, opts: Options, *, stream: bool
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The ``generateContent`` body and its diagnostics (see
    :meth:`~llmkit._wire.contract.WireAdapter.build`), the same for both endpoints: ``stream``
    changes only the URL."""

    def fill(prepared: Prepared) -> dict[str, Any]:
        b = _Builder(model, context, opts, prepared)
        body: dict[str, Any] = {"contents": b.contents()}
        if context.system:
            body["systemInstruction"] = {"parts": [{"text": context.system}]}
        declared = [b.declaration(t) for t in features.function_tools(context)]
        tools = [{"functionDeclarations": declared}] if declared else []
        # Each provider tool is its own entry.
        tools += features.provider_tools(context, model, b.diags)
        if tools:
            body["tools"] = tools
        _cache(model, opts, b.diags)
        tool_config = b.tool_config(bool(tools))
        if tool_config:
            body["toolConfig"] = tool_config
        generation_config = b.generation_config()
        if generation_config:
            body["generationConfig"] = generation_config
        return body

    # The safe id grammar [a-zA-Z0-9_-]; the stream is chosen by the URL, not the body.
    return build_body(model, context, opts, ids="token64", fill=fill, stream=None)
