"""The contestants: one timed run per process.

``python -m benchmarks.contestants <contestant> <api> <base url> <warm-up base url>`` imports
the contestant's libraries, makes one warm-up request (a 40-delta stream of the same API and
shape: it pays for lazy imports, SSL contexts and the first connection, which the import-time
column reports separately), then times one request: from issuing it until the 4 parsed tool
calls are in hand. It prints one JSON line: ``seconds``, ``digest`` (of the calls' ids, names
and parsed arguments, compared by the parent with the generated ones), ``peak_rss``,
``capped`` (the run passed ``--cap`` seconds and was stopped) and ``problems``.

Contestants:

- ``floor``: httpx + httpx-sse ``connect_sse``, ``json.loads`` per event, argument fragments
  accumulated in lists and parsed once at the end: no partial parsing, no event objects
  (Gemini: ``partialArgs`` leaves set by JSON path; Bedrock: ``iter_bytes`` and a minimal
  CRC-checking event-stream parser, :func:`_frames`);
- ``llmkit-partial``: ``llmkit.stream`` reading ``partial_arguments`` on every
  ``ToolCallDelta`` (what a streaming UI does);
- ``llmkit``: ``llmkit.stream`` without reading them;
- ``openai-sdk``: ``client.chat.completions.stream(...)`` (strict tools, so the helper
  re-parses the partial arguments on every delta) or ``client.responses.stream(...)``;
- ``anthropic-sdk``: ``client.messages.stream(...)`` (re-parses the input JSON every delta);
- ``aws-sdk``: botocore's ``bedrock-runtime`` client (what boto3 returns),
  ``converse_stream(...)``, ``toolUse.input`` fragments joined and parsed once.

The floor and the SDKs keep one client for the process (their documented use); llmkit is called
as documented, without ``client=``, so it opens a connection per request (its default client
keeps none past a call): that is part of its time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import signal
import struct
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import quote

from .measure import peak_rss_bytes
from .streams import MODEL_IDS, NO_IDS, PROMPT, TOOLS, digest

Calls = list[tuple[str, str, Any]]  # (id, name, parsed arguments)
Runner = Callable[[], Calls]

API_KEY = "sk-bench-not-a-real-key"

# Which wire APIs each contestant speaks.
ALL_APIS = ("openai-chat", "anthropic-messages", "openai-responses", "gemini", "bedrock-converse")
SUPPORTS: dict[str, tuple[str, ...]] = {
    "floor": ALL_APIS,
    "llmkit-partial": ALL_APIS,
    "llmkit": ALL_APIS,
    "openai-sdk": ("openai-chat", "openai-responses"),
    "anthropic-sdk": ("anthropic-messages",),
    "aws-sdk": ("bedrock-converse",),
}
CONTESTANTS = tuple(SUPPORTS)
LLMKIT = ("llmkit-partial", "llmkit")

# What each contestant's process imports (the import-time column measures these).
VERTEX_PATH = "/v1/projects/bench-project/locations/global"  # Vertex AI's base URL path

IMPORTS = {
    "floor": "httpx, httpx_sse",
    "llmkit-partial": "llmkit",
    "llmkit": "llmkit",
    "openai-sdk": "openai",
    "anthropic-sdk": "anthropic",
    "aws-sdk": "botocore",
}


class Capped(BaseException):
    """The run took longer than the cap. A BaseException so that no library's
    ``except Exception`` swallows it."""


# -- the floor ------------------------------------------------------------------------------


def _floor_chat(events: Any) -> Calls:
    slots: dict[int, list[Any]] = {}
    for sse in events:
        data = sse.data
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        for choice in chunk["choices"]:
            for tc in choice["delta"].get("tool_calls") or ():
                slot = slots.get(tc["index"])
                if slot is None:
                    slot = slots[tc["index"]] = [tc.get("id"), tc["function"].get("name"), []]
                slot[2].append(tc["function"].get("arguments") or "")
    return [(i, n, json.loads("".join(f))) for i, n, f in slots.values()]


def _floor_anthropic(events: Any) -> Calls:
    blocks: dict[int, list[Any]] = {}
    for sse in events:
        event = json.loads(sse.data)
        kind = event["type"]
        if kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "input_json_delta":
                blocks[event["index"]][2].append(delta["partial_json"])
        elif kind == "content_block_start":
            block = event["content_block"]
            if block["type"] == "tool_use":
                blocks[event["index"]] = [block["id"], block["name"], []]
        elif kind == "message_stop":
            break
    return [(i, n, json.loads("".join(f))) for i, n, f in blocks.values()]


def _floor_responses(events: Any) -> Calls:
    items: dict[int, list[Any]] = {}
    for sse in events:
        event = json.loads(sse.data)
        kind = event["type"]
        if kind == "response.function_call_arguments.delta":
            items[event["output_index"]][2].append(event["delta"])
        elif kind == "response.output_item.added":
            item = event["item"]
            if item["type"] == "function_call":
                items[event["output_index"]] = [item["call_id"], item["name"], []]
        elif kind == "response.completed":
            break
    return [(i, n, json.loads("".join(f))) for i, n, f in items.values()]


_SEGMENT = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def _put(root: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at a Vertex JSON path (``$.edits[3].old``) in ``root``, creating the
    containers on the way (arguments arrive in document order, so an index is always the
    next element)."""
    segments: list[Any] = [int(i) if i else k for k, i in _SEGMENT.findall(path, 1)]
    node: Any = root
    for segment, after in itertools.pairwise(segments):
        if isinstance(node, list):
            if segment == len(node):
                node.append([] if isinstance(after, int) else {})
            node = node[segment]
        else:
            child = node.get(segment)
            if child is None:
                child = node[segment] = [] if isinstance(after, int) else {}
            node = child
    if isinstance(node, list):
        node.append(value)
    else:
        node[segments[-1]] = value


