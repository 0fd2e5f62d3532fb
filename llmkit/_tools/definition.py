"""Tool definitions: :class:`Tool`, built from a pydantic model (:func:`tool`) or a plain
function (:func:`tool_from_function`).

A Tool is validated when it is constructed (name pattern, a metaschema-valid JSON Schema of
``type: object``), so a bad definition fails at import time of the caller's module, not when a
provider answers 400. A Tool is generic in its decoded arguments: ``tool(GetWeather)`` is a
``Tool[GetWeather]``, a raw-schema Tool a ``Tool[dict[str, Any]]``, so that
``decode_tool_call(tool, call)`` (in :mod:`.arguments`) is typed to return what it returns.
"""

from __future__ import annotations

import copy
import functools
import inspect
import re
import typing
import warnings
from collections.abc import Callable, Collection
from typing import Any, ClassVar, Generic

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, create_model, model_validator
from pydantic.fields import FieldInfo
from typing_extensions import TypeVar

from .._errors import ToolDefinitionError
from .metaschema import surely_valid

__all__ = ["ArgsT", "Injected", "Tool", "tool", "tool_from_function"]

_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}\Z")  # \Z: "$" would accept a final newline


def check_schema(schema: dict[str, Any]) -> None:
    """``ToolDefinitionError`` unless ``schema`` is a valid JSON Schema (also used for a
    ``response_format`` dict)."""
    if surely_valid(schema):  # exact: see _tools/metaschema.py
        return
    # jsonschema is imported here, not at module import: `import llmkit` stays cheap.
    import jsonschema
    import jsonschema.validators  # the submodule used below, explicitly

    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ToolDefinitionError(f"parameters is not a valid JSON Schema: {e.message}") from None


M = TypeVar("M", bound=BaseModel)
ArgsT = TypeVar("ArgsT", covariant=True, default=dict[str, Any])
"""What ``decode_tool_call`` returns for a ``Tool[ArgsT]``: a model instance, or a dict (the
default, for a raw-schema Tool). Covariant: a ``Tool[GetWeather]`` is a ``Tool[BaseModel]``;
annotate ``Tool[Any]`` to take any tool."""


class Tool(BaseModel, Generic[ArgsT]):
    """A tool the model may call, generic in its decoded arguments (``Tool[GetWeather]``).

    Two tools are equal when their public fields are equal: a tool made from a pydantic model
    equals itself after a JSON round trip, although only the original keeps the model class.

    Attributes:
        name: ``^[a-zA-Z0-9_-]{1,64}$``.
        description: What the tool does, for the model.
        parameters: A JSON Schema of ``type: object`` for the arguments.
        strict: Ask for strict schema adherence where the provider supports it. Refused
            before sending (``InvalidRequestError``) on a model without strict support.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}
    strict: bool = False

    _args_model: type[BaseModel] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _validate(self) -> Tool[ArgsT]:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ToolDefinitionError(f"Tool name {self.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$")
        if self.parameters.get("type") != "object":
            raise ToolDefinitionError(
                f"Tool {self.name!r}: parameters must be a JSON Schema with type 'object'"
            )
        check_schema(self.parameters)
        return self

    def __eq__(self, other: object) -> bool:
        # pydantic's __eq__ also compares private attributes, which would make a Context
        # unequal to its own JSON round trip (the model class does not survive JSON).
        if not isinstance(other, Tool):
            return NotImplemented
        return (self.name, self.description, self.parameters, self.strict) == (
            other.name,
            other.description,
            other.parameters,
            other.strict,
        )

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # parameters is a dict

    @property
    def args_model(self) -> type[BaseModel] | None:
        """The pydantic model this tool was made from, if any (used by ``decode_tool_call``)."""
        return self._args_model


class Injected:
    """Marks a tool-function parameter as supplied by the caller, not by the model.

    Use it as ``Annotated`` metadata; the parameter then has no presence in the tool's schema,
    and executing the function with it is the caller's business::

        def lookup(order_id: str, db: Annotated[Database, llmkit.Injected]) -> str: ...

    ``tool_from_function(fn, exclude=("db",))`` does the same without touching the signature.
    """


def _snake_case(name: str) -> str:
    """``GetWeather`` → ``get_weather``, ``HTTPRequest`` → ``http_request``."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    # Generic models are named like "Page[Item]": keep only what a tool name may hold.
    s = re.sub(r"[^a-zA-Z0-9_-]+", "_", s).strip("_").lower()
    return s[:64]


