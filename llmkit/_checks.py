"""Value checks for what goes on the wire as is: header names and values, timeouts. Called by
the options' validation (:mod:`._options`), so a bad value is an ``InvalidRequestError`` before
anything is sent, never an ``OverflowError``, a ``UnicodeEncodeError`` or an
``APIConnectionError`` that is retried (RFC 9110 §5.1, §5.5 for headers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import InvalidRequestError

__all__ = [
    "IMAGE_LIMITS",
    "MAX_SECONDS",
    "check_headers",
    "check_image_sizes",
    "check_schema",
    "check_seconds",
]

MAX_SECONDS = 1e7
"""The longest timeout accepted (about 115 days): a socket's timer cannot hold 1e300 s."""

# RFC 9110 §5.6.2 token
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")


def check_seconds(name: str, value: Any) -> float:
    """A finite number of seconds in (0, :data:`MAX_SECONDS`]."""
    if (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < value <= MAX_SECONDS
    ):
        return float(value)
    raise InvalidRequestError(
        f"Invalid {name}={value!r}: expected a finite number of seconds > 0 and at most "
        f"{MAX_SECONDS:g} (None for no limit)"
    )


def check_headers(headers: Mapping[Any, Any]) -> None:
    """Header names are RFC 9110 tokens; values visible ASCII, spaces and tabs (no CR, LF or
    NUL: a header can never smuggle another). The error names the header, never its value."""
    for name, value in headers.items():
        if not isinstance(name, str) or not _TOKEN.match(name):
            raise InvalidRequestError(
                f"Invalid header name {name!r}: expected a token (letters, digits, !#$%&'*+-.^_`|~)"
            )
        if not isinstance(value, str):
            raise InvalidRequestError(f"Invalid value of header {name!r}: expected a string")
        if not (value.isascii() and all(c == "\t" or " " <= c <= "~" for c in value)):
            raise InvalidRequestError(
                f"Invalid value of header {name!r}: a header value is ASCII without line "
                "breaks or control characters"
            )


def check_schema(option: str, schema: dict[str, Any]) -> None:
    """A JSON Schema given as a dict, checked as a tool's ``parameters`` are: no dict or list
    that holds itself (a ``RecursionError`` when sent), and valid JSON Schema 2020-12."""
    seen: set[int] = set()
    # An iterative walk: a cycle is a container met again among its own ancestors.
    walk: list[tuple[Any, frozenset[int]]] = [(schema, frozenset())]
    while walk:
        node, ancestors = walk.pop()
        if id(node) in ancestors:
            raise InvalidRequestError(
                f"{option} holds itself (a dict or list inside its own value): write the "
                "recursion with $defs and $ref"
            )
        if id(node) in seen:
            continue
        seen.add(id(node))
        inner = ancestors | {id(node)}
        children = node.values() if isinstance(node, dict) else node
        walk.extend((c, inner) for c in children if isinstance(c, (dict, list)))
    from ._errors import ToolDefinitionError
    from ._tools.definition import check_schema as tool_schema

    try:
        tool_schema(schema)
    except ToolDefinitionError as exc:
        reason = str(exc).removeprefix("parameters is not a valid JSON Schema: ")
        raise InvalidRequestError(f"{option} is not a valid JSON Schema: {reason}") from None


# The largest inline image each wire API takes, in decoded bytes (the providers' documented
# limits: Anthropic 5 MB per image, Bedrock Converse 3.75 MB, OpenAI and Gemini 20 MB).
IMAGE_LIMITS: dict[str, int] = {
    "anthropic-messages": 5 * 1024 * 1024,
    "bedrock-converse": 3_750_000,
    "openai-chat": 20 * 1024 * 1024,
    "openai-responses": 20 * 1024 * 1024,
    "gemini": 20 * 1024 * 1024,
}


def check_image_sizes(api: str, messages: Sequence[Any]) -> None:
    """Refuse an inline image larger than ``api`` takes: the provider would refuse the whole
    request after it was sent (and a 50 MB body sent for nothing)."""
    limit = IMAGE_LIMITS.get(api)
    if limit is None:
        return
    from ._messages import ImagePart

    for number, message in enumerate(messages, 1):
        for part in getattr(message, "content", ()):
            if isinstance(part, ImagePart) and part.data is not None:
                size = len(part.data) // 4 * 3  # base64: 4 characters per 3 bytes
                if size > limit:
                    raise InvalidRequestError(
                        f"Message {number} has an image of about {size / 1e6:.1f} MB; {api} "
                        f"takes images up to {limit / 1e6:.2f} MB: resize it before sending"
                    )