def _floor_gemini(events: Any) -> Calls:
    # Per call: leaves by JSON path in arrival order; string pieces joined at the end.
    calls: list[list[Any]] = []
    for sse in events:
        chunk = json.loads(sse.data)
        for part in chunk["candidates"][0]["content"]["parts"]:
            call = part.get("functionCall")
            if call is None:
                continue
            if "name" in call:
                calls.append([call.get("id"), call["name"], {}])
            leaves = calls[-1][2] if calls else None
            for fragment in call.get("partialArgs") or ():
                path = fragment["jsonPath"]
                if "stringValue" in fragment:
                    pieces = leaves.get(path)  # type: ignore[union-attr]
                    if pieces is None:
                        leaves[path] = [fragment["stringValue"]]  # type: ignore[index]
                    else:
                        pieces.append(fragment["stringValue"])
                elif "numberValue" in fragment:
                    leaves[path] = fragment["numberValue"]  # type: ignore[index]
                elif "boolValue" in fragment:
                    leaves[path] = fragment["boolValue"]  # type: ignore[index]
                else:
                    leaves[path] = None  # type: ignore[index]
    out: Calls = []
    for call_id, name, leaves in calls:
        arguments: dict[str, Any] = {}
        for path, value in leaves.items():
            _put(arguments, path, "".join(value) if isinstance(value, list) else value)
        out.append((call_id, name, arguments))
    return out


def _frames(chunks: Any) -> Any:
    """A minimal ``application/vnd.amazon.eventstream`` parser: ``(event type, payload)`` per
    message, both CRC32s checked (as any correct reader must), string headers only (all
    Bedrock sends)."""
    crc32, unpack_from = zlib.crc32, struct.unpack_from
    buf = b""
    for chunk in chunks:
        buf = buf + chunk if buf else chunk
        pos, end = 0, len(buf)
        while end - pos >= 12:
            total, headers_length, prelude_crc = unpack_from(">III", buf, pos)
            if end - pos < total:
                break
            message = buf[pos : pos + total]
            pos += total
            if crc32(message[:8]) != prelude_crc:
                raise ValueError("prelude CRC mismatch")
            if crc32(message[:-4]) != unpack_from(">I", message, total - 4)[0]:
                raise ValueError("message CRC mismatch")
            headers, at, stop = {}, 12, 12 + headers_length
            while at < stop:
                length = message[at]
                key = message[at + 1 : at + 1 + length]
                at += 1 + length
                if message[at] != 7:
                    raise ValueError("a header that is not a string")
                (size,) = unpack_from(">H", message, at + 1)
                headers[key] = message[at + 3 : at + 3 + size]
                at += 3 + size
            if headers.get(b":message-type") != b"event":
                raise ValueError(f"an exception message: {message[stop:-4]!r}")
            yield headers[b":event-type"], message[stop:-4]
        buf = buf[pos:]
    if buf:
        raise ValueError("the body ended inside a message")


