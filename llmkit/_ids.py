"""Tool-call ids: deterministic synthesis and collision-free normalisation to an id grammar.

Ids are derived, never counted: the same response bytes always give the same ids (no
process-salted ``hash()``, no module counters — QUIRKS B6). A missing id is synthesised from
a stable seed (the response id, or the first event's bytes) and the call's ordinal (B2, B4).

Providers disagree on what an id may look like (B5). The grammars, named after what they
allow (:data:`IdGrammar`): ``token64`` (``^[a-zA-Z0-9_-]{1,64}$``: Anthropic's, and a safe
subset for Responses, Gemini and Bedrock), ``token40`` (the same letters, at most 40: OpenAI
Chat) and ``alnum9`` (exactly 9 letters or digits: Mistral). :func:`id_mapper` builds one
mapping per request, applied to calls and results alike, that leaves valid ids untouched and
rewrites the others deterministically and without collisions.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Callable, Iterable
from typing import Literal

__all__ = ["IdGrammar", "id_mapper", "synthesize_call_id"]

IdGrammar = Literal["token64", "token40", "alnum9"]

_ALPHANUM = string.digits + string.ascii_letters
_SAFE = re.compile(r"[^a-zA-Z0-9_-]")
_VALID: dict[str, Callable[[str], bool]] = {
    "token64": lambda s: 0 < len(s) <= 64 and not _SAFE.search(s),
    "token40": lambda s: 0 < len(s) <= 40 and not _SAFE.search(s),
    "alnum9": lambda s: len(s) == 9 and s.isascii() and s.isalnum(),
}


def _digest(text: str, size: int = 16) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).digest()


def synthesize_call_id(seed: str, ordinal: int) -> str:
    """A deterministic id for the ``ordinal``-th call of the response identified by ``seed``.

    ``call_`` + 24 hex digits: valid for every provider's id grammar except Mistral's (which
    the request builder maps).
    """
    return "call_" + _digest(f"{seed}\x00{ordinal}", 12).hex()


def _base62(data: bytes, length: int) -> str:
    n = int.from_bytes(data, "big")
    out = []
    for _ in range(length):
        n, r = divmod(n, 62)
        out.append(_ALPHANUM[r])
    return "".join(out)


def _rewrite(original: str, grammar: IdGrammar, salt: int) -> str:
    key = original if salt == 0 else f"{original}\x00{salt}"
    if grammar == "alnum9":
        return _base62(_digest(key), 9)
    limit = 64 if grammar == "token64" else 40
    suffix = _digest(key, 8).hex()[:10]
    stem = _SAFE.sub("_", original)[: limit - len(suffix) - 1] or "call"
    return f"{stem}_{suffix}"


def id_mapper(ids: Iterable[str], grammar: IdGrammar) -> dict[str, str]:
    """Map each id outside ``grammar`` to a valid, unique replacement.

    Valid ids map to themselves (and are left out of the result); rewritten ids never collide
    with each other or with a kept id. The mapping depends only on the ids, so the same
    history always maps the same way.
    """
    valid = _VALID[grammar]
    ordered = list(dict.fromkeys(ids))
    taken = {i for i in ordered if valid(i)}
    mapping: dict[str, str] = {}
    for original in ordered:
        if original in taken:
            continue
        salt = 0
        new = _rewrite(original, grammar, salt)
        while new in taken:
            salt += 1
            new = _rewrite(original, grammar, salt)
        taken.add(new)
        mapping[original] = new
    return mapping
