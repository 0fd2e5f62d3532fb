"""The JSON paths of Vertex's ``partialArgs`` (QUIRKS D8): a path read from its parent's
reading (the writer's shortcut for ``$.edits[3].old`` after ``$.edits[3].line``) is the path
the grammar reads, whatever came before it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llmkit._wire.gemini.partial_args import ArgsWriter, _parse_path

_SEGMENTS = st.sampled_from(
    [".a", ".edits", ".old", ".x1", "[0]", "[12]", "['a.b']", "['it\\'s']", '["q.r"]', ".é", "."]
)
_PATHS = st.lists(_SEGMENTS, max_size=5).map(lambda s: "$" + "".join(s))
_RAW = st.one_of(_PATHS, _PATHS.map(lambda p: p + "[x]"), st.sampled_from(["", "x", "$..", 3]))


@given(st.lists(_RAW, max_size=12))
def test_each_path_is_read_as_the_grammar_reads_it(paths: list[object]) -> None:
    writer = ArgsWriter()
    for path in paths:
        assert writer._parse(path) == _parse_path(path), path


def test_a_sibling_path_is_read_from_its_parent() -> None:
    writer = ArgsWriter()
    assert writer._parse("$.edits[3].line") == ("edits", 3, "line")
    assert writer._parent == ("$.edits[3]", ("edits", 3))
    assert writer._parse("$.edits[3].old") == ("edits", 3, "old")
    assert writer._parse("$.edits[3].o[1]") == ("edits", 3, "o", 1)  # not a name: the grammar
    assert writer._parse("$.edits[3].") is None