def _schema_of(model: type[BaseModel], tool_name: str) -> dict[str, Any]:
    try:
        schema = model.model_json_schema()
    except Exception as e:  # ok -- noqa: catch-all: pydantic raises several types; re-raised typed
        raise ToolDefinitionError(
            f"Tool {tool_name!r}: cannot build a JSON Schema for {model.__name__}: {e}"
        ) from e
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and "type" not in schema:
        # A recursive model is emitted as a bare $ref into $defs; providers want the root to
        # be the object itself. The definition stays in $defs for the inner references.
        defs = schema.get("$defs", {})
        schema = {**copy.deepcopy(defs.get(ref[len("#/$defs/") :], {})), "$defs": defs}
    # The top-level title is the class name and the top-level description is the docstring,
    # which already is the tool's description: sending them again only costs tokens.
    schema.pop("title", None)
    schema.pop("description", None)
    return schema


def tool(
    args_model: type[M],
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
) -> Tool[M]:
    """Make a :class:`Tool` from a pydantic model of its arguments.

    Args:
        args_model: The arguments model. Field descriptions (``Field(description=...)``),
            constraints and nested models (kept under ``$defs``) go into the schema.
        name: The tool name; defaults to the class name in snake_case (``GetWeather`` →
            ``get_weather``).
        description: Defaults to the class docstring (cleaned), or ``""`` when it has none.
        strict: Ask for strict schema adherence where the provider supports it.

    Returns:
        A Tool that keeps ``args_model``, so ``decode_tool_call(tool, call)`` returns an
        instance of it.

    Raises:
        ToolDefinitionError: ``args_model`` is not a pydantic model, the name is invalid, or
            no valid JSON Schema can be made from the model.
    """
    if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
        raise ToolDefinitionError(f"tool() needs a pydantic model class, got {args_model!r}")
    tool_name = name if name is not None else _snake_case(args_model.__name__)
    if description is None:
        doc = args_model.__doc__
        # A model without a docstring may still inherit BaseModel's: never send that.
        description = inspect.cleandoc(doc) if doc and doc != BaseModel.__doc__ else ""
    t: Tool[M] = Tool(
        name=tool_name,
        description=description,
        parameters=_schema_of(args_model, tool_name),
        strict=strict,
    )
    t._args_model = args_model
    return t


