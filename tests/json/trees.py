"""Walking parsed JSON values: every path into one, and the part at a path (the snapshot tests
keep random parts of what the parser hands out)."""

from __future__ import annotations

from typing import Any

__all__ = ["paths", "value_at"]


def paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``value`` (keys and indices), the empty path (the value) first."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += paths(child, (*path, i))
    return out


def value_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The part of ``value`` at ``path``."""
    for step in path:
        value = value[step]
    return value
