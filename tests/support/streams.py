"""What every wire's realistic stream generator shares (``tests/wire/<wire>/streams.py``).

A generator takes every decision from a :class:`Chooser`: :class:`DrawChooser` (hypothesis
draws, shrinking towards a short plain stream) for the property tests, :class:`RandomChooser`
(``random.Random`` from a seed, the same bytes on every machine) for the benchmarks, so what the
tests explore is what the benchmarks measure. The vocabularies hold the hard text and JSON
(unicode, escapes, line separators) the OpenAI, Anthropic and Responses generators all draw
from; :func:`json_object` writes tool arguments from them and :func:`delta_pieces` cuts a text into
deltas. Nothing here imports llmkit.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Size knobs (the defaults keep a property test example small and fast)."""

    max_text_tokens: int = 40
    max_tools: int = 4
    max_keys: int = 4
    max_depth: int = 2
    max_list: int = 4


DEFAULT_LIMITS = Limits()


# --------------------------------------------------------------------------- choice sources


class Chooser(Protocol):
    """Where the generator's decisions come from (hypothesis or ``random.Random``)."""

    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, options: Sequence[T]) -> T: ...

    def chance(self, p: float) -> bool: ...


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return options[self._rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self._rng.random() < p


class DrawChooser:
    """Hypothesis draws; every choice shrinks towards its first option / the lower bound /
    ``False``, so a failing example shrinks towards a short plain stream."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self._draw = draw

    def integer(self, lo: int, hi: int) -> int:
        if hi - lo < 256:
            # sampled_from is near uniform; st.integers favours its bounds and small values,
            # which would starve e.g. "4 tool calls" and skew every chance() below.
            return int(self._draw(st.sampled_from(range(lo, hi + 1))))
        return int(self._draw(st.integers(lo, hi)))

    def choice(self, options: Sequence[T]) -> T:
        return options[self.integer(0, len(options) - 1)]

    def chance(self, p: float) -> bool:
        return self.integer(0, 99) >= round((1 - p) * 100)


# --------------------------------------------------------------------------- vocabularies

# fmt: off
# Content deltas, one token each (the first ones are the plain ones shrinking lands on).
TEXT_TOKENS: tuple[str, ...] = (
    "Hello", " world", ".", " The", " sum", " of", " 2", " and", " 3", " is", " 5", ",", "!",
    "\n", "\n\n", " -", " **", "bold", "**", " `", "code", "`", "Sure", ":", " I", "'ll",
    " check", " the", " weather", " in", " Paris", "?",
    # quotes, backslashes, escapes JSON must carry
    ' "', "quoted", '"', "\\", " C:\\Users\\me", "\\n", "\t", "\r\n", "'", " </script>",
    ' {"k": [1, 2]}', " a/b", "\\u00e9",
    # control characters (JSON-escaped on the wire)
    "\x00", "\x07", "\x0b", "\x0c", "\x1b[0m", "\x1f", "\x7f",
    # line separators that str.splitlines() would cut on (QUIRKS A2)
    "\u2028", "\u2029", "\x85", " a\u2028b", "\u2029\n",
    # non-ASCII: 2-, 3- and 4-byte UTF-8
    # (look-alikes escaped: x-sign, double-struck R, fullwidth comma, fraktur "Uni")
    " café", " naïve", " Ünïcödé", " \u00d7", " €", " \u211d", " ∑", "你好", "\uff0c", "世界",
    "。", "日本語", "の", " 한국어", "ひらがな", "\ufeff", "\u200b", "\u00a0",
    "😀", " 👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🇫🇷", "\U0001d518\U0001d52b\U0001d526", "🎉🎉",
    " 🚀 launch", "\U0001f9ea",
)

REFUSAL_TOKENS: tuple[str, ...] = (
    "I'm", " sorry", ",", " I", " can't", " assist", " with", " that", " request", ".",
    " 抱歉", " 🙅", "\u2028", ' "that"', "\\",
)

TOOL_NAMES: tuple[str, ...] = (
    "get_weather", "add", "multiply", "GetWeatherArgs", "search-docs", "read_file",
    "write_file", "lookup_user_2", "x", "a" * 64,
)

KEYS: tuple[str, ...] = (
    "city", "days", "units", "query", "path", "content", "items", "qty", "options", "nested",
    "名前", "emoji_😀", "with space", 'quote"key', "back\\slash", "", "a.b", "line\nbreak",
    "\u2028",
)

STRINGS: tuple[str, ...] = (
    "Paris", "New York City", "San Francisco", "", "celsius", "2024-01-31",
    'He said "hi"', "C:\\Users\\me\\file.txt", "line1\nline2\n", "tab\tsep", "\r\n",
    "emoji 😀 inside", "中文字符", "日本語のテキスト", "\u2028sep\u2029", "\x00nul", "\x1f",
    "}", "{", '"}', '\\"', "\\", "</tool_call>", "ünïcödé", "👨\u200d👩\u200d👧", "🇯🇵",
    "a" * 40, "x = {'k': [1, 2]}\nprint(x)\n", "\\u0041 literally", "/", "\x85",
)

INTS: tuple[int, ...] = (0, 1, 3, -7, 42, 100, 2**31, 2**53 + 1, 10**20, -(10**18))
FLOATS: tuple[float, ...] = (
    0.5, -1.25, 3.14159, 1e-07, 2.5e20, 100.0, -0.0, 1.7976931348623157e308,
)
# fmt: on


ALNUM = string.ascii_letters + string.digits


def token(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# --------------------------------------------------------------------------- the generator


def json_value(c: Chooser, limits: Limits, depth: int) -> Any:
    kinds = ("str", "int", "bool", "null", "float", "list", "dict")
    kind = c.choice(kinds if depth < limits.max_depth else kinds[:5])
    if kind == "str":
        return c.choice(STRINGS) + (c.choice(STRINGS) if c.chance(0.2) else "")
    if kind == "int":
        return c.choice(INTS)
    if kind == "bool":
        return c.chance(0.5)
    if kind == "null":
        return None
    if kind == "float":
        return c.choice(FLOATS)
    if kind == "list":
        return [json_value(c, limits, depth + 1) for _ in range(c.integer(0, limits.max_list))]
    return json_object(c, limits, depth + 1)


def json_object(c: Chooser, limits: Limits, depth: int) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for _ in range(c.integer(0, limits.max_keys)):
        key = c.choice(KEYS)
        if key not in obj:  # a well-behaved model writes each key once
            obj[key] = json_value(c, limits, depth)
    return obj


def serialise_arguments(c: Chooser, value: dict[str, Any]) -> str:
    layout = c.choice(("compact", "spaced", "indented"))  # gpt-4o, gpt-5, occasional pretty
    ensure_ascii = c.chance(0.25)  # models sometimes write \uXXXX escapes themselves
    if layout == "compact":
        return json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"))
    if layout == "spaced":
        return json.dumps(value, ensure_ascii=ensure_ascii)
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=2)


PIECE_SIZES: tuple[tuple[int, int], ...] = ((1, 16), (1, 4), (4, 16), (1, 1), (16, 16))


def delta_pieces(c: Chooser, text: str) -> list[str]:
    """``text`` cut into deltas of 1-16 characters. Two draws per call, not one per piece:
    the individual sizes do not help shrinking, and many draws would overrun hypothesis."""
    lo, hi = c.choice(PIECE_SIZES)
    rng = random.Random(c.integer(0, 2**32 - 1))
    out = []
    i = 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return out
