"""The value being parsed, updated in place, and copied only where someone else can see it.

The partial-JSON parser builds the value it hands out directly: the open containers on the
current path (outermost to innermost: the object of the arguments, an open list of edits, the
open edit) *are* the snapshot, and a string value in progress lives in its container from its
opening quote on, grown there. A snapshot is therefore free to hand out; the price is paid
before the next change, and only for what may be seen by whoever holds a snapshot:

* **Copy on write.** Before the first change after a snapshot was handed out (:meth:`Path.owns`)
  the open path is copied, shallow: each open container on it is replaced by a copy (its
  finished children shared) and the copies become the parser's (:meth:`Path._copy`). What
  was handed out is never changed. Closed values are never copied: they are finished, and
  shared by every later snapshot and the final value. So a read costs the open path, not the
  value: O(depth + members of the open containers), whatever the size of what is finished.
* **Strings.** A string is never changed once anyone else can see it, by the interpreter's own
  rule: ``s += piece`` extends ``s`` in place only when nothing else refers to it (CPython),
  and copies it otherwise; :meth:`Path.grow` takes the string out of its container first so
  that the parser's own reference does not count.
* **Reference counts, an optimisation.** Where ``sys.getrefcount`` can be relied on (CPython
  with the GIL, checked by :func:`_calibrate` at import), :meth:`Path.owns` copies only from
  the outermost container somebody else holds: a caller who drops each snapshot costs no copy
  at all. Elsewhere (PyPy, free-threaded builds, or a check that does not come out as
  expected) :data:`HELD` is false and the whole open path is copied once per snapshot handed
  out: still correct and still O(depth + open members) per read, which is linear in the text
  unless an open container is wide (docs/streaming.md, "Keeping snapshots", says why a wide
  open list read on every delta cannot be linear with plain ``list`` snapshots that never
  change, and how to keep state linearly).

Work counters, for the tests and the benchmark: ``_stats_built`` containers copied,
``_stats_copied`` members copied with them.
"""

from __future__ import annotations

import sys
import sysconfig
from typing import Any

__all__ = ["HELD", "Path"]

getrefcount = sys.getrefcount