def _floor_bedrock(chunks: Any) -> Calls:
    blocks: dict[int, list[Any]] = {}
    for kind, payload in _frames(chunks):
        event = json.loads(payload)
        if kind == b"contentBlockDelta":
            blocks[event["contentBlockIndex"]][2].append(event["delta"]["toolUse"]["input"])
        elif kind == b"contentBlockStart":
            tool = event["start"]["toolUse"]
            blocks[event["contentBlockIndex"]] = [tool["toolUseId"], tool["name"], []]
    return [(i, n, json.loads("".join(f))) for i, n, f in blocks.values()]


def _floor(api: str, shape: str) -> Callable[[str], Runner]:
    import httpx
    from httpx_sse import connect_sse

    client = httpx.Client(timeout=None)
    name, description, schema = TOOLS[shape]
    if api == "bedrock-converse":
        path = f"/model/{quote(MODEL_IDS[api], safe='')}/converse-stream"
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": [{"text": PROMPT}]}],
            "inferenceConfig": {"maxTokens": 64000},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": name,
                            "description": description,
                            "inputSchema": {"json": schema},
                        }
                    }
                ]
            },
        }
        headers = {
            "authorization": f"Bearer {API_KEY}",
            "accept": "application/vnd.amazon.eventstream",
        }

        def prepare_bedrock(base_url: str) -> Runner:
            def run() -> Calls:
                with client.stream("POST", base_url + path, json=body, headers=headers) as r:
                    r.raise_for_status()
                    return _floor_bedrock(r.iter_bytes())

            return run

        return prepare_bedrock
    if api == "gemini":
        path = VERTEX_PATH + f"/publishers/google/models/{MODEL_IDS[api]}"
        path += ":streamGenerateContent?alt=sse"
        decode = _floor_gemini
        body = {
            "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
            "tools": [
                {
                    "functionDeclarations": [
                        {"name": name, "description": description, "parametersJsonSchema": schema}
                    ]
                }
            ],
            "toolConfig": {
                "functionCallingConfig": {"mode": "AUTO", "streamFunctionCallArguments": True}
            },
        }
        headers = {"authorization": f"Bearer {API_KEY}"}
    elif api == "openai-chat":
        path, decode = "/v1/chat/completions", _floor_chat
        body = {
            "model": "gpt-4.1-mini",
            "stream": True,
            "messages": [{"role": "user", "content": PROMPT}],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": name, "description": description, "parameters": schema},
                }
            ],
        }
        headers = {"authorization": f"Bearer {API_KEY}"}
    elif api == "anthropic-messages":
        path, decode = "/v1/messages", _floor_anthropic
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64000,
            "stream": True,
            "messages": [{"role": "user", "content": PROMPT}],
            "tools": [{"name": name, "description": description, "input_schema": schema}],
        }
        headers = {"x-api-key": API_KEY, "anthropic-version": "2023-06-01"}
    else:
        path, decode = "/v1/responses", _floor_responses
        body = {
            "model": "gpt-4.1-mini",
            "stream": True,
            "input": PROMPT,
            "tools": [
                {"type": "function", "name": name, "description": description, "parameters": schema}
            ],
        }
        headers = {"authorization": f"Bearer {API_KEY}"}

    def prepare(base_url: str) -> Runner:
        def run() -> Calls:
            with connect_sse(client, "POST", base_url + path, json=body, headers=headers) as src:
                return decode(src.iter_sse())

        return run

    return prepare


# -- llmkit ---------------------------------------------------------------------------------


