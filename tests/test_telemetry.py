"""OpenTelemetry GenAI spans and metrics (docs/observability.md), read back through the OTel
SDK's in-memory span exporter and metric reader, over real loopback HTTP to the fake provider:
every wire, sync and async, streamed and not; failures; content capture; ``telemetry=False``;
parentage; and no key in anything exported.

OpenTelemetry's global providers can be set once per process: one SDK tracer provider and one
meter provider serve the whole session (set on first use here), and each test starts from an
empty exporter and a fresh (delta) metric collection.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics as gm
from opentelemetry.semconv.attributes import error_attributes, server_attributes
from opentelemetry.trace import SpanKind, StatusCode

import llmkit
from llmkit import _telemetry
from llmkit._auth import aws
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeToolCall
from tests.test_docs import DOCS, blocks

WIRES = ["openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse"]
CHAT = ga.GenAiOperationNameValues.CHAT.value
GENERATE_CONTENT = ga.GenAiOperationNameValues.GENERATE_CONTENT.value
CONTENT = (
    ga.GEN_AI_INPUT_MESSAGES,
    ga.GEN_AI_OUTPUT_MESSAGES,
    ga.GEN_AI_SYSTEM_INSTRUCTIONS,
    ga.GEN_AI_TOOL_DEFINITIONS,
)
USAGE = {"input": 30, "output": 12, "cache_read": 10, "cache_write": 5, "reasoning": 4}


class Exported:
    """The session's exporter and reader (the global providers are set once, here)."""

    spans = InMemorySpanExporter()
    reader = InMemoryMetricReader(preferred_temporality={Histogram: AggregationTemporality.DELTA})
    installed = False

    @classmethod
    def install(cls) -> None:
        if not cls.installed:
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(cls.spans))
            trace.set_tracer_provider(provider)
            metrics.set_meter_provider(MeterProvider(metric_readers=[cls.reader]))
            cls.installed = True
        assert isinstance(trace.get_tracer_provider(), TracerProvider), "set elsewhere first"


@pytest.fixture
def otel(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Exported]]:
    Exported.install()
    monkeypatch.delenv(_telemetry.CAPTURE_CONTENT_ENV, raising=False)
    Exported.spans.clear()
    Exported.reader.get_metrics_data()  # a delta reader: what earlier tests recorded is gone
    yield Exported
    Exported.spans.clear()


def points(name: str) -> list[Any]:
    """The data points of one metric since the last collection."""
    data = Exported.reader.get_metrics_data()
    out: list[Any] = []
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            out += [p for m in scope.metrics if m.name == name for p in m.data.data_points]
    return out


def one_span() -> ReadableSpan:
    spans = Exported.spans.get_finished_spans()
    assert len(spans) == 1, [s.name for s in spans]
    return spans[0]


def ask(mode: str, model: llmkit.Model, context: llmkit.Context, **options: Any) -> Any:
    """One call, the four ways: complete/acomplete, stream/astream read to the end."""
    if mode == "complete":
        return llmkit.complete(model, context, **options)
    if mode == "acomplete":
        return asyncio.run(llmkit.acomplete(model, context, **options))
    if mode == "stream":
        with llmkit.stream(model, context, **options) as events:
            for _ in events:
                pass
        return events.message

    async def go() -> llmkit.AssistantMessage:
        async with llmkit.astream(model, context, **options) as events:
            async for _ in events:
                pass
        return events.message

    return asyncio.run(go())


MODES = ["complete", "acomplete", "stream", "astream"]


