"""Fine-grained tool-argument streaming: ``stream_tool_arguments=True``.

    python examples/features/tool_streaming.py

Anthropic sends ``eager_input_streaming: true`` on each tool (models that support it); Gemini on
Vertex AI sends ``streamFunctionCallArguments``; OpenAI wires always stream arguments and need
nothing; elsewhere the option is reported. Against llmkit's fake provider, the arguments arrive
as deltas and ``partial_arguments`` grows with each.
"""

from __future__ import annotations

import llmkit
from llmkit.testing import FakeProvider, FakeReply, FakeToolCall


def main() -> None:
    write = llmkit.Tool(
        name="write_file",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
        },
    )
    call = FakeToolCall(
        "write_file", {"path": "poem.txt", "text": "Roses are red, violets are blue."}
    )
    with FakeProvider(
        [FakeReply(tool_calls=[call], delta_size=10)], api="anthropic-messages"
    ) as fake:
        model = fake.model(eager_input_streaming=True)
        context = llmkit.Context(messages=[llmkit.user("Write a poem to poem.txt")], tools=[write])
        with llmkit.stream(
            model, context, api_key=fake.api_key, stream_tool_arguments=True
        ) as events:
            for event in events:
                if isinstance(event, llmkit.ToolCallDelta):
                    print("partial:", event.partial_arguments)
        print("sent:", fake.requests[0].body["tools"][0]["eager_input_streaming"])
    gemini = llmkit.get_model("google", "gemini-3.8-flash")  # the Gemini API, not Vertex AI
    request = llmkit.build_request(gemini, context, api_key="k", stream_tool_arguments=True)
    print("gemini:", [d.message for d in request.extensions["llmkit.diagnostics"]])


if __name__ == "__main__":
    main()
