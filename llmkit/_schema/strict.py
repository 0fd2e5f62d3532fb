"""Pure JSON-Schema transforms: the per-provider dialects request builders apply to tool
parameters, and the small schema lookups ``decode_tool_call`` needs.

Every function here takes a schema and returns a new one; none mutates its input, none does
I/O. Every lossy rewrite is reported as a ``schema_rewritten`` :class:`Diagnostic` whose
``details`` hold ``tool``, ``path`` (a JSON Pointer into the *input* schema, ``#`` for the
root) and ``change`` (a stable code). A schema that cannot be rewritten at all is refused
with :class:`ToolDefinitionError` before anything is sent.

Dialects:

* :func:`openai_strict_schema`: OpenAI ``strict: true`` (QUIRKS H1), after openai-python's
  ``to_strict_json_schema``; :func:`strict_incompatibilities` is its check-only twin.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import ToolDefinitionError

__all__ = ["openai_strict_schema", "strict_incompatibilities"]

# Keywords OpenAI strict mode refuses (its structured-outputs guide; the same list as
# pydantic-ai's profiles/openai.py). "discriminator" is pydantic's OpenAPI annotation.
_STRICT_UNSUPPORTED = (
    "minLength",
    "maxLength",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "discriminator",
)
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_LOOKAROUND = re.compile(r"(?<!\\)\(\?<?[=!]")
# A schema node with none of these says nothing about its type (``{}``, ``{"description"}``):
# strict mode cannot constrain decoding to it.
_TYPED = ("type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const")
_MISSING: Any = object()


def _pointer(parent: str, *keys: str | int) -> str:
    for key in keys:
        parent += "/" + str(key).replace("~", "~0").replace("/", "~1")
    return parent


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _copy(node: Any) -> Any:
    # Not copy.deepcopy: it keeps shared sub-dicts shared, and a rewrite of one would then
    # silently rewrite the other (and skip its diagnostics).
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(v) for v in node]
    return node


def resolve_ref(root: dict[str, Any], ref: str) -> dict[str, Any]:
    """Resolve a local ``$ref`` (``#/...``) against ``root``.

    Raises:
        ToolDefinitionError: The reference is not local or does not resolve to a schema.
    """
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise ToolDefinitionError(f"only local $ref are supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise ToolDefinitionError(f"$ref {ref!r} does not resolve")
        node = node[part]
    if not isinstance(node, dict):
        raise ToolDefinitionError(f"$ref {ref!r} does not resolve to a schema object")
    return node


def _types(schema: dict[str, Any]) -> set[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    return {x for x in t if isinstance(x, str)} if isinstance(t, list) else set()


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is True
    if "null" in _types(schema) or None in schema.get("enum", ()) or schema.get("const", 0) is None:
        return True
    return any(_accepts_null(b) for k in ("anyOf", "oneOf") for b in schema.get(k, ()))


def _candidates(root: dict[str, Any], schema: Any, depth: int = 0) -> list[dict[str, Any]]:
    """``schema`` and every schema it defers to ($ref, anyOf/oneOf/allOf), flattened."""
    if not isinstance(schema, dict) or depth > 32:  # depth bounds recursive $refs
        return []
    out = [schema]
    ref = schema.get("$ref")
    if isinstance(ref, str):
        with contextlib.suppress(ToolDefinitionError):  # a lookup, not a validation
            out += _candidates(root, resolve_ref(root, ref), depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key, ()):
            out += _candidates(root, branch, depth + 1)
    return out


def subschemas_at(root: dict[str, Any], path: tuple[str | int, ...]) -> list[dict[str, Any]]:
    """Every schema that may apply to the value at ``path`` (object keys and list indexes)."""
    current = _candidates(root, root)
    for key in path:
        found: list[dict[str, Any]] = []
        for s in current:
            if isinstance(key, str) and isinstance(s.get("properties"), dict):
                found += _candidates(root, s["properties"].get(key))
            if isinstance(key, str) and isinstance(s.get("additionalProperties"), dict):
                found += _candidates(root, s["additionalProperties"])
            if isinstance(key, int):
                prefix = s.get("prefixItems")
                if isinstance(prefix, list) and key < len(prefix):
                    found += _candidates(root, prefix[key])
                else:
                    found += _candidates(root, s.get("items"))
        current = found
    return current


def is_optional_property(root: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """True when ``path`` ends in a declared property that its object does not require."""
    if not path or not isinstance(path[-1], str):
        return False
    key = path[-1]
    return any(
        key in s.get("properties", {}) and key not in s.get("required", ())
        for s in subschemas_at(root, path[:-1])
    )


class _StrictWalker:
    """One pass over a schema for OpenAI strict mode: fixes it (``fix=True``), or only lists
    what stops it from being strict-compatible as is."""

    def __init__(self, root: dict[str, Any], tool: str, *, fix: bool) -> None:
        self.root, self.tool, self.fix = root, tool, fix
        self.diagnostics: list[Diagnostic] = []
        self.problems: list[str] = []  # check mode: every incompatibility
        self.fatal: list[str] = []  # cannot be rewritten: refused in either mode
        self._inlining: list[str] = []

    def _report(self, ptr: str, change: str, done: str, problem: str, **details: Any) -> None:
        """Record one lossy rewrite (``done``), or in check mode the ``problem`` behind it."""
        if not self.fix:
            self.problems.append(f"{ptr}: {problem}")
            return
        self.diagnostics.append(
            Diagnostic(
                kind="schema_rewritten",
                message=f"{self.tool}: {ptr}: {done} (OpenAI strict mode)",
                details={"tool": self.tool, "path": ptr, "change": change, **details},
            )
        )

    def _note(self, schema: dict[str, Any], notes: list[str]) -> None:
        # What strict mode cannot enforce still helps the model: say it in the description
        # (as pydantic-ai does) rather than dropping it silently.
        if notes and self.fix:
            text = ", ".join(notes)
            desc = schema.get("description")
            schema["description"] = f"{desc} ({text})" if desc else text

    def node(self, s: Any, ptr: str, *, is_property: bool = False) -> Any:
        """``s`` (at ``ptr``) in strict mode's subset, each lossy step reported."""
        if not isinstance(s, dict):
            if is_property:
                self.fatal.append(f"{ptr}: a boolean schema has no type")
            return s
        for key in ("$defs", "definitions"):
            defs = s.get(key)
            if isinstance(defs, dict):
                for name in list(defs):
                    defs[name] = self.node(defs[name], _pointer(ptr, key, name))
        unwrapped = self._unwrap(s, ptr, is_property=is_property)
        if unwrapped is not None:
            return unwrapped
        if self.fix and s.get("$ref") in self._inlining and _siblings(s):
            # A recursive model: inlining again would never end; strict mode accepts
            # siblings next to anyOf, so wrap the reference instead.
            s = {"anyOf": [{"$ref": s.pop("$ref")}], **s}
        notes: list[str] = []
        self._default(s, ptr, notes)
        self._unsupported(s, ptr, notes)
        self._note(s, notes)
        if "oneOf" in s:
            self._report(ptr, "oneof_to_anyof", "oneOf replaced by anyOf", "oneOf")
            if self.fix:
                s["anyOf"] = s.pop("oneOf") + s.get("anyOf", [])
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(s.get(key), list):
                s[key] = [self.node(b, _pointer(ptr, key, i)) for i, b in enumerate(s[key])]
        types = _types(s)
        if "object" in types:
            self._object(s, ptr)
        if "array" in types:
            self._array(s, ptr)
        if is_property and not any(k in s for k in _TYPED):
            self.fatal.append(f"{ptr}: no type (Any); strict mode needs a typed schema")
        return s

    def _unwrap(self, s: dict[str, Any], ptr: str, *, is_property: bool) -> Any:
        """The node walked again without its wrapper, when it had one strict mode refuses: a
        ``$ref`` with sibling keywords (inlined), a one-entry ``allOf`` (merged); else None."""
        ref = s.get("$ref")
        siblings = _siblings(s)
        if isinstance(ref, str) and siblings:
            if not self.fix:
                self.problems.append(f"{ptr}: $ref has sibling keywords {siblings}")
            elif ref not in self._inlining:
                # Strict mode refuses siblings next to $ref (a field description, say):
                # unravel the reference, the siblings taking priority (openai-python does so).
                merged = {**_copy(resolve_ref(self.root, ref)), **s}
                del merged["$ref"]
                self._inlining.append(ref)
                try:
                    return self.node(merged, ptr, is_property=is_property)
                finally:
                    self._inlining.pop()
        all_of = s.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            if self.fix:  # a one-entry allOf is just a wrapper: merge it (not lossy)
                rest = {k: v for k, v in s.items() if k != "allOf"}
                return self.node({**all_of[0], **rest}, ptr, is_property=is_property)
            self.problems.append(f"{ptr}: allOf")
        return None

    def _default(self, s: dict[str, Any], ptr: str, notes: list[str]) -> None:
        default = s.get("default", _MISSING)
        if default is _MISSING:
            return
        if self.fix:
            del s["default"]
        if default is not None or not self.fix:
            # A null default on a nullable property loses nothing: null stays null.
            self._report(
                ptr, "default_removed", f"default {_short(default)} removed", "has a default"
            )
            notes.append(f"default: {_short(default)}")

    def _unsupported(self, s: dict[str, Any], ptr: str, notes: list[str]) -> None:
        """Keywords, formats and patterns strict mode refuses: removed, said in a note."""
        for key in _STRICT_UNSUPPORTED:
            if key in s:
                value = s.pop(key) if self.fix else s[key]
                self._report(
                    ptr,
                    "keyword_removed",
                    f"unsupported keyword {key} removed",
                    f"unsupported keyword {key}",
                    keyword=key,
                )
                if key != "discriminator":
                    notes.append(f"{key}: {_short(value)}")
        fmt = s.get("format")
        if isinstance(fmt, str) and fmt not in _STRICT_FORMATS:
            if self.fix:
                del s["format"]
            self._report(
                ptr,
                "keyword_removed",
                f"unsupported format {fmt!r} removed",
                f"unsupported format {fmt!r}",
                keyword="format",
            )
            notes.append(f"format: {fmt}")
        pattern = s.get("pattern")
        if isinstance(pattern, str) and _LOOKAROUND.search(pattern):
            if self.fix:
                del s["pattern"]
            self._report(
                ptr,
                "keyword_removed",
                "pattern with lookaround removed",
                "pattern with lookaround",
                keyword="pattern",
            )
            notes.append(f"pattern: {pattern}")

    def _object(self, s: dict[str, Any], ptr: str) -> None:
        props = s.get("properties")
        extra = s.get("additionalProperties", _MISSING)
        if not isinstance(props, dict):
            if extra not in (_MISSING, False):
                self.fatal.append(f"{ptr}: a free-form object (a dict) cannot be strict")
                return
            props = {}
            if ptr != "#":  # the root of a tool without arguments loses nothing
                self._report(
                    ptr,
                    "object_emptied",
                    "object without properties limited to {}",
                    "object without properties",
                )
            if self.fix:
                s["properties"] = props
        if extra is _MISSING:
            if self.fix:
                s["additionalProperties"] = False
            else:
                self.problems.append(f"{ptr}: additionalProperties is not false")
        elif extra is not False:
            self._report(
                ptr,
                "additional_properties_disallowed",
                "additionalProperties set to false",
                "additionalProperties is not false",
            )
            if self.fix:
                s["additionalProperties"] = False
        required = s.get("required", [])
        for key in list(props):
            sub = _pointer(ptr, "properties", key)
            prop = self.node(props[key], sub, is_property=True)
            if key not in required:
                if not _accepts_null(prop):
                    self._report(
                        sub,
                        "made_required_nullable",
                        "optional property made required and nullable",
                        "not required",
                    )
                    prop = _nullable(prop) if self.fix else prop
                elif not self.fix:
                    self.problems.append(f"{sub}: not required")
            props[key] = prop
        if self.fix:
            s["required"] = list(props)

    def _array(self, s: dict[str, Any], ptr: str) -> None:
        items, prefix = s.get("items", _MISSING), s.get("prefixItems")
        if isinstance(prefix, list):
            s["prefixItems"] = [
                self.node(b, _pointer(ptr, "prefixItems", i), is_property=True)
                for i, b in enumerate(prefix)
            ]
        if isinstance(items, dict) and any(k in items for k in _TYPED):
            s["items"] = self.node(items, _pointer(ptr, "items"), is_property=True)
        elif not isinstance(prefix, list):
            self.fatal.append(f"{ptr}: an array without an item type cannot be strict")


def _siblings(s: dict[str, Any]) -> list[str]:
    """The keywords next to a ``$ref`` (definitions aside)."""
    return [k for k in s if k not in ("$ref", "$defs", "definitions")]


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Let ``schema`` also accept null, in the plainest form OpenAI documents."""
    t = schema.get("type")
    if "enum" not in schema and "const" not in schema:
        if isinstance(t, str):
            return {**schema, "type": [t, "null"]}
        if isinstance(t, list):
            return {**schema, "type": [*t, "null"]}
        if "anyOf" in schema:
            return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    outer: dict[str, Any] = {k: schema[k] for k in ("description", "title") if k in schema}
    inner = {k: v for k, v in schema.items() if k not in outer}
    return {"anyOf": [inner, {"type": "null"}], **outer}


def openai_strict_schema(
    schema: dict[str, Any], tool_name: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Rewrite a tool's parameters schema into OpenAI's strict dialect (QUIRKS H1).

    Every object gets ``additionalProperties: false`` and lists all its properties as
    required; an optional property becomes nullable (null stands for "omitted", and
    ``decode_tool_call`` maps it back to the default); defaults and unsupported keywords
    are removed and restated in the description; ``oneOf`` becomes ``anyOf``; a ``$ref``
    with sibling keywords is unravelled; ``$defs`` are kept.

    Args:
        schema: The parameters schema (not modified).
        tool_name: Named in diagnostics and errors.

    Returns:
        The new schema and one ``schema_rewritten`` diagnostic per lossy rewrite.

    Raises:
        ToolDefinitionError: Something strict mode cannot express at all: a free-form object
            (``dict[str, X]``), an array without an item type, an untyped (``Any``) value.
    """
    root = _copy(schema)
    ref = root.get("$ref")
    if isinstance(ref, str) and "type" not in root:
        # A recursive pydantic model's schema is a bare $ref into $defs; strict mode wants an
        # object at the root. Inlining it loses nothing: $defs stays for the inner references.
        root = {**_copy(resolve_ref(root, ref)), **{k: v for k, v in root.items() if k != "$ref"}}
    walker = _StrictWalker(root, tool_name, fix=True)
    result = walker.node(root, "#")
    if walker.fatal:
        raise ToolDefinitionError(
            f"{tool_name!r} cannot be sent in OpenAI strict mode: " + "; ".join(walker.fatal)
        )
    return result, walker.diagnostics


def strict_incompatibilities(schema: dict[str, Any]) -> list[str]:
    """List what stops ``schema`` from being accepted by OpenAI strict mode as it is.

    The check-only mode of QUIRKS H1: an empty list means the schema can be sent with
    ``strict: true`` unchanged. Each entry is ``"<JSON Pointer>: <problem>"``.
    """
    root = _copy(schema)  # the walk writes back what it visits: keep the input intact
    walker = _StrictWalker(root, "", fix=False)
    walker.node(root, "#")
    if "$ref" in root and "type" not in root:
        walker.problems.insert(0, "#: the root is a $ref, not an object")
    return walker.problems + walker.fatal
