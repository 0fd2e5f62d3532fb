"""llmkit's own bugs are never provider noise (docs/design.md §2).

An exception raised by llmkit's own decoding code must not be caught and turned into an
``event_malformed`` diagnostic (a regression would ship as silent data loss with green tests):
``parse_stream`` lets it propagate; ``stream``/``astream`` end with an ``ErrorEvent`` whose error
has it as ``__cause__``, logged at ERROR; ``complete`` raises that error. Checked on every wire by
breaking one assembler method, over real loopback sockets.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import httpx
import pytest

import llmkit
from llmkit._assembly.assembler import Assembler
from llmkit._fake.http_server import ENCODERS
from llmkit.testing import FakeProvider, FakeReply

WIRES = sorted(ENCODERS)
CONTEXT = llmkit.Context(messages=[llmkit.user("hi")])


class Bug(AttributeError):
    """The injected bug (an AttributeError, the kind a refactoring leaves behind)."""


@pytest.fixture
def broken_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def text(self: Assembler, delta: str, key: object = 0) -> None:
        raise Bug("'TextBlock' object has no attribute 'pieces'")

    monkeypatch.setattr(Assembler, "text", text)


def _body(fake: FakeProvider) -> bytes:
    """The raw streamed body the fake sends for ``CONTEXT`` (read with plain httpx)."""
    request = llmkit.build_request(fake.model(), CONTEXT, api_key=fake.api_key)
    with httpx.Client() as client:
        return client.send(request).read()


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.usefixtures("broken_text")
def test_parse_stream_lets_llmkits_own_bug_propagate(wire: str) -> None:
    with FakeProvider([FakeReply("Hello there")], api=wire) as fake:
        body = _body(fake)
    with pytest.raises(Bug):
        list(llmkit.parse_stream(fake.model(), [body]))


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("pump", ["stream", "astream"])
@pytest.mark.usefixtures("broken_text")
def test_a_stream_ends_with_an_error_caused_by_the_bug(
    wire: str, pump: str, caplog: pytest.LogCaptureFixture
) -> None:
    with FakeProvider([FakeReply("Hello there")], api=wire) as fake:
        with caplog.at_level(logging.ERROR, logger="llmkit"):
            if pump == "stream":
                with llmkit.stream(fake.model(), CONTEXT, api_key=fake.api_key) as s:
                    events = list(s)
            else:

                async def go() -> list[llmkit.Event]:
                    async with llmkit.astream(fake.model(), CONTEXT, api_key=fake.api_key) as s:
                        return [e async for e in s]

                events = asyncio.run(go())
    last = events[-1]
    assert isinstance(last, llmkit.ErrorEvent)
    assert isinstance(last.error, llmkit.StreamError)
    assert isinstance(last.error.__cause__, Bug)
    assert "bug in llmkit" in str(last.error)
    assert last.message.stop_reason == "error"
    # not disguised as provider noise
    assert not [d for d in last.message.diagnostics if d.kind == "event_malformed"]
    logged = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert logged and logged[0].exc_info and logged[0].exc_info[1] is last.error.__cause__


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.usefixtures("broken_text")
def test_complete_raises_the_error_with_the_bug_as_its_cause(wire: str) -> None:
    with FakeProvider([FakeReply("Hello there")] * 2, api=wire) as fake:
        with pytest.raises(llmkit.StreamError) as info:
            llmkit.complete(fake.model(), CONTEXT, api_key=fake.api_key)
        with pytest.raises(llmkit.StreamError) as async_info:
            asyncio.run(llmkit.acomplete(fake.model(), CONTEXT, api_key=fake.api_key))
    for error in (info.value, async_info.value):
        assert isinstance(error.__cause__, Bug)
        assert error.partial is not None and error.partial.stop_reason == "error"


_CATCH_ALL = re.compile(r"except\s*(\(?\s*(Exception|BaseException)\b|:)")
_DECODING = ("_wire", "_assembly", "_json", "_pipeline.py", "_sse.py")


def test_no_catch_all_around_llmkits_own_code() -> None:
    """Every ``except Exception``/``BaseException`` in the package is marked justified and
    says why (``noqa: catch-all: reason``, after ``# noqa: BLE001 --`` where ruff's
    blind-except rule would flag it, else after ``# ok --``: ruff reads a comment starting with
    ``# noqa:`` as its own directive): third-party or caller code translated into a typed error,
    or clean-up that re-raises. None is in the decoding path at all."""
    package = Path(llmkit.__file__).parent
    unmarked, in_decoding = [], []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not _CATCH_ALL.search(line):
                continue
            where = f"{rel}:{number}: {line.strip()}"
            if rel.startswith(_DECODING):
                in_decoding.append(where)
            elif not re.search(r"# (noqa: BLE001|ok) -- noqa: catch-all: \S", line):
                unmarked.append(where)
    assert in_decoding == []
    assert unmarked == []


DEEP = "[" * 100_000  # json.loads raises RecursionError on this, not ValueError


@pytest.mark.parametrize("wire", WIRES)
def test_a_deeply_nested_provider_value_is_noise_not_a_crash(wire: str) -> None:
    """A provider's bytes never raise out of a decoder, however deep their JSON nests."""
    with FakeProvider([FakeReply("ok")], api=wire) as fake:
        body = _body(fake)
    assert b'"ok"' in body or wire == "bedrock-converse"  # (Bedrock's frames are binary)
    deep = body.replace(b'"ok"', DEEP.encode(), 1)  # JSON that nests 100,000 deep
    events = list(llmkit.parse_stream(fake.model(), [deep]))
    assert isinstance(events[-1], (llmkit.Done, llmkit.ErrorEvent))


def test_a_deeply_nested_error_body_is_classified() -> None:
    from llmkit._classify import classify

    error = classify(500, DEEP)
    assert isinstance(error, llmkit.ServerError)


def test_decode_tool_call_refuses_a_deeply_nested_string_cleanly() -> None:
    from pydantic import BaseModel

    class Deep(BaseModel):
        items: list[int]

    call = llmkit.ToolCall(id="c", name="deep", arguments={"items": DEEP}, raw_arguments="")
    with pytest.raises(llmkit.ToolArgumentsError):
        llmkit.decode_tool_call(Deep, call)
