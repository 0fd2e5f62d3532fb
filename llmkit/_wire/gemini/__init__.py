"""Gemini (``api="gemini"``): ``generateContent`` and ``streamGenerateContent?alt=sse`` (the
JSON array that endpoint sends without ``alt=sse`` is read too), and ``countTokens``
(:mod:`.count`).
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
