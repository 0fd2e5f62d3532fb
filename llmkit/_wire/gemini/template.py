"""The second kind of hole (:mod:`llmkit._wire.splice`): Vertex's streamed ``partialArgs`` chunks
(QUIRKS D8), taken without decoding them.

A call streamed with ``streamFunctionCallArguments`` arrives as thousands of chunks that differ
only in their one ``partialArgs`` fragment::

    {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[
    <fragment>],"willContinue":true}}]}}],"usageMetadata":{…},"modelVersion":…,"responseId":…}

A :class:`Template` is such a chunk with its fragment cut out: the text before it (``prefix``,
through ``"partialArgs":[``) and after it (``suffix``). A chunk that starts with the prefix and
ends with the suffix, with one JSON value between them, is the same JSON document as the chunk
the template was learnt from with another array element in that place (JSON's grammar is
context-free: what surrounds the element parses the same whatever the element holds); only
that element, a few dozen characters, is then decoded. Anything else (another path's shape, a
second fragment, trailing bytes, a value that is not an object) is not a match and takes the
decoder's full path, which judges it exactly as before.

A template is learnt (:func:`learn`) from a chunk that went through the full path, and only when
the decoder's ``check`` says the chunk meant nothing but "this one fragment for the call being
streamed"; a sentinel fragment put in the cut's place must then be read back by ``check`` from
the same chunk, which proves the cut is the element the decoder reads (not an equal text
elsewhere). Unlike a :class:`~llmkit._wire.splice.Splice` (one string literal), the hole here
is the whole fragment: its path, its value of any kind and its ``willContinue`` may change from
chunk to chunk. The decoder keeps a template only until its next full-path chunk (a call opened
or ended, a no-op part), so a match always meets the decoder in the state the template was
learnt in, and delivers to the streamed :class:`Call`.
"""

from __future__ import annotations

import json
import json.decoder
from collections.abc import Callable
from typing import Any, NamedTuple

from ..._json.scanner import _scan, loads
from ..contract import Frame
from .partial_args import ArgsWriter

# json's own string scanner (C where available), strict as json.loads is; typeshed omits it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

__all__ = ["Call", "Template", "learn"]


class Call(NamedTuple):
    """The call being streamed: where a template's matches go."""

    ordinal: int
    writer: ArgsWriter
    """Its JSON text so far: a string piece goes through :meth:`ArgsWriter.piece`."""
    arguments: Callable[[int, str], None]
    """The sink's ``arguments``, for the text a piece adds."""
    partial: Callable[[list[dict[str, Any]]], None]
    """The full path's rules for fragments, for any other fragment."""


_ARRAY = '"partialArgs":['
# A fragment no provider sends: a path with a NUL, a value with escapes and a line separator.
_SENTINEL = {"jsonPath": "$['\x00llmkit']", "stringValue": "\u2028\\", "willContinue": True}
_raw_decode = json.JSONDecoder().raw_decode