def context(**fields: Any) -> llmkit.Context:
    return llmkit.Context(messages=[llmkit.user("Weather in Paris?")], **fields)


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("mode", MODES)
def test_one_client_span_and_the_metrics_on_every_wire(
    otel: type[Exported], api: str, mode: str
) -> None:
    reply = FakeReply("Sunny.", thinking="Look it up.", usage=USAGE)
    with FakeProvider([reply], api=api) as fake:  # type: ignore[arg-type]
        model = fake.model(reasoning=True)
        message = ask(mode, model, context(), api_key=fake.api_key, max_tokens=300, top_p=0.5)
        port = int(fake.base_url.split(":")[2].split("/")[0])
    operation = GENERATE_CONTENT if api == "gemini" else CHAT
    span = one_span()
    assert span.name == f"{operation} fake-model"
    assert span.kind is SpanKind.CLIENT
    assert span.status.status_code is StatusCode.UNSET
    attrs = dict(span.attributes or {})
    u = message.usage
    expected = {
        ga.GEN_AI_OPERATION_NAME: operation,
        ga.GEN_AI_PROVIDER_NAME: "fake",
        ga.GEN_AI_REQUEST_MODEL: "fake-model",
        server_attributes.SERVER_ADDRESS: "127.0.0.1",
        server_attributes.SERVER_PORT: port,
        ga.GEN_AI_REQUEST_MAX_TOKENS: 300,
        ga.GEN_AI_RESPONSE_FINISH_REASONS: ("stop",),
        ga.GEN_AI_RESPONSE_MODEL: "fake-model",
        ga.GEN_AI_USAGE_INPUT_TOKENS: 30,
        ga.GEN_AI_USAGE_OUTPUT_TOKENS: 12,
    }
    # What each wire reports of the cache and reasoning counts, llmkit's Usage has; the span
    # says the same. Every wire of the fake reports cache reads.
    for name, value in (
        (ga.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, u.cache_read),
        (ga.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, u.cache_write),
        (ga.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, u.reasoning),
    ):
        if value is not None:
            expected[name] = value
    assert u.cache_read == 10
    if message.response_id is not None:
        expected[ga.GEN_AI_RESPONSE_ID] = message.response_id
    # top_p is refused by reasoning models on some wires (reported): the span has it exactly
    # when it was sent.
    if not any(d.details.get("option") == "top_p" for d in message.diagnostics):
        expected[ga.GEN_AI_REQUEST_TOP_P] = 0.5
    ttfc = attrs.pop(ga.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK)
    assert isinstance(ttfc, float) and 0 < ttfc <= (span.end_time - span.start_time) / 1e9  # type: ignore[operator]
    assert attrs == expected
    assert not set(CONTENT) & set(attrs), "content is captured only when asked for"

    # The metrics: one duration, one time to first chunk, input and output token counts.
    metric_attrs = {
        ga.GEN_AI_OPERATION_NAME: operation,
        ga.GEN_AI_PROVIDER_NAME: "fake",
        ga.GEN_AI_REQUEST_MODEL: "fake-model",
        ga.GEN_AI_RESPONSE_MODEL: "fake-model",
        server_attributes.SERVER_ADDRESS: "127.0.0.1",
        server_attributes.SERVER_PORT: port,
    }
    data = Exported.reader.get_metrics_data()
    by_name = {
        m.name: m.data.data_points
        for r in data.resource_metrics  # type: ignore[union-attr]
        for s in r.scope_metrics
        for m in s.metrics
    }
    (duration,) = by_name[gm.GEN_AI_CLIENT_OPERATION_DURATION]
    assert dict(duration.attributes) == metric_attrs and duration.count == 1
    (first,) = by_name[gm.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK]
    assert dict(first.attributes) == metric_attrs and first.sum == pytest.approx(ttfc)
    tokens = {p.attributes[ga.GEN_AI_TOKEN_TYPE]: p for p in by_name[gm.GEN_AI_CLIENT_TOKEN_USAGE]}
    input_type = ga.GenAiTokenTypeValues.INPUT.value
    output_type = ga.GenAiTokenTypeValues.OUTPUT.value
    assert set(tokens) == {input_type, output_type}
    assert tokens[input_type].sum == 30 and tokens[output_type].sum == 12
    assert dict(tokens[input_type].attributes) == {**metric_attrs, ga.GEN_AI_TOKEN_TYPE: "input"}
    assert duration.sum >= first.sum


