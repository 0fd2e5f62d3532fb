"""OpenAI Responses (``api="openai-responses"``): ``POST {base_url}/responses``, used
statelessly (encrypted reasoning replayed from the caller's transcript), and
``/responses/input_tokens`` to count tokens (:mod:`.count`).
"""

from __future__ import annotations

from ..contract import sse_frames as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
