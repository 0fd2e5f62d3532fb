"""TODO adapter"""

from .decode import Decoder, build, decode_response, headers, url

__all__ = ["Decoder", "build", "decode_response", "headers", "url"]
