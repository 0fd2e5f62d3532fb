"""Probe bodies generated from the official SDKs' own types.

Two walkers, one for pydantic models (openai, anthropic, google-genai) and one for botocore
shapes (bedrock-runtime's service model), make the same thing: for every field reachable from a
root type, a :class:`Variant` — the root object with that field set (to a marker value) and the
rest of it minimal (required fields only, plain values). Unions are enumerated member by member
and every value of a closed vocabulary (a ``Literal`` or an enum) is a variant of its own, so a
new SDK release that adds a block type, a field or a stop reason adds probes by itself.

Markers are unique leaf values (strings ``Mk000123``, integers ``910123``, floats ``123.5``,
timestamps in 2031),
easy to look for in what llmkit made of the body. ``Mk`` strings are valid base64, so they also
fit blob and signature fields. Plain values (``"plain"``, ``0``, ``False``, the first literal)
fill everything else; ``0`` leaves sums of counts (usage) equal to the one marked count.
"""

from __future__ import annotations

import base64
import datetime
import enum
import itertools
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["Variant", "pydantic_variants", "shape_variants"]

MAX_DEPTH = 8  # how deep types nest (a union member is a level; a Converse citation location: 7)
FILL_DEPTH = 4  # how deep a marked value is filled in


@dataclass
class Variant:
    """One field of a root type set in an otherwise minimal root object."""

    path: str  # dotted wire path, union members as ``[member]``: ``content[tool_use].name``
    body: dict[str, Any]  # the root object, JSON-ready, in wire spelling
    markers: set[Any] = field(default_factory=set)  # marker leaves inside the field
    value: Any = None  # the closed-vocabulary value or bool set, when no marker could be
    required: bool = False  # the field is required by the SDK type
    baseline: dict[str, Any] = field(default_factory=dict)  # the same without the field

    def nest(self, parent: dict[str, Any], key: str, listed: bool, required: bool) -> Variant:
        """This variant as the value of ``parent[key]``."""
        body, baseline = dict(parent), dict(parent)
        body[key] = [self.body] if listed else self.body
        if listed:  # a union member taken out of a list leaves the list empty
            baseline[key] = [self.baseline] if self.baseline else []
        else:
            baseline[key] = self.baseline
        return Variant(self.path, body, self.markers, self.value, required, baseline)


def _set(parent: dict[str, Any], key: str, new: Any, default: Any, path: str, **kw: Any) -> Variant:
    """``parent`` with ``key`` set to ``new``; the baseline has ``default`` there (or no
    ``key`` when ``default`` is ``_ABSENT``)."""
    body, baseline = dict(parent), dict(parent)
    body[key] = new
    baseline.pop(key, None)
    if default is not _ABSENT:
        baseline[key] = default
    return Variant(path, body, baseline=baseline, **kw)


_ABSENT = object()


class Markers:
    """Unique leaf values, numbered."""

    def __init__(self) -> None:
        self._count = itertools.count(1)

    def text(self) -> str:
        return f"Mk{next(self._count):06d}"

    def integer(self) -> int:
        return 910000 + next(self._count)

    def number(self) -> float:
        return next(self._count) + 0.5

    def moment(self) -> str:
        """A marked timestamp (year 2031, the marker in its microseconds)."""
        return f"2031-01-01T00:00:00.{next(self._count):06d}Z"


# -- pydantic ------------------------------------------------------------------------------------


