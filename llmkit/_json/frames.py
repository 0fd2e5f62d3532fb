"""The parser's open containers, and when a snapshot's copy of one may be reused.

A :class:`Frame` is an open container on :class:`llmkit._json.machine.Machine`'s stack, with
the copy of it the last snapshot handed out. :data:`ALONE` is what ``sys.getrefcount`` reports
for an object only the parser still holds: the machine reuses a list of an earlier snapshot in
place only when it sees that count (0 where it cannot be relied on: then lists are copied).
"""

from __future__ import annotations

import sys
import sysconfig
from typing import Any

__all__ = ["ALONE", "HELD", "NO_CHILD", "Frame", "getrefcount"]

NO_CHILD: Any = object()  # a snapshot's container that ends with no partial child


class Frame:
    """An open container on the parser's stack."""

    __slots__ = ("changed", "is_dict", "items", "key", "snap", "snap_child", "snap_len")

    def __init__(self, items: dict[str, Any] | list[Any]) -> None:
        # The container being filled. It is never handed out while open (snapshots get copies),
        # so it can be mutated in place; once closed it becomes the finished, shared value.
        self.items = items
        self.is_dict = isinstance(items, dict)
        self.key = ""  # the current member's key (objects only)
        self.changed = True  # items/key changed since `snap` was built
        self.snap: Any = None  # last copy handed out
        self.snap_child: Any = NO_CHILD  # the partial child that `snap` ends with
        self.snap_len = 0  # len(items) when `snap` was built: its partial child comes after


def _alone_count() -> int:
    """What ``sys.getrefcount`` says of an object held by one local variable only, asked the
    way ``Snapshots._release`` asks; 0 (never reuse a snapshot's list) where that cannot be
    relied on: other interpreters, free-threaded builds, and CPython releases this was not
    checked on (3.14 borrows references on the operand stack)."""
    if (
        sys.implementation.name != "cpython"
        or sysconfig.get_config_var("Py_GIL_DISABLED")
        or not (3, 10) <= sys.version_info[:2] < (3, 14)
    ):
        return 0
    frame = Frame([])
    frame.snap = []
    prev = frame.snap
    frame.snap = None
    alone = sys.getrefcount(prev)
    other = prev
    shared = sys.getrefcount(prev)
    del other
    return alone if shared == alone + 1 else 0


def _held_count() -> int:
    """What ``sys.getrefcount(frame.snap)`` says of a snapshot's container held by its frame
    and one other reference (its parent's copy, or the machine's cached snapshot), asked the way
    ``Snapshots._grow_in_place`` asks; 0 where :data:`ALONE` is 0 or the count is not additive."""
    if not ALONE:
        return 0
    frame = Frame([])
    frame.snap = []
    parent = [frame.snap]
    held = sys.getrefcount(frame.snap)
    other = frame.snap
    shared = sys.getrefcount(frame.snap)
    del other, parent
    return held if shared == held + 1 and held == sys.getrefcount(frame.snap) + 1 else 0


getrefcount = sys.getrefcount
ALONE = _alone_count()
HELD = _held_count()
