"""Anthropic Messages (``api="anthropic-messages"``): ``POST {base_url}/messages``.

The adapter: :mod:`.request` maps a Context to the body, :mod:`.decode` turns the stream (or a
whole ``message`` body) into neutral deltas. This module satisfies
:class:`~llmkit._wire.contract.WireAdapter`, and :mod:`.count` adds the token-counting endpoint
(:class:`~llmkit._wire.contract.TokenCounter`).
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .count import count_body, count_result, count_url
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = [
    "build",
    "count_body",
    "count_result",
    "count_url",
    "decode_response",
    "decoder",
    "frames",
    "headers",
    "url",
]
