"""Citations stay true: the repository carries its own account of every provider quirk it cites.

Code, tests, examples, benchmarks and docs cite rows of ``docs/quirks.md`` by id (``QUIRKS A1``).
These tests check that

* every cited id (and every cited section letter) is a row (a section) of ``docs/quirks.md``,
  and that page has exactly the catalogue's rows, in order;
* every test file a row names under "tested in" exists and cites that row's id;
* nothing cites a file the repository does not have: no catalogue, design or format notes kept
  outside it, no path outside the checkout, and every repo-relative path (``docs/….md``,
  ``tests/….py``, ``llmkit/…/``, …) or relative Markdown link resolves.

What counts as a citation (:func:`cited_ids`), in comments, docstrings and strings of Python
files and anywhere in Markdown files:

* ``QUIRKS`` followed by ids: ``QUIRKS A1``, ``QUIRKS B4, G4``, ``QUIRKS A4/A10``,
  ``QUIRKS I1-I4`` (a range within one section);
* ids right inside parentheses: ``(E1)``, ``(C2, C3)``, ``(A6/I2)``, ``(G1: an orphan …)``, or
  closing them after a comma or semicolon: ``(Mistral, G4)``;
* ids opening a comment: ``# B1: id, type and name …``, ``# A3, A8``;
* ids as words of a test's name: ``test_A1_emoji_…``, ``test_…_B1_D4``;
* id strings on a line naming ``quirks``: ``quirks=("B1", "E1")``, ``exp.quirks.add("C1")``.

An id is a capital letter and one or two digits, so a wrong id (``B7``, ``K1``) is caught as a
missing row, and Python code outside comments and strings (``PNG_B64``) is not read. The corpus's
container-format codes F1-F8, described in ``tests/fixtures/PROVENANCE.md``, share the id shape:
they are always written with the word "format" (``format F5``), never as a bare id in
parentheses, so they match none of the patterns above.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUIRKS_PAGE = ROOT / "docs" / "quirks.md"

# Where citations live. Recordings under tests/fixtures are provider data, not prose: only the
# Markdown notes there are read.
SCANNED_DIRS = ("llmkit", "tests", "examples", "benchmarks", "docs")
TOP_LEVEL = ("README.md", "CHANGELOG.md", "pyproject.toml")

# The catalogue: section letter -> number of rows. Ids are stable: never renumbered or dropped.
# G5 (Bedrock tool blocks without toolConfig) was added here, after the shared catalogue.
SECTIONS = {"A": 10, "B": 6, "C": 5, "D": 8, "E": 5, "F": 8, "G": 5, "H": 5, "I": 4, "J": 2}
CATALOGUE = [f"{s}{n}" for s, count in SECTIONS.items() for n in range(1, count + 1)]

ID = r"[A-Z]\d{1,2}"
_LIST = rf"{ID}(?:\s*-\s*{ID}|\s*(?:,|/|\band\b)\s*{ID})*"
_END = r"(?![A-Za-z0-9_])"
PATTERNS = (
    re.compile(rf"\bQUIRKS\s+({_LIST}){_END}"),  # QUIRKS A1, QUIRKS B4, G4, QUIRKS I1-I4
    re.compile(rf"\(\s*({_LIST}){_END}"),  # (E1), (C2, C3), (G1: ...)
    re.compile(rf"[(,;]\s*({_LIST})\s*\)"),  # (Mistral, G4)
    re.compile(rf"#\s*({_LIST}){_END}"),  # a comment opening with ids
)
SECTION_CITATION = re.compile(r"\bQUIRKS\s+([A-Z](?:\s*[,/]\s*[A-Z])*)(?![A-Za-z0-9_])")
TEST_NAME = re.compile(r"\bdef (test_\w+)")
QUIRK_STRING = re.compile(rf"[\"']({ID})[\"']")

# Files kept outside the repository that nothing may point a reader to (the catalogue, design and
# format notes the project started from), and paths outside the checkout.
FORBIDDEN = (
    re.compile(r"\b(?:QUIRKS|DESIGN|FORMATS|STYLE)\.md\b"),
    re.compile(r"\bDESIGN\b"),  # "see DESIGN §4" names the same missing file
    re.compile(r"\.\./shared\b"),
    re.compile(r"/work/"),
)
PATH = re.compile(
    r"(?<![\w./-])((?:llmkit|tests|docs|examples|benchmarks)/"
    r"(?:[\w.<>*-]+/)*(?:[\w.<>*-]*\.(?:py|md)(?![\w/])|(?=[\s`'\")\],;:]|$)))"
)
LINK = re.compile(r"\]\(([^)\s]+)\)")

# Files whose repo-relative paths are not checked, each for a stated reason.
GENERATED = {
    # Written by `python benchmarks/run.py`; its profile tables name the modules (file:line) of
    # the run that produced it, and change only when the benchmark is run again.
    "docs/benchmarks.md",
}
MAY_BE_MISSING: set[str] = set()  # every cited file must exist
# This module writes forbidden names and made-up ids into its own patterns and samples.
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()


def repo_files() -> Iterator[Path]:
    """The files whose citations are checked."""
    for name in TOP_LEVEL:
        if (ROOT / name).is_file():
            yield ROOT / name
    for top in SCANNED_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or {"__pycache__", "node_modules"} & set(path.parts):
                continue  # caches, and npm's installed packages (not in the repository)
            if rel(path).startswith("tests/fixtures/") and path.suffix != ".md":
                continue
            if path.suffix in (".py", ".md"):
                yield path


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def prose_lines(path: Path) -> tuple[tuple[int, str], ...]:
    """What a reader reads, as (line number, text): a Python file's comments, docstrings and
    strings; any other file whole."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return tuple(enumerate(text.splitlines(), 1))
    kinds = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    return tuple(
        (token.start[0] + offset, piece)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type in kinds
        for offset, piece in enumerate(token.string.split("\n"))
    )


