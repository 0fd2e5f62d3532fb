"""Keeping API keys out of everything llmkit produces.

:func:`redact` removes the key (and anything shaped like an OpenAI-style ``sk-`` key) from a
text; :func:`scrub` applies it to an exception's message, ``args`` and provider ``body`` in
place. The transport scrubs HTTP errors; the assembler scrubs errors reported inside a stream.
"""

from __future__ import annotations

import json
import re

__all__ = ["redact", "scrub"]

_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_*-]{2})[A-Za-z0-9_*.-]{6,}")


def redact(text: str, secret: str | None) -> str:
    """Remove the key (and anything that looks like an OpenAI-style key) from ``text``."""
    if secret:
        text = text.replace(secret, "***")
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
