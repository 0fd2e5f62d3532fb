"""Snapshots of what :class:`llmkit._json.machine.Machine` has parsed so far.

Containers finished are shared by every later snapshot; the open containers on the current path
are copied, shallowly, only when their content changed since the last snapshot, and a copy is
brought up to date in place instead when ``sys.getrefcount`` shows that nobody but the parser
holds it (see :mod:`.frames`). The dominant delta of all, more characters of the string value
in progress read right after the last snapshot, costs O(delta) (:meth:`Snapshots._grow_in_place`).
A snapshot a caller holds never changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json import decoder as _decoder
from typing import Any

from .frames import ALONE, HELD, NO_CHILD, Frame, getrefcount

__all__ = ["STR_BODY", "TOK_STRING", "TOP_DONE", "Snapshots", "unescape"]

TOK_STRING = 1  # the token in progress is a string (machine's token kinds)
TOP_DONE = 9  # the top-level value is complete (machine's last state)

# String content with only two-character escapes (no \\u: a surrogate pair may be split), none
# cut off at the end: decoded at C speed by `unescape`.
STR_BODY = re.compile(r'[^"\\\x00-\x1f]*(?:\\["\\/bfnrt][^"\\\x00-\x1f]*)*')
# json's string decoder (C where available): (decoded, end) of the string that starts at `end`.
_scanstring: Callable[[str, int], tuple[str, int]] = getattr(_decoder, "scanstring")  # noqa: B009


def unescape(text: str) -> str:
    """Decode string content that matches ``STR_BODY``."""
    return _scanstring(text + '"', 0)[0] if "\\" in text else text


class Snapshots:
    """The snapshot half of the machine. It owns the snapshot cache and the string in
    progress's cache (slots here, set by ``Machine.__init__``); the rest of the state it reads
    is the machine's (declared here for the type checker)."""

    __slots__ = ("_snap", "_snap_gen", "_stats_built", "_str_cache")

    _snap: Any
    _snap_gen: int
    _stats_built: int
    _str_cache: str | None
    # The machine's.
    _gen: int
    _stack: list[Frame]
    _state: int
    _str_key: bool
    _str_parts: list[str]
    _token: int
    _top: Any

    def _snapshot(self) -> Any:
        """The value of everything parsed so far (rebuilt only if something visible changed)."""
        if self._gen != self._snap_gen:
            self._snap = self._build_snapshot()
            self._snap_gen = self._gen
        return self._snap

    def _grow_in_place(self, text: str) -> bool:
        """The dominant delta at O(len(text)): more characters of the string value in progress
        (all of ``text`` matches ``_STR_BODY``), right after a snapshot that nobody but the
        parser holds any more. That snapshot is then brought up to date in place and is the
        new one: the string grows in place and is stored again in the innermost container; the
        containers above hold that very container already. Returns ``False``, having done
        nothing, when any of that does not hold (then ``text`` is parsed as usual).

        "Nobody else holds it" is ``sys.getrefcount``: each container of the snapshot on the
        path must be held by the parser only: by its frame and the cached snapshot (the
        outermost), or by its frame, its parent's copy and the parent frame's ``snap_child``
        (see ``frames.HELD``). Whoever holds any of them, or anything above them, could see
        the change, so then the snapshot is rebuilt by copying as usual.
        """
        stack = self._stack
        if self._str_key or self._gen != self._snap_gen or not HELD or not stack:
            return False
        expect = HELD  # the outermost: its frame and the cached snapshot
        for frame in stack:
            if getrefcount(frame.snap) != expect:
                return False
            expect = HELD + 1  # the others: their frame, the parent's copy and its snap_child
        # ``frame`` is the innermost: its copy ends with the string in progress.
        copy = frame.snap
        key: Any = frame.key if frame.is_dict else -1
        grown = self._str_cache
        if grown is None:  # cannot be: the last snapshot is up to date
            return False
        # Let go of every other reference, so that ``+=`` extends the string in place.
        self._str_cache = frame.snap_child = copy[key] = None
        self._str_parts.clear()
        grown += unescape(text)
        self._str_parts.append(grown)
        self._str_cache = frame.snap_child = copy[key] = grown
        return True

    def _partial_string(self) -> str:
        cached = self._str_cache
        if cached is None:
            parts = self._str_parts
            if len(parts) > 1:
                # The string so far and the pieces received since: ``+=`` on a local holding
                # the only reference lets CPython extend the string in place instead of copying
                # it (nobody can see that: while a caller holds an earlier snapshot, it is
                # copied). So reading a long string after every delta costs time proportional
                # to the delta, not to the string.
                rest = parts[1:]
                cached = parts[0]
                parts.clear()
                for piece in rest:
                    cached += piece
                parts.append(cached)
            else:
                cached = parts[0] if parts else ""
            self._str_cache = cached
        return cached

    def _build_snapshot(self) -> Any:
        stack = self._stack
        if not stack:  # a top-level scalar: a string in progress, or the finished value
            if self._token == TOK_STRING:
                return self._partial_string()
            return self._top if self._state == TOP_DONE else None
        innermost = len(stack) - 1
        # The partial child of the innermost container: the string value in progress (grown
        # since the last snapshot when its cache is gone) or nothing.
        grown = False
        child: Any = NO_CHILD
        if self._token == TOK_STRING and not self._str_key:
            grown = self._str_cache is None
            child = self._str_cache
        # The deepest container whose copy is out of date; every one above it is too (it holds
        # that copy), every one below it is reused as it was.
        deepest = -1
        frame = stack[innermost]
        if grown or frame.changed or frame.snap_child is not child:
            deepest = innermost
        else:
            for i in range(innermost - 1, -1, -1):
                if stack[i].changed:
                    deepest = i
                    break
        if deepest < 0:
            return stack[0].snap
        reuse = self._release(deepest)
        if grown:
            child = self._partial_string()  # after the release: it may now grow in place
        elif deepest < innermost:
            child = stack[deepest + 1].snap
        # Innermost out: a fresh copy of each container, or its previous copy brought up to
        # date in place when nobody else can see it.
        for i in range(deepest, -1, -1):
            frame = stack[i]
            items: Any = frame.items
            copy: Any = reuse[i]
            if copy is None:
                copy = items.copy()
            elif len(items) > frame.snap_len:
                copy.extend(items[frame.snap_len :])  # a list: what was completed since
            if child is not NO_CHILD:
                if frame.is_dict:
                    copy[frame.key] = child
                else:
                    copy.append(child)
            frame.snap_len = len(items)
            frame.snap = copy
            frame.snap_child = child
            frame.changed = False
            child = copy
        self._stats_built += deepest + 1
        return child

    def _release(self, deepest: int) -> list[Any]:
        """Let go of the copies of ``stack[0..deepest]``, which are about to be rebuilt.

        Returns, per frame, its previous copy when that is a list nobody else holds (so it can
        be updated in place: a long array read after every delta costs what changed, not its
        length), else ``None``. A copy is taken only if every copy above it was also held by
        nobody else: whoever holds an outer snapshot can reach the inner ones. Dropping the
        copies also leaves the string in progress referenced only here when the caller kept no
        earlier snapshot, so that it grows in place (see _partial_string).
        """
        self._snap = None
        reuse: list[Any] = [None] * (deepest + 1)
        alone = ALONE
        for i in range(deepest + 1):
            frame = self._stack[i]
            prev = frame.snap
            frame.snap = frame.snap_child = None
            if prev is None:
                continue
            if alone and getrefcount(prev) == alone:
                if not frame.is_dict:
                    del prev[frame.snap_len :]  # its old partial child
                    reuse[i] = prev
            else:
                alone = 0  # held elsewhere: so is everything inside it
            prev = None  # an unshared dict is freed here, releasing what it held
        return reuse
