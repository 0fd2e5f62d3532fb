"""The caller's own tool executor (docs/design.md §6: executing tools is the caller's): async
tools with a typed dependency, a timeout per tool, bounded concurrency, and a clear line between
a tool that failed (the model is told) and a failure that stops the loop (the model is not).

    python examples/executor.py                 # no key: llmkit's fake provider
    python examples/executor.py --outage        # the inventory database is down: the loop stops
    OPENAI_API_KEY=sk-... python examples/executor.py --max-concurrency 3

- The dependency: each tool takes ``deps: Annotated[Deps, llmkit.Injected]``. It is not in the
  tool's schema (the model never sees it); the executor passes it in, typed.
- A timeout per tool (``TIMEOUTS``): a tool that runs too long becomes an error result.
- Bounded concurrency: the calls of one turn run at once, at most ``--max-concurrency`` at a
  time (an ``asyncio.Semaphore``); their results go back in call order.
- ``ToolFailed`` is a definitive, expected failure (an unknown product code): its message goes
  back to the model as an error result and the loop goes on. Anything else a tool raises
  (``InventoryDown`` here, or a bug) is not the model's business: the other calls of the turn
  are cancelled and the loop stops, with nothing sent back.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from _provider import add_arguments, connect  # examples/ is on sys.path when run as a script

import llmkit
from llmkit.testing import FakeReply, FakeRequest, FakeToolCall


class ToolFailed(Exception):
    """The tool ran and definitively failed; ``str(e)`` is meant for the model."""


class InventoryDown(Exception):
    """The backing service is unreachable: retrying through the model would not help."""


@dataclass
class Inventory:
    """The caller's database (simulated, with latency)."""

    stock: dict[str, int]
    down: bool = False

    async def units(self, sku: str) -> int | None:
        await asyncio.sleep(0.05)
        if self.down:
            raise InventoryDown("inventory database unreachable")
        return self.stock.get(sku)


@dataclass
class Deps:
    """What every tool receives from the executor: typed, never shown to the model."""

    inventory: Inventory
    in_flight: int = 0
    most_in_flight: int = 0  # to show the concurrency bound at work
    log: list[str] = field(default_factory=list)


async def check_stock(sku: str, deps: Annotated[Deps, llmkit.Injected]) -> str:
    """Units in stock for one product.

    Args:
        sku: The product code, e.g. "A-100".
    """
    units = await deps.inventory.units(sku)
    if units is None:
        raise ToolFailed(f"Unknown product code {sku!r}; codes look like 'A-100'.")
    return f"{sku}: {units} in stock"


async def supplier_eta(sku: str, deps: Annotated[Deps, llmkit.Injected]) -> str:
    """When the supplier can deliver more of a product.

    Args:
        sku: The product code.
    """
    await asyncio.sleep(30)  # the supplier's API hangs: the per-tool timeout cuts it short
    return f"{sku}: next week"


Impl = Callable[..., Awaitable[str]]
IMPLS: dict[str, Impl] = {"check_stock": check_stock, "supplier_eta": supplier_eta}
TOOLS = {name: llmkit.tool_from_function(fn) for name, fn in IMPLS.items()}
TIMEOUTS = {"supplier_eta": 0.5}  # seconds; the others get DEFAULT_TIMEOUT
DEFAULT_TIMEOUT = 5.0