def _llmkit(api: str, shape: str, *, read_partial: bool) -> Callable[[str], Runner]:
    import llmkit

    name, description, schema = TOOLS[shape]
    provider = {
        "openai-chat": "openai",
        "openai-responses": "openai",
        "anthropic-messages": "anthropic",
        "gemini": "vertex",
        "bedrock-converse": "bedrock",
    }[api]
    model_id = {
        "anthropic-messages": "claude-sonnet-4-5",
        "gemini": MODEL_IDS["gemini"],
        "bedrock-converse": MODEL_IDS["bedrock-converse"],
    }.get(api, "gpt-4.1-mini")
    options: dict[str, Any] = {"api_key": API_KEY, "max_retries": 0}
    fields: dict[str, Any] = {}
    suffix = "/v1"
    if api == "gemini":
        # Vertex AI, as its provider profile sets it up: an OAuth access token as bearer, a
        # base URL with the project and location, streamFunctionCallArguments requested
        # (eager_input_streaming: the loopback host is not aiplatform.googleapis.com).
        suffix = VERTEX_PATH
        fields = {"platform": "vertex", "eager_input_streaming": True}
        options["stream_tool_arguments"] = True
    elif api == "bedrock-converse":
        # A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) as bearer: no SigV4; the region given
        # so that nothing looks for one in the AWS configuration.
        suffix = ""
        fields = {"platform": "bedrock"}
        options["region"] = "us-east-1"
    context = llmkit.Context(
        messages=[llmkit.user(PROMPT)],
        tools=[llmkit.Tool(name=name, description=description, parameters=schema)],
    )
    ToolCallDelta = llmkit.ToolCallDelta

    def prepare(base_url: str) -> Runner:
        # Anthropic's base URL ends in /v1 (llmkit appends /messages); OpenAI's too.
        model = llmkit.Model(
            provider=provider,
            id=model_id,
            api=cast("llmkit.Api", api),
            base_url=base_url + suffix,
            **fields,
        )

        def run() -> Calls:
            with llmkit.stream(model, context, **options) as events:
                if read_partial:
                    for event in events:
                        if type(event) is ToolCallDelta:
                            event.partial_arguments  # noqa: B018 - the read is the point
                else:
                    for _event in events:
                        pass
            message = events.message
            if message.stop_reason != "tool_use":
                raise ValueError(f"stop_reason {message.stop_reason!r}, error {message.error!r}")
            bad = [c.status for c in message.tool_calls if c.status != "complete"]
            if bad:
                raise ValueError(f"tool call statuses {bad}")
            # Vertex sends no call ids: the check compares None (streams.expected_id).
            return [(c.id if own_ids else None, c.name, c.arguments) for c in message.tool_calls]

        return run

    own_ids = api not in NO_IDS
    return prepare


# -- the vendor SDKs ------------------------------------------------------------------------


def _openai_sdk(api: str, shape: str) -> Callable[[str], Runner]:
    import openai

    client = openai.OpenAI(api_key=API_KEY, base_url="http://127.0.0.1/v1", max_retries=0)
    name, description, schema = TOOLS[shape]

    def chat() -> Calls:
        tool = {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": schema,
                "strict": True,
            },
        }
        with bound.chat.completions.stream(
            model="gpt-4.1-mini",
            messages=[{"role": "user", "content": PROMPT}],
            tools=[tool],  # type: ignore[list-item]
        ) as stream:
            for _event in stream:
                pass
            completion = stream.get_final_completion()
        calls = completion.choices[0].message.tool_calls or []
        return [
            (
                c.id,
                c.function.name,
                c.function.parsed_arguments
                if c.function.parsed_arguments is not None
                else json.loads(c.function.arguments),
            )
            for c in calls
        ]

    def responses() -> Calls:
        tool = {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": schema,
            "strict": True,
        }
        with bound.responses.stream(model="gpt-4.1-mini", input=PROMPT, tools=[tool]) as stream:  # type: ignore[list-item]
            for _event in stream:
                pass
            response = stream.get_final_response()
        return [
            (o.call_id, o.name, json.loads(o.arguments))
            for o in response.output
            if o.type == "function_call"
        ]

    bound = client

    def prepare(base_url: str) -> Runner:
        nonlocal bound
        # with_options shares the underlying HTTP client (and its kept-alive connection).
        bound = client.with_options(base_url=base_url + "/v1")
        return chat if api == "openai-chat" else responses

    return prepare


def _anthropic_sdk(api: str, shape: str) -> Callable[[str], Runner]:
    import anthropic

    client = anthropic.Anthropic(api_key=API_KEY, base_url="http://127.0.0.1", max_retries=0)
    name, description, schema = TOOLS[shape]
    tools = [{"name": name, "description": description, "input_schema": schema}]

    def prepare(base_url: str) -> Runner:
        bound = client.with_options(base_url=base_url)  # the SDK appends /v1/messages

        def run() -> Calls:
            with bound.messages.stream(
                model="claude-sonnet-4-5",
                max_tokens=64000,
                messages=[{"role": "user", "content": PROMPT}],
                tools=tools,  # type: ignore[arg-type]
            ) as stream:
                for _event in stream:
                    pass
                message = stream.get_final_message()
            return [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]

        return run

    return prepare