def prose(path: Path) -> str:
    return "\n".join(piece for _, piece in prose_lines(path))


def _expand(group: str) -> list[str]:
    """``"B4, G4"`` → B4, G4; ``"I1-I4"`` → I1, I2, I3, I4."""
    out: list[str] = []
    for m in re.finditer(rf"({ID})(?:\s*-\s*({ID}))?", group):
        first, last = m.group(1), m.group(2)
        if last and last[0] == first[0]:
            out += [f"{first[0]}{n}" for n in range(int(first[1:]), int(last[1:]) + 1)]
        else:
            out += [first] + ([last] if last else [])
    return out


def cited_ids(path: Path) -> set[str]:
    """The quirk ids ``path`` cites (see the module docstring)."""
    text = prose(path)
    found: set[str] = set()
    for pattern in PATTERNS:
        for m in pattern.finditer(text):
            found.update(_expand(m.group(1)))
    if path.suffix == ".py":
        source = path.read_text(encoding="utf-8")
        for m in TEST_NAME.finditer(source):
            found.update(w for w in m.group(1).split("_") if re.fullmatch(ID, w))
        for line in source.splitlines():
            if re.search(r"\bquirks\b", line):
                found.update(QUIRK_STRING.findall(line))
    return found


def cited_sections(path: Path) -> set[str]:
    """Section letters cited as ``QUIRKS B, C, D`` or ``QUIRKS B/C/D/E``."""
    return {
        letter
        for m in SECTION_CITATION.finditer(prose(path))
        for letter in re.findall(r"[A-Z]", m.group(1))
    }


# -- docs/quirks.md --------------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells (``\\|`` inside a cell is not a separator)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


@cache
def rows() -> dict[str, dict[str, str]]:
    """The page's rows: id → {column name: cell}, in page order."""
    out: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in QUIRKS_PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = _cells(line)
        if cells and cells[0] == "id":
            header = cells
        elif header and re.fullmatch(ID, cells[0]):
            assert cells[0] not in out, f"docs/quirks.md: row {cells[0]} appears twice"
            assert len(cells) == len(header), f"docs/quirks.md: row {cells[0]} has a stray |"
            out[cells[0]] = dict(zip(header, cells, strict=True))
    return out


def sections() -> list[str]:
    """The section letters of the page's ``## X. …`` headings, in order."""
    text = QUIRKS_PAGE.read_text(encoding="utf-8")
    return re.findall(r"^## ([A-Z])\. ", text, re.M)


def test_the_page_has_every_catalogue_row_in_order() -> None:
    assert list(rows()) == CATALOGUE
    assert sections() == list(SECTIONS)
    for qid, row in rows().items():
        assert all(row.values()), f"docs/quirks.md row {qid} has an empty cell"


