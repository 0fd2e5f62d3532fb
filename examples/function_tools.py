"""Tools from plain Python functions: ``llmkit.tool_from_function`` reads the signature and the
Google-style docstring, and the caller's small dispatcher runs the functions, sync or async.

    python examples/function_tools.py              # no key: llmkit's fake provider
    python examples/function_tools.py --schemas    # also print the JSON Schemas generated
    OPENAI_API_KEY=sk-... python examples/function_tools.py

- ``search_products`` is a plain function; ``price_chart`` is async. Both are described by
  their docstrings (the summary, and each ``Args:`` entry becomes the parameter's description).
- ``Optional[float] = None``, ``Optional[list[str]] = None``, ``int = 5`` and
  ``dict[str, float]`` parameters become the matching JSON Schema (optional ones are not in
  ``required``); the model's arguments are validated and coerced back into those types.
- Results can be rich: ``price_chart`` returns PNG bytes, sent back as an image with
  ``llmkit.tool_result(call, text, images=[png])``; on OpenAI Chat they travel in a user
  message right after the tool messages, since tool messages carry text only.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import inspect
import json
import struct
import zlib
from collections.abc import Callable
from typing import Any, Optional

from _provider import add_arguments, connect  # examples/ is on sys.path when run as a script

import llmkit
from llmkit.testing import FakeReply, FakeRequest, FakeToolCall

PRODUCTS: list[dict[str, Any]] = [
    {"sku": "L-1", "name": "Arc desk lamp", "price": 39.0, "tags": ["led", "desk"]},
    {"sku": "L-2", "name": "Globe floor lamp", "price": 89.0, "tags": ["led", "floor"]},
    {"sku": "L-3", "name": "Clip reading lamp", "price": 19.5, "tags": ["led", "clip"]},
    {"sku": "L-4", "name": "Brass table lamp", "price": 55.0, "tags": ["halogen"]},
]


def search_products(
    query: str,
    max_price: Optional[float] = None,
    tags: Optional[list[str]] = None,
    limit: int = 5,
) -> list[dict[str, Any]]:
    """Search the product catalogue.

    Args:
        query: Words to look for in product names, e.g. "lamp".
        max_price: Only products at or below this price, in EUR.
        tags: Only products that have all of these tags, e.g. ["led"].
        limit: At most this many results.
    """
    words = query.lower().split()
    found = [
        p
        for p in PRODUCTS
        if all(w in p["name"].lower() for w in words)
        and (max_price is None or p["price"] <= max_price)
        and set(tags or ()) <= set(p["tags"])
    ]
    return found[:limit]


async def price_chart(title: str, prices: dict[str, float], color: str = "teal") -> bytes:
    """Draw a bar chart of prices, returned as a PNG image.

    Args:
        title: What the chart shows.
        prices: The price of each product, by product name.
        color: The bars' colour: "teal", "orange" or "grey".
    """
    await asyncio.sleep(0)  # a real renderer would do I/O or run in a thread
    rgb = {"teal": (0, 128, 128), "orange": (255, 140, 0)}.get(color, (128, 128, 128))
    return bar_chart_png(list(prices.values()), rgb)


FUNCTIONS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (search_products, price_chart)}
TOOLS = {name: llmkit.tool_from_function(fn) for name, fn in FUNCTIONS.items()}


async def run_call(call: llmkit.ToolCall) -> llmkit.ToolResultMessage:
    """The caller's dispatcher: validate, call (awaiting async functions), wrap the result."""
    if call.name not in TOOLS:
        return llmkit.tool_result(call, f"Unknown tool {call.name!r}", is_error=True)
    try:
        args = llmkit.decode_tool_call(TOOLS[call.name], call)  # an instance of the args model
    except llmkit.ToolArgumentsError as e:
        return llmkit.tool_result(call, e.model_message, is_error=True)
    result = FUNCTIONS[call.name](**dict(args))
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, bytes):  # an image: PNG, JPEG, GIF or WebP bytes are sniffed
        print(f"  {call.name}({call.arguments}) -> a {len(result)}-byte PNG")
        return llmkit.tool_result(call, "The chart is attached.", images=[result])
    print(f"  {call.name}({call.arguments}) -> {json.dumps(result)}")
    return llmkit.tool_result(call, json.dumps(result))


