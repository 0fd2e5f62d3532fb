"""OpenAI Chat Completions (``api="openai-chat"``): ``POST {base_url}/chat/completions``, also
every OpenAI-compatible server (their quirks come from ``model.compat``, never from provider names
in code).

The adapter: :mod:`.request` maps a Context to the body, :mod:`.decode` turns the stream (or a
whole body) into neutral deltas. This module satisfies
:class:`~llmkit._wire.contract.WireAdapter`.
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
