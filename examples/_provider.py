"""What the examples share: the real provider when its key is set, else llmkit's fake provider.

The fake (``llmkit.testing.FakeProvider``) is a real HTTP server on 127.0.0.1 speaking the
provider's wire format; each example gives it a small function that plays the model's part, so
every example runs end to end, over real sockets, with no key and no network.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import llmkit
from llmkit.testing import FakeProvider, Responder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--provider``, ``--model`` and ``--fake``, as in ``tool_loop.py``."""
    parser.add_argument("--provider", default="openai")
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--fake", action="store_true", help="use the fake provider even with a key")


@contextmanager
def connect(
    ns: argparse.Namespace, fake_model: Responder, **fake_fields: Any
) -> Iterator[tuple[llmkit.Model, dict[str, Any]]]:
    """The model to call and the options every call needs (the fake's key), for as long as
    the block runs.

    Args:
        ns: The parsed ``--provider``/``--model``/``--fake``.
        fake_model: The function that answers each request when the fake is used.
        **fake_fields: ``Model`` fields for the fake's model, e.g. ``input=["text", "image"]``.
    """
    try:
        model = llmkit.get_model(ns.provider, ns.model)
    except llmkit.UnknownModelError:
        model = llmkit.Model(provider=ns.provider, id=ns.model, api="openai-chat")
    if not ns.fake and model.api_key_env and os.environ.get(model.api_key_env):
        yield model, {}
        return
    why = "--fake" if ns.fake else f"no {model.api_key_env or 'API key'} set"
    print(f"({why}: using llmkit's fake provider)", file=sys.stderr)
    with FakeProvider(fake_model) as fake:
        yield fake.model(**fake_fields), {"api_key": fake.api_key}
