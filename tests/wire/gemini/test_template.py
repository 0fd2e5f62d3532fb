"""The fast path for Vertex's streamed ``partialArgs`` chunks (QUIRKS D8): a template learnt from
one chunk, matched by the following ones, must decode exactly as the full path does (the same
events, the same message, the same diagnostics), or not match at all."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from llmkit._wire import splice
from llmkit._wire.gemini import template
from llmkit._wire.gemini.partial_args import ArgsWriter
from tests.support.corpus import FIXTURES, load_exchanges, rechunk
from tests.wire.test_splice import _decode


def _nowhere(*args: Any) -> None:
    raise AssertionError("piece() and match() deliver nothing")


INTO = template.Call(0, ArgsWriter(), _nowhere, _nowhere)  # where matches would go


def _both(chunks: list[bytes]) -> tuple[list[Any], int]:
    """The decoded stream with the fast path (asserted equal to the full path's) and how many
    chunks the fast path took."""
    hits: list[bool] = []
    originals = template.Template.piece, template.Template.match

    def piece(self: template.Template, data: str) -> tuple[str, bool] | None:
        got = originals[0](self, data)
        hits.append(got is not None)
        return got

    def match(self: template.Template, data: str) -> dict[str, Any] | None:
        got = originals[1](self, data)
        hits.append(got is not None)
        return got

    with pytest.MonkeyPatch.context() as m:
        m.setattr(template.Template, "piece", piece)
        m.setattr(template.Template, "match", match)
        fast = _decode("gemini", chunks)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(splice, "BUDGET", 0)  # no template is ever learnt
        full = _decode("gemini", chunks)
    assert fast == full
    return fast, sum(hits)


@pytest.mark.parametrize("shape", ["edits", "content"])
def test_generated_streams_cut_anywhere_decode_as_the_full_path(shape: str) -> None:
    from benchmarks.streams import StreamSpec, render

    body = b"".join(render(StreamSpec("gemini", shape, 300)).writes)
    fragments = body.count(b'"partialArgs":[')
    whole, hits = _both([body])
    assert hits >= 0.8 * fragments  # the fast path is taken on nearly every fragment chunk
    rng = random.Random(shape)
    for _ in range(6):
        assert _both(rechunk(body, rng))[0] == whole


@pytest.mark.parametrize(
    "name",
    [
        "vercel-ai__google-vertex-stream-tool-call-arguments-nested.1.chunks.txt",
        "vercel-ai__google-stream-tool-call-arguments.chunks.txt",
        "vercel-ai__google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
        "vercel-ai__google-stream-no-args-tool-call.chunks.txt",
    ],
)
def test_corpus_streams_cut_anywhere_decode_as_the_full_path(name: str) -> None:
    (exchange,) = load_exchanges(FIXTURES / "gemini" / name)
    whole = _both([exchange.body])[0]
    rng = random.Random(name)
    for _ in range(6):
        assert _both(rechunk(exchange.body, rng))[0] == whole


def _sse(call: dict[str, Any], **candidate: Any) -> str:
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}],
        "usageMetadata": {"trafficType": "ON_DEMAND"},
        "responseId": "r1",
    }
    chunk["candidates"][0].update(candidate)
    return "data: " + json.dumps(chunk, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def _piece(path: str, value: str, more: bool = True) -> dict[str, Any]:
    fragment: dict[str, Any] = {"jsonPath": path, "stringValue": value}
    if more:
        fragment["willContinue"] = True
    return fragment


def _stream(*middle: str) -> bytes:
    """A call opened, three fragment chunks (a template is learnt and matched), ``middle``
    (raw SSE events), then the call and the turn end."""
    head = _sse({"name": "f", "willContinue": True})
    warm = [
        _sse({"partialArgs": [_piece("$.a", s)], "willContinue": True}) for s in ("x", "y", "z")
    ]
    tail = _sse({}) + (
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},'
        '"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"totalTokenCount":2}}\n\n'
    )
    return (head + "".join(warm) + "".join(middle) + tail).encode()


def _template_event(fragment_text: str) -> str:
    """A chunk of the learnt shape with ``fragment_text`` (raw) in the fragment's place."""
    shell = _sse({"partialArgs": [{"jsonPath": "$.HOLE"}], "willContinue": True})
    return shell.replace('{"jsonPath":"$.HOLE"}', fragment_text)


def _arguments(decoded: list[Any]) -> str:
    return "".join(item[3] for item in decoded if isinstance(item, tuple) and item[3])


@pytest.mark.parametrize(
    ("middle", "arguments"),
    [
        # Other values, other paths, the string's last piece: all through the template.
        (
            [
                _template_event('{"jsonPath":"$.a","stringValue":"!"}'),
                _template_event('{"jsonPath":"$.n","numberValue":1.5}'),
                _template_event('{"jsonPath":"$.b","boolValue":false}'),
                _template_event('{"jsonPath":"$.c","nullValue":null}'),
            ],
            '{"a":"xyz!","n":1.5,"b":false,"c":null}',
        ),
        # Two fragments in one chunk: not the shape; the full path writes both.
        (
            [
                _template_event(
                    '{"jsonPath":"$.a","stringValue":"1"},{"jsonPath":"$.b","numberValue":2}'
                )
            ],
            '{"a":"xyz1","b":2}',
        ),
        # Not an object in the fragment's place: the full path skips it, nothing is written.
        ([_template_event('"s"'), _template_event("7"), _template_event("null")], '{"a":"xyz"}'),
        # Cut short, or with trailing bytes: not JSON, the full path reports it.
        (
            [_template_event('{"jsonPath":"$.a","stringValue":"1"'), _template_event('{"a":1} x')],
            '{"a":"xyz"}',
        ),
        # Next pieces of the same string (read by the string scanner alone once the piece's
        # text is known), then pieces that are not exactly that text.
        (
            [
                _template_event('{"jsonPath":"$.a","stringValue":"1","willContinue":true}'),
                _template_event(
                    '{"jsonPath":"$.a","stringValue":"\\",\\"willContinue\\":true}",'
                    '"willContinue":true}'
                ),
                _template_event('{"jsonPath":"$.a","stringValue":"2","willContinue":true,"x":1}'),
                _template_event('{"jsonPath":"$.a","stringValue":"3","willContinue":false}'),
                _template_event('{"jsonPath":"$.a","stringValue":"4","willContinue":true}'),
            ],
            '{"a":"xyz1\\",\\"willContinue\\":true}23","a":"4"}',
        ),
        (
            [
                _template_event('{"jsonPath":"$.a","stringValue":"1","willContinue":true}'),
                _template_event('{"jsonPath":"$.a","stringValue":"\x01","willContinue":true}'),
                _template_event('{"jsonPath":"$.a", "stringValue":"2","willContinue":true}'),
                _template_event('{"jsonPath":"$.b","stringValue":"3","willContinue":true}'),
            ],
            '{"a":"xyz12","b":"3"}',
        ),
        # The string ends and a number follows, escapes and non-ASCII in the pieces.
        (
            [
                _template_event('{"jsonPath":"$.a","stringValue":"\\"\\u00fc\\n\\ud83d\\ude00"}'),
                _template_event('{"jsonPath":"$.n","numberValue":3}'),
            ],
            '{"a":"xyz\\"ü\\n😀","n":3}',
        ),
    ],
)
def test_chunks_off_the_template_take_the_full_path(middle: list[str], arguments: str) -> None:
    decoded, hits = _both([_stream(*middle)])
    assert hits >= 2  # the warm-up chunks matched: the template was in use
    assert _arguments(decoded) == arguments


def test_diagnostics_are_the_full_paths() -> None:
    # A fragment without a value and a closed path revisited: reported the same either way.
    middle = [
        _template_event('{"jsonPath":"$.q"}'),
        _template_event('{"jsonPath":"$.o.k","numberValue":1}'),
        _template_event('{"jsonPath":"$.p","numberValue":1}'),
        _template_event('{"jsonPath":"$.o.j","numberValue":2}'),
    ]
    decoded, hits = _both([_stream(*middle)])
    assert hits >= 4
    message = decoded[-1]
    assert "partialArgs: a fragment without a value" in message
    assert "a closed object or array was written to again" in message


@pytest.mark.parametrize(
    "event",
    [
        _sse({"partialArgs": [_piece("$.a", "q")], "willContinue": True}, finishReason="STOP"),
        _sse({"partialArgs": [_piece("$.a", "q")], "willContinue": True, "id": "c9"}),
        _sse({"partialArgs": [_piece("$.a", "q")]}),  # the call ends with this fragment
        _sse({"partialArgs": [_piece("$.a", "q")], "willContinue": True, "name": "g"}),
    ],
)
def test_chunks_that_mean_more_than_a_fragment_take_the_full_path(event: str) -> None:
    decoded, _ = _both([_stream(event, _template_event('{"jsonPath":"$.z","numberValue":1}'))])
    assert decoded[-1]


def _learn(data: str) -> template.Template | None:
    def check(chunk: Any) -> dict[str, Any] | None:
        call = chunk["candidates"][0]["content"]["parts"][0]["functionCall"]
        fragments = call.get("partialArgs")
        return fragments[0] if isinstance(fragments, list) and len(fragments) == 1 else None

    return template.learn(data, json.loads(data), check, None, INTO)


def test_a_template_matches_only_its_own_shape() -> None:
    data = _template_event('{"jsonPath":"$.a","stringValue":"x"}')[6:-2]
    learnt = _learn(data)
    assert learnt is not None
    other = data.replace('"x"', '"y\\u00e9"')
    assert learnt.match(other) == {"jsonPath": "$.a", "stringValue": "yé"}
    assert learnt.match(data.replace('"r1"', '"r2"')) is None  # another response id
    assert learnt.match(data.replace('{"jsonPath"', '{"jsonPath":"$.b"},{"jsonPath"')) is None
    assert learnt.match(data.replace('{"jsonPath":"$.a","stringValue":"x"}', "[]")) is None
    assert learnt.match(data + " ") is None


def test_no_template_where_the_place_cannot_be_proved() -> None:
    data = _template_event('{"jsonPath":"$.a","stringValue":"x"}')[6:-2]
    assert _learn(data.replace('"partialArgs":[', '"partialArgs": [')) is None  # spaces
    twice = data.replace('"responseId"', '"x":{"partialArgs":[1]},"responseId"')
    assert _learn(twice) is None  # the array's text appears twice
    refuse = template.learn(data, json.loads(data), lambda chunk: None, None, INTO)
    assert refuse is None
    # A check that does not read the fragment from the chunk (an equal dict from elsewhere):
    # the sentinel put in the cut's place is not read back, so no template.
    fixed = {"jsonPath": "$.a", "stringValue": "x"}
    assert template.learn(data, json.loads(data), lambda chunk: dict(fixed), None, INTO) is None


def test_signed_fragment_chunks_keep_their_signature_F2() -> None:
    # Each signed chunk goes on the call's replay: never learnt as a plain fragment chunk.
    signed = [
        _sse({"partialArgs": [_piece("$.s", c)], "willContinue": True}).replace(
            '"functionCall"', '"thoughtSignature":"sig","functionCall"'
        )
        for c in "abcd"
    ]
    decoded, _ = _both([_stream(*signed)])
    assert "sig" in decoded[-1]
    assert _arguments(decoded) == '{"a":"xyz","s":"abcd"}'


_NO_OP = _sse({"willContinue": True})


@pytest.mark.parametrize(
    "middle",
    [
        # Vertex's empty part between array elements: skipped, the template kept.
        [_NO_OP, _template_event('{"jsonPath":"$.n","numberValue":1}'), _NO_OP, _NO_OP],
        # Empty parts that are not the same chunk without its fragment: the full path.
        [_NO_OP.replace('"r1"', '"r2"'), _template_event('{"jsonPath":"$.n","numberValue":1}')],
        [_NO_OP.replace('"ON_DEMAND"', '"PROVISIONED"')],
        [_sse({"willContinue": True, "id": "c7"}), _NO_OP],
        [_sse({"willContinue": True, "partialArgs": []}), _NO_OP],
        [
            _sse({"willContinue": False}),
            _NO_OP,
            _template_event('{"jsonPath":"$.n","numberValue":1}'),
        ],
        [_NO_OP.replace('"willContinue":true', '"willContinue":true,"args":{"a":1}')],
    ],
)
def test_empty_parts_between_fragments(middle: list[str]) -> None:
    _, hits = _both([_stream(*middle)])
    assert hits >= 2


def test_the_empty_part_is_learnt_whichever_member_partial_args_is() -> None:
    fragment = '{"jsonPath":"$.a","stringValue":"x"}'
    for call, empty in (
        (f'{{"partialArgs":[{fragment}],"willContinue":true}}', '{"willContinue":true}'),
        (f'{{"willContinue":true,"partialArgs":[{fragment}]}}', '{"willContinue":true}'),
        (f'{{"partialArgs":[{fragment}]}}', None),  # no member left: not an object member cut
    ):
        data = f'{{"c":{{"functionCall":{call}}},"r":1}}'

        def no_op(chunk: Any) -> bool:
            return chunk["c"]["functionCall"] == {"willContinue": True}

        def check(chunk: Any) -> dict[str, Any] | None:
            return chunk["c"]["functionCall"]["partialArgs"][0]  # type: ignore[no-any-return]

        learnt = template.learn(data, json.loads(data), check, no_op, INTO)
        assert learnt is not None
        expected = None if empty is None else f'{{"c":{{"functionCall":{empty}}},"r":1}}'
        assert learnt.no_op == expected
        refused = template.learn(data, json.loads(data), check, lambda chunk: False, INTO)
        assert refused is not None and refused.no_op is None


def test_no_string_piece_is_read_before_one_was_learnt() -> None:
    # A fresh template has no piece shape yet: a malformed chunk that looks like a bare string
    # literal (here, one starting with a NUL) is not a fragment.
    learnt = template.Template('{"a":[', "]}", None, INTO)
    for data in ('\x00abc"', '"abc"'):
        assert learnt.piece(data) is None
        assert learnt.match(data) is None


def test_a_strings_first_and_last_pieces_are_read_as_its_pieces_are() -> None:
    # Vertex ends a streamed string with {"jsonPath": P, "stringValue": ""}: the string
    # scanner reads it (``more`` False) once a piece of P taught the template its shape; a
    # first piece of any path is read by the same scanner.
    def chunk(fragment: str) -> str:
        return _template_event(fragment)[6:-2]

    learnt = _learn(chunk('{"jsonPath":"$.a","stringValue":"x","willContinue":true}'))
    assert learnt is not None
    assert learnt.piece(chunk('{"jsonPath":"$.b","stringValue":"y"}')) is None  # no piece yet
    # A first piece of any path is read, and teaches the template that path's pieces.
    first = chunk('{"jsonPath":"$.a","stringValue":"x","willContinue":true}')
    assert learnt.piece(first) == ("x", True)
    assert learnt.path == "$.a"
    assert learnt.piece(chunk('{"jsonPath":"$.a","stringValue":"y","willContinue":true}')) == (
        "y",
        True,
    )
    assert learnt.piece(chunk('{"jsonPath":"$.a","stringValue":""}')) == ("", False)
    assert learnt.piece(chunk('{"jsonPath":"$.a","stringValue":"\\u00e9\\n"}')) == ("é\n", False)
    for other in (
        '{"jsonPath":"$.a","stringValue":"z","willContinue":false}',
        '{"jsonPath":"$.a","stringValue":"z" }',
        '{"jsonPath":"$.a","stringValue":"z","x":1}',
        '{"jsonPath":"$.b","stringValue":""}',
        '{"jsonPath":"$.b","stringValue":"z","willContinue":false}',
        '{"jsonPath":"$.b","willContinue":true,"stringValue":"z"}',
        '{"jsonPath":"$.b","stringValue":"z","willContinue":true,"x":1}',
        '{"jsonPath":"$.b", "stringValue":"z","willContinue":true}',
        '{"jsonPath":"\\x","stringValue":"z","willContinue":true}',
    ):
        assert learnt.piece(chunk(other)) is None, other
    assert learnt.path == "$.a"
    assert learnt.piece(
        chunk('{"jsonPath":"$.c\\u00e9","stringValue":"z","willContinue":true}')
    ) == (
        "z",
        True,
    )
    assert learnt.path == "$.cé"
