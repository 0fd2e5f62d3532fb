"""MkDocs hooks for the docs site (``mkdocs.yml``: ``hooks``).

The pages in ``docs/`` are read in two places: in the repository, where a link such as
``[benchmarks/README.md](../benchmarks/README.md)`` opens the file, and on the site, which holds
only ``docs/``. On the site, a link to a file of the repository outside ``docs/`` becomes its
path as code, so the reader knows where to look. Only links to files that exist are rewritten:
a link to a missing file is left alone, and ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")
_CODE_FENCE = re.compile(r"^(```|~~~)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Links out of ``docs/`` to repository files, rewritten as the files' paths."""
    docs = Path(config["docs_dir"]).resolve()
    repo = Path(config["config_file_path"]).resolve().parent
    here = (docs / page.file.src_path).parent

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith(("mailto:", "/")):
            return match.group(0)
        path = (here / target).resolve()
        if path.is_relative_to(docs) or not path.is_relative_to(repo) or not path.exists():
            return match.group(0)
        shown = path.relative_to(repo).as_posix() + ("/" if path.is_dir() else "")
        if shown.rstrip("/") in text.strip("`").rstrip("/"):
            return f"`{text.strip('`')}`"
        return f"{text} (`{shown}`)"

    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _CODE_FENCE.match(line.lstrip()):
            fenced = not fenced
        out.append(line if fenced else _LINK.sub(rewrite, line))
    return "\n".join(out)