class Path:
    """The open containers of the value being parsed, the top-level value, and who owns them.

    The parser calls :meth:`put` (a finished value, or a string just opened), :meth:`push` (a
    container just opened), :meth:`pop` (the innermost container closed), :meth:`grow` (more
    of the string value in progress); whoever hands the value out (``PartialJSON.snapshot_at``,
    the only place that does) sets ``_owned`` false. Before changing a container itself it
    calls :meth:`owns` (``put``, ``push`` and ``grow`` do). ``key`` is the member of the
    innermost open object being parsed.
    """

    __slots__ = (
        "_keys",
        "_owned",
        "_path",
        "_root",
        "_stats_built",
        "_stats_copied",
        "_top",
        "key",
    )

    def __init__(self) -> None:
        # The open containers, outermost first. Each is referred to by this list and by one
        # other reference of the parser's: its parent's member, or `_root` for the outermost.
        # So nobody else refers to any of them while each has the same count: OWN.
        self._path: list[Any] = []
        self._root: Any = None
        self._keys: list[str | None] = []  # per container but the innermost: where its open
        # child is (a key; None in an array, where it is the last element)
        self._top: Any = None  # the top-level value once done, or a top-level string so far
        self.key = ""  # the member of the innermost open object being parsed
        self._owned = True  # nothing handed out since the path was last made the parser's own
        self._stats_built = 0  # containers copied (work counters: see the module docstring)
        self._stats_copied = 0  # their members

    def owns(self) -> None:
        """Make sure the open path is the parser's own before changing it (see the module
        docstring): copied when somebody else may hold a container on it."""
        if not self._owned:
            self._owned = True
            for container in self._path:
                if getrefcount(container) != OWN:  # never equal where counts are not relied on
                    self._copy()
                    break

    def put(self, value: Any) -> None:
        """``value`` is the next member of the innermost open container (under ``key`` in an
        object), or the top-level value."""
        if not self._owned:
            self.owns()
        path = self._path
        if not path:
            self._top = value
            return
        cur = path[-1]
        if cur.__class__ is dict:
            cur[self.key] = value  # like json.loads: a repeated key keeps the last value
        else:
            cur.append(value)

    def push(self, container: dict[str, Any] | list[Any]) -> None:
        """An empty ``container`` opened: the next member of the innermost one, and now the
        innermost."""
        if not self._owned:
            self.owns()
        path = self._path
        if path:
            cur = path[-1]
            if cur.__class__ is dict:
                key: str | None = self.key
                cur[key] = container
            else:
                key = None
                cur.append(container)
            self._keys.append(key)
        else:
            self._root = container
        path.append(container)

    def pop(self) -> int:
        """The innermost container closed: it stays where it is, finished. Returns what is
        innermost now: 3 an object, 1 an array, 0 nothing (the container was the top level)."""
        path = self._path
        path.pop()
        if path:
            self._keys.pop()
            return 3 if path[-1].__class__ is dict else 1
        self._top = self._root
        self._root = None
        return 0

    def grow(self, piece: str) -> None:
        """Append ``piece`` to the string value in progress (the last value put)."""
        if not self._owned:
            self.owns()
        path = self._path
        # Each branch takes the string out of its place, so that ``+=`` extends it in place
        # when nobody else refers to it (and copies it when somebody does), then puts it back.
        if not path:
            text = self._top
            self._top = None
            text += piece
            self._top = text
            return
        cur = path[-1]
        if cur.__class__ is dict:
            key = self.key
            text = cur[key]
            cur[key] = None
            text += piece
            cur[key] = text
        else:
            text = cur[-1]
            cur[-1] = None
            text += piece
            cur[-1] = text

    def _copy(self) -> None:
        """Copy each container on the path from the outermost one somebody else holds (whoever
        holds it can reach those below it; every one, where reference counts are not relied
        on), and make the copies the parser's."""
        path = self._path
        first = 0
        if HELD:
            for container in path:
                if getrefcount(container) != OWN:
                    break
                first += 1
        keys = self._keys
        copied = 0
        for j in range(first, len(path)):
            copy = path[j].copy()
            copied += len(copy)
            if j:
                parent, key = path[j - 1], keys[j - 1]
                if key is None:
                    parent[-1] = copy
                else:
                    parent[key] = copy
            else:
                self._root = copy
            path[j] = copy
        self._stats_built += len(path) - first
        self._stats_copied += copied


OWN = -1
"""What ``getrefcount`` says of an open container only the parser refers to, asked in a loop
over the path as :meth:`Path.owns` asks; -1 where refcounts cannot be relied on (then every
container counts as held). Measured by :func:`_calibrate`."""


def _three_deep() -> Path:
    path = Path()
    path.push({})
    path.key = "a"
    path.push([])
    path.push({})
    path.key = "b"
    path.put("x")
    return path


def _counts(path: Path) -> list[int]:
    # The way Path.owns asks.
    return [getrefcount(container) for container in path._path]


def _copies(path: Path, held: Any) -> int:
    """Containers copied before the next change while the caller holds ``held`` (or
    nothing)."""
    built = path._stats_built
    path._owned = False
    path.owns()
    return path._stats_built - built


def _calibrate() -> bool:
    """Measure the count of an open container only the parser refers to, then check that
    ``owns`` copies exactly from the container a caller holds, wherever it is on the path,
    and nothing when nobody holds any."""
    global OWN, HELD
    # Free-threaded builds split an object's count between threads: not relied on there.
    if sys.implementation.name != "cpython" or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return False
    one = Path()
    one.push({})
    counts = {*_counts(one), *_counts(_three_deep())}
    if len(counts) != 1:
        return False
    OWN = counts.pop()
    HELD = True  # for the checks below; the module sets the final value
    if _copies(one, None) or _copies(_three_deep(), None) or _copies(Path(), None):
        return False
    held = one._root
    if _copies(one, held) != 1:
        return False
    del held
    for depth in range(3):
        three = _three_deep()
        held = three._path[depth]
        if _copies(three, held) != 3 - depth or _copies(three, None) != 0:
            return False
        del held
    return True


HELD = False
HELD = _calibrate()
if not HELD:
    OWN = -1
