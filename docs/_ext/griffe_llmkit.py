"""A griffe extension for the docs site: llmkit's docstrings, written for ``help()`` and
Sphinx-style readers, rendered as Markdown by mkdocstrings.

llmkit's docstrings are Google style (``Args:``, ``Returns:``, ``Raises:``, ``Attributes:``,
which mkdocstrings reads as they are) with a little reStructuredText in the prose:

- roles such as ``:class:`~llmkit.Timeouts``` and ``:func:`stream``` become cross-references
  to the reference entry of the public name they mean (``[`Timeouts`][llmkit.Timeouts]``), or
  plain code when they name something private (``:mod:`llmkit._auth```);
- a paragraph ending in ``::`` becomes one ending in ``:``, and the indented block after it a
  fenced code block (Python when it parses as Python, plain text otherwise).

Nothing else is changed, and nothing in ``llmkit/`` is: the source keeps its docstrings, this
only rewrites griffe's copy while the site is built (``mkdocs.yml``: ``extensions``).
"""

from __future__ import annotations

import ast
import importlib
import re
import textwrap
from typing import Any

import griffe

PUBLIC_MODULES = ("llmkit.testing", "llmkit.ui", "llmkit")  # most specific first

_ROLE = re.compile(r":(?:py:)?(class|func|meth|data|attr|exc|mod|obj):`([^`]+)`")
_TITLED = re.compile(r"^(.*?)\s*<([^>]+)>$")  # :meth:`text <target>`


def _public_names() -> dict[str, str]:
    """Each public name, and the dotted path of its reference entry."""
    names: dict[str, str] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            names.setdefault(name, f"{module_name}.{name}")
    return names


class LlmkitDocstrings(griffe.Extension):
    """Rewrites the reStructuredText bits of every loaded docstring into Markdown."""

    def __init__(self) -> None:
        super().__init__()
        self.public = _public_names()

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called by griffe once for every module, class, function and attribute."""
        if obj.docstring is not None:
            obj.docstring.value = self.markdown(obj.docstring.value)

    def markdown(self, text: str) -> str:
        """``text`` with its roles and literal blocks in Markdown."""
        return _literal_blocks(_ROLE.sub(self._role, text))

    def _role(self, match: re.Match[str]) -> str:
        kind, body = match.groups()
        titled = _TITLED.match(body)
        title, target = titled.groups() if titled else (None, body)
        short = target.startswith("~")
        target = target.lstrip("~").lstrip(".")
        if title is None:
            title = target.rsplit(".", 1)[-1] if short else target
            if kind in ("func", "meth"):
                title += "()"
        path = self._resolve(target)
        return f"[`{title}`][{path}]" if path else f"`{title}`"

    def _resolve(self, target: str) -> str | None:
        """The reference path of ``target``, or ``None`` when it names nothing public."""
        for module_name in PUBLIC_MODULES:
            if target.startswith(module_name + "."):
                rest = target[len(module_name) + 1 :]
                head = rest.split(".", 1)[0]
                if self.public.get(head, "").startswith(module_name + "."):
                    return f"{module_name}.{rest}"
                return None
        if target.startswith("llmkit"):  # a private module or one of its names
            return None
        head, _, rest = target.partition(".")
        path = self.public.get(head)
        if path is None:
            return None
        return f"{path}.{rest}" if rest else path


def _literal_blocks(text: str) -> str:
    """reST ``::`` literal blocks as fenced Markdown code blocks."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::"):
            out.append(line)
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        lead = line.rstrip()[:-2].rstrip()
        if lead:
            out.append(lead + ":")
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        block: list[str] = []
        while j < len(lines) and (
            not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
        ):
            block.append(lines[j])
            j += 1
        while block and not block[-1].strip():
            block.pop()
        if not block:
            i += 1
            continue
        code = textwrap.dedent("\n".join(block))
        pad = " " * indent
        out += ["", pad + "```" + _language(code)]
        out += [pad + row if row else "" for row in code.split("\n")]
        out += [pad + "```", ""]
        i = j
    return "\n".join(out)


def _language(code: str) -> str:
    try:
        ast.parse(code)
    except SyntaxError:
        return "text"
    return "python"
