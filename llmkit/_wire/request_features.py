"""What every request builder needs for the production features (docs/design.md §5), once.

- :func:`output_schema`: the name and JSON Schema of ``response_format`` (a pydantic model class
  or a schema);
- :func:`forced_choice`: ``tool_choice`` for a model that cannot be forced to call a tool
  (``Model.forced_tool_choice``): downgraded to ``"auto"``, reported;
- :func:`function_tools` / :func:`provider_tools`: ``Context.tools`` split into function tools
  and the provider-hosted tools of the target wire (the others left out, reported);
- documents: :func:`reads_pdf`, :func:`omit_document` (the placeholder and ``document_omitted``),
  :func:`document_text` (a text document as text, for wires without a text-document block) and
  :func:`filename` (the name OpenAI needs with ``file_data``).

Every change is a diagnostic appended to the builder's list; nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .._diagnostics import Diagnostic
from .._documents import DocumentPart
from .._errors import InvalidRequestError
from .._messages import Context, TextPart
from .._models import Model
from .._tools.definition import Tool
from .._tools.provider import ProviderTool
from .contract import Options

__all__ = [
    "DOCUMENT_PLACEHOLDER",
    "document_text",
    "filename",
    "forced_choice",
    "function_tools",
    "omit_document",
    "output_schema",
    "provider_tools",
    "reads_pdf",
    "result_text",
    "unsupported",
]


DOCUMENT_PLACEHOLDER = "[document omitted: {why}]"
_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def unsupported(diags: list[Diagnostic], option: str, why: str, **details: Any) -> None:
    """Report an option (or part of one) that was not sent as given."""
    diags.append(
        Diagnostic(
            kind="option_unsupported",
            message=f"{option} was not sent as given: {why}",
            details={"option": option, **details},
        )
    )


def output_schema(fmt: Any, diags: list[Diagnostic] | None) -> tuple[str, dict[str, Any]]:
    """The name and JSON Schema of ``response_format``.

    The name is the model class's name or the schema's ``title`` (else ``"response"``), made to
    fit OpenAI's ``^[a-zA-Z0-9_-]{1,64}$`` (a rewrite is reported as ``schema_rewritten`` to
    ``diags``; ``None`` for a wire that sends no name).

    Raises:
        InvalidRequestError: ``fmt`` is neither a pydantic model class nor a JSON schema dict.
    """
    from pydantic import BaseModel

    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        name, schema = fmt.__name__, fmt.model_json_schema()
    elif isinstance(fmt, dict):
        name, schema = str(fmt.get("title") or "response"), fmt
    else:
        raise InvalidRequestError("response_format must be a pydantic model class or a JSON schema")
    fitted = _NAME.sub("_", name)[:64] or "response"
    if fitted != name and diags is not None:
        diags.append(
            Diagnostic(
                kind="schema_rewritten",
                message=f"The response_format name {name[:80]!r} was sent as {fitted!r}",
                details={"tool": "response_format", "path": "#", "change": "name_sanitized"},
            )
        )
    return fitted, schema


def forced_choice(model: Model, opts: Options, diags: list[Diagnostic]) -> Any:
    """``tool_choice`` as this model can take it: a forced choice (``"required"`` or a named
    tool) to a model that refuses one (``forced_tool_choice=False``) becomes ``"auto"``."""
    choice = opts.tool_choice
    forced = choice == "required" or isinstance(choice, dict)
    if forced and not model.forced_tool_choice:
        unsupported(
            diags,
            "tool_choice",
            f"{model.id} cannot be forced to call a tool (it answers 400); sent 'auto'",
            sent="auto",
        )
        return "auto"
    return choice


def function_tools(context: Context) -> list[Tool]:
    """The function tools of ``context``, in order."""
    return [t for t in context.tools if isinstance(t, Tool)]


def provider_tools(context: Context, model: Model, diags: list[Diagnostic]) -> list[dict[str, Any]]:
    """The specs of the provider-hosted tools for ``model.api``, verbatim and in order; every
    ProviderTool for another wire is left out and reported."""
    specs: list[dict[str, Any]] = []
    for t in context.tools:
        if not isinstance(t, ProviderTool):
            continue
        if t.api == model.api:
            specs.append(t.spec)
        else:
            unsupported(
                diags,
                "tools",
                f"a provider tool for {t.api} was left out: {model.api} cannot run it",
                api=t.api,
                spec_type=t.spec.get("type"),
            )
    return specs


def reads_pdf(model: Model) -> bool:
    """Whether the model reads PDF documents (``"pdf"`` in ``Model.input``)."""
    return "pdf" in model.input


def omit_document(
    diags: list[Diagnostic], model: Model, doc: DocumentPart, why: str | None = None
) -> str:
    """Report a document not sent (``document_omitted``) and return its placeholder text."""
    reason = why or f"{model.id} cannot read PDF documents"
    diags.append(
        Diagnostic(
            kind="document_omitted",
            message=f"A document was replaced by a placeholder: {reason}",
            details={"title": doc.title, "source": "url" if doc.url is not None else "data"},
        )
    )
    return DOCUMENT_PLACEHOLDER.format(why=reason)


def document_text(doc: DocumentPart) -> str:
    """A text document as plain text (its title as a first line), for wires that have no
    text-document block."""
    assert doc.text is not None
    return f"{doc.title}\n\n{doc.text}" if doc.title else doc.text


def result_text(parts: Sequence[Any]) -> str:
    """A tool result's text: its text parts joined, then each text document after a blank
    line (for a wire whose result is one string)."""
    text = "".join(p.text for p in parts if isinstance(p, TextPart))
    for p in parts:
        if isinstance(p, DocumentPart) and p.text is not None:
            text = f"{text}\n\n{document_text(p)}" if text else document_text(p)
    return text


def filename(doc: DocumentPart) -> str:
    """The ``filename`` OpenAI needs with ``file_data``: the title, else ``document.pdf``."""
    return doc.title or "document.pdf"


# -- OpenAI prompt caching (Chat Completions and Responses share the fields) ------------------


def openai_cache(
    body: dict[str, Any], model: Model, opts: Options, diags: list[Diagnostic]
) -> None:
    """``cache`` and ``cache_key`` on an OpenAI wire: ``prompt_cache_key``,
    ``prompt_cache_retention: "24h"`` for ``"long"``, and for ``"off"`` ``prompt_cache_options:
    {"mode": "explicit"}`` (with no breakpoint, nothing is cached) on models that have it.
    ``"short"`` is OpenAI's automatic prefix caching: nothing to send. What a server or model
    cannot take is reported."""
    takes_fields = getattr(model.compat, "supports_prompt_cache", False)  # both OpenAI wires
    if opts.cache_key is not None:
        if takes_fields:
            body["prompt_cache_key"] = opts.cache_key
        else:
            unsupported(diags, "cache_key", f"{model.provider} takes no prompt_cache_key")
    if opts.cache == "long":
        if model.long_cache if model.long_cache is not None else takes_fields:
            body["prompt_cache_retention"] = "24h"
        else:
            unsupported(diags, "cache='long'", f"{model.id} has no extended prompt-cache retention")
    elif opts.cache == "off":
        if model.cache_points:
            body["prompt_cache_options"] = {"mode": "explicit"}
        else:
            unsupported(
                diags,
                "cache='off'",
                "this server caches prompt prefixes automatically; it cannot be turned off",
            )


class Breakpoints:
    """CachePoints on an OpenAI wire: ``prompt_cache_breakpoint`` on the content part before
    each, on models with explicit breakpoints (``Model.cache_points``); other models cache
    prefixes automatically and ignore them. ``cache="off"`` sends none (reported)."""

    def __init__(self, model: Model, opts: Options, diags: list[Diagnostic]) -> None:
        self.explicit = model.cache_points
        self.off = opts.cache == "off"
        self.mark: dict[str, Any] = {"mode": "explicit"}
        if opts.cache == "long":
            self.mark["ttl"] = "12h"  # the longest breakpoint lifetime the types define
        self.diags = diags
        self.dropped = 0

    def after(self, parts: list[dict[str, Any]]) -> None:
        """A CachePoint after ``parts`` (the content parts of its message so far)."""
        if not self.explicit:
            return
        if self.off or not parts:
            self.dropped += 1
            return
        parts[-1]["prompt_cache_breakpoint"] = dict(self.mark)

    def report(self) -> None:
        """Report the cache points that could not be sent (once per request)."""
        if self.dropped:
            why = "cache='off'" if self.off else "no content part before it in its message"
            unsupported(self.diags, "CachePoint", why, dropped=self.dropped)


# -- token counting ---------------------------------------------------------------------------


def counting_body(
    body: dict[str, Any],
    accepted: frozenset[str],
    defaults: frozenset[str],
    diags: list[Diagnostic],
) -> dict[str, Any]:
    """``body`` (the call's own body) with only the fields a counting endpoint takes. Fields
    llmkit adds by itself (``defaults``: ``stream``, ``store``, ...) go silently; anything else
    left out came from the caller's options and is reported (``option_unsupported``)."""
    dropped = [k for k in body if k not in accepted and k not in defaults]
    if dropped:
        unsupported(
            diags,
            ", ".join(dropped),
            "the counting endpoint counts input only and takes no such field",
            fields=dropped,
        )
    return {k: v for k, v in body.items() if k in accepted}