@pytest.mark.parametrize(
    ("platform", "api", "provider"),
    [
        ("vertex", "gemini", ga.GenAiProviderNameValues.GCP_VERTEX_AI.value),
        ("vertex", "anthropic-messages", ga.GenAiProviderNameValues.GCP_VERTEX_AI.value),
        ("bedrock", "bedrock-converse", ga.GenAiProviderNameValues.AWS_BEDROCK.value),
        ("azure", "openai-chat", ga.GenAiProviderNameValues.AZURE_AI_OPENAI.value),
        ("azure", "openai-responses", ga.GenAiProviderNameValues.AZURE_AI_OPENAI.value),
        ("azure", "anthropic-messages", ga.GenAiProviderNameValues.ANTHROPIC.value),
    ],
)
def test_the_provider_is_where_the_request_goes(
    otel: type[Exported], platform: str, api: str, provider: str
) -> None:
    script = [FakeReply("Hi")]
    with FakeProvider(script, api=api, platform=platform, require_key=False) as fake:  # type: ignore[arg-type]
        ask("complete", fake.model("m"), context(), api_key="ya29.token", max_tokens=100)
    assert one_span().attributes[ga.GEN_AI_PROVIDER_NAME] == provider  # type: ignore[index]


def test_the_provider_names_of_the_catalogue() -> None:
    names = ga.GenAiProviderNameValues
    expected = {
        "openai": names.OPENAI,
        "anthropic": names.ANTHROPIC,
        "google": names.GCP_GEMINI,
        "vertex": names.GCP_VERTEX_AI,
        "vertex-anthropic": names.GCP_VERTEX_AI,
        "bedrock": names.AWS_BEDROCK,
        "azure": names.AZURE_AI_OPENAI,
        "foundry-anthropic": names.ANTHROPIC,
        "deepseek": names.DEEPSEEK,
        "groq": names.GROQ,
        "mistral": names.MISTRAL_AI,
        "xai": names.X_AI,
    }
    for provider, name in expected.items():
        model = llmkit.Model(provider=provider, id="m", api="openai-chat")
        assert _telemetry.provider_name(model) == name.value, provider
    other = llmkit.Model(provider="openrouter", id="m", api="openai-chat")
    assert _telemetry.provider_name(other) == "openrouter"


# -- failures ------------------------------------------------------------------------------


def assert_failed(error_type: str) -> ReadableSpan:
    span = one_span()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == error_type
    assert span.attributes[error_attributes.ERROR_TYPE] == error_type  # type: ignore[index]
    (duration,) = points(gm.GEN_AI_CLIENT_OPERATION_DURATION)
    assert duration.attributes[error_attributes.ERROR_TYPE] == error_type
    return span


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("item", "error_type"),
    [(FakeError(401), "AuthenticationError"), (FakeError(429), "RateLimitError")],
)
def test_an_http_error_ends_the_span_in_error(
    otel: type[Exported], api: str, mode: str, item: FakeError, error_type: str
) -> None:
    with FakeProvider([item], api=api) as fake:  # type: ignore[arg-type]
        with pytest.raises(llmkit.APIError) as raised:
            ask(mode, fake.model(), context(), api_key=fake.api_key, max_retries=0)
    assert type(raised.value).__name__ == error_type
    span = assert_failed(error_type)
    assert ga.GEN_AI_RESPONSE_FINISH_REASONS not in (span.attributes or {})


