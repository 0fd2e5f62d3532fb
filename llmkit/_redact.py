"""Keeping API keys out of everything llmkit produces.

:func:`redact` removes the key (and anything shaped like an OpenAI-style ``sk-`` key) from a
text, written as is or in any escaping a JSON body or a URL can give it (``\\/``, ``\\u002f``,
``%2F``, mixed); :func:`scrub` applies it to an exception's message, ``args`` and provider
``body`` in place. The transport scrubs HTTP errors; the assembler scrubs errors reported
inside a stream. Both classify an error before scrubbing it, so redaction never changes what
the error is.

A "key" shorter than :data:`MIN_SECRET` characters is not redacted: a local server's dummy
``api_key="x"`` is no secret, and replacing every ``x`` would garble the provider's message.
"""

from __future__ import annotations

import functools
import json
import re

__all__ = ["MIN_SECRET", "redact", "scrub"]

MIN_SECRET = 8
"""Keys shorter than this are not secrets worth redacting (and would garble every text)."""

_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_*-]{2})[A-Za-z0-9_*.-]{6,}")
_SHORT_ESCAPES = {'"': r'\\"', "\\": r"\\\\", "/": r"\\/"}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@functools.lru_cache(maxsize=8)
def _escaped(secret: str) -> re.Pattern[str]:
    """The secret with each character as itself or any of its escapes: JSON ``\\uXXXX`` (hex
    in either case, surrogate pairs beyond the BMP), JSON's short escapes, URL ``%XX``."""
    parts = []
    for char in secret:
        options = [re.escape(char)]
        if char in _SHORT_ESCAPES:
            options.append(_SHORT_ESCAPES[char])
        code = ord(char)
        if code > 0xFFFF:
            hi, lo = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
            options.append(rf"\\u(?i:{hi:04x})\\u(?i:{lo:04x})")
        else:
            options.append(rf"\\u(?i:{code:04x})")
        if char not in _UNRESERVED:
            options.append("".join(f"%(?i:{b:02x})" for b in char.encode("utf-8")))
        parts.append("(?:" + "|".join(options) + ")")
    return re.compile("".join(parts))


def redact(text: str, secret: str | None) -> str:
    """Remove the key (and anything that looks like an OpenAI-style key) from ``text``."""
    if secret and len(secret) >= MIN_SECRET:
        text = text.replace(secret, "***")
        if "\\" in text or "%" in text:  # an escaped copy, as a JSON body or a URL writes it
            text = _escaped(secret).sub("***", text)
    return _KEYLIKE.sub(r"\1***", text)


def scrub(error: BaseException, secret: str | None) -> None:
    """Redact ``error``'s args, ``message`` and ``body`` in place."""
    error.args = tuple(redact(a, secret) if isinstance(a, str) else a for a in error.args)
    message = getattr(error, "message", None)
    if isinstance(message, str):
        error.message = redact(message, secret)  # type: ignore[attr-defined]
    body = getattr(error, "body", None)
    if body is not None:
        try:
            error.body = json.loads(redact(json.dumps(body), secret))  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            error.body = None  # type: ignore[attr-defined]
