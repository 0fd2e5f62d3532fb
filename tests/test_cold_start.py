"""Cold start, guarded by structure rather than timing (issue #18): what a fresh process loads
for ``import llmkit``, for building its first request (one tool from a pydantic model) and for
parsing one small stream. Each module kept out here cost milliseconds on every start."""

from __future__ import annotations

import json
import subprocess
import sys

# Never needed to build a request or parse a stream: asyncio (only the async calls sleep
# between retries), jsonschema and its dependencies (only an unusual tool schema, or
# decode_tool_call's validation), difflib (only an unknown model's suggestions).
_NEVER = ["asyncio", "jsonschema", "referencing", "attrs", "difflib"]
# Only sending needs the transport (retries, logging, error mapping); only parsing the pipeline.
_BUILD_ONLY_SKIPS = [
    "llmkit._streams",
    "llmkit._pipeline",
    "llmkit._assembly.assembler",
    "llmkit._transport",
]

_SCRIPT = """
import json, sys
def loaded(names):
    return [n for n in names if n in sys.modules]
out = {}
import llmkit
out["import"] = loaded(NAMES)
from pydantic import BaseModel, Field
class GetWeather(BaseModel):
    \"\"\"Get a weather forecast.\"\"\"
    city: str = Field(description="City name", min_length=1)
    days: int = Field(ge=1, le=10)
model = llmkit.get_model("openai", "gpt-4.1-mini")
context = llmkit.Context(system="Be brief.", messages=[llmkit.user("hi")],
                         tools=[llmkit.tool(GetWeather)])
llmkit.build_request(model, context, api_key="k")
out["build"] = loaded(NAMES)
import llmkit._models as m
out["validated"] = len(m._validated)
chunks = [
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}\\n\\n',
    b"data: [DONE]\\n\\n",
]
events = list(llmkit.parse_stream(model, chunks))
assert type(events[-1]).__name__ == "Done", events
out["parse"] = loaded(NAMES)
print(json.dumps(out))
"""


def _run() -> dict[str, object]:
    names = _NEVER + _BUILD_ONLY_SKIPS
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.replace("NAMES", repr(names))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_what_a_fresh_process_loads() -> None:
    out = _run()
    assert out["import"] == [], "import llmkit loads modules it does not need"
    assert out["build"] == [], "building the first request loads modules it does not need"
    assert out["validated"] == 1, "get_model validated more catalogue entries than the one"
    # Parsing loads the decoding pipeline, still without asyncio, jsonschema or difflib.
    parse = out["parse"]
    assert isinstance(parse, list)
    assert [n for n in parse if n in _NEVER] == []
    assert "llmkit._streams" not in parse


# A sync stream over real loopback HTTP (a stdlib server thread in the same fresh process):
# only async calls need asyncio, whose import cost a sync CLI ~10 ms on every start.
_SYNC_STREAM = """
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = (
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}\\n\\n'
    b"data: [DONE]\\n\\n"
)

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
import llmkit
model = llmkit.Model(provider="vllm", id="m", api="openai-chat",
                     base_url=f"http://127.0.0.1:{server.server_port}/v1")
with llmkit.stream(model, llmkit.Context(messages=[llmkit.user("hi")]), max_retries=0) as events:
    kinds = [type(event).__name__ for event in events]
server.shutdown()
print(json.dumps({"kinds": kinds, "asyncio": "asyncio" in sys.modules}))
"""


def test_a_sync_stream_loads_no_asyncio() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SYNC_STREAM], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["kinds"][0] == "Start" and out["kinds"][-1] == "Done", out
    assert "TextDelta" in out["kinds"], out
    assert out["asyncio"] is False, "a sync stream imported asyncio"