# Compiled by the first tool_from_function, not at import: every process that builds a request
# imports this module, and compiling them cost it ~2.8M instructions.
_SECTION = (
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Examples?|Notes?|Attributes|See Also|Warnings?|Todo|"
    r"References)\s*:\s*$"
)
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
_ARG = r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$"


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (summary, {parameter: description})."""
    if not doc:
        return "", {}
    summary: list[str] = []
    params: dict[str, list[str]] = {}
    section: str | None = None
    section_indent = entry_indent = 0
    current: str | None = None
    section_header, argument = re.compile(_SECTION), re.compile(_ARG)
    for line in inspect.cleandoc(doc).splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = section_header.match(stripped)
        if header and (section is None or indent <= section_indent):
            section, section_indent, current = header.group(1).lower(), indent, None
            entry_indent = -1
            continue
        if section is None:
            summary.append(line)
            continue
        if not stripped or section not in _PARAM_SECTIONS:
            continue
        if indent <= section_indent:  # dedented text ends the section
            section, current = "", None
            continue
        if entry_indent < 0:
            entry_indent = indent
        arg = argument.match(stripped) if indent <= entry_indent else None
        if arg:
            current = name = arg.group(1)  # name: a str ((\w+) always matches), current may be None
            params[name] = [arg.group(2)]
        elif current is not None:  # a continuation line of a multi-line description
            params[current].append(stripped)
    described = {k: " ".join(p for p in v if p).strip() for k, v in params.items()}
    return "\n".join(summary).strip(), {k: v for k, v in described.items() if v}


def _is_injected(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return any(m is Injected or isinstance(m, Injected) for m in annotation.__metadata__)
    if origin is typing.Union:  # Python 3.10's get_type_hints: Optional[...] when default None
        return any(_is_injected(arg) for arg in typing.get_args(annotation))
    return False


def _has_description(annotation: Any, default: Any) -> bool:
    if isinstance(default, FieldInfo) and default.description:
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)
    return False


def _type_hints(fn: Callable[..., Any], skip: Collection[str]) -> dict[str, Any]:
    target: Any = fn.func if isinstance(fn, functools.partial) else fn
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = target.__call__  # a callable object: its __call__ holds the annotations
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as first:  # ok -- noqa: catch-all: evaluating the caller's annotations
        if not skip:
            raise ToolDefinitionError(
                f"cannot resolve the annotations of {fn!r}: {first}"
            ) from first
    # The failing annotation may belong to an excluded parameter (a type imported only under
    # TYPE_CHECKING, say): resolve the others alone.
    raw = dict(getattr(inspect.unwrap(target), "__annotations__", {}))

    def shim() -> None: ...

    shim.__annotations__ = {k: v for k, v in raw.items() if k not in skip}
    globalns = getattr(inspect.unwrap(target), "__globals__", {})
    try:
        return typing.get_type_hints(shim, globalns=globalns, include_extras=True)
    except Exception as e:  # ok -- noqa: catch-all: evaluating the caller's annotations
        raise ToolDefinitionError(f"cannot resolve the annotations of {fn!r}: {e}") from e


def tool_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
    exclude: Collection[str] = (),
) -> Tool[BaseModel]:
    """Make a :class:`Tool` from a function's signature and Google-style docstring.

    Each parameter becomes a property: its annotation gives the type (``Optional``, ``list``,
    ``dict``, nested pydantic models and ``Annotated[..., Field(...)]`` all work), its default
    makes it optional, and its entry in the docstring's ``Args:`` section its description.
    Async functions work the same way. llmkit never calls ``fn``: executing the tool is the
    caller's business.

    Args:
        fn: The function (or a method, a ``functools.partial``, a callable object).
        name: The tool name; defaults to ``fn.__name__``.
        description: Defaults to the docstring's summary: the text before its first section
            (``Args:``, ``Returns:``, ``Raises:`` ...).
        strict: Ask for strict schema adherence where the provider supports it.
        exclude: Parameters the caller supplies (a database handle, the user id ...): they
            have no presence in the schema. Parameters annotated ``Annotated[T, Injected]``
            are excluded too.

    Returns:
        A Tool that keeps the generated arguments model, so ``decode_tool_call(tool, call)``
        returns an instance of it (``fn(**dict(args))`` then calls the function).

    Raises:
        ToolDefinitionError: ``*args``/``**kwargs``, a parameter without an annotation, an
            ``exclude`` entry that names no parameter, an invalid name, or an annotation
            without a JSON Schema.
    """
    tool_name = name if name is not None else getattr(fn, "__name__", "")
    if not _NAME.match(tool_name):
        raise ToolDefinitionError(
            f"Tool name {tool_name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$; pass name=..."
        )
    if isinstance(exclude, str):  # exclude="db" means the parameter, not the letters d and b
        exclude = (exclude,)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise ToolDefinitionError(f"cannot read the signature of {fn!r}: {e}") from e
    unknown = set(exclude) - set(signature.parameters)
    if unknown:
        raise ToolDefinitionError(
            f"Tool {tool_name!r}: exclude names no parameter: {', '.join(sorted(unknown))}"
        )
    hints = _type_hints(fn, exclude)
    summary, arg_docs = _parse_docstring(inspect.getdoc(_documented(fn)))
    args_model = _arguments_model(
        tool_name, _fields(tool_name, signature, hints, arg_docs, exclude)
    )
    t: Tool[BaseModel] = Tool(
        name=tool_name,
        description=summary if description is None else description,
        parameters=_schema_of(args_model, tool_name),
        strict=strict,
    )
    t._args_model = args_model
    return t


def _documented(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Where ``fn``'s documentation is: a ``functools.partial``'s own docstring describes
    ``partial``, not the tool, so its wrapped function's is read."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _fields(
    tool_name: str,
    signature: inspect.Signature,
    hints: dict[str, Any],
    arg_docs: dict[str, str],
    exclude: Collection[str],
) -> dict[str, Any]:
    """The arguments model's fields: one per parameter the model supplies."""
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"Tool {tool_name!r}: *args/**kwargs ({param}) cannot be described to a model; "
                "name each argument"
            )
        if pname in exclude or _is_injected(hints.get(pname)):
            continue
        if pname not in hints:
            raise ToolDefinitionError(
                f"Tool {tool_name!r}: parameter {pname!r} has no type annotation; annotate it "
                "(Any is allowed) or exclude it"
            )
        if pname.startswith("_"):
            # pydantic would silently make it a private attribute, not a field.
            raise ToolDefinitionError(
                f"Tool {tool_name!r}: parameter {pname!r} starts with '_'; rename or exclude it"
            )
        annotation = hints[pname]
        default = ... if param.default is param.empty else param.default
        doc = arg_docs.get(pname)
        if doc and not _has_description(annotation, default):
            annotation = typing.Annotated[annotation, Field(description=doc)]
        fields[pname] = (annotation, default)
    return fields


def _arguments_model(tool_name: str, fields: dict[str, Any]) -> type[BaseModel]:
    model_name = "".join(p.capitalize() for p in tool_name.split("_")) or "Arguments"
    try:
        with warnings.catch_warnings():
            # A parameter named like a BaseModel attribute ("json", "copy") only shadows it
            # on the generated class, which nobody calls those methods on.
            warnings.filterwarnings(
                "ignore", message=".*shadows an attribute", category=UserWarning
            )
            return create_model(
                model_name, __config__=ConfigDict(protected_namespaces=()), **fields
            )
    except Exception as e:  # ok -- noqa: catch-all: pydantic refuses some names, types; re-raised
        raise ToolDefinitionError(
            f"Tool {tool_name!r}: cannot build an arguments model: {e}"
        ) from e
