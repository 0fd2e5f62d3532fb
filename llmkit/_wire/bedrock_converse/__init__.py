"""Amazon Bedrock Converse (``api="bedrock-converse"``): ``POST {base_url}/model/{modelId}/
converse-stream`` (``/converse`` when not streamed).

The adapter: :mod:`.request` maps a Context to the body, :mod:`.decode` turns the event-stream
messages (or a whole ``Converse`` body) into neutral deltas, and the framing is the binary AWS
event stream of :mod:`llmkit._eventstream` instead of SSE. Authentication (a Bedrock API key,
or SigV4) is the platform's, in :mod:`llmkit._auth`. This module satisfies
:class:`~llmkit._wire.contract.WireAdapter`.
"""

from __future__ import annotations

from ..._eventstream import EventStreamDecoder as frames
from .decode import Decoder as decoder
from .decode import decode_response
from .request import build, headers, url

__all__ = ["build", "decode_response", "decoder", "frames", "headers", "url"]
