"""The docs site (``mkdocs.yml``, ``docs/``): every public name has a reference entry, every
diagnostic kind is documented, and every code example of the guides runs as shown.

The guides' code is checked the way a reader runs it:

- every fenced ``python`` block of a page in ``RUN`` runs, in order, in one namespace per page
  (a later block may use what an earlier one defined), against llmkit's fake provider; a
  block whose fence is preceded by ``<!-- not run: <reason> -->`` is skipped (it needs a real
  key, say), and the reason is required;
- a ``text`` block right after a python block (titled "Output" on the site) is that block's
  output, checked exactly;
- in ``console`` blocks (``cli.md``), each ``$ command`` runs in a shell (in an empty
  temporary directory, one per block, the test's Python first on ``PATH``) and the lines after
  it, up to the next ``$``, are its output (stdout then stderr), checked exactly.

``mkdocs build --strict`` itself (broken links, missing references) runs in ``.ci/run``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import typing
from dataclasses import dataclass
from pathlib import Path

import pytest

import llmkit
import llmkit.testing
import llmkit.ui

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"

RUN = (
    "index.md",
    "quickstart.md",
    "tool-loop.md",
    "streaming.md",
    "providers.md",
    "errors.md",
    "diagnostics.md",
    "testing.md",
    "cli.md",
    "structured-output.md",
    "prompt-caching.md",
    "documents.md",
    "hosted-tools.md",
    "token-counting.md",
    "mcp.md",
)
"""The guides whose examples run here (the other pages' examples are shown, not run: they
need a cloud account, a web server or httpx2)."""

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w-]*)(?P<rest>.*)$")
_NOT_RUN = re.compile(r"^\s*<!-- not run: (?P<reason>.+?) -->\s*$")


@dataclass
class Block:
    lang: str
    code: str
    line: int  # 1-based line of the opening fence
    skipped: str | None  # the reason given in a "not run" comment
    follows: Block | None = None  # the block right before this one, with only blanks between


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, dedented to their fence."""
    lines = path.read_text("utf-8").split("\n")
    found: list[Block] = []
    i = 0
    last_end = -2  # the line index of the previous block's closing fence
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence = len(match["indent"]), match["fence"]
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[i + 1 : j]]
        previous = next((k for k in range(i - 1, -1, -1) if lines[k].strip()), None)
        skipped = None
        if previous is not None and (m := _NOT_RUN.match(lines[previous])):
            skipped = m["reason"]
        block = Block(match["lang"], "\n".join(body) + "\n", i + 1, skipped)
        if found and all(not line.strip() for line in lines[last_end + 1 : i]):
            block.follows = found[-1]
        found.append(block)
        last_end = j
        i = j + 1
    return found


# ----------------------------------------------------------------------------- the reference


def reference_entries() -> list[str]:
    """Every ``::: path`` line of the reference pages."""
    entries = []
    for page in sorted(REFERENCE.glob("*.md")):
        entries += re.findall(r"^::: ([\w.]+)\s*$", page.read_text("utf-8"), re.MULTILINE)
    return entries


def public_names() -> list[str]:
    names = [f"llmkit.{n}" for n in llmkit.__all__]
    names += [f"llmkit.testing.{n}" for n in llmkit.testing.__all__]
    names += [f"llmkit.ui.{n}" for n in llmkit.ui.__all__]
    return names


def test_every_public_name_has_a_reference_entry() -> None:
    missing = sorted(set(public_names()) - set(reference_entries()))
    assert missing == [], (
        f"no reference entry for {missing}: add a '::: <name>' line to the page of "
        "docs/reference/ where it belongs"
    )


def test_every_reference_entry_is_a_public_name_once() -> None:
    entries = reference_entries()
    assert sorted(set(entries) - set(public_names())) == []  # no private or stale entry
    assert len(entries) == len(set(entries))


def test_every_reference_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text("utf-8")
    for page in REFERENCE.glob("*.md"):
        assert f"reference/{page.name}" in nav, page.name


# ----------------------------------------------------------------------------- diagnostics