@dataclass
class Executor:
    """Runs one turn's calls: decode, bound, time out, and sort failures into the two kinds."""

    deps: Deps
    limit: asyncio.Semaphore

    async def run(self, call: llmkit.ToolCall) -> llmkit.ToolResultMessage:
        tool = TOOLS.get(call.name)
        if tool is None:
            return llmkit.tool_result(call, f"Unknown tool {call.name!r}", is_error=True)
        try:
            args = llmkit.decode_tool_call(tool, call)  # validated, typed arguments
        except llmkit.ToolArgumentsError as e:
            return llmkit.tool_result(call, e.model_message, is_error=True)
        timeout = TIMEOUTS.get(call.name, DEFAULT_TIMEOUT)
        async with self.limit:  # at most --max-concurrency tools at once
            self.deps.in_flight += 1
            self.deps.most_in_flight = max(self.deps.most_in_flight, self.deps.in_flight)
            try:
                run = IMPLS[call.name](**dict(args), deps=self.deps)
                output = await asyncio.wait_for(run, timeout)
            except asyncio.TimeoutError:
                output = f"{call.name} timed out after {timeout:g} s; try again later."
                return self.logged(call, output, is_error=True)
            except ToolFailed as e:  # definitive: the model is told, and can act on it
                return self.logged(call, str(e), is_error=True)
            finally:
                self.deps.in_flight -= 1
            # Anything else propagates out of run_turn(): the loop stops.
        return self.logged(call, output)

    def logged(
        self, call: llmkit.ToolCall, text: str, *, is_error: bool = False
    ) -> llmkit.ToolResultMessage:
        self.deps.log.append(f"{'error' if is_error else 'ok'}: {call.name} -> {text}")
        print(f"  {'x' if is_error else '+'} {call.name}({call.arguments}) -> {text}")
        return llmkit.tool_result(call, text, is_error=is_error)

    async def run_turn(self, calls: list[llmkit.ToolCall]) -> list[llmkit.ToolResultMessage]:
        tasks = [asyncio.ensure_future(self.run(call)) for call in calls]
        try:
            return list(await asyncio.gather(*tasks))  # results in call order
        except BaseException:
            for task in tasks:  # one call aborted the turn: stop the others too
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise


async def loop(model: llmkit.Model, executor: Executor, **options: Any) -> str:
    context = llmkit.Context(
        system="You answer stock questions with the tools. Be brief.",
        messages=[llmkit.user("Can we ship 10 each of A-100, B-200, C-300 and Z-999 today?")],
        tools=list(TOOLS.values()),
    )
    for turn in range(6):
        reply = await llmkit.acomplete(model, context, max_tokens=600, **options)
        context.messages.append(reply)
        if not reply.tool_calls:
            return reply.text
        print(f"turn {turn}: {len(reply.tool_calls)} call(s)")
        started = time.monotonic()
        context.messages += await executor.run_turn(reply.tool_calls)
        print(f"  (turn took {time.monotonic() - started:.2f} s)")
    return "(no answer after 6 turns)"


def fake_model(request: FakeRequest) -> FakeReply:
    """The model's part: five calls at once, then an answer from the results."""
    results = [m["content"] for m in request.body["messages"] if m["role"] == "tool"]
    if not results:
        calls = [FakeToolCall("check_stock", {"sku": s}) for s in ("A-100", "B-200", "C-300")]
        calls += [
            FakeToolCall("check_stock", {"sku": "Z-999"}),
            FakeToolCall("supplier_eta", {"sku": "C-300"}),
        ]
        return FakeReply(tool_calls=calls)
    text = " ".join(results)
    stock = {sku: int(n) for sku, n in re.findall(r"([A-Z]-\d+): (\d+) in stock", text)}
    ready = [sku for sku, n in stock.items() if n >= 10]
    short = [f"{sku} has only {n}" for sku, n in stock.items() if n < 10]
    answer = f"{' and '.join(ready)} can ship 10 today; {', '.join(short)}."
    unknown = re.findall(r"Unknown product code '([^']+)'", text)
    if unknown:
        answer += f" {', '.join(unknown)} is not one of our product codes."
    if "timed out" in text:
        answer += " The supplier did not answer in time, so I have no restock date."
    return FakeReply(answer)


async def amain(ns: argparse.Namespace) -> int:
    deps = Deps(Inventory({"A-100": 40, "B-200": 12, "C-300": 3}, down=ns.outage))
    executor = Executor(deps, asyncio.Semaphore(ns.max_concurrency))
    with connect(ns, fake_model) as (model, options):
        try:
            answer = await loop(model, executor, **options)
        except InventoryDown as e:
            print(f"aborted: {e}; nothing was sent back to the model", file=sys.stderr)
            return 1
    print(f"\n{answer}")
    print(f"(at most {deps.most_in_flight} tools ran at once; limit {ns.max_concurrency})")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument("--max-concurrency", type=int, default=2, metavar="N")
    parser.add_argument("--outage", action="store_true", help="the inventory database is down")
    raise SystemExit(asyncio.run(amain(parser.parse_args())))


if __name__ == "__main__":
    main()