async def loop(model: llmkit.Model, **options: Any) -> str:
    context = llmkit.Context(
        system="Use the tools. Chart the prices you find before answering.",
        messages=[llmkit.user("Which LED lamps cost at most 60 EUR? Show me their prices.")],
        tools=list(TOOLS.values()),
    )
    for _turn in range(6):
        reply = await llmkit.acomplete(model, context, max_tokens=600, **options)
        context.messages.append(reply)
        if not reply.tool_calls:
            return reply.text
        context.messages += await asyncio.gather(*(run_call(c) for c in reply.tool_calls))
    return "(no answer after 6 turns)"


def signature_of(tool: llmkit.Tool[Any]) -> str:
    """``search_products(query: string, max_price?: number | null, ...)`` from the schema."""
    props: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = []
    for name, schema in props.items():
        kinds = [s.get("type", "?") for s in schema.get("anyOf", [schema])]
        parts.append(f"{name}{'' if name in required else '?'}: {' | '.join(kinds)}")
    return f"{tool.name}({', '.join(parts)})"


def bar_chart_png(values: list[float], rgb: tuple[int, int, int]) -> bytes:
    """A tiny PNG (one bar per value on white), with only zlib: no imaging library needed."""
    width, height, bar = 12 * max(len(values), 1), 48, 8
    top = max(values, default=1.0) or 1.0
    heights = [round(v / top * (height - 4)) for v in values]
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type 0 for every scanline
        for x in range(width):
            i, inside = divmod(x, 12)
            filled = i < len(heights) and inside < bar and height - y <= heights[i]
            row += bytes(rgb if filled else (255, 255, 255))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


def fake_model(request: FakeRequest) -> FakeReply:
    """The model's part: search, chart what it found, then answer having seen the chart."""
    messages: list[dict[str, Any]] = request.body["messages"]
    results = [m["content"] for m in messages if m["role"] == "tool"]
    if not results:
        # "60" as a string, as models sometimes send numbers: decode_tool_call coerces it.
        query = {"query": "lamp", "max_price": "60", "tags": ["led"]}
        return FakeReply(tool_calls=[FakeToolCall("search_products", query)])
    found = json.loads(results[0])
    prices = {p["name"]: p["price"] for p in found}
    if len(results) == 1:
        chart = {"title": "LED lamps up to 60 EUR", "prices": prices, "color": "orange"}
        return FakeReply(tool_calls=[FakeToolCall("price_chart", chart)])
    # The chart comes back as an image part of the user message after the tool messages.
    images = [
        part["image_url"]["url"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]
    seen = "I could not see the chart."
    if images and images[-1].startswith("data:image/png;base64,"):
        png = base64.b64decode(images[-1].split(",", 1)[1])
        width, height = struct.unpack(">II", png[16:24])
        cheapest = min(prices, key=prices.__getitem__)
        seen = f"The chart ({width}x{height} PNG) shows the {cheapest} is the cheapest."
    listing = ", ".join(f"{name} ({price:g} EUR)" for name, price in prices.items())
    return FakeReply(f"{len(prices)} LED lamps cost at most 60 EUR: {listing}. {seen}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser)
    parser.add_argument("--schemas", action="store_true", help="print the generated schemas")
    ns = parser.parse_args()
    for tool in TOOLS.values():
        print(signature_of(tool))
        if ns.schemas:
            print(json.dumps(tool.parameters, indent=2))
    with connect(ns, fake_model, input=["text", "image"]) as (model, options):
        answer = asyncio.run(loop(model, **options))
    print(f"\n{answer}")


if __name__ == "__main__":
    main()
