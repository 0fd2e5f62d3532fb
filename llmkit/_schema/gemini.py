"""Gemini's OpenAPI-subset schema dialect: the ``parameters`` field of a function declaration.

Gemini reads ``parameters`` with a proto parser that knows only a subset of OpenAPI 3.0: an
unknown keyword (``additionalProperties``, ``$schema``, ``const``, ``propertyNames``,
``exclusiveMinimum``…) fails the **whole request**, and so does an array without ``items``
(QUIRKS H3). llmkit sends the full schema as ``parametersJsonSchema`` wherever the model takes
it; :func:`gemini_openapi_schema` is the fallback for models that do not.

The rewrite, each lossy step reported as a ``schema_rewritten`` :class:`Diagnostic` (``details``:
``tool``, ``path`` — a JSON Pointer into the *input* schema —, ``change``, and ``keyword``
where one is concerned):

- ``$ref`` is inlined (a recursive reference is cut after one expansion: ``ref_cut``);
  ``$defs``/``definitions``/``$schema``/``$id``/``$comment`` are dropped (no loss);
- ``const`` → ``enum`` (``const_to_enum``; a non-string const, which Gemini's string-only
  ``enum`` cannot hold, is removed and restated in the description);
- a non-string ``enum`` is removed and restated (``enum_removed``); ``null`` in an enum or a
  type list, or a ``{"type": "null"}`` branch, becomes ``nullable: true`` (no loss);
- ``oneOf`` → ``anyOf`` (``oneof_to_anyof``); ``allOf`` is merged into one schema
  (``allof_merged`` when it had more than one branch); a type list with several non-null types
  becomes ``anyOf`` (``type_union_to_anyof``);
- ``exclusiveMinimum``/``exclusiveMaximum`` → ``minimum``/``maximum`` (``keyword_converted``,
  restated); ``examples`` → ``example`` (its first entry);
- a ``format`` Gemini does not know for the type, ``additionalProperties``, and every other
  keyword outside the subset are removed and restated in the description
  (``keyword_removed``); ``required`` names without a property are dropped
  (``required_pruned``); an array without ``items`` gets string items (``items_added``);
- ``type`` names are written as Gemini's enum (``STRING``, ``OBJECT``…).

Pure: the input is never modified and nothing is read from the environment.
"""

from __future__ import annotations

import json
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import ToolDefinitionError
from .strict import resolve_ref

__all__ = ["gemini_openapi_schema"]

# The fields of Gemini's Schema message (ai.google.dev/api/caching#Schema), camelCase.
_SUPPORTED = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)
# Dropped without a report: they carry nothing the model could use once $ref is inlined.
_SILENT = frozenset({"$defs", "definitions", "$schema", "$id", "$comment", "$anchor"})
_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
    "null": "NULL",
}
_TYPES.update({v: v for v in list(_TYPES.values())})  # already Gemini's spelling (OpenAPI input)
# Formats Gemini accepts per type; anything else is a 400 ("only 'enum' and 'date-time' are
# supported for STRING type").
_FORMATS = {
    "STRING": frozenset({"enum", "date-time"}),
    "NUMBER": frozenset({"float", "double"}),
    "INTEGER": frozenset({"int32", "int64"}),
}


