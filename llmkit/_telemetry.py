"""OpenTelemetry GenAI spans and metrics for every call, through ``opentelemetry-api``.

With the API importable (the ``otel`` extra), each ``complete``/``stream`` call (and their
async forms) makes one :class:`Call`: a CLIENT span named ``"{operation} {model}"`` from the
request being sent (retries inside it) to the stream's end, and the GenAI client metrics.
Names are those of the OpenTelemetry GenAI semantic conventions
(https://opentelemetry.io/docs/specs/semconv/gen-ai/). The tracer and meter come from the
global providers, looked up at call time: while no SDK is configured they are OpenTelemetry's
proxies, which would record nothing, and the call does no telemetry work at all (an SDK
configured later is used from the next call on).

Nothing here imports ``opentelemetry`` until the first call; without it installed, a call
costs one cached failed import. Message content is captured only when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true`` at call time. No key is
ever put in a span, metric or status: the attributes come from the model, the checked
options, the request URL's host and the assembled message, never from headers or bodies.

The stream pumps (:mod:`._streams`) call in at four points: :meth:`Call.start` as the request
goes out, :meth:`Call.sent` once the transport returned (or :meth:`Call.end` with the error it
raised), at the body's first chunk (:meth:`Call.timed` reads it for the sync pump, the async
pump reads it before its loop and calls :meth:`Call.first_chunk`: no layer around the body,
no work per chunk) and :meth:`Call.end` when the stream has ended, aborted included.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from contextvars import Token

    import httpx
    from opentelemetry.context import Context as OtelContext

    from ._messages import AssistantMessage, Context
    from ._models import Model
    from ._wire.contract import Options

__all__ = ["CAPTURE_CONTENT_ENV", "Call", "call"]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# gen_ai.provider.name by where the request goes (the conventions' well-known values); a
# provider not listed here is named by its llmkit name.
_PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "foundry-anthropic": "anthropic",
    "google": "gcp.gemini",
    "gemini-openai": "gcp.gemini",
    "vertex": "gcp.vertex_ai",
    "vertex-anthropic": "gcp.vertex_ai",
    "bedrock": "aws.bedrock",
    "azure": "azure.ai.openai",
    "azure-openai": "azure.ai.openai",
    "deepseek": "deepseek",
    "groq": "groq",
    "mistral": "mistral_ai",
    "xai": "x_ai",
    "perplexity": "perplexity",
}
_PLATFORMS = {"vertex": "gcp.vertex_ai", "bedrock": "aws.bedrock"}

# The conventions' advisory bucket boundaries for the two kinds of histogram.
_SECONDS_BUCKETS = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]  # fmt: skip
_TOKEN_BUCKETS = [
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]  # fmt: skip

# The request options as span attributes (the ones a wire can drop).
_OPTIONS = {
    "max_tokens": "gen_ai.request.max_tokens",
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "stop": "gen_ai.request.stop_sequences",
}

# The output messages' finish_reason where the conventions' vocabulary names it differently.
_FINISH = {"tool_use": "tool_call", "refusal": "content_filter"}


class _Otel:
    """The opentelemetry API modules, and the tracer and instruments of the global providers
    last seen (a provider set later is picked up on the next call)."""

    def __init__(self) -> None:
        from opentelemetry import context, metrics, trace

        from ._version import __version__

        self.context = context
        self.trace = trace
        self.metrics = metrics
        self.version = __version__
        self.client_kind = trace.SpanKind.CLIENT
        self._tracer_provider: object = None
        self._tracer: Any = None
        self._meter_provider: object = None
        self._instruments: tuple[Any, Any, Any] | None = None

    def tracer(self) -> Any:
        """The global tracer provider's tracer; None while no SDK is configured (the API's
        proxy or no-op provider: its spans would record nothing)."""
        provider = self.trace.get_tracer_provider()
        if provider is not self._tracer_provider:
            trace = self.trace
            no_sdk = isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))
            self._tracer = None if no_sdk else provider.get_tracer("llmkit", self.version)
            self._tracer_provider = provider
        return self._tracer

    def instruments(self) -> tuple[Any, Any, Any] | None:
        """The duration, token usage and time-to-first-chunk histograms; None while no SDK
        is configured."""
        provider = self.metrics.get_meter_provider()
        if provider is not self._meter_provider:
            self._meter_provider = provider
            self._instruments = None
            if not (
                isinstance(provider, self.metrics.NoOpMeterProvider)
                or type(provider).__name__ == "_ProxyMeterProvider"  # the API's, until set
            ):
                self._instruments = self._create(provider)
        return self._instruments

    def _create(self, provider: Any) -> tuple[Any, Any, Any]:
        meter = provider.get_meter("llmkit", self.version)
        return (
            meter.create_histogram(
                "gen_ai.client.operation.duration",
                unit="s",
                description="GenAI operation duration.",
                explicit_bucket_boundaries_advisory=_SECONDS_BUCKETS,
            ),
            meter.create_histogram(
                "gen_ai.client.token.usage",
                unit="{token}",
                description="Number of input and output tokens used.",
                explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
            ),
            meter.create_histogram(
                "gen_ai.client.operation.time_to_first_chunk",
                unit="s",
                description="Time to receive the first chunk of the response stream.",
                explicit_bucket_boundaries_advisory=_SECONDS_BUCKETS,
            ),
        )


_otel: _Otel | None = None
_missing = False  # opentelemetry-api is not importable: tried once, not again


def _load() -> _Otel | None:
    global _otel, _missing
    if _otel is None and not _missing:
        try:
            _otel = _Otel()
        except ImportError:
            _missing = True
    return _otel


def provider_name(model: Model) -> str:
    """``gen_ai.provider.name``: where the request goes."""
    if model.platform == "azure":  # Claude on Foundry is Anthropic's; the rest Azure OpenAI
        if model.provider in _PROVIDERS:
            return _PROVIDERS[model.provider]
        return "anthropic" if model.api == "anthropic-messages" else "azure.ai.openai"
    if model.platform is not None:
        return _PLATFORMS[model.platform]
    return _PROVIDERS.get(model.provider, model.provider)


def call(model: Model, context: Context, body: Options, request: Any) -> Call | None:
    """The telemetry of one call, or None: ``telemetry=False``, no opentelemetry-api, or no
    SDK configured (then OpenTelemetry would record nothing, and the call does no work for
    it)."""
    if body.telemetry is False:
        return None
    otel = _load()
    if otel is None:
        return None
    tracer, instruments = otel.tracer(), otel.instruments()
    if tracer is None and instruments is None:
        return None
    return Call(otel, tracer, instruments, model, context, body, request)


class Call:
    """One call's span and measurements (a tracer or the instruments may be None: that
    signal has no SDK configured)."""

    __slots__ = (
        "_body",
        "_context",
        "_first",
        "_instruments",
        "_metric_attrs",
        "_model",
        "_otel",
        "_request",
        "_span",
        "_start",
        "_token",
        "_tracer",
        "capture",
    )

    def __init__(
        self,
        otel: _Otel,
        tracer: Any,
        instruments: tuple[Any, Any, Any] | None,
        model: Model,
        context: Context,
        body: Options,
        request: httpx.Request,
    ) -> None:
        self._otel = otel
        self._tracer = tracer
        self._instruments = instruments
        self._model = model
        self._context = context
        self._body = body
        self._request = request
        self.capture = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
        self._span: Any = None
        self._token: Token[OtelContext] | None = None  # the attached context's, until sent()
        self._start: float | None = None
        self._first: float | None = None
        operation = "generate_content" if model.api == "gemini" else "chat"
        url = request.url
        port = url.port if url.port is not None else 443 if url.scheme == "https" else 80
        self._metric_attrs: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": provider_name(model),
            "gen_ai.request.model": model.id,
            "server.address": url.host,
            "server.port": port,
        }

    def start(self) -> None:
        """The request is about to be sent: the span starts, a child of the caller's current
        span, and is current while the transport sends (an instrumented HTTP client's spans,
        one per attempt, nest in it)."""
        if self._tracer is not None:
            otel = self._otel
            attrs = self._metric_attrs
            name = f"{attrs['gen_ai.operation.name']} {self._model.id}"
            # Given at the start, where a sampler sees them (and set in one go).
            attributes = self._request_attributes()
            span = self._tracer.start_span(name, kind=otel.client_kind, attributes=attributes)
            self._span = span
            self._token = otel.context.attach(otel.trace.set_span_in_context(span))
        self._start = time.perf_counter()

    def sent(self) -> None:
        """The transport returned the response head: the span is no longer current."""
        if self._token is not None:
            self._otel.context.detach(self._token)
            self._token = None

    def timed(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks`` with the first read now, and timed; the rest pass through a C-level
        chain, at no cost per chunk."""
        iterator = iter(chunks)
        first = next(iterator, None)
        if first is None:
            return iterator
        self.first_chunk()
        return itertools.chain((first,), iterator)

    def first_chunk(self) -> None:
        """The first chunk of the body has arrived."""
        if self._first is None:
            self._first = time.perf_counter()

    def end(
        self, message: AssistantMessage | None = None, error: BaseException | None = None
    ) -> None:
        """The call ended: with ``message`` (a stream that ended in an error passes that error
        too), or with ``error`` raised before any response. Only the first end counts."""
        start = self._start
        if start is None:
            return
        self._start = None
        duration = time.perf_counter() - start
        self.sent()
        aborted = False
        if message is not None:
            if message.stop_reason != "error":
                error = None  # an abort is the caller's choice, not a failure
        elif error is not None and not isinstance(error, Exception):
            aborted = True  # cancelled while sending
            error = None
        error_type = type(error).__name__ if isinstance(error, Exception) else None
        ttfc = None if self._first is None else self._first - start
        span, self._span = self._span, None
        if span is not None:
            if span.is_recording():
                self._end_span(span, message, error_type, ttfc, aborted)
            span.end()
        if self._instruments is not None:
            self._record(duration, ttfc, message, error_type)

    def _end_span(
        self,
        span: Any,
        message: AssistantMessage | None,
        error_type: str | None,
        ttfc: float | None,
        aborted: bool,
    ) -> None:
        """The span's attributes from the end, set in one go, and its error status."""
        ended: dict[str, Any]
        if message is not None:
            ended = self._response_attributes(message)
        else:
            ended = {"gen_ai.response.finish_reasons": ["aborted"]} if aborted else {}
        if error_type is not None:
            ended["error.type"] = error_type
        if ttfc is not None:
            ended["gen_ai.response.time_to_first_chunk"] = ttfc
        span.set_attributes(ended)
        if error_type is not None:
            trace = self._otel.trace
            span.set_status(trace.Status(trace.StatusCode.ERROR, error_type))

    def _record(
        self,
        duration: float,
        ttfc: float | None,
        message: AssistantMessage | None,
        error_type: str | None,
    ) -> None:
        """The metrics. A dictionary given to the SDK is never changed afterwards (an SDK may
        keep it): the ones with more attributes are copies."""
        assert self._instruments is not None
        duration_hist, tokens_hist, first_hist = self._instruments
        attrs = self._metric_attrs
        if message is not None and message.model:
            attrs = {**attrs, "gen_ai.response.model": message.model}
        if error_type is not None:
            attrs = {**attrs, "error.type": error_type}
        duration_hist.record(duration, attrs)
        if ttfc is not None:
            first_hist.record(ttfc, attrs)
        usage = None if message is None else message.usage
        if usage is not None and usage.input is not None:
            tokens_hist.record(usage.input, {**attrs, "gen_ai.token.type": "input"})
        if usage is not None and usage.output is not None:
            tokens_hist.record(usage.output, {**attrs, "gen_ai.token.type": "output"})

    # -- attributes ------------------------------------------------------------------------

    def _request_attributes(self) -> dict[str, Any]:
        """The span's attributes at its start: the metrics' ones and the options as sent (one
        a wire dropped, ``option_unsupported``, is left out; a limit it filled in or changed
        is the one sent)."""
        body = self._body
        out = dict(self._metric_attrs)
        if body.max_tokens is not None:
            out["gen_ai.request.max_tokens"] = body.max_tokens
        if body.temperature is not None:
            out["gen_ai.request.temperature"] = body.temperature
        if body.top_p is not None:
            out["gen_ai.request.top_p"] = body.top_p
        if body.stop is not None:
            out["gen_ai.request.stop_sequences"] = body.stop
        diagnostics = self._request.extensions.get("llmkit.diagnostics")
        if diagnostics:
            for d in diagnostics:
                if d.kind == "option_unsupported" and d.details.get("option") in _OPTIONS:
                    out.pop(_OPTIONS[d.details["option"]], None)
            for d in diagnostics:
                sent = d.details.get("sent")
                if d.details.get("option") == "max_tokens" and isinstance(sent, int):
                    out["gen_ai.request.max_tokens"] = sent
        if body.response_format is not None:
            out["gen_ai.output.type"] = "json"
        if self.capture:
            out.update(_input_content(self._context))
        return out

    def _response_attributes(self, message: AssistantMessage) -> dict[str, Any]:
        out: dict[str, Any] = {"gen_ai.response.finish_reasons": [message.stop_reason]}
        if message.response_id:
            out["gen_ai.response.id"] = message.response_id
        if message.model:
            out["gen_ai.response.model"] = message.model
        usage = message.usage
        if usage.input is not None:
            out["gen_ai.usage.input_tokens"] = usage.input
        if usage.output is not None:
            out["gen_ai.usage.output_tokens"] = usage.output
        if usage.cache_read is not None:
            out["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read
        if usage.cache_write is not None:
            out["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write
        if usage.reasoning is not None:
            out["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning
        if self.capture:
            out["gen_ai.output.messages"] = _json([_message(message)])
        return out


# -- content, as the conventions' JSON schemas describe it ----------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _input_content(context: Context) -> dict[str, str]:
    out: dict[str, str] = {"gen_ai.input.messages": _json([_message(m) for m in context.messages])}
    if context.system:
        out["gen_ai.system_instructions"] = _json([{"type": "text", "content": context.system}])
    if context.tools:
        out["gen_ai.tool.definitions"] = _json([_tool(t) for t in context.tools])
    return out


def _tool(tool: Any) -> dict[str, Any]:
    if hasattr(tool, "parameters"):
        return {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
    spec = tool.spec  # a provider-hosted tool: its type, and its name where it has one
    out = {"type": str(spec.get("type", "provider"))}
    if "name" in spec:
        out["name"] = str(spec["name"])
    return out


def _message(message: Any) -> dict[str, Any]:
    role = message.role
    if role == "tool":
        text = "".join(p.text for p in message.content if p.type == "text")
        parts = [{"type": "tool_call_response", "id": message.tool_call_id, "response": text}]
        return {"role": "tool", "parts": parts}
    out: dict[str, Any] = {"role": role, "parts": [p for p in map(_part, message.content) if p]}
    if role == "assistant":
        reason = message.stop_reason
        out["finish_reason"] = _FINISH.get(reason, reason)
    return out


def _part(part: Any) -> dict[str, Any] | None:
    kind = part.type
    if kind == "text":
        return {"type": "text", "content": part.text}
    if kind == "thinking":
        return {"type": "reasoning", "content": part.thinking}
    if kind == "tool_call":
        return {"type": "tool_call", "id": part.id, "name": part.name, "arguments": part.arguments}
    if kind in ("image", "document"):
        modality = "image" if kind == "image" else "document"
        if kind == "document" and part.text is not None:
            return {"type": "text", "content": part.text}
        if part.url is not None:
            return {
                "type": "uri",
                "modality": modality,
                "mime_type": part.media_type,
                "uri": part.url,
            }
        return {
            "type": "blob",
            "modality": modality,
            "mime_type": part.media_type,
            "content": part.data,
        }
    return None  # a cache point: not content
