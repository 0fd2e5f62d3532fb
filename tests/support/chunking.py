"""How a network may cut a response body: the cut points the oracle tests draw, shared by every
wire API's oracle suite."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st


def split(body: bytes, cuts: tuple[int, ...]) -> list[bytes]:
    """``body`` cut at the given offsets (sorted, in ``1..len(body)-1``)."""
    bounds = (0, *cuts, len(body))
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def cut_points(draw: st.DrawFn, body: bytes) -> tuple[int, ...]:
    """Where a network splits ``body``: anywhere, biased to the interesting places."""
    n = len(body)
    mode = draw(st.sampled_from(("random", "random", "random", "random", "tiny", "whole")))
    if mode == "whole":
        return ()
    if mode == "tiny":  # a very slow connection: a few bytes at a time
        step = draw(st.integers(1, 7))
        return tuple(range(step, n, step))
    cuts = set(draw(st.lists(st.integers(1, n - 1), max_size=40)))
    # Inside a UTF-8 sequence: before a continuation byte (QUIRKS A1).
    inner = [i for i in range(1, n) if 0x80 <= body[i] < 0xC0]
    if inner:
        cuts.update(draw(st.lists(st.sampled_from(inner), max_size=12)))
    # Between the CR and the LF of a CRLF.
    crlf = [i for i in range(1, n) if body[i - 1] == 13 and body[i] == 10]
    if crlf:
        cuts.update(draw(st.lists(st.sampled_from(crlf), max_size=6)))
    return tuple(sorted(cuts))
