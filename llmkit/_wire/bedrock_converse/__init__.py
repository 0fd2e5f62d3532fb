"""Amazon Bedrock Converse (``api="bedrock-converse"``): ``POST {base_url}/model/{modelId}/
converse-stream`` (``/converse`` when not streamed).

The framing is the binary AWS event stream of :mod:`llmkit._eventstream` instead of SSE.
Authentication (a Bedrock API key, or SigV4) is the platform's, in :mod:`llmkit._auth`.
"""

from __future__ import annotations

from ..._eventstream import EventStreamDecoder as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
