"""Anthropic structured outputs: the JSON Schema ``output_config.format.schema`` accepts.

After anthropic-python's ``lib/_parse/_transform.py`` (``transform_schema``, QUIRKS H5), which
is what the SDK sends for ``output_format=Model``: ``required`` is kept (unlike OpenAI strict
mode, optional properties stay optional), ``oneOf`` becomes ``anyOf``, every object gets
``additionalProperties: false``, string formats are whitelisted, ``minItems`` is kept only as 0
or 1, and every other keyword (``minimum``, ``maxLength``, ``pattern``, ``default``, an
unsupported ``format``, …) is moved into the ``description`` as text, so the model may still
follow it. ``$defs`` and ``$ref`` are kept.

Every lossy step is a ``schema_rewritten`` diagnostic (``details``: ``tool`` =
``"response_format"``, ``path`` = a JSON Pointer into the input schema, ``change``). A node that
says nothing about its type (``{}``) cannot be expressed: ``InvalidRequestError``.
"""

from __future__ import annotations

import json
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import InvalidRequestError

__all__ = ["anthropic_output_schema"]

_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
_CHANGES = {
    "one_of_to_any_of": "oneOf was sent as anyOf",
    "additional_properties_false": "additionalProperties was set to false",
    "keyword_to_description": "an unsupported keyword was moved into the description",
    "dropped_next_to_ref": "a keyword next to $ref was not sent",
}


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _pointer(parent: str, key: str | int) -> str:
    return parent + "/" + str(key).replace("~", "~0").replace("/", "~1")


class _Transform:
    def __init__(self, name: str) -> None:
        self.name = name
        self.diags: list[Diagnostic] = []

    def report(self, path: str, change: str, **details: Any) -> None:
        self.diags.append(
            Diagnostic(
                kind="schema_rewritten",
                message=f"{self.name}: {path}: {_CHANGES[change]}",
                details={"tool": self.name, "path": path, "change": change, **details},
            )
        )

    def node(self, schema: Any, path: str) -> dict[str, Any]:
        if not isinstance(schema, dict):
            raise InvalidRequestError(
                f"{self.name}: {path} is not a schema object; Anthropic cannot take it"
            )
        rest = dict(schema)
        out: dict[str, Any] = {}
        defs = rest.pop("$defs", None)
        if isinstance(defs, dict):
            out["$defs"] = {
                k: self.node(v, _pointer(_pointer(path, "$defs"), k)) for k, v in defs.items()
            }
        ref = rest.pop("$ref", None)
        if ref is not None:
            out["$ref"] = ref
            # What sits next to a $ref is not sent (as the SDK does): said, not silently lost.
            for key in rest:
                self.report(_pointer(path, key), "dropped_next_to_ref", keyword=key)
            return out
        type_ = rest.pop("type", None)
        any_of, one_of, all_of = (
            rest.pop("anyOf", None),
            rest.pop("oneOf", None),
            rest.pop("allOf", None),
        )
        enum = rest.get("enum")
        if isinstance(enum, list) and enum and all(_primitive(v) for v in enum):
            out["enum"] = list(rest.pop("enum"))
        if "const" in rest and _primitive(rest["const"]):
            out["const"] = rest.pop("const")
        literals = "enum" in out or "const" in out
        if literals:
            type_ = None  # the values say it
        if isinstance(any_of, list):
            out["anyOf"] = [
                self.node(v, _pointer(_pointer(path, "anyOf"), i)) for i, v in enumerate(any_of)
            ]
        elif isinstance(one_of, list):
            self.report(_pointer(path, "oneOf"), "one_of_to_any_of")
            out["anyOf"] = [
                self.node(v, _pointer(_pointer(path, "oneOf"), i)) for i, v in enumerate(one_of)
            ]
        elif isinstance(all_of, list):
            out["allOf"] = [
                self.node(v, _pointer(_pointer(path, "allOf"), i)) for i, v in enumerate(all_of)
            ]
        elif not literals:
            if type_ is None:
                raise InvalidRequestError(
                    f"{self.name}: {path} says nothing about its type; Anthropic structured "
                    "output needs a type, anyOf/oneOf/allOf, const or enum on every schema"
                )
            out["type"] = type_
        for key in ("description", "title"):
            if key in rest:
                out[key] = rest.pop(key)
        types = set(type_) if isinstance(type_, list) else {type_}
        if "object" in types:
            props = rest.pop("properties", {})
            out["properties"] = {
                k: self.node(v, _pointer(_pointer(path, "properties"), k))
                for k, v in (props.items() if isinstance(props, dict) else ())
            }
            if rest.pop("additionalProperties", True) is not False:
                self.report(_pointer(path, "additionalProperties"), "additional_properties_false")
            out["additionalProperties"] = False
            if "required" in rest:
                out["required"] = list(rest.pop("required"))
        if "string" in types and "format" in rest and rest["format"] in _FORMATS:
            out["format"] = rest.pop("format")
        if "array" in types:
            if "items" in rest:
                out["items"] = self.node(rest.pop("items"), _pointer(path, "items"))
            if rest.get("minItems") in (0, 1):
                out["minItems"] = rest.pop("minItems")
        if rest:  # what Anthropic does not take: kept as text the model may follow
            for key in rest:
                self.report(_pointer(path, key), "keyword_to_description", keyword=key)
            note = (
                "{"
                + ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in rest.items())
                + "}"
            )
            description = out.get("description")
            out["description"] = (
                f"{description}\n\n{note}" if isinstance(description, str) else note
            )
        return out


def anthropic_output_schema(
    schema: dict[str, Any], name: str = "response_format"
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The schema for ``output_config.format`` and the diagnostics of what was rewritten.

    Raises:
        InvalidRequestError: A part of the schema Anthropic cannot express (see the module).
    """
    transform = _Transform(name)
    return transform.node(schema, "#"), transform.diags