@pytest.mark.parametrize("mode", MODES)
def test_a_reply_not_streamed_has_no_time_to_first_chunk(otel: type[Exported], mode: str) -> None:
    # A server may answer the streamed request with one JSON body: the conventions report the
    # time to the first chunk for streaming calls only (metric and span attribute), the rest
    # as for a stream.
    import httpx

    whole = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4.1-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2},
    }

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=whole)

    transport = httpx.MockTransport(answer)
    client = (
        httpx.AsyncClient(transport=transport)
        if mode[0] == "a"
        else httpx.Client(transport=transport)
    )
    model = llmkit.Model(
        provider="openai", id="gpt-4.1-mini", api="openai-chat", base_url="http://api.invalid/v1"
    )
    message = ask(mode, model, context(), api_key="k", client=client)
    assert message.text == "Hi" and message.usage.output == 2
    attrs = dict(one_span().attributes or {})
    assert ga.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK not in attrs
    assert attrs[ga.GEN_AI_USAGE_OUTPUT_TOKENS] == 2
    assert attrs[ga.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)
    data = Exported.reader.get_metrics_data()
    names = {
        m.name
        for r in data.resource_metrics  # type: ignore[union-attr]
        for s in r.scope_metrics
        for m in s.metrics
        if m.data.data_points
    }
    assert names == {gm.GEN_AI_CLIENT_OPERATION_DURATION, gm.GEN_AI_CLIENT_TOKEN_USAGE}


@pytest.mark.parametrize("mode", MODES)
def test_retries_are_inside_the_one_span(otel: type[Exported], mode: str) -> None:
    script = [FakeError(429, headers={"retry-after-ms": "1"}), FakeReply("Second try.")]
    with FakeProvider(script) as fake:
        ask(mode, fake.model(), context(), api_key=fake.api_key)
        assert len(fake.requests) == 2
    span = one_span()
    assert span.status.status_code is StatusCode.UNSET
    assert span.attributes[ga.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)  # type: ignore[index]


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("mode", MODES)
def test_an_in_stream_error_ends_the_span_in_error(
    otel: type[Exported], api: str, mode: str
) -> None:
    item = FakeError(529, in_stream=True, after_events=2, partial=FakeReply("Half an ans"))
    with FakeProvider([item], api=api) as fake:  # type: ignore[arg-type]
        if mode.endswith("stream"):
            message = ask(mode, fake.model(), context(), api_key=fake.api_key, max_tokens=50)
            assert message.stop_reason == "error"
            error_type = message.error.partition(":")[0]
        else:
            with pytest.raises(llmkit.LLMError) as raised:
                ask(mode, fake.model(), context(), api_key=fake.api_key, max_tokens=50)
            error_type = type(raised.value).__name__
    span = assert_failed(error_type)
    assert span.attributes[ga.GEN_AI_RESPONSE_FINISH_REASONS] == ("error",)  # type: ignore[index]


@pytest.mark.parametrize("api", WIRES)
@pytest.mark.parametrize("mode", MODES)
def test_an_idle_timeout_ends_the_span_in_error(otel: type[Exported], api: str, mode: str) -> None:
    reply = FakeReply("Slow and then silent", stall_after=2, stall_seconds=5)
    with FakeProvider([reply], api=api) as fake:  # type: ignore[arg-type]
        timeout = llmkit.Timeouts(idle=0.3)
        if mode.endswith("stream"):
            message = ask(mode, fake.model(), context(), api_key=fake.api_key, timeout=timeout)
            assert message.stop_reason == "error"
        else:
            with pytest.raises(llmkit.APITimeoutError):
                ask(mode, fake.model(), context(), api_key=fake.api_key, timeout=timeout)
    assert_failed("APITimeoutError")


def test_an_abort_ends_the_span_aborted_sync(otel: type[Exported]) -> None:
    with FakeProvider([FakeReply("A long answer " * 20, delay=0.01)]) as fake:
        with llmkit.stream(fake.model(), context(), api_key=fake.api_key) as events:
            for event in events:
                if isinstance(event, llmkit.TextDelta):
                    break
            assert Exported.spans.get_finished_spans() == ()  # still open while reading
    assert_aborted()