class Template:
    """One learnt chunk shape: ``prefix`` + one fragment object + ``suffix``.

    Most fragments are pieces of a string: its first (``{"jsonPath":P,"stringValue":S,
    "willContinue":true}``, a new P), its next ones (the same with the same P) and its last
    (``{"jsonPath":P,"stringValue":S}``, most often ``""``). :meth:`piece` reads each with json's
    string scanner alone; a first piece leaves the text up to S's literal (``_head``) for the
    next ones, which must end as ``_tail`` (more) or ``_last`` (the last). Any other fragment
    is decoded whole by :meth:`match`.
    """

    __slots__ = (
        "_arguments",
        "_cut",
        "_head",
        "_last",
        "_open",
        "_ordinal",
        "_partial",
        "_path",
        "_prefix",
        "_suffix",
        "_tail",
        "_writer",
        "no_op",
    )

    def __init__(
        self,
        prefix: str,
        suffix: str,
        no_op: str | None,
        call: Call,
    ) -> None:
        self._prefix = prefix
        # The same chunk without its partialArgs member (Vertex's ``{"willContinue": true}``
        # part between array elements), when the decoder proved it means nothing.
        self.no_op = no_op
        self._suffix = suffix
        self._cut = len(prefix) + len(suffix)
        self._head: str | None = None  # None: no string piece seen yet
        self._open = prefix + _PATH  # a fragment that names its path first
        self._tail = _MORE + suffix
        self._last = "}" + suffix
        self._path: Any = None
        self._ordinal, self._writer, self._arguments, self._partial = call

    def take(self, frame: Frame) -> bool:
        """Deliver ``frame``'s fragment when ``frame`` has this shape (``True``), else
        ``False``: a string's next piece (:meth:`piece`) through the writer, any other fragment
        (:meth:`match`) by the fragment rules; a no-op chunk means nothing."""
        data = frame.data
        found = self.piece(data)
        if found is not None:
            value, more = found
            text = self._writer.piece(self._path, value, more)
            if text is None:  # not the string the writer has open: the fragment's rules
                piece = {"jsonPath": self._path, "stringValue": value}
                if more:
                    piece["willContinue"] = True
                self._partial([piece])
            elif text:
                self._arguments(self._ordinal, text)
            return True
        fragment = self.match(data)
        if fragment is not None:
            self._partial([fragment])
            return True
        return data == self.no_op

    @property
    def path(self) -> Any:
        """The ``jsonPath`` of the string pieces :meth:`piece` reads (None before one)."""
        return self._path

    def piece(self, data: str) -> tuple[str, bool] | None:
        """``(S, True)`` when ``data`` is the next piece of the string last seen
        (``{"jsonPath": path, "stringValue": S, "willContinue": true}`` in this chunk shape),
        ``(S, False)`` when it is its last (``{"jsonPath": path, "stringValue": S}``), else
        ``None`` (then :meth:`match` decides). A first piece of another path's string is read
        here too, written exactly so: :attr:`path` is then that path, and its next pieces are
        read from the text it was read from."""
        head = self._head
        if head is not None and data.startswith(head):
            try:
                value, end = _scanstring(data, len(head))
            except ValueError:
                return None
            rest = data[end:]
            if rest == self._tail:
                more = True
            elif rest == self._last:
                more = False
            else:
                return None
            return value, more
        if not data.startswith(self._open):
            return None
        try:  # the path's literal, then the value's, each read by json's own scanner
            path, at = _scanstring(data, len(self._open))
            if not data.startswith(_VALUE, at):
                return None
            value, end = _scanstring(data, at + len(_VALUE))
        except ValueError:
            return None
        if data[end:] != self._tail:
            return None  # not a first piece: the full shape (match) decides
        self._head = data[: at + len(_VALUE)]
        self._path = path
        return value, True

    def match(self, data: str) -> dict[str, Any] | None:
        """The fragment in ``data`` when ``data`` has this shape, else ``None``. The decoder
        tries :meth:`piece` first: a string's next piece is read for less there."""
        if len(data) <= self._cut or not data.startswith(self._prefix):
            return None
        if not data.endswith(self._suffix):
            return None
        start = len(self._prefix)
        try:  # the C scanner on the element in place: no slice, no whitespace allowed
            fragment, end = _scan(data, start)
        except (StopIteration, ValueError, RecursionError):  # not a JSON value there
            return None
        if end != len(data) - len(self._suffix) or fragment.__class__ is not dict:
            return None  # two fragments, trailing bytes, not an object: the full path
        return fragment


_PATH = '{"jsonPath":"'
_VALUE = ',"stringValue":"'
_MORE = ',"willContinue":true}'


Check = Callable[[Any], "dict[str, Any] | None"]
"""The decoder's reading of a decoded chunk: its one fragment when the chunk means nothing but
that fragment for the call being streamed (the fast path), else ``None``."""

NoOp = Callable[[Any], bool]
"""The decoder's reading of a decoded chunk: does it mean nothing at all (its full path would
change nothing)?"""


def learn(
    data: str,
    chunk: Any,
    check: Check,
    no_op: NoOp | None,
    call: Call,
) -> Template | None:
    """A template of ``data`` (decoded as ``chunk``) for the streamed ``call`` (its ordinal and
    writer), or ``None`` when ``check`` refuses it or the fragment's place cannot be proved."""
    if check(chunk) is None:
        return None
    at = data.find(_ARRAY)
    if at < 0 or data.find(_ARRAY, at + 1) >= 0:
        return None  # written with spaces, or twice: no template, the full path
    start = at + len(_ARRAY)
    try:
        _, end = _raw_decode(data, start)
    except ValueError:
        return None
    prefix, suffix = data[:start], data[end:]
    try:
        probe = loads(prefix + json.dumps(_SENTINEL) + suffix)
    except ValueError:
        return None
    if check(probe) != _SENTINEL:
        return None
    return Template(prefix, suffix, _no_op(prefix, suffix, no_op), call)


def _no_op(prefix: str, suffix: str, no_op: NoOp | None) -> str | None:
    """The chunk's text with the ``"partialArgs":[…]`` member cut out of its object, when that
    is a JSON document the decoder's ``no_op`` reads as meaning nothing, else ``None``."""
    if no_op is None:
        return None
    head = prefix[: -len(_ARRAY)]
    if head.endswith("{") and suffix.startswith("],"):
        text = head + suffix[2:]  # the first member: its comma after it goes too
    elif head.endswith(",") and suffix.startswith("]"):
        text = head[:-1] + suffix[1:]  # a later member: its comma before it goes too
    else:
        return None
    try:
        chunk = loads(text)
    except ValueError:
        return None
    return text if no_op(chunk) else None
