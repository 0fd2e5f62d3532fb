"""Cold start, guarded by structure rather than timing: what a fresh process loads
for ``import llmkit``, for building its first request (one tool from a pydantic model), for
parsing one small stream and for one sync stream over loopback HTTP. Each module kept out here
cost milliseconds on every start."""

from __future__ import annotations

import json
import subprocess
import sys

# Never needed to build a request, parse a stream or stream one synchronously: asyncio (only
# async calls need it), jsonschema and its dependencies (only an unusual tool schema, or
# decode_tool_call's validation), difflib (only an unknown model's suggestions).
_NEVER = ["asyncio", "jsonschema", "referencing", "attrs", "difflib"]
# Only sending needs the transport (retries, logging, error mapping); only parsing the pipeline.
_BUILD_ONLY_SKIPS = [
    "llmkit._streams",
    "llmkit._pipeline",
    "llmkit._assembly.assembler",
    "llmkit._transport",
    "opentelemetry",  # only a call (with the otel extra installed) makes a span
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
# A sync stream over real loopback HTTP (the fake provider's server thread, in this process).
from llmkit.testing import FakeProvider, FakeReply
with FakeProvider([FakeReply("Hi")]) as fake:
    context = llmkit.Context(messages=[llmkit.user("hi")])
    with llmkit.stream(fake.model(), context, api_key=fake.api_key, max_retries=0) as events:
        out["kinds"] = [type(event).__name__ for event in events]
out["stream"] = loaded(NAMES)
print(json.dumps(out))
"""


def _run(prelude: str = "") -> dict[str, object]:
    names = _NEVER + _BUILD_ONLY_SKIPS
    done = subprocess.run(
        [sys.executable, "-c", prelude + _SCRIPT.replace("NAMES", repr(names))],
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
    assert "opentelemetry" not in parse
    # A sync stream needs none of them either: asyncio is only for async calls (~10 ms of a
    # sync command line's start).
    kinds = out["kinds"]
    assert isinstance(kinds, list) and kinds[0] == "Start" and kinds[-1] == "Done", kinds
    assert "TextDelta" in kinds, kinds
    stream = out["stream"]
    assert isinstance(stream, list) and "llmkit._streams" in stream
    assert [n for n in stream if n in _NEVER] == []


_NO_OTEL = """
import sys
class NoOtel:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "opentelemetry":
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, NoOtel())
"""


def test_without_the_otel_extra_a_call_loads_no_opentelemetry() -> None:
    # As if opentelemetry-api were not installed: importing it fails; the call still streams,
    # and loads nothing else (the failed import is tried once, then remembered).
    out = _run(_NO_OTEL)
    kinds = out["kinds"]
    assert isinstance(kinds, list) and kinds[-1] == "Done", kinds
    stream = out["stream"]
    assert isinstance(stream, list) and "llmkit._streams" in stream
    assert [n for n in stream if n in _NEVER or n == "opentelemetry"] == []