def test_an_abort_ends_the_span_aborted_async(otel: type[Exported]) -> None:
    async def go() -> None:
        with FakeProvider([FakeReply("A long answer " * 20, delay=0.01)]) as fake:
            async with llmkit.astream(fake.model(), context(), api_key=fake.api_key) as events:
                async for event in events:
                    if isinstance(event, llmkit.TextDelta):
                        break

    asyncio.run(go())
    assert_aborted()


def test_a_cancelled_task_ends_the_span_aborted(otel: type[Exported]) -> None:
    async def go() -> None:
        with FakeProvider([FakeReply("A long answer " * 20, delay=0.05)]) as fake:

            async def read() -> None:
                async with llmkit.astream(fake.model(), context(), api_key=fake.api_key) as s:
                    async for _ in s:
                        pass

            task = asyncio.create_task(read())
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(go())
    assert_aborted()


def test_a_task_cancelled_while_sending_ends_the_span_aborted(otel: type[Exported]) -> None:
    async def go() -> None:
        with FakeProvider([FakeReply("Late.", first_byte_delay=5)]) as fake:
            task = asyncio.create_task(
                llmkit.acomplete(fake.model(), context(), api_key="fake-key")
            )
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(go())
    assert_aborted()


def assert_aborted() -> None:
    span = one_span()
    assert span.status.status_code is StatusCode.UNSET
    assert span.attributes[ga.GEN_AI_RESPONSE_FINISH_REASONS] == ("aborted",)  # type: ignore[index]
    assert error_attributes.ERROR_TYPE not in (span.attributes or {})


# -- no work per chunk ---------------------------------------------------------------------


def _chunked_body(chunks: int) -> list[bytes]:
    """An OpenAI Chat stream of ``chunks`` text deltas, one read each."""
    delta = 'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"w "}}]}\n\n'
    end = (
        'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
        "\n\n"
    )
    return [delta.encode()] * chunks + [end.encode(), b"data: [DONE]\n\n"]


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _python_calls(mode: str, chunks: int, telemetry: bool) -> int:
    """Python function calls and generator resumptions (profile "call" events) of one call
    whose body comes in ``chunks`` reads. An in-memory transport, not loopback: the reads are
    exactly the chunks given, so the count is repeatable; the garbage collector is off while
    counting (a collection runs finalisers, ``__del__`` of earlier event loops and the like,
    at whatever call it happens to interrupt)."""
    import httpx

    body = _chunked_body(chunks)
    model = llmkit.Model(provider="openai", id="m", api="openai-chat", base_url="http://x.invalid")
    headers = {"content-type": "text/event-stream"}
    options: dict[str, Any] = {"api_key": "k", "max_retries": 0, "telemetry": telemetry}
    counted = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal counted
        if event == "call":
            counted += 1

    if mode == "stream":
        options["client"] = httpx.Client(
            transport=httpx.MockTransport(
                lambda r: httpx.Response(200, headers=headers, content=iter(body))
            )
        )
        with _no_gc():
            sys.setprofile(profile)
            try:
                message = llmkit.complete(model, context(), **options)
            finally:
                sys.setprofile(None)
    else:

        async def content() -> Any:
            for chunk in body:
                yield chunk

        async def go() -> llmkit.AssistantMessage:
            options["client"] = httpx.AsyncClient(
                transport=httpx.MockTransport(
                    lambda r: httpx.Response(200, headers=headers, content=content())
                )
            )
            sys.setprofile(profile)
            try:
                return await llmkit.acomplete(model, context(), **options)
            finally:
                sys.setprofile(None)

        with _no_gc():
            message = asyncio.run(go())
    assert message.text == "w " * chunks
    return counted


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_telemetry_does_no_work_per_chunk(otel: type[Exported], mode: str) -> None:
    # Telemetry on costs a fixed number of calls (the span, the measurements, the time to the
    # first chunk), whatever the body's length: no layer around the body's reads. A wrapper
    # around the chunks would add at least one call (a generator resumption) per chunk.
    for telemetry in (False, True):  # warm up: imports, the tracer and instruments
        _python_calls(mode, 3, telemetry)

    def calls(n: int, telemetry: bool) -> int:  # the least of three: a stray call only adds
        return min(_python_calls(mode, n, telemetry) for _ in range(3))

    extra = {n: calls(n, True) - calls(n, False) for n in (10, 70)}
    assert extra[10] > 0  # telemetry on does something
    assert abs(extra[70] - extra[10]) < 30, extra  # 60 more chunks: not one call more each


