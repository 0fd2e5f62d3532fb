"""Vertex AI's streamed ``partialArgs`` (QUIRKS D8) rebuilt as the JSON text of the arguments.

Gemini on Vertex with ``streamFunctionCallArguments`` sends a call's arguments as fragments,
each naming a leaf by ``jsonPath`` (``$.edits[3].old``) with a ``stringValue`` (possibly in
pieces, ``willContinue``), ``numberValue``, ``boolValue`` or ``nullValue``. The one assembler
takes argument text, so :class:`ArgsWriter` writes, for each fragment, the JSON text it adds.
"""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ArgsWriter"]

# json.dumps(s, ensure_ascii=False) for a str, without building a JSONEncoder per call (json's
# own C function, which that call ends in).
_quote: Callable[[str], str] = json.encoder.encode_basestring

_ESCAPE = re.compile(r"\\(.)")
_NAME = re.compile(r"[^.\[\]]+")  # a ``.name`` segment's name
_PATH = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def _parse_path(path: Any) -> tuple[str | int, ...] | None:
    """``$.recipe.steps[0]`` → ``("recipe", "steps", 0)``; None when it is not a JSON path."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    out: list[str | int] = []
    pos = 1
    while pos < len(path):
        found = _PATH.match(path, pos)
        if found is None:
            return None
        name, index, quoted = found.groups()
        if index is not None:
            out.append(int(index))
        elif quoted is not None:
            out.append(_ESCAPE.sub(r"\1", quoted[1:-1]))
        else:
            out.append(name)
        pos = found.end()
    return tuple(out)


class _Frame:
    __slots__ = ("array", "count", "path")

    def __init__(self, path: tuple[str | int, ...], array: bool) -> None:
        self.path = path
        self.array = array
        self.count = 0


class ArgsWriter:
    """Rebuilds one call's arguments from ``partialArgs`` as JSON text, in arrival order.

    Gemini writes arguments in document order, so each fragment only closes the containers the
    path leaves and opens the ones it enters; a string with ``willContinue`` stays open for
    the next fragment of the same path. What cannot be written as a prefix of one JSON value
    (a path revisited after its container closed, an index gap) is listed in ``problems``.
    """

    __slots__ = (
        "_closed",
        "_last",
        "_leaves",
        "_open_string",
        "_parent",
        "_stack",
        "problems",
    )

    def __init__(self) -> None:
        self._last: tuple[Any, tuple[str | int, ...] | None] = (None, None)  # raw → parsed
        self._parent: tuple[str | None, tuple[str | int, ...]] = (None, ())  # the same, a parent
        self._stack: list[_Frame] = []
        self._open_string: tuple[str | int, ...] | None = None
        self._leaves: set[tuple[str | int, ...]] = set()
        self._closed: set[tuple[str | int, ...]] = set()
        self.problems: list[tuple[str, str]] = []

    def add(self, arg: dict[str, Any]) -> str:
        """The JSON text one ``PartialArg`` adds."""
        raw_path = arg.get("jsonPath")
        if raw_path == self._last[0] and raw_path is not None:  # a string's next fragment
            path = self._last[1]
        else:
            path = self._parse(raw_path)
            self._last = (raw_path, path)
        if not path:
            self.problems.append((str(raw_path), "not a JSON path below the arguments"))
            return ""
        cont = arg.get("willContinue") is True
        string = arg.get("stringValue")
        if isinstance(string, str) and self._open_string == path:
            text = _quote(string)[1:-1]
            if not cont:
                text += '"'
                self._open_string = None
            return text
        if isinstance(string, str):
            value = _quote(string)
            if cont:
                value = value[:-1]
        elif "numberValue" in arg and isinstance(arg["numberValue"], (int, float)):
            number = arg["numberValue"]  # (bool is an int: JSON true parsed, not a number)
            value = int.__repr__(number) if type(number) is int else json.dumps(number)
        elif isinstance(arg.get("boolValue"), bool):
            value = "true" if arg["boolValue"] else "false"
        elif "nullValue" in arg:
            value = "null"
        else:
            self.problems.append((str(raw_path), "a fragment without a value"))
            return ""
        out = self._end_string()
        if path in self._leaves:
            self.problems.append((str(raw_path), "the same path was written twice"))
        self._leaves.add(path)
        stack, parent = self._stack, path[:-1]
        if len(stack) != len(path) or stack[-1].path != parent:  # else: already inside it
            out += self._enter(parent, path[-1])
        out += self._entry(stack[-1], path[-1], str(raw_path)) + value
        if isinstance(string, str) and cont:
            self._open_string = path
        return out

    def _parse(self, raw_path: Any) -> tuple[str | int, ...] | None:
        """:func:`_parse_path`, reading a path whose parent was the last one read
        (``$.edits[3].old`` after ``$.edits[3].line``) from that parent's reading: the
        grammar reads a path left to right, so ``P.name`` is P's segments and then ``name``."""
        if raw_path.__class__ is str:
            parent, dot, name = raw_path.rpartition(".")
            known, segments = self._parent
            if dot and parent == known and _NAME.fullmatch(name):
                return (*segments, name)
        path = _parse_path(raw_path)
        if path:
            leaf = path[-1]
            if isinstance(leaf, str) and raw_path.endswith("." + leaf):
                self._parent = (raw_path[: -len(leaf) - 1], path[:-1])
        return path

    def piece(self, raw_path: Any, string: str, more: bool = True) -> str | None:
        """What :meth:`add` returns for ``{"jsonPath": raw_path, "stringValue": string}`` (with
        ``"willContinue": true`` when ``more``) when that fragment is the next piece of the
        string in progress (the dominant fragment: nothing else changes) or its last, else
        ``None`` (then :meth:`add`)."""
        last, path = self._last
        if raw_path != last or path is None or self._open_string != path:
            return None
        if more:
            return _quote(string)[1:-1]
        self._open_string = None
        return _quote(string)[1:]

    def close(self) -> str:
        """The text that closes everything still open ("" when nothing was written)."""
        out = self._end_string()
        while self._stack:
            out += "]" if self._stack.pop().array else "}"
        return out

    def _end_string(self) -> str:
        if self._open_string is None:
            return ""
        self._open_string = None
        return '"'

    def _enter(self, target: tuple[str | int, ...], leaf: str | int) -> str:
        out = ""
        if not self._stack:
            self._stack.append(_Frame((), False))
            out = "{"
        depth = 1  # frames [0, depth) are on the way to target
        while (
            depth < len(self._stack)
            and depth - 1 < len(target)
            and self._stack[depth].path == target[:depth]
        ):
            depth += 1
        while len(self._stack) > depth:
            frame = self._stack.pop()
            self._closed.add(frame.path)
            out += "]" if frame.array else "}"
        for i in range(depth - 1, len(target)):
            nxt = target[i + 1] if i + 1 < len(target) else leaf
            where = "$" + _render(target[: i + 1])
            if target[: i + 1] in self._closed:
                # JSON text cannot reopen a closed container: the key repeats, and a reader
                # keeps only its last value.
                self.problems.append((where, "a closed object or array was written to again"))
            out += self._entry(self._stack[-1], target[i], where)
            array = isinstance(nxt, int)
            out += "[" if array else "{"
            self._stack.append(_Frame(target[: i + 1], array))
        return out

    def _entry(self, parent: _Frame, segment: str | int, where: str) -> str:
        """The separator, key or array padding before a new member of ``parent``."""
        out = ""
        if parent.array != isinstance(segment, int):
            self.problems.append((where, "an object key in an array, or an index in an object"))
        elif parent.array:
            assert isinstance(segment, int)
            if segment < parent.count:
                self.problems.append((where, "an array element was revisited"))
            while parent.count < segment:  # an index gap: JSON arrays cannot skip
                out += ("," if parent.count else "") + "null"
                parent.count += 1
                self.problems.append((where, "an array index was skipped; filled with null"))
        if parent.count:
            out += ","
        parent.count += 1
        if isinstance(segment, str):
            out += _quote(segment) + ":"
        return out


def _render(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