def test_every_diagnostic_kind_is_documented() -> None:
    text = (DOCS / "diagnostics.md").read_text("utf-8")
    documented = re.findall(r"^### `(\w+)`$", text, re.MULTILINE)
    kinds = list(typing.get_args(llmkit.DiagnosticKind))
    assert sorted(set(kinds) - set(documented)) == [], "undocumented diagnostic kinds"
    assert sorted(set(documented) - set(kinds)) == [], "documented kinds that do not exist"
    assert len(documented) == len(set(documented))


def test_every_diagnostic_section_shows_its_kind_arising() -> None:
    """Each kind's section holds a run example that names the kind it produces."""
    text = (DOCS / "diagnostics.md").read_text("utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)[1:]
    for section in sections:
        kind = section.split("`")[1]
        examples = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
        assert any(kind in code for code in examples), f"{kind}: no example shows it"


# ----------------------------------------------------------------------------- the guides


def test_the_run_pages_are_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text("utf-8")
    for page in RUN:
        assert f": {page}" in nav, page


def _run_python(page: str, block: Block, namespace: dict[str, object]) -> str:
    out = io.StringIO()
    code = compile(block.code, f"docs/{page}:{block.line}", "exec")
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    return out.getvalue()


def _close_fakes(namespace: dict[str, object]) -> None:
    for value in namespace.values():
        if isinstance(value, llmkit.testing.FakeProvider):
            value.close()


@pytest.mark.parametrize("page", RUN)
def test_guide_examples_run_as_shown(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):  # no example may reach a real provider
        if name.endswith(("_API_KEY", "_BEDROCK")) or name.startswith(("AWS_", "GOOGLE_")):
            monkeypatch.delenv(name)
    found = blocks(DOCS / page)
    ran: dict[int, str] = {}  # python block line -> its output
    namespace: dict[str, object] = {"__name__": "__docs__"}
    try:
        for block in found:
            if block.lang == "python" and block.skipped is None:
                ran[block.line] = _run_python(page, block, namespace)
            elif block.lang == "text" and block.follows and block.follows.line in ran:
                shown = block.code.rstrip("\n")
                printed = ran[block.follows.line].rstrip("\n")
                assert printed == shown, f"docs/{page}:{block.line}: output differs"
            elif block.lang == "console" and block.skipped is None:
                _run_console(page, block)
    finally:
        _close_fakes(namespace)
    assert ran or any(b.lang == "console" for b in found), f"{page} runs no example"


def test_not_run_blocks_say_why() -> None:
    for page in RUN:
        text = (DOCS / page).read_text("utf-8")
        for comment in re.findall(r"<!-- not run.*?-->", text):
            assert _NOT_RUN.match(comment), f"{page}: {comment}"


def _run_console(page: str, block: Block) -> None:
    with tempfile.TemporaryDirectory() as cwd:
        _run_commands(page, block, Path(cwd))


def test_console_examples_leave_the_working_directory_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cli.md's commands write files (``> capture.sse``): into a temporary directory only."""
    monkeypatch.chdir(tmp_path)
    writing = [b for b in blocks(DOCS / "cli.md") if b.lang == "console" and " > " in b.code]
    assert writing, "cli.md has no command writing a file: this test checks nothing"
    for block in writing:
        _run_console("cli.md", block)
    assert list(tmp_path.iterdir()) == []


def _run_commands(page: str, block: Block, cwd: Path) -> None:
    commands: list[tuple[str, list[str]]] = []
    for line in block.code.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["OPENAI_API_KEY"] = "sk-docs-example"  # for `llmkit request`, which never sends it
    env["PYTHONIOENCODING"] = "utf-8"
    env["COLUMNS"] = "100"
    for command, expected in commands:
        result = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {command}"],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
        )
        printed = (result.stdout + result.stderr).rstrip("\n")
        where = f"docs/{page}:{block.line}: $ {command}"
        assert printed == "\n".join(expected).rstrip("\n"), where


def test_the_pytest_example_passes(tmp_path: Path) -> None:
    """The pytest module of testing.md, run by pytest with llmkit's plugin, passes."""
    (example,) = [b for b in blocks(DOCS / "testing.md") if b.skipped and "pytest" in b.skipped]
    (tmp_path / "test_example.py").write_text(example.code, "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)  # the fixture comes from the entry point
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout, result.stdout
