"""The public surface: names promised by the contract (docs/design.md §3) exist, ``__all__`` is
sorted and honest, only the documented modules are public, ``import llmkit`` stays light, and the
catalogue works."""

from __future__ import annotations

import base64
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import typing

import pytest
from pydantic import BaseModel, Field

import llmkit

DESIGN_NAMES = """
complete acomplete stream astream build_request parse_stream aparse_stream parse_response
Model get_model models register_model Context UserMessage AssistantMessage ToolResultMessage
TextPart ImagePart ThinkingPart ToolCall Usage user tool_result Tool tool tool_from_function
decode_tool_call Start TextStart TextDelta TextEnd ThinkingStart ThinkingDelta ThinkingEnd
ToolCallStart ToolCallDelta ToolCallEnd DiagnosticEvent Done ErrorEvent Diagnostic Timeouts
LLMError InvalidRequestError ToolDefinitionError ToolArgumentsError UnknownModelError
MissingAPIKeyError APIError AuthenticationError PermissionDeniedError NotFoundError
RateLimitError OverloadedError ContextLengthError ServerError APIConnectionError
APITimeoutError StreamError
""".split()


FEATURE_NAMES = """
decode_output OutputValidationError CachePoint DocumentPart ProviderTool count_tokens
acount_tokens tool_from_mcp tool_result_from_mcp
""".split()
"""docs/design.md §5 "Production features"."""


def test_design_names_exist() -> None:
    missing = [n for n in DESIGN_NAMES + FEATURE_NAMES if not hasattr(llmkit, n)]
    assert missing == []


def test_feature_contract_shapes() -> None:
    import typing

    assert issubclass(llmkit.OutputValidationError, llmkit.LLMError)
    assert llmkit.TextDelta(0, "x").partial_output is None
    assert "pdf" in typing.get_args(llmkit.Model.model_fields["input"].annotation.__args__[0])
    for fn in (llmkit.parse_stream, llmkit.aparse_stream):
        assert "response_format" in inspect.signature(fn).parameters
    assert set(inspect.signature(llmkit.user).parameters) == {"text", "images", "documents"}
    assert llmkit.ProviderTool("gemini", {"google_search": {}}) == llmkit.ProviderTool(
        api="gemini", spec={"google_search": {}}
    )
    assert "document_omitted" in typing.get_args(llmkit.DiagnosticKind)
    for option in ("cache", "cache_key", "stream_tool_arguments"):
        llmkit.build_request(
            llmkit.Model(provider="x", id="y", api="openai-chat", base_url="http://h"),
            llmkit.Context(messages=[llmkit.user("x")]),
            api_key="k",
            **{option: {"cache": "short", "cache_key": "k", "stream_tool_arguments": True}[option]},
        )


PUBLIC_MODULES = {"llmkit", "llmkit.testing", "llmkit.ui"}
"""The only modules a caller may import; everything else is private (``_`` prefixed)."""


def test_all_is_sorted_and_exported() -> None:
    assert llmkit.__all__ == sorted(llmkit.__all__)
    assert all(hasattr(llmkit, n) for n in llmkit.__all__)
    importlib.import_module("llmkit.testing")  # loaded, so that its attribute is in vars() too
    # vars(), not dir(): llmkit.__dir__ returns __all__, which would hide a leaked name.
    # (pytest's assertion rewriting, on for llmkit since it ships a pytest11 plugin, adds
    # "@py_builtins" and the like: not identifiers, so not names anyone can import)
    public = {n for n in vars(llmkit) if n.isidentifier() and not n.startswith("_")}
    submodules = {name.split(".")[1] for name in PUBLIC_MODULES - {"llmkit"}}
    assert public - set(llmkit.__all__) <= submodules


