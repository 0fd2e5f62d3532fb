"""A small agent framework of its own, on llmkit's seams only: its own message type, its own
``httpx.AsyncClient`` and its own retry policy. llmkit builds the requests and reads the answers;
the framework sends them.

    python examples/framework.py                     # no key: the fake provider, every wire
    OPENAI_API_KEY=sk-... python examples/framework.py --provider openai --model gpt-4.1-mini

What it uses of llmkit, and nothing else of its call path:

- ``build_request(model, context, stream=...)``: the request, streamed or not (``context`` is
  a plain list of llmkit messages, converted from the framework's own ``Turn``);
- ``aparse_stream`` for a streamed answer, ``parse_response`` for a whole one;
- ``parse_error`` for an HTTP error answer, and the error's ``retryable`` (and ``retry_after``)
  for the framework's own retry policy; a dropped stream's ``ErrorEvent`` carries a retryable
  error too;
- ``decode_tool_call`` over the tools offered, dispatched with ``match``.

On the fake provider, each wire's script starts with an overloaded answer (retried after the
provider's ``retry-after-ms``), asks for a tool, answers, and ends with a 400 that the policy does
not retry.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass, field
from typing import Literal

import httpx
from pydantic import BaseModel

import llmkit
from llmkit.testing import FakeError, FakeProvider, FakeReply, FakeToolCall

WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "gemini", "bedrock-converse")


# ----------------------------------------------------------------- the framework's own types


@dataclass
class Turn:
    """The framework's message: who spoke, what they said, and llmkit's message when there
    is one to send back verbatim (thinking signatures, call ids)."""

    role: Literal["user", "assistant", "tool"]
    text: str
    sent: llmkit.AssistantMessage | None = None
    answers: llmkit.ToolCall | None = None


@dataclass
class RetryPolicy:
    """Retry what llmkit calls retryable, waiting what the provider asked, a few times."""

    attempts: int = 3
    base_delay: float = 0.05
    max_delay: float = 2.0
    log: list[str] = field(default_factory=list)

    def delay(self, error: llmkit.LLMError, attempt: int) -> float | None:
        if not error.retryable or attempt + 1 >= self.attempts:
            return None
        wanted = error.retry_after if isinstance(error, llmkit.APIError) else None
        return min(wanted if wanted is not None else self.base_delay * 2**attempt, self.max_delay)


class GetWeather(BaseModel):
    """Get the weather forecast for a city."""

    city: str


class Convert(BaseModel):
    """Convert a temperature from Celsius to Fahrenheit."""

    celsius: float


TOOLS = (llmkit.tool(GetWeather), llmkit.tool(Convert))


def run_tool(call: llmkit.ToolCall) -> str:
    match llmkit.decode_tool_call(TOOLS, call):
        case GetWeather(city=city):
            return f"{city}: 18 C, light rain"
        case Convert(celsius=celsius):
            return f"{celsius * 9 / 5 + 32:g} F"
    raise AssertionError("unreachable: decode_tool_call refuses other names")


# ----------------------------------------------------------------- the framework's engine


class Agent:
    def __init__(
        self, model: llmkit.Model, http: httpx.AsyncClient, policy: RetryPolicy, api_key: str
    ) -> None:
        self.model, self.http, self.policy, self.api_key = model, http, policy, api_key

    def context(self, turns: list[Turn]) -> llmkit.Context:
        messages: list[llmkit.Message] = []
        for turn in turns:
            if turn.role == "user":
                messages.append(llmkit.user(turn.text))
            elif turn.sent is not None:
                messages.append(turn.sent)
            elif turn.answers is not None:
                messages.append(llmkit.tool_result(turn.answers, turn.text))
        return llmkit.Context(system="Be brief.", messages=messages, tools=list(TOOLS))

    async def ask(self, turns: list[Turn], *, stream: bool) -> llmkit.AssistantMessage:
        """One model turn, sent by the framework's own client, retried by its own policy."""
        attempt = 0
        while True:
            request = llmkit.build_request(
                self.model, self.context(turns), stream=stream, api_key=self.api_key
            )
            try:
                return await self._send(request, stream=stream)
            except llmkit.LLMError as error:
                delay = self.policy.delay(error, attempt)
                verdict = "retryable" if error.retryable else "not retryable"
                self.policy.log.append(f"{type(error).__name__} ({verdict})")
                if delay is None:
                    raise
                self.policy.log[-1] += f", again in {delay:.2f} s"
                await asyncio.sleep(delay)
                attempt += 1

    async def _send(self, request: httpx.Request, *, stream: bool) -> llmkit.AssistantMessage:
        try:
            response = await self.http.send(request, stream=True)
        except httpx.TransportError as exc:  # the framework's own transport: its own mapping
            raise llmkit.APIConnectionError(f"{type(exc).__name__}: {exc}") from exc
        try:
            if response.status_code >= 400:
                await response.aread()
                raise llmkit.parse_error(self.model, response)
            if not stream:
                await response.aread()
                return llmkit.parse_response(self.model, response)
            try:
                async for event in llmkit.aparse_stream(self.model, response.aiter_bytes()):
                    if isinstance(event, llmkit.ErrorEvent):
                        raise event.error  # an in-stream overload or a cut body: retryable
                    if isinstance(event, llmkit.Done):
                        return event.message
            except httpx.TransportError as exc:  # the connection dropped mid-stream
                raise llmkit.StreamError(f"{type(exc).__name__}: {exc}") from exc
            raise AssertionError("unreachable: every stream ends with Done or ErrorEvent")
        finally:
            await response.aclose()

    async def run(self, prompt: str) -> str:
        turns = [Turn("user", prompt)]
        for step in range(6):
            reply = await self.ask(turns, stream=step % 2 == 0)  # both seams, turn about
            turns.append(Turn("assistant", reply.text, sent=reply))
            if not reply.tool_calls:
                return reply.text
            for call in reply.tool_calls:
                result = run_tool(call)
                print(f"[{self.model.api}] {call.name}({call.raw_arguments}) -> {result}")
                turns.append(Turn("tool", result, answers=call))
        raise RuntimeError("the model kept calling tools")