def _strip(annotation: Any) -> Any:
    """``Optional[X]`` → ``X``; ``Annotated[X, ...]`` → ``X`` (a union of several stays)."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return typing.Union[tuple(args)]
            annotation = args[0]
        else:
            return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [_strip(a) for a in typing.get_args(annotation)]
    return [annotation]


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _vocabulary(tp: Any) -> list[Any] | None:
    """The values of a closed vocabulary (``Literal``, enum), else None."""
    values: list[Any] = []
    for member in _members(tp):
        if typing.get_origin(member) is typing.Literal:
            values += typing.get_args(member)
        elif isinstance(member, type) and issubclass(member, enum.Enum):
            values += [m.value for m in member]
        else:
            return None
    return values


def wire_name(model: type[BaseModel], name: str) -> str:
    alias = model.model_fields[name].alias
    return alias or name


def plain(tp: Any, depth: int = 0) -> Any:
    """A minimal valid value of ``tp``: required fields only, plain leaves."""
    tp = _strip(tp)
    members = _members(tp)
    if len(members) > 1:
        return plain(members[0], depth)
    vocabulary = _vocabulary(tp)
    if vocabulary is not None:
        return next((v for v in vocabulary if "UNSPECIFIED" not in str(v)), vocabulary[0])
    if _is_model(tp):
        return {
            wire_name(tp, name): plain(info.annotation, depth + 1)
            for name, info in tp.model_fields.items()
            if info.is_required()
        }
    origin = typing.get_origin(tp)
    if origin in (list, tuple, typing.Sequence) or tp in (list, tuple):
        return []
    if origin is dict or tp is dict:
        return {}
    return _leaf(tp, None)


def _leaf(tp: Any, marks: Markers | None) -> Any:
    if tp is bool:
        return marks is not None
    if tp is int:
        return marks.integer() if marks else 0
    if tp is float:
        return marks.number() if marks else 0.0
    if tp is bytes:
        return marks.text() if marks else "cGxhaW4="  # base64 text on the wire
    if tp is datetime.datetime:
        return marks.moment() if marks else "2026-01-01T00:00:00Z"
    if tp is str:
        return marks.text() if marks else "plain"
    # object, Any, a JSON value: an object holding one marked string
    return {"k": marks.text()} if marks else {}


def filled(tp: Any, marks: Markers, depth: int = 0) -> Any:
    """A value of ``tp`` with every field filled (to ``FILL_DEPTH``) and marker leaves."""
    tp = _strip(tp)
    members = _members(tp)
    if len(members) > 1:
        models = [m for m in members if _is_model(m)]
        if not models and str in members:  # an open vocabulary (known names | str): a marker
            return marks.text()
        return filled(models[0] if models else members[0], marks, depth)
    vocabulary = _vocabulary(tp)
    if vocabulary is not None:
        return plain(tp)
    if _is_model(tp):
        if depth >= FILL_DEPTH:
            return plain(tp, depth)
        return {
            wire_name(tp, name): filled(info.annotation, marks, depth + 1)
            for name, info in tp.model_fields.items()
            if info.is_required() or not _skipped_field(tp, name)
        }
    origin = typing.get_origin(tp)
    if origin in (list, tuple, typing.Sequence):
        args = typing.get_args(tp)
        return [filled(args[0], marks, depth + 1)] if args else [marks.text()]
    if origin is dict:
        args = typing.get_args(tp)
        return {"k": filled(args[1], marks, depth + 1) if args else marks.text()}
    return _leaf(tp, marks)


def _skipped_field(model: type[BaseModel], name: str) -> bool:
    # google-genai's client-side bookkeeping, never on the wire
    return name in ("sdk_http_response", "automatic_function_calling_history", "parsed")


def _markers_in(value: Any) -> set[Any]:
    if isinstance(value, dict):
        return set().union(*(_markers_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_markers_in(v) for v in value)) if value else set()
    if isinstance(value, str) and value.startswith(("Mk", "2031-")):
        return {value}
    if isinstance(value, int) and not isinstance(value, bool) and value > 910000:
        return {value}
    if isinstance(value, float) and value % 1 == 0.5:
        return {value}
    return set()


def pydantic_variants(
    model: type[BaseModel],
    marks: Markers,
    *,
    skip: Callable[[str], bool] = lambda path: False,
    prefix: str = "",
    depth: int = 0,
) -> Iterator[Variant]:
    """Every field of ``model`` (recursively, unions member by member) as a Variant."""
    base = plain(model)
    for name, info in model.model_fields.items():
        if _skipped_field(model, name):
            continue
        key = wire_name(model, name)
        path = f"{prefix}{key}"
        if skip(path):
            continue
        tp = _strip(info.annotation)
        origin = typing.get_origin(tp)
        listed = origin in (list, tuple, typing.Sequence)
        inner = _strip(typing.get_args(tp)[0]) if listed else tp
        models = [m for m in _members(inner) if _is_model(m)]
        vocabulary = _vocabulary(inner)
        required = info.is_required()
        if models and depth < MAX_DEPTH:
            for member in models:
                tag = _tag(member)
                sub = f"{path}[{tag}]." if listed or len(models) > 1 else f"{path}."
                if skip(sub.rstrip(".")):
                    continue
                if sub.endswith("]."):  # the member itself, minimal: an item probe
                    item = [plain(member)] if listed else plain(member)
                    empty = [] if listed else _ABSENT
                    yield _set(base, key, item, empty, sub[:-1], value="item", required=required)
                for variant in pydantic_variants(
                    member, marks, skip=skip, prefix=sub, depth=depth + 1
                ):
                    yield variant.nest(base, key, listed, required)
        elif vocabulary is not None and not listed:
            if len(vocabulary) < 2 and required:
                continue  # a discriminator: the member itself is what the variants probe
            for value in vocabulary:
                if "UNSPECIFIED" in str(value):
                    continue
                other = next((v for v in vocabulary if v != value), _ABSENT)
                default = other if required else _ABSENT
                yield _set(
                    base, key, value, default, f"{path}={value}", value=value, required=required
                )
        elif models:
            continue  # deeper than MAX_DEPTH
        else:
            value = filled(tp, marks)
            found = _markers_in(value)
            default = plain(tp) if required else _ABSENT
            yield _set(
                base,
                key,
                value,
                default,
                path,
                markers=found,
                value=None if found else value,
                required=required,
            )


def _tag(model: type[BaseModel]) -> str | None:
    """A union member's discriminator value (``type``), else its class name."""
    field_info = model.model_fields.get("type")
    if field_info is not None:
        values = _vocabulary(field_info.annotation)
        if values and len(values) == 1:
            return str(values[0])
    return model.__name__


