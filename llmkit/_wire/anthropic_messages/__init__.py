"""Anthropic Messages (``api="anthropic-messages"``): ``POST {base_url}/messages``, and
``/messages/count_tokens`` to count tokens (:mod:`.count`).
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
