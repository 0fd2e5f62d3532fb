"""OpenAI Chat Completions (``api="openai-chat"``): ``POST {base_url}/chat/completions``, also
every OpenAI-compatible server (their quirks come from ``model.compat``, never from provider names
in code).
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