def test_every_cited_id_is_a_row() -> None:
    known, letters = set(rows()), set(sections())
    missing = {
        f"{rel(path)}: {', '.join(sorted(unknown))}"
        for path in repo_files()
        if rel(path) != SELF
        if (unknown := (cited_ids(path) - known) | (cited_sections(path) - letters))
    }
    assert not missing, "ids cited but not rows of docs/quirks.md:\n" + "\n".join(sorted(missing))


def test_the_extractor_reads_the_shapes_the_repository_uses(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        '''"""(QUIRKS B4, G4), QUIRKS I1-I4, QUIRKS A4/A10; (E1) (C2, C3) (A6/I2) (G1: an orphan)
(Mistral; Gemini's compat endpoint, G5) (vLLM rejects it, QUIRKS D3) (format F5) QUIRKS.md
(J1 does not hold) H2O (B9_x)"""
PNG_B64 = f(B64)  # D1: whole; D2 is not read here
SERVER = dict(quirks=("C4", "E2"), other=("K1",))


def test_ids_in_a_name_B1_D4() -> None:
    pass
''',
        encoding="utf-8",
    )
    assert cited_ids(sample) == {
        *("B4", "G4", "I1", "I2", "I3", "I4", "A4", "A10", "E1", "C2", "C3", "A6", "I2"),
        *("G1", "G5", "D3", "J1", "D1", "C4", "E2", "K1", "B1", "D4"),
    }
    note = tmp_path / "note.md"
    note.write_text("The rules (QUIRKS B, C, D) and QUIRKS B/C/E; QUIRKS and the corpus.\n")
    assert cited_sections(note) == {"B", "C", "D", "E"}


# -- "tested in" -----------------------------------------------------------------------------


@pytest.mark.parametrize("qid", CATALOGUE)
def test_each_row_names_test_files_that_cite_it(qid: str) -> None:
    row = rows()[qid]
    tested, does = row["tested in"], row["what llmkit does"]
    files = re.findall(r"`(tests/[^`]+\.py)`", tested)
    if not files:
        # A row without a test must say so, and say how far llmkit handles it.
        assert tested.startswith("—"), f"{qid}: 'tested in' names no test file"
        assert re.search(r"\b(Not handled|Partly)\b", does, re.I), (
            f"{qid}: a row without a test must say 'not handled' or 'partly'"
        )
    for name in files:
        path = ROOT / name
        assert path.is_file(), f"{qid}: {name} does not exist"
        assert qid in cited_ids(path), f"{qid}: {name} does not cite {qid}"


# -- files that are not in the repository ----------------------------------------------------


def test_nothing_cites_a_file_kept_outside_the_repository() -> None:
    found = [
        f"{rel(path)}:{n}: {line.strip()}"
        for path in repo_files()
        if rel(path) != SELF
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(p.search(line) for p in FORBIDDEN)
    ]
    assert not found, "citations of files outside the repository:\n" + "\n".join(found)


def _exists(path: str) -> bool:
    if path.rstrip("/") in MAY_BE_MISSING:
        return True
    pattern = re.sub(r"<[^>]*>", "*", path).rstrip("/")
    if "*" in pattern:
        return any(ROOT.glob(pattern))
    return (ROOT / pattern).exists()


def _cited_paths(path: Path) -> Iterator[tuple[int, str]]:
    """Repo-relative paths (and relative Markdown links, resolved) that ``path`` mentions."""
    upstream_tables = path.name == "PROVENANCE.md"
    for n, line in prose_lines(path):
        if upstream_tables and line.startswith("|"):
            continue  # PROVENANCE tables quote the upstream repositories' own paths
        for m in PATH.finditer(line):
            yield n, m.group(1)
        if path.suffix == ".md":
            for m in LINK.finditer(line):
                target = m.group(1).split("#")[0]
                if target and not re.match(r"[a-z]+:", target):
                    resolved = (path.parent / target).resolve()
                    if resolved.is_relative_to(ROOT):
                        yield n, resolved.relative_to(ROOT).as_posix()
                    else:
                        yield n, target


def test_every_repo_relative_path_exists() -> None:
    missing = [
        f"{rel(path)}:{n}: {cited}"
        for path in repo_files()
        if rel(path) not in GENERATED
        for n, cited in _cited_paths(path)
        if not _exists(cited)
    ]
    assert not missing, "paths that are not in the repository:\n" + "\n".join(missing)
