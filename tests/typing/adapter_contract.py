"""The adapter contract as mypy sees it (``mypy --strict tests/typing`` in CI; never run).

Each wire adapter satisfies ``WireAdapter`` (checked in ``llmkit/_wire/__init__.py``), so a
misspelt adapter attribute is a type error and ``build`` has its real signature.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

from llmkit import Context, Model
from llmkit._diagnostics import Diagnostic
from llmkit._wire import adapter
from llmkit._wire.contract import Decoder, DeltaSink, Options


def contract(model: Model, context: Context, sink: DeltaSink) -> None:
    wire = adapter("openai-chat")
    body, diagnostics = wire.build(model, context, Options(), stream=True)
    assert_type(body, dict[str, Any])
    assert_type(diagnostics, list[Diagnostic])
    assert_type(wire.decoder(sink, model), Decoder)
    wire.build(model, context, Options())  # type: ignore[call-arg]
    _ = wire.no_such_function  # type: ignore[attr-defined]
    adapter("no-such-wire")  # type: ignore[arg-type]
    assert_type(wire.url(model, "http://h", stream=True), str)