# -- content -------------------------------------------------------------------------------

WEATHER = llmkit.Tool(
    name="get_weather",
    description="Get the weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


@pytest.mark.parametrize("mode", MODES)
def test_content_is_captured_only_when_asked_for(
    otel: type[Exported], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    call = llmkit.ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    conversation = llmkit.Context(
        system="Be brief.",
        messages=[
            llmkit.user("Weather in Paris?"),
            llmkit.AssistantMessage(content=[call], stop_reason="tool_use"),
            llmkit.tool_result(call, "Sunny, 24 C"),
        ],
        tools=[WEATHER],
    )
    reply = FakeReply("It is sunny.", tool_calls=[FakeToolCall("get_weather", {"city": "Rome"})])
    with FakeProvider([reply, reply, reply]) as fake:
        ask(mode, fake.model(), conversation, api_key=fake.api_key)
        assert not set(CONTENT) & set(one_span().attributes or {})
        Exported.spans.clear()
        monkeypatch.setenv(_telemetry.CAPTURE_CONTENT_ENV, "false")
        ask(mode, fake.model(), conversation, api_key=fake.api_key)
        assert not set(CONTENT) & set(one_span().attributes or {})
        Exported.spans.clear()
        monkeypatch.setenv(_telemetry.CAPTURE_CONTENT_ENV, "true")
        message = ask(mode, fake.model(), conversation, api_key=fake.api_key)
    attrs = one_span().attributes or {}
    content = {name: json.loads(str(attrs[name])) for name in CONTENT}
    assert content[ga.GEN_AI_SYSTEM_INSTRUCTIONS] == [{"type": "text", "content": "Be brief."}]
    assert content[ga.GEN_AI_INPUT_MESSAGES] == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_1",
                    "name": "get_weather",
                    "arguments": {"city": "Paris"},
                }
            ],
            "finish_reason": "tool_call",
        },
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "call_1", "response": "Sunny, 24 C"}],
        },
    ]
    assert content[ga.GEN_AI_TOOL_DEFINITIONS] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Get the weather.",
            "parameters": WEATHER.parameters,
        }
    ]
    (call_out,) = message.tool_calls
    assert content[ga.GEN_AI_OUTPUT_MESSAGES] == [
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "content": "It is sunny."},
                {
                    "type": "tool_call",
                    "id": call_out.id,
                    "name": "get_weather",
                    "arguments": {"city": "Rome"},
                },
            ],
            "finish_reason": "tool_call",
        }
    ]


# -- switched off, and where it nests ------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_telemetry_false_makes_no_span_and_no_metric(otel: type[Exported], mode: str) -> None:
    with FakeProvider([FakeReply("Hi"), FakeError(401)]) as fake:
        ask(mode, fake.model(), context(), api_key=fake.api_key, telemetry=False)
        with pytest.raises(llmkit.AuthenticationError):
            ask(mode, fake.model(), context(), api_key=fake.api_key, telemetry=False)
    assert Exported.spans.get_finished_spans() == ()
    data = Exported.reader.get_metrics_data()
    assert data is None or all(
        not s.metrics for r in data.resource_metrics for s in r.scope_metrics
    )