# -- botocore shapes -----------------------------------------------------------------------------


def _shape_plain(shape: Any) -> Any:
    kind = shape.type_name
    if kind == "structure":
        if shape.metadata.get("union"):  # its first member, minimal
            name, member = next(iter(shape.members.items()))
            return {name: _shape_plain(member)}
        return {name: _shape_plain(shape.members[name]) for name in shape.required_members}
    if kind == "list":
        return []
    if kind == "map":
        return {}
    if kind == "string":
        return shape.enum[0] if shape.enum else "plain"
    if kind in ("integer", "long"):
        return 0
    if kind in ("float", "double"):
        return 0.0
    if kind == "boolean":
        return False
    if kind == "blob":
        return "cGxhaW4="
    if kind == "timestamp":
        return "2026-01-01T00:00:00Z"
    return {}  # document


def _shape_filled(shape: Any, marks: Markers, depth: int = 0) -> Any:
    kind = shape.type_name
    if kind == "structure":
        if depth >= FILL_DEPTH:
            return _shape_plain(shape)
        if shape.metadata.get("union"):
            name, member = next(iter(shape.members.items()))
            return {name: _shape_filled(member, marks, depth + 1)}
        return {n: _shape_filled(m, marks, depth + 1) for n, m in shape.members.items()}
    if kind == "list":
        return [_shape_filled(shape.member, marks, depth + 1)]
    if kind == "map":
        return {"k": _shape_filled(shape.value, marks, depth + 1)}
    if kind == "string":
        return shape.enum[0] if shape.enum else marks.text()
    if kind in ("integer", "long"):
        return marks.integer()
    if kind in ("float", "double"):
        return marks.number()
    if kind == "boolean":
        return True
    if kind == "blob":
        return base64.b64encode(marks.text().encode()).decode()
    if kind == "timestamp":
        return "2026-01-01T00:00:00Z"
    return {"k": marks.text()}  # document


def shape_variants(
    shape: Any,
    marks: Markers,
    *,
    skip: Callable[[str], bool] = lambda path: False,
    prefix: str = "",
    depth: int = 0,
) -> Iterator[Variant]:
    """Every member of a botocore structure shape (recursively; a union's members each in
    turn; every enum value) as a Variant."""
    union = bool(shape.metadata.get("union"))
    base = {} if union else _shape_plain(shape)
    for name, member in shape.members.items():
        # a union's member reads ``content[text]``, like a pydantic union's
        path = f"{prefix[:-1]}[{name}]" if union and prefix else f"{prefix}{name}"
        if skip(path):
            continue
        required = name in shape.required_members
        listed = member.type_name == "list"
        inner = member.member if listed else member
        if inner.type_name == "structure" and depth < MAX_DEPTH:
            if inner.metadata.get("union") and not union:
                pass  # each of its members is an item probe of its own, one level down
            elif union or listed:  # the member itself, minimal: an item probe
                item = [_shape_plain(inner)] if listed else _shape_plain(inner)
                empty = [] if listed and not union else _ABSENT  # a union: no member at all
                item_path = path if union else f"{path}[]"
                yield _set(base, name, item, empty, item_path, value="item", required=required)
            for variant in shape_variants(
                inner, marks, skip=skip, prefix=f"{path}.", depth=depth + 1
            ):
                yield variant.nest(base, name, listed, required)
        elif inner.type_name == "string" and inner.enum and not listed:
            for value in inner.enum:
                other = next((v for v in inner.enum if v != value), _ABSENT)
                default = other if required else _ABSENT
                yield _set(
                    base, name, value, default, f"{path}={value}", value=value, required=required
                )
        elif inner.type_name == "structure":
            continue
        else:
            value = _shape_filled(member, marks)
            found = _markers_in(value)
            if inner.type_name == "blob":
                found = {value} if not listed else set(value)
            default = _shape_plain(member) if required else _ABSENT
            yield _set(
                base,
                name,
                value,
                default,
                path,
                markers=found,
                value=None if found else value,
                required=required,
            )