def _pointer(parent: str, *keys: str | int) -> str:
    for key in keys:
        parent += "/" + str(key).replace("~", "~0").replace("/", "~1")
    return parent


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_null(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null" and len(branch) == 1


class _Node:
    """One schema node being rewritten: its keywords so far, where it is, what was lost (said
    in its description) and whether it may be null."""

    __slots__ = ("notes", "nullable", "ptr", "s")

    def __init__(self, s: dict[str, Any], ptr: str, *, nullable: bool) -> None:
        self.s = s
        self.ptr = ptr
        self.nullable = nullable
        self.notes: list[str] = []

    def done(self) -> dict[str, Any]:
        """The rewritten node: nullable as it may be, its lost constraints in its description."""
        s = self.s
        if self.nullable:
            s["nullable"] = True
        if self.notes:
            desc = s.get("description")
            text = ", ".join(self.notes)
            s["description"] = f"{desc} ({text})" if desc else text
        return s


class _Walker:
    """One pass over a schema, collecting the rewrites it made."""

    def __init__(self, root: dict[str, Any], tool: str) -> None:
        self.root = root
        self.tool = tool
        self.diagnostics: list[Diagnostic] = []
        self._seen: set[tuple[str, str, str]] = set()
        self._inlining: list[str] = []

    def report(self, ptr: str, change: str, message: str, keyword: str = "") -> None:
        # A $defs entry used in several places is reported once (its pointer is the same).
        key = (ptr, change, keyword)
        if key in self._seen:
            return
        self._seen.add(key)
        details: dict[str, Any] = {"tool": self.tool, "path": ptr, "change": change}
        if keyword:
            details["keyword"] = keyword
        self.diagnostics.append(
            Diagnostic(
                kind="schema_rewritten",
                message=f"{self.tool}: {ptr}: {message} (Gemini OpenAPI subset)",
                details=details,
            )
        )

    def node(self, schema: Any, ptr: str) -> dict[str, Any]:
        """``schema`` (at ``ptr``) in the OpenAPI subset, each lossy step reported."""
        if schema is True or schema is None:
            return {}
        if schema is False:
            self.report(ptr, "keyword_removed", "a false schema cannot be expressed; removed")
            return {}
        if not isinstance(schema, dict):
            return {}
        s = dict(schema)
        ref = s.pop("$ref", None)
        if isinstance(ref, str):
            return self._inline(ref, s, ptr)
        for key in _SILENT:
            s.pop(key, None)
        n = _Node(s, ptr, nullable=bool(s.pop("nullable", False)))
        optional = self._optional(n)
        if optional is not None:
            return optional
        all_of = s.pop("allOf", None)
        if isinstance(all_of, list) and all_of:
            n.s = s = self._merge_all_of(s, all_of, ptr)
        self._const_and_enum(n)
        self._type_list(n)
        self._alternatives(n)
        self._converted_keywords(n)
        gtype = self._type_and_format(n)
        self._unsupported(n)
        self._properties(n)
        if gtype == "ARRAY" or "items" in n.s:
            self._items(n)
        return n.done()

    def _optional(self, n: _Node) -> dict[str, Any] | None:
        """``Optional[X]`` is ``anyOf [X, {"type": "null"}]``: X, nullable (no loss)."""
        s = n.s
        any_of = s.get("anyOf")
        if not isinstance(any_of, list):
            return None
        rest = [b for b in any_of if not _is_null(b)]
        n.nullable = n.nullable or len(rest) < len(any_of)
        s["anyOf"] = rest
        if len(rest) == 1 and isinstance(rest[0], dict):
            del s["anyOf"]
            out = self.node({**rest[0], **s}, n.ptr)  # the node's own keywords win
            if n.nullable:
                out["nullable"] = True
            return out
        if not rest:
            del s["anyOf"]
        return None

    def _const_and_enum(self, n: _Node) -> None:
        s, ptr = n.s, n.ptr
        if "const" in s:
            const = s.pop("const")
            if isinstance(const, str):
                s["enum"] = [const]
                s.setdefault("type", "string")
                self.report(ptr, "const_to_enum", "const replaced by a one-value enum", "const")
            elif const is None:
                n.nullable = True
            else:
                n.notes.append(f"must be {_short(const)}")
                self.report(ptr, "keyword_removed", "non-string const removed", "const")
        enum = s.get("enum")
        if isinstance(enum, list):
            if None in enum:
                n.nullable = True
                enum = [v for v in enum if v is not None]
                s["enum"] = enum
            if not all(isinstance(v, str) for v in enum):
                del s["enum"]
                n.notes.append(f"one of {_short(enum)}")
                self.report(ptr, "enum_removed", "non-string enum removed", "enum")
            elif "type" not in s:
                s["type"] = "string"  # Gemini's enum is a STRING format: it needs the type

    def _type_list(self, n: _Node) -> None:
        s = n.s
        types = s.get("type")
        if not isinstance(types, list):
            return
        rest = [t for t in types if t != "null"]
        n.nullable = n.nullable or len(rest) < len(types)
        if len(rest) == 1:
            s["type"] = rest[0]
        elif not rest:
            s["type"] = "null"
        else:
            del s["type"]
            s["anyOf"] = [{"type": t} for t in rest] + list(s.get("anyOf", []))
            self.report(n.ptr, "type_union_to_anyof", "type list replaced by anyOf", "type")

    def _alternatives(self, n: _Node) -> None:
        s, ptr = n.s, n.ptr
        one_of = s.pop("oneOf", None)
        if isinstance(one_of, list):
            s["anyOf"] = list(s.get("anyOf", [])) + one_of
            self.report(ptr, "oneof_to_anyof", "oneOf replaced by anyOf", "oneOf")
        any_of = s.get("anyOf")
        if isinstance(any_of, list):
            s["anyOf"] = [self.node(b, _pointer(ptr, "anyOf", i)) for i, b in enumerate(any_of)]

    def _converted_keywords(self, n: _Node) -> None:
        s, ptr = n.s, n.ptr
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            value = s.pop(key, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                s.setdefault(bound, value)
                n.notes.append(f"{key}: {_short(value)}")
                self.report(ptr, "keyword_converted", f"{key} replaced by {bound}", key)
        examples = s.pop("examples", None)
        if isinstance(examples, list) and examples:
            s.setdefault("example", examples[0])
            if len(examples) > 1:
                self.report(ptr, "keyword_converted", "examples replaced by its first", "examples")

    def _type_and_format(self, n: _Node) -> str | None:
        """The Gemini type (``STRING``, ...) and a format it supports for it."""
        s, ptr = n.s, n.ptr
        raw_type = s.get("type")
        gtype = _TYPES.get(raw_type) if isinstance(raw_type, str) else None
        if isinstance(raw_type, str):
            if gtype is None:
                del s["type"]
                n.notes.append(f"type: {raw_type}")
                self.report(ptr, "keyword_removed", f"unknown type {raw_type!r} removed", "type")
            else:
                s["type"] = gtype
        fmt = s.get("format")
        if fmt is not None and (
            not isinstance(fmt, str) or fmt not in _FORMATS.get(gtype or "", ())
        ):
            del s["format"]
            n.notes.append(f"format: {fmt}")
            self.report(ptr, "keyword_removed", f"unsupported format {fmt!r} removed", "format")
        return gtype

    def _unsupported(self, n: _Node) -> None:
        s = n.s
        for key in [k for k in s if k not in _SUPPORTED]:
            value = s.pop(key)
            if key != "additionalProperties" or value not in (False, {}):
                n.notes.append(f"{key}: {_short(value)}")
            self.report(n.ptr, "keyword_removed", f"unsupported keyword {key} removed", key)

    def _properties(self, n: _Node) -> None:
        s, ptr = n.s, n.ptr
        props = s.get("properties")
        if isinstance(props, dict):
            s["properties"] = {
                k: self.node(v, _pointer(ptr, "properties", k)) for k, v in props.items()
            }
            required = s.get("required")
            if isinstance(required, list):
                kept = [r for r in required if r in props]
                if len(kept) != len(required):
                    self.report(ptr, "required_pruned", "required names without a property")
                s["required"] = kept
        elif "properties" in s:
            del s["properties"]

    def _items(self, n: _Node) -> None:
        s, ptr = n.s, n.ptr
        items = s.get("items")
        if isinstance(items, dict) and items:
            s["items"] = self.node(items, _pointer(ptr, "items"))
        elif isinstance(items, list) and items:  # draft-4 tuple form
            s["items"] = self.node({"anyOf": items}, _pointer(ptr, "items"))
            self.report(ptr, "keyword_converted", "tuple items replaced by anyOf", "items")
        else:
            # Gemini fails the request for an array without items (QUIRKS H3).
            s["items"] = {"type": "STRING"}
            n.notes.append("items: any value")
            self.report(ptr, "items_added", "array without items given string items")

    def _inline(self, ref: str, siblings: dict[str, Any], ptr: str) -> dict[str, Any]:
        if ref in self._inlining:
            # Recursive model: Gemini has no references, so the recursion is cut here.
            self.report(ptr, "ref_cut", f"recursive $ref {ref} cut to an untyped object")
            out = self.node({k: v for k, v in siblings.items() if k not in _SILENT}, ptr)
            out.setdefault("type", "OBJECT")
            return out
        target = resolve_ref(self.root, ref)
        self._inlining.append(ref)
        try:
            # The definition is walked at its own pointer (reported once however often it is
            # used); keywords next to the $ref (a field's description) win over the target's.
            inlined = self.node(target, ref if ref.startswith("#") else ptr)
            extra = self.node(siblings, ptr) if siblings else {}
        finally:
            self._inlining.pop()
        return {**inlined, **extra}

    def _merge_all_of(self, s: dict[str, Any], branches: list[Any], ptr: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for branch in branches:
            part = branch
            if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
                siblings = {k: v for k, v in branch.items() if k != "$ref"}
                part = {**resolve_ref(self.root, branch["$ref"]), **siblings}
            if not isinstance(part, dict):
                continue
            for key, value in part.items():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
                else:
                    merged.setdefault(key, value)
        if len(branches) > 1:
            self.report(ptr, "allof_merged", "allOf branches merged into one schema", "allOf")
        return {**merged, **s}


def gemini_openapi_schema(
    schema: dict[str, Any], tool_name: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Rewrite a tool's parameters schema into the OpenAPI subset of Gemini's ``parameters``.

    Args:
        schema: The parameters schema (a JSON Schema of ``type: object``; not modified).
        tool_name: Named in diagnostics and errors.

    Returns:
        The new schema and one ``schema_rewritten`` diagnostic per lossy rewrite.

    Raises:
        ToolDefinitionError: A ``$ref`` that is not local or does not resolve.
    """
    walker = _Walker(schema, tool_name)
    result = walker.node(schema, "#")
    if result.get("type") not in (None, "OBJECT"):
        raise ToolDefinitionError(f"{tool_name!r}: the parameters schema is not an object")
    result.setdefault("type", "OBJECT")
    return result, walker.diagnostics