# ----------------------------------------------------------------- running it


def script() -> list[FakeReply | FakeError]:
    return [
        FakeError(529, headers={"retry-after-ms": "20"}),  # overloaded: retried
        FakeReply(tool_calls=[FakeToolCall("get_weather", {"city": "Paris"})]),  # streamed
        FakeReply(tool_calls=[FakeToolCall("convert", {"celsius": 18})]),  # not streamed
        FakeReply("Paris: 18 C", drop_after=2),  # the connection drops mid-stream: retried
        FakeReply("Paris: 18 C (64.4 F) and light rain. Take an umbrella."),
        FakeError(400),  # a bad request: not retried
    ]


async def on_the_fake(wire: str) -> None:
    policy = RetryPolicy()
    with FakeProvider(script(), api=wire) as fake:  # type: ignore[arg-type]
        async with httpx.AsyncClient() as http:
            agent = Agent(fake.model(), http, policy, fake.api_key)
            answer = await agent.run("What is the weather in Paris, in Fahrenheit?")
            print(f"[{wire}] {answer}")
            try:
                await agent.run("Once more?")
            except llmkit.BadRequestError as error:
                print(f"[{wire}] {type(error).__name__} (status {error.status}): not retried")
        print(f"[{wire}] retry log: {'; '.join(policy.log)}")
        print(f"[{wire}] {len(fake.requests)} requests sent by the framework's own client")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", default="openai")
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")
    ns = parser.parse_args()
    model = llmkit.get_model(ns.provider, ns.model)
    key = os.environ.get(model.api_key_env or "")
    if key and not ns.fake:
        async with httpx.AsyncClient(timeout=60) as http:
            print(await Agent(model, http, RetryPolicy(), key).run("Weather in Paris, in F?"))
        return
    print("(no key or --fake: llmkit's fake provider, on every wire)", file=sys.stderr)
    for wire in WIRES:
        await on_the_fake(wire)


if __name__ == "__main__":
    asyncio.run(main())
