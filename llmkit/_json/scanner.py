"""``json.loads`` for the decoders' hot path: one JSON document per SSE event.

``json.loads`` reaches the C scanner through two Python-level calls (``JSONDecoder.decode``
and ``raw_decode``) and a regular-expression match for surrounding whitespace; for the
thousands of small events of a stream that overhead is a sizeable part of decoding. :func:`loads`
calls the C scanner directly and hands anything out of the ordinary — whitespace around the
value, trailing data, a syntax error, an empty string — to ``json.loads`` itself, so results and
errors are exactly ``json.loads``'s.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable
from typing import Any

__all__ = ["loads"]

# The C scanner where available; typeshed types its argument as the scanner class itself.
_scan: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]
)


def loads(text: str) -> Any:
    """``json.loads(text)``, faster for a compact document with nothing around it.

    Raises:
        ValueError: ``text`` is not one JSON document, or nests too deeply to decode (where
            ``json.loads`` raises ``RecursionError``: a provider's bytes must never raise
            anything a decoder does not expect).
    """
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return _loads(text)  # its own result or error (and message)
    if end != len(text):
        return _loads(text)  # whitespace or data after the value
    return value


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to decode") from None
