"""The request skeleton every wire fills in (llmkit/_wire/skeleton.py): the same checks, the
same id grammars by name, and the replay rule — opaque data goes back only to the model that
made it, and what is not sent is reported saying where it came from — on every wire."""

from __future__ import annotations

from typing import Any

import pytest

import llmkit
from llmkit._options import Options
from llmkit._wire import adapter

MODELS = {
    "openai-chat": llmkit.Model(provider="openai", id="gpt-4.1-mini", api="openai-chat"),
    "openai-responses": llmkit.Model(
        provider="openai", id="gpt-5", api="openai-responses", reasoning=True
    ),
    "anthropic-messages": llmkit.Model(
        provider="anthropic", id="claude-sonnet-4-5", api="anthropic-messages"
    ),
    "gemini": llmkit.Model(provider="google", id="gemini-2.5-flash", api="gemini"),
    "bedrock-converse": llmkit.Model(
        provider="bedrock", id="anthropic.claude-sonnet-4-5", api="bedrock-converse"
    ),
}
GRAMMAR = {
    "openai-chat": "token40",
    "openai-responses": "token64",
    "anthropic-messages": "token64",
    "gemini": "token64",
    "bedrock-converse": "token64",
}


def build(api: str, context: llmkit.Context, **options: Any) -> tuple[dict[str, Any], list[Any]]:
    return adapter(MODELS[api].api).build(  # type: ignore[arg-type]
        MODELS[api], context, Options.check(options), stream=True
    )


@pytest.mark.parametrize("api", sorted(MODELS))
def test_a_foreign_id_is_rewritten_to_the_wires_named_grammar(api: str) -> None:
    call = llmkit.ToolCall(id="functions.get_weather:0" + "x" * 50, name="get_weather")
    context = llmkit.Context(
        messages=[
            llmkit.user("Weather?"),
            llmkit.AssistantMessage(content=[call], stop_reason="tool_use"),
            llmkit.tool_result(call, "sunny"),
        ]
    )
    _, diags = build(api, context)
    [normalized] = [d for d in diags if d.kind == "tool_call_id_normalized"]
    assert normalized.details["grammar"] == GRAMMAR[api]
    assert normalized.tool_call_id == call.id


@pytest.mark.parametrize("api", sorted(MODELS))
def test_thinking_from_another_model_is_reported_with_its_origin(api: str) -> None:
    context = llmkit.Context(
        messages=[
            llmkit.user("Hi"),
            llmkit.AssistantMessage(
                content=[
                    llmkit.ThinkingPart(thinking="hmm", signature="sig"),
                    llmkit.TextPart(text="Hello"),
                ],
                stop_reason="stop",
                provider="elsewhere",
                api="openai-chat" if api != "openai-chat" else "gemini",
                model="other",
            ),
            llmkit.user("Again"),
        ]
    )
    _, diags = build(api, context)
    dropped = [d for d in diags if d.kind == "thinking_dropped"]
    assert dropped, api
    assert all("elsewhere/" in str(d.details.get("from")) for d in dropped), dropped


@pytest.mark.parametrize("api", sorted(MODELS))
def test_tool_choice_naming_an_undeclared_tool_is_refused_on_every_wire(api: str) -> None:
    context = llmkit.Context(messages=[llmkit.user("Hi")])
    with pytest.raises(llmkit.InvalidRequestError, match="not a declared tool"):
        build(api, context, tool_choice={"name": "nowhere"})


def test_a_named_provider_tool_of_bedrock_counts_as_declared() -> None:
    # Bedrock's builder once checked tools without its wire API: its own named provider tools
    # were then undeclared for tool_choice.
    tool = llmkit.ProviderTool(
        "bedrock-converse", {"systemTool": {"name": "nova_grounding"}, "name": "nova_grounding"}
    )
    context = llmkit.Context(messages=[llmkit.user("Hi")], tools=[tool])
    body, _ = build("bedrock-converse", context, tool_choice={"name": "nova_grounding"})
    assert body["toolConfig"]["toolChoice"] == {"tool": {"name": "nova_grounding"}}


@pytest.mark.parametrize("api", sorted(MODELS))
def test_provider_options_come_last_and_win(api: str) -> None:
    context = llmkit.Context(messages=[llmkit.user("Hi")])
    body, _ = build(api, context, provider_options={"zz_last": 1})
    assert list(body)[-1] == "zz_last"