def test_telemetry_takes_a_bool() -> None:
    with pytest.raises(llmkit.InvalidRequestError, match="telemetry"):
        llmkit.complete(
            llmkit.Model(provider="fake", id="m", api="openai-chat", base_url="http://x"),
            context(),
            api_key="k",
            telemetry="off",  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("mode", MODES)
def test_the_span_is_a_child_of_the_callers_span(otel: type[Exported], mode: str) -> None:
    tracer = trace.get_tracer("the caller")

    async def in_a_task(call: Callable[[], Any]) -> Any:
        with tracer.start_as_current_span("agent step"):
            return call()

    with FakeProvider([FakeReply("Hi")]) as fake:
        with tracer.start_as_current_span("agent step") as parent:
            ask(mode, fake.model(), context(), api_key=fake.api_key)
        # ... and the caller's context is as it was afterwards.
        assert trace.get_current_span() is trace.INVALID_SPAN
    spans = {s.name: s for s in Exported.spans.get_finished_spans()}
    child = spans["chat fake-model"]
    assert child.parent is not None
    assert child.parent.span_id == parent.get_span_context().span_id
    assert child.context.trace_id == parent.get_span_context().trace_id  # type: ignore[union-attr]


def test_an_instrumented_client_s_spans_nest_in_the_call_span(otel: type[Exported]) -> None:
    # While the request is sent (retries included), the call's span is current: what an
    # instrumented HTTP client records per attempt is its child.
    tracer = trace.get_tracer("an instrumented client")
    seen: list[Any] = []

    def on_response(response: Any) -> None:
        with tracer.start_as_current_span("HTTP POST") as attempt:
            seen.append(attempt)

    script = [FakeError(503), FakeReply("Hi")]
    with FakeProvider(script) as fake:
        ask("complete", fake.model(), context(), api_key=fake.api_key, on_response=on_response)
    spans = {s.name: s for s in Exported.spans.get_finished_spans() if s.name != "HTTP POST"}
    call = spans["chat fake-model"]
    attempts = [s for s in Exported.spans.get_finished_spans() if s.name == "HTTP POST"]
    assert len(attempts) == 2
    assert all(a.parent.span_id == call.context.span_id for a in attempts)  # type: ignore[union-attr]


# -- no key anywhere -----------------------------------------------------------------------

KEYS = {
    "api_key": "sk-llmkit-telemetry-KEY-0123456789",
    "wrong key": "sk-llmkit-telemetry-WRONG-987654321",
    "header": "hdr-llmkit-telemetry-SECRET-5555",
    "OAuth token": "ya29.llmkit-telemetry-OAUTH-24680",
    "AWS key id": "AKIALLMKITTELEMETRY1",
    "AWS secret": "llmkitTelemetryAwsSecretAccessKey0000000",
    "AWS session token": "llmkit-telemetry-aws-SESSION-token-13579",
}


def test_no_key_in_any_span_metric_or_status(
    otel: type[Exported], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_telemetry.CAPTURE_CONTENT_ENV, "true")
    key, wrong, header = KEYS["api_key"], KEYS["wrong key"], KEYS["header"]
    headers = {"x-custom-auth": header}
    echoed = FakeError(
        400, in_stream=True, body={"error": {"message": f"bad key {key}", "type": "x"}}
    )
    for api in WIRES:
        script = [FakeReply("Hi", usage=USAGE), echoed, FakeError(500, body=f"no {key}")]
        with FakeProvider(script, api=api, api_key=key) as fake:  # type: ignore[arg-type]
            model = fake.model()
            ask("complete", model, context(), api_key=key, headers=headers, max_tokens=9)
            with pytest.raises(llmkit.LLMError):
                ask("stream", model, context(), api_key=key, headers=headers, max_tokens=9)
                raise llmkit.LLMError("the stream ended in its error event")
            with pytest.raises(llmkit.APIError):
                ask("acomplete", model, context(), api_key=key, max_retries=0, max_tokens=9)
            with pytest.raises(llmkit.AuthenticationError):
                ask("astream", model, context(), api_key=wrong, max_tokens=9)
    # A cloud platform's credentials: a Vertex AI OAuth token, AWS keys signing a Bedrock call.
    with FakeProvider(
        [FakeReply("Hi")], api="gemini", platform="vertex", require_key=False
    ) as fake:
        ask("complete", fake.model("m"), context(), api_key=KEYS["OAuth token"])
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEYS["AWS key id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", KEYS["AWS secret"])
    monkeypatch.setenv("AWS_SESSION_TOKEN", KEYS["AWS session token"])
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    aws.session.cache_clear()
    try:
        script = [FakeReply("Hi", usage=USAGE), FakeError(403)]
        with FakeProvider(script, api="bedrock-converse", platform="bedrock") as fake:
            ask("astream", fake.model("m"), context(), max_tokens=9)
            with pytest.raises(llmkit.APIError):
                ask("complete", fake.model("m"), context(), max_tokens=9)
            assert "AWS4-HMAC-SHA256" in fake.requests[0].headers["authorization"]
    finally:
        aws.session.cache_clear()
    spans = Exported.spans.get_finished_spans()
    assert len(spans) == 4 * len(WIRES) + 3
    exported = [s.to_json() for s in spans]
    exported.append(Exported.reader.get_metrics_data().to_json())  # type: ignore[union-attr]
    text = "\n".join(exported)
    assert "chat fake-model" in text and "gen_ai.client.token.usage" in text
    assert "Weather in Paris?" in text  # content capture was on: the search sees content
    for kind, secret in KEYS.items():
        for piece in (secret, secret[8:], secret[-12:]):
            assert piece not in text, f"the {kind} leaked into the exported telemetry"


# -- when OpenTelemetry is not there, and the documented example -------------------------


def test_without_an_sdk_a_call_does_no_telemetry_work() -> None:
    # A fresh process with opentelemetry-api but no SDK configured: OpenTelemetry would record
    # nothing, and the call makes no span and no measurement for it; configured later, the
    # SDK is picked up by the next call.
    script = """
import llmkit
from llmkit import _telemetry
from llmkit._auth import aws
from llmkit.testing import FakeProvider, FakeReply
made = []
class Counted(_telemetry.Call):
    __slots__ = ()
    def __init__(self, *args):
        made.append(1)
        super().__init__(*args)
_telemetry.Call = Counted
ctx = llmkit.Context(messages=[llmkit.user("hi")])
with FakeProvider([FakeReply("Hi"), FakeReply("Hi")]) as fake:
    print(llmkit.complete(fake.model(), ctx, api_key=fake.api_key).text, len(made))
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())
    print(llmkit.complete(fake.model(), ctx, api_key=fake.api_key).text, len(made))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Hi", "0", "Hi", "1"]


def test_the_observability_example_runs_as_shown() -> None:
    # docs/observability.md configures OpenTelemetry's global providers, which a process can
    # do once: its examples run in a fresh process, in order, output checked exactly.
    page = blocks(DOCS / "observability.md")
    runnable = [b for b in page if b.lang == "python" and b.skipped is None]
    assert runnable, "the page has examples to run"
    outputs = {id(b.follows): b.code for b in page if b.lang == "text" and b.follows}
    expected = "".join(outputs.get(id(b), "") for b in runnable)
    env = {k: v for k, v in os.environ.items() if k != _telemetry.CAPTURE_CONTENT_ENV}
    code = "\n".join(b.code for b in runnable)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def test_the_telemetry_benchmark_runs() -> None:
    # benchmarks/telemetry.py, tiny: both set-ups, each call checked by the benchmark itself.
    done = subprocess.run(
        [sys.executable, "benchmarks/telemetry.py", "--calls=2", "--events=5", "--reps=1"],
        capture_output=True,
        text=True,
        cwd=DOCS.parent,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split("|")[1].strip() for line in done.stdout.splitlines()[3:]]
    assert rows == ["sdk", "api"], done.stdout