def test_only_the_documented_modules_are_public() -> None:
    found = {"llmkit"}
    for info in pkgutil.walk_packages(llmkit.__path__, "llmkit."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.add(info.name)
    assert found <= PUBLIC_MODULES, found - PUBLIC_MODULES


@pytest.mark.parametrize("name", sorted(PUBLIC_MODULES - {"llmkit"}))
def test_public_modules_are_documented(name: str) -> None:
    module = importlib.import_module(name)  # ruff's RUF022 keeps each __all__ sorted
    assert (module.__doc__ or "").strip()
    assert len(set(module.__all__)) == len(module.__all__)
    for attr in module.__all__:
        obj = getattr(module, attr)
        if typing.get_origin(obj) is None and (inspect.isclass(obj) or inspect.isfunction(obj)):
            assert (obj.__doc__ or "").strip(), f"{name}.{attr}"  # a type alias has none
    assert not set(module.__all__) & set(llmkit.__all__)  # nothing re-exported


def test_public_names_are_documented() -> None:
    for name in llmkit.__all__:
        obj = getattr(llmkit, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), name


def test_import_is_light() -> None:
    code = (
        "import sys, llmkit; "
        "heavy = ('jsonschema', 'openai', 'anthropic', 'google.genai'); "
        "bad = [m for m in heavy if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_errors_subclass_llmerror() -> None:
    for name in DESIGN_NAMES:
        obj = getattr(llmkit, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, llmkit.LLMError)
    assert issubclass(llmkit.APITimeoutError, llmkit.APIConnectionError)
    assert issubclass(llmkit.RateLimitError, llmkit.APIError)


class GetWeather(BaseModel):
    """Get a weather forecast."""

    city: str = Field(description="City name")
    days: int = 1


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def test_context_json_round_trip_is_exact() -> None:
    weather = llmkit.tool(GetWeather)
    reply = llmkit.AssistantMessage(
        content=[
            llmkit.ThinkingPart(thinking="hmm", signature="sig", replay={"k": [1, 2]}),
            llmkit.TextPart(text="Let me check."),
            llmkit.ToolCall(
                id="c1",
                name="get_weather",
                arguments={"city": "Oslo"},
                raw_arguments='{"city": "Oslo"}',
                provider_id="",
            ),
        ],
        stop_reason="tool_use",
        raw_stop_reason="tool_calls",
        usage=llmkit.Usage(input=10, output=3, cache_read=2),
        diagnostics=[
            llmkit.Diagnostic(kind="tool_call_id_synthesized", message="m", tool_call_id="c1")
        ],
        provider="openai",
        api="openai-chat",
        model="gpt-4o",
        response_id="r1",
    )
    ctx = llmkit.Context(
        system="sys",
        messages=[
            llmkit.user("hi ☃", images=[PNG, "https://example.com/a.png"]),
            reply,
            llmkit.tool_result(reply.tool_calls[0], "sunny", images=[PNG]),
        ],
        tools=[weather],
    )
    text = ctx.model_dump_json()
    back = llmkit.Context.model_validate_json(text)
    assert back.model_dump_json() == text
    assert back == ctx.model_copy(update={"tools": [llmkit.Tool(**weather.model_dump())]})
    # a model-made tool comes back as a plain schema tool with equal public fields
    assert back.tools[0].model_dump() == weather.model_dump()
    assert back.tools[0].args_model is None and weather.args_model is GetWeather


def test_image_inputs_are_sniffed_and_parsed() -> None:
    part = llmkit.user("x", images=[PNG]).content[1]
    assert isinstance(part, llmkit.ImagePart)
    assert (part.media_type, base64.b64decode(part.data or "")) == ("image/png", PNG)
    jpeg = llmkit.user("x", images=[b"\xff\xd8\xff\xe0rest"]).content[1]
    assert jpeg.media_type == "image/jpeg"  # type: ignore[union-attr]
    data_url = llmkit.user("x", images=["data:image/webp;base64,AAAA"]).content[1]
    assert (data_url.media_type, data_url.data) == ("image/webp", "AAAA")  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="Unrecognised"):
        llmkit.user("x", images=[b"not an image"])


def test_assistant_message_helpers() -> None:
    msg = llmkit.AssistantMessage(
        content=[
            llmkit.TextPart(text="a"),
            llmkit.ThinkingPart(thinking="t"),
            llmkit.TextPart(text="b"),
            llmkit.ToolCall(id="x", name="n"),
        ],
        diagnostics=[
            llmkit.Diagnostic(kind="tool_arguments_invalid", message="m", tool_call_id="x")
        ],
    )
    assert (msg.text, msg.thinking, [c.id for c in msg.tool_calls]) == ("ab", "t", ["x"])
    assert [d.kind for d in msg.diagnostics_for("x")] == ["tool_arguments_invalid"]


def test_duplicate_tool_names_refused_in_context_and_at_build() -> None:
    t = llmkit.Tool(name="a")
    with pytest.raises(llmkit.ToolDefinitionError):
        llmkit.Context(tools=[t, t])
    ctx = llmkit.Context(tools=[t])
    ctx.tools.append(t)  # mutated later: build_request re-checks
    with pytest.raises(llmkit.InvalidRequestError, match="Duplicate"):
        llmkit.build_request(llmkit.Model(provider="vllm", id="m", api="openai-chat"), ctx)


def test_get_model_and_suggestions() -> None:
    m = llmkit.get_model("openai", "gpt-4.1-mini")
    assert (m.api, m.base_url, m.api_key_env) == (
        "openai-chat",
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
    )
    with pytest.raises(llmkit.UnknownModelError) as info:
        llmkit.get_model("openai", "gpt-4.1-mimi")
    assert "openai/gpt-4.1-mini" in info.value.suggestions
    assert all(x.provider == "openai" for x in llmkit.models("openai"))


def test_register_model_and_custom_server_one_line() -> None:
    custom = llmkit.Model(
        provider="vllm", id="qwen3", api="openai-chat", base_url="http://127.0.0.1:8000/v1"
    )
    assert custom.api_key_required is False and custom.compat.thinking_format == "chat_template"
    llmkit.register_model(custom)
    assert llmkit.get_model("vllm", "qwen3") is custom


def test_compat_overrides_field_by_field() -> None:
    m = llmkit.Model(
        provider="openai", id="x", api="openai-chat", compat={"max_tokens_field": "max_tokens"}
    )
    assert m.compat.max_tokens_field == "max_tokens"
    assert m.compat.supports_developer_role is True  # the rest of the profile stays


def test_cost_bills_each_bucket_once() -> None:
    m = llmkit.Model(
        provider="x",
        id="y",
        api="openai-chat",
        base_url="http://h",
        cost={"input": 2.0, "output": 8.0, "cache_read": 0.5, "cache_write": 2.5},
    )
    usage = llmkit.Usage(input=1_000_000, output=100_000, cache_read=400_000, cache_write=100_000)
    # 500k plain input at 2.0 + 400k cached at 0.5 + 100k written at 2.5 + 100k output at 8.0
    assert m.cost_of(usage) == pytest.approx(1.0 + 0.2 + 0.25 + 0.8)
    assert m.cost_of(llmkit.Usage(output=5)) is None


def test_catalogue_is_data_not_code() -> None:
    from importlib import resources

    data = json.loads(resources.files("llmkit").joinpath("data/models.json").read_text())
    assert {"provider", "id", "api"} <= set(data["models"][0])