def _aws_sdk(api: str, shape: str) -> Callable[[str], Runner]:
    import botocore.session
    from botocore.config import Config

    session = botocore.session.get_session()
    name, description, schema = TOOLS[shape]
    tool = {"toolSpec": {"name": name, "description": description, "inputSchema": {"json": schema}}}
    config = Config(retries={"max_attempts": 1})

    def prepare(base_url: str) -> Runner:
        # What boto3.client("bedrock-runtime") builds (boto3 is a thin layer over botocore).
        # A botocore client's endpoint is fixed, so each stream's URL gets its own client, built
        # here, before the timed request; requests are SigV4-signed with static test keys.
        client = session.create_client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=base_url,
            aws_access_key_id="AKIDBENCHNOTAREALKEY",
            aws_secret_access_key="bench-not-a-real-secret",
            config=config,
        )

        def run() -> Calls:
            response = client.converse_stream(
                modelId=MODEL_IDS[api],
                messages=[{"role": "user", "content": [{"text": PROMPT}]}],
                inferenceConfig={"maxTokens": 64000},
                toolConfig={"tools": [tool]},
            )
            blocks: dict[int, list[Any]] = {}
            for event in response["stream"]:
                delta = event.get("contentBlockDelta")
                if delta is not None:
                    blocks[delta["contentBlockIndex"]][2].append(delta["delta"]["toolUse"]["input"])
                elif "contentBlockStart" in event:
                    start = event["contentBlockStart"]
                    use = start["start"]["toolUse"]
                    blocks[start["contentBlockIndex"]] = [use["toolUseId"], use["name"], []]
            return [(i, n, json.loads("".join(f))) for i, n, f in blocks.values()]

        return run

    return prepare


def setup(contestant: str, api: str, shape: str) -> Callable[[str], Runner]:
    """Import the contestant's libraries and build what it keeps across calls."""
    if api not in SUPPORTS[contestant]:
        raise ValueError(f"{contestant} does not speak {api}")
    if contestant == "floor":
        return _floor(api, shape)
    if contestant in LLMKIT:
        return _llmkit(api, shape, read_partial=contestant == "llmkit-partial")
    if contestant == "openai-sdk":
        return _openai_sdk(api, shape)
    if contestant == "aws-sdk":
        return _aws_sdk(api, shape)
    return _anthropic_sdk(api, shape)


# -- a bound --------------------------------------------------------------------------------


def materialise_bound(api: str, shape: str, n: int, seed: int = 1) -> float:
    """Seconds to build one new string per delta for each call's argument text, keeping the
    previous one alive: what ``partial_arguments`` costs at least when one string grows with
    every delta (the ``content`` shape) and the caller holds on to the previous snapshot, with
    no parsing at all. (A caller that drops it lets llmkit extend the string in place.)"""
    from .streams import StreamSpec, expected_calls

    calls = expected_calls(StreamSpec(api, shape, n, seed))
    start = time.perf_counter()
    for call in calls:
        text = snapshot = ""
        for delta in call.deltas:
            # `text` and `snapshot` both hold the old string, so `+` must copy (CPython
            # appends in place only to a string nothing else references).
            snapshot = text + delta
            text = snapshot
    return time.perf_counter() - start


# -- the process ----------------------------------------------------------------------------


def _on_alarm(signum: int, frame: Any) -> None:
    raise Capped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="One timed benchmark run (see module doc).")
    parser.add_argument("contestant", choices=CONTESTANTS)
    parser.add_argument("api")
    parser.add_argument("shape")
    parser.add_argument("url", help="base URL of the timed stream")
    parser.add_argument("warmup_url", help="base URL of the warm-up stream")
    parser.add_argument("--cap", type=float, default=20.0, help="stop after this many seconds")
    parser.add_argument("--profile", help="write a cProfile of the timed run here")
    args = parser.parse_args(argv)

    out: dict[str, Any] = {"capped": False, "problems": []}
    prepare = setup(args.contestant, args.api, args.shape)
    prepare(args.warmup_url)()
    run = prepare(args.url)

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, args.cap)
    calls: Calls = []
    start = time.perf_counter()
    try:
        if profiler is not None:
            profiler.enable()
        calls = run()
    except Capped:
        out["capped"] = True
    except Exception as exc:  # reported, and the parent marks the run as failed
        out["problems"].append(f"{type(exc).__name__}: {exc}"[:500])
    finally:
        seconds = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        if profiler is not None:
            profiler.disable()
    out["seconds"] = seconds
    out["peak_rss"] = peak_rss_bytes()
    out["digest"] = digest(calls) if calls else None
    if profiler is not None:
        profiler.dump_stats(args.profile)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
