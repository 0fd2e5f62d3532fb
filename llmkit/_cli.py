"""The ``llmkit`` command line: the everyday debugging a transport library is for.

::

    llmkit models [PROVIDER] [--reasoning [LEVEL]] [--input KIND] [--json]    the catalogue
    llmkit complete PROVIDER/MODEL PROMPT [--stream] [--json] [--fake]   one call, printed
    llmkit request PROVIDER/MODEL PROMPT               the request that would be sent (nothing sent)
    llmkit replay FILE... --api API [--json]           captured raw response bodies -> events

Built on the public API only (``llmkit.stream``, ``build_request``, ``parse_stream``,
``parse_response``, ``models``, ``get_model``, and ``llmkit.testing.FakeProvider`` for
``--fake``, which tries a command with no key: llmkit's fake provider plays the model, on the
model's own wire, on 127.0.0.1), with the standard library's ``argparse``.

Output: the answer (text and tool calls) goes to stdout; thinking, diagnostics and a one-line
summary go to stderr, so ``llmkit complete ... > answer.txt`` keeps only the answer.

Exit codes: 0 success; 1 an llmkit error (an API error, a failed stream, a missing key, an
unknown model: one line on stderr, never a traceback); 2 a usage error (argparse); 130
interrupted (Ctrl-C).

The JSON form of an event (``--json``; one object per line, UTF-8, the terminal event last) is
defined once, by ``_cli_render.event_json``: ``{"type": <the event's type>, ...its fields}``,
pydantic values as ``model_dump(mode="json")`` (``message``, ``tool_call``, ``usage``,
``diagnostic``), ``ToolCallDelta`` with its ``partial_arguments``, and the ``error`` of an
``ErrorEvent`` event as ``{"class": <exception class name>, "message": ..., <status, provider, code,
request_id, retry_after on an APIError; phase on an APITimeoutError>}``. ``replay`` with several
files prints one such stream per file, in order; each ends with its terminal event. A
non-streamed JSON body has no events: ``replay`` prints the one ``done`` event its message makes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, get_args

import llmkit

from ._cli_render import Console, diagnostic_line, event_json, event_line, json_line, one_line

__all__ = ["main"]

_REDACTED = "<redacted>"
_READ_SIZE = 65536
_APIS: tuple[str, ...] = get_args(llmkit.Api)
_REASONING = ("off", "minimal", "low", "medium", "high")


class _Failure(Exception):
    """A command-line mistake found after parsing (reported like an llmkit error: exit 1)."""


# --------------------------------------------------------------------------- model and options


def _model(spec: str, api: str | None, api_key_env: str | None) -> llmkit.Model:
    """``PROVIDER/MODEL`` from the catalogue, or a custom model when ``--api`` is given."""
    provider, _, model_id = spec.partition("/")  # model ids may hold "/" (OpenRouter)
    if not provider or not model_id:
        raise _Failure(f"expected PROVIDER/MODEL (e.g. openai/gpt-4.1-mini), got {spec!r}")
    try:
        model = llmkit.get_model(provider, model_id)
    except llmkit.UnknownModelError as e:
        if api is None:
            hint = "Pass --api (and --base-url) for a model not in the catalogue."
            raise _Failure(f"{e} {hint}") from None
        model = llmkit.Model(provider=provider, id=model_id, api=api)  # type: ignore[arg-type]
    else:
        if api is not None and api != model.api:
            raise _Failure(f"{spec} speaks {model.api} in the catalogue, not {api}")
    if api_key_env:
        model = model.model_copy(update={"api_key_env": api_key_env, "api_key_required": True})
    return model


def _context(ns: argparse.Namespace) -> llmkit.Context:
    prompt: str = sys.stdin.read() if ns.prompt == "-" else ns.prompt
    tools: list[llmkit.Tool[Any]] = []
    if ns.tools:
        try:
            declared = json.loads(Path(ns.tools).read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise _Failure(f"cannot read the tools of {ns.tools}: {e}") from None
        if not isinstance(declared, list):
            raise _Failure(f"{ns.tools} must hold a JSON array of tools")
        try:
            tools = [llmkit.Tool.model_validate(t) for t in declared]
        except ValueError as e:  # pydantic's ValidationError
            raise _Failure(f"{ns.tools}: {one_line(str(e))}") from None
    return llmkit.Context(system=ns.system, messages=[llmkit.user(prompt)], tools=tools)


def _options(ns: argparse.Namespace) -> dict[str, Any]:
    names = ("base_url", "max_tokens", "temperature", "reasoning", "timeout")
    return {name: getattr(ns, name) for name in names if getattr(ns, name) is not None}


# --------------------------------------------------------------------------- commands


def _levels(m: llmkit.Model) -> str:
    """The reasoning column: the model's effort values, its budget range, or yes/no."""
    if not m.reasoning:
        return "no"
    if m.reasoning_efforts:
        return ",".join(m.reasoning_efforts)
    if m.reasoning_budget is not None:
        low, high = m.reasoning_budget.get("min"), m.reasoning_budget.get("max")
        return f"budget:{low if low is not None else ''}-{high if high is not None else ''}"
    return "yes"


def _has_level(m: llmkit.Model, level: str) -> bool:
    """Whether the model takes ``level`` as itself (not sent as a lower one)."""
    if not m.reasoning or level == "any":
        return m.reasoning
    if m.reasoning_efforts:
        return level in m.reasoning_efforts
    if m.reasoning_budget is not None:  # budgets: "max" needs the model's largest known
        return level != "max" or "max" in m.reasoning_budget
    return False  # levels not known


def _price(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _tiers(m: llmkit.Model) -> str:
    """Long-prompt prices: ``>272k:5/22.5`` (input/output above 272,000 input tokens)."""
    cells = []
    for tier in m.cost.tiers:
        size = f"{tier.size // 1000}k" if tier.size % 1000 == 0 else str(tier.size)
        input_price = tier.input if tier.input is not None else m.cost.input
        output_price = tier.output if tier.output is not None else m.cost.output
        cells.append(f">{size}:{_price(input_price)}/{_price(output_price)}")
    return ";".join(cells) or "-"


def _cmd_models(ns: argparse.Namespace) -> int:
    provider = ns.provider or ns.provider_option
    found = llmkit.models(provider)
    if not found:
        providers = ", ".join(sorted({m.provider for m in llmkit.models()}))
        raise _Failure(f"no model of provider {provider!r} in the catalogue ({providers})")
    if ns.reasoning is not None:
        found = [m for m in found if _has_level(m, ns.reasoning)]
    if ns.input is not None:
        found = [m for m in found if ns.input in m.input]
    if ns.json:
        _utf8(sys.stdout)
        print(json.dumps([m.model_dump(mode="json") for m in found], ensure_ascii=False, indent=2))
        return 0
    header = ("MODEL", "API", "CONTEXT", "MAX OUT", "INPUT", "REASONING", "$/M IN", "$/M OUT")
    rows: list[tuple[str, ...]] = [(*header, "$/M CACHED", "LONG PROMPT $/M")]
    for m in found:
        priced = m.cost.input is not None or m.cost.output is not None
        rows.append(
            (
                f"{m.provider}/{m.id}",
                m.api,
                str(m.context_window or "-"),
                str(m.max_output_tokens or "-"),
                ",".join(m.input),
                _levels(m),
                _price(m.cost.input) if priced else "-",
                _price(m.cost.output) if priced else "-",
                _price(m.cost.cache_read),
                _tiers(m),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


@contextmanager
def _played(
    model: llmkit.Model, ns: argparse.Namespace, context: llmkit.Context
) -> Iterator[tuple[llmkit.Model, dict[str, Any]]]:
    """The model and options to call: the real ones, or with ``--fake`` llmkit's fake provider
    playing the model on its own wire (no key needed, nothing leaves the machine)."""
    options = _options(ns)
    if not ns.fake:
        yield model, options
        return
    from .testing import FakeProvider, FakeReply

    said = context.messages[0].text if context.messages else ""
    said = said if len(said) <= 200 else said[:200] + "..."
    reply = FakeReply(f"(llmkit's fake provider, speaking {model.api}) You said: {said}")
    platform = model.platform if model.platform in ("bedrock", "vertex") else None
    with FakeProvider([reply], api=model.api, platform=platform) as fake:
        print(
            f"(--fake: llmkit's fake provider plays {model.provider}/{model.id} on "
            f"{model.api}, at {fake.base_url}; no key is used)",
            file=sys.stderr,
        )
        options.pop("base_url", None)
        yield fake.model(model.id), {**options, "api_key": fake.api_key}


def _cmd_complete(ns: argparse.Namespace) -> int:
    context = _context(ns)
    with _played(_model(ns.model, ns.api, ns.api_key_env), ns, context) as (model, options):
        return _complete(ns, model, context, options)


def _complete(
    ns: argparse.Namespace, model: llmkit.Model, context: llmkit.Context, options: dict[str, Any]
) -> int:
    console = Console(sys.stdout, sys.stderr)
    if ns.json:
        _utf8(sys.stdout)
    with llmkit.stream(model, context, **options) as events:
        for event in events:
            if ns.json and (ns.stream or isinstance(event, (llmkit.Done, llmkit.ErrorEvent))):
                print(json_line(event_json(event)), flush=True)
            elif ns.stream and not ns.json:
                console.event(event)
            if isinstance(event, llmkit.ErrorEvent):
                if not ns.json and not ns.stream:
                    console.message(event.message)
                raise event.error
    if not ns.json and not ns.stream:
        console.message(events.message)
    return 0


def _cmd_request(ns: argparse.Namespace) -> int:
    model = _model(ns.model, ns.api, ns.api_key_env)
    options = _options(ns)
    key = (os.environ.get(model.api_key_env) or None) if model.api_key_env else None
    if key is None and model.api_key_required:
        variable = model.api_key_env or "--api-key-env"
        print(f"note: no key in {variable}; a real call would fail", file=sys.stderr)
        key = _REDACTED
    if key is not None:
        options["api_key"] = key
    request = llmkit.build_request(model, _context(ns), **options)

    def redact(text: str) -> str:
        return text.replace(key, _REDACTED) if key else text

    print(f"{request.method} {redact(str(request.url))}")
    for name, value in request.headers.items():
        print(f"{name}: {redact(value)}")
    print()
    body = json.loads(request.content)
    print(redact(json.dumps(body, ensure_ascii=False, indent=2)))
    for diagnostic in request.extensions.get("llmkit.diagnostics", []):
        print(diagnostic_line(diagnostic), file=sys.stderr)
    return 0


def _chunks(source: IO[bytes]) -> Iterator[bytes]:
    """The bytes of ``source`` as they become available (a pipe streams live)."""
    read = getattr(source, "read1", source.read)
    while chunk := read(_READ_SIZE):
        yield chunk


def _cmd_replay(ns: argparse.Namespace) -> int:
    model = _model(ns.model or f"replay/{ns.api}", ns.api, None)
    if ns.json:
        _utf8(sys.stdout)
    failed = False
    for name in ns.files:
        if len(ns.files) > 1 and not ns.json:
            print(f"== {name}", flush=True)
        try:
            if name == "-":
                _replay(model, sys.stdin.buffer, ns.json)
            else:
                with Path(name).open("rb") as source:
                    _replay(model, source, ns.json)
        except BrokenPipeError:
            raise  # the reader of stdout went away (`| head`): main() stops quietly
        except (llmkit.LLMError, _Failure, OSError) as e:
            # Each file is decoded on its own: report this one and go on with the next.
            failed = True
            where = f"{name}: " if len(ns.files) > 1 else ""
            if isinstance(e, OSError):
                e = _Failure(f"cannot read {name}: {e.strerror or e}")
                where = ""
            _report(e, where)
    return 1 if failed else 0


def _replay(model: llmkit.Model, source: IO[bytes], as_json: bool) -> None:
    """Print the events of one body; raise the error of a stream that ends in ``ErrorEvent``."""
    chunks = _chunks(source)
    first = next(chunks, b"")
    guess = _wire_of_body(first)

    def wrong_api(why: object) -> _Failure:
        return _Failure(
            f"this body is in the {guess} format, not {model.api}: try --api {guess} "
            f"(decoding it as {model.api} failed: {one_line(str(why))})"
        )

    events: Iterator[llmkit.Event]
    if first.lstrip().startswith(b"{"):  # a non-streamed JSON body: no events, one message
        try:
            message = llmkit.parse_response(model, first + b"".join(chunks))
        except (ValueError, llmkit.LLMError) as e:
            if guess not in (None, model.api):
                raise wrong_api(e) from None
            if isinstance(e, llmkit.LLMError):
                raise
            raise _Failure(f"the body is not valid JSON ({e})") from None
        events = iter([llmkit.Done(message=message)])
    else:
        events = llmkit.parse_stream(model, _prepend(first, chunks))
    for event in events:
        if isinstance(event, llmkit.ErrorEvent) and guess not in (None, model.api):
            raise wrong_api(event.error)
        print(json_line(event_json(event)) if as_json else event_line(event), flush=True)
        if isinstance(event, llmkit.ErrorEvent):
            raise event.error


# What the start of each wire's body holds (its first event's type, or an object it alone has).
_BODY_MARKS = (
    (b'"chat.completion', "openai-chat"),
    (b"event: response.", "openai-responses"),
    (b'"type":"response.', "openai-responses"),
    (b'"object":"response"', "openai-responses"),
    (b"event: message_start", "anthropic-messages"),
    (b'"type":"message_start"', "anthropic-messages"),
    (b'"type":"message"', "anthropic-messages"),
    (b'"candidates"', "gemini"),
    (b":event-type", "bedrock-converse"),
)


def _wire_of_body(first: bytes) -> str | None:
    """The wire API the start of a captured body looks like, if it is clear."""
    head = first[:4096].replace(b'": "', b'":"')
    return next((api for mark, api in _BODY_MARKS if mark in head), None)


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


# --------------------------------------------------------------------------- the parser


_EPILOG = """\
exit status: 0 success, 1 an llmkit error (one line on stderr), 2 a usage error, 130 interrupted.

--json prints events as JSON lines (UTF-8), the terminal event ("done" or "error") last:
{"type": <event type>, ...the event's fields}; messages, tool calls, usage and diagnostics
as pydantic's model_dump(mode="json"); tool_call_delta with its partial_arguments; an error
as {"class", "message", and status/provider/code/request_id/retry_after or phase}.

The API key is read from the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) or
the one named by --api-key-env; there is no flag for the key itself (it would end up in your
shell history and in the process list).
"""


def _add_call_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="PROVIDER/MODEL", help="e.g. openai/gpt-4.1-mini")
    parser.add_argument("prompt", metavar="PROMPT", help="the user message; - reads stdin")
    parser.add_argument("--system", help="a system prompt")
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help='tools to declare: a JSON array of {"name", "description", "parameters"}',
    )
    parser.add_argument("--max-tokens", type=int, metavar="N")
    parser.add_argument("--temperature", type=float, metavar="T")
    parser.add_argument("--reasoning", choices=_REASONING)
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="per phase")
    parser.add_argument("--base-url", metavar="URL", help="the API root, e.g. a local server's")
    parser.add_argument(
        "--api", choices=_APIS, help="the wire API of a model that is not in the catalogue"
    )
    parser.add_argument("--api-key-env", metavar="VAR", help="read the key from this variable")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llmkit",
        description="llmkit: list models, make one call, show a request, decode a capture.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"llmkit {llmkit.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter  # keep the epilog's paragraphs

    models = commands.add_parser("models", help="list the model catalogue")
    models.add_argument("provider", nargs="?", metavar="PROVIDER")
    models.add_argument(
        "--provider", dest="provider_option", metavar="PROVIDER", help="only this provider's models"
    )
    models.add_argument(
        "--reasoning",
        nargs="?",
        const="any",
        choices=["any", "minimal", "low", "medium", "high", "xhigh", "max"],
        metavar="LEVEL",
        help="only reasoning models; with a LEVEL, only models that take it (e.g. xhigh, max)",
    )
    models.add_argument(
        "--input", choices=["text", "image", "pdf"], help="only models that read this input"
    )
    models.add_argument("--json", action="store_true", help="a JSON array of models")
    models.set_defaults(run=_cmd_models)

    complete = commands.add_parser(
        "complete", help="make one call and print the reply", epilog=_EPILOG, formatter_class=raw
    )
    _add_call_arguments(complete)
    complete.add_argument(
        "--stream", action="store_true", help="show text and tool-call arguments as they arrive"
    )
    complete.add_argument(
        "--json", action="store_true", help="the terminal event as JSON (every event: --stream)"
    )
    complete.add_argument(
        "--fake",
        action="store_true",
        help="try it without a key: llmkit's fake provider plays the model, on its own wire",
    )
    complete.set_defaults(run=_cmd_complete)

    request = commands.add_parser(
        "request", help="print the HTTP request that would be sent (nothing is sent)"
    )
    _add_call_arguments(request)
    request.set_defaults(run=_cmd_request)

    replay = commands.add_parser(
        "replay",
        help="decode captured raw response bodies into events",
        epilog=_EPILOG,
        formatter_class=raw,
    )
    replay.add_argument(
        "files", nargs="+", metavar="FILE", help="a body as received; - reads stdin"
    )
    replay.add_argument("--api", required=True, choices=_APIS, help="the wire API it speaks")
    replay.add_argument(
        "--model",
        metavar="PROVIDER/MODEL",
        help="decode as this model: a catalogue entry, or a custom one on --api (default: "
        "replay/API, with no provider's quirk flags)",
    )
    replay.add_argument("--json", action="store_true", help="events as JSON lines")
    replay.set_defaults(run=_cmd_replay)
    return parser


def _utf8(stream: IO[str]) -> None:
    """JSON output is UTF-8 whatever the locale (RFC 8259 §8.1)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8")


def _report(error: Exception, where: str = "") -> None:
    """The one stderr line of a failure: ``llmkit: error: [where]Class: message``."""
    name = "" if isinstance(error, _Failure) else f"{type(error).__name__}: "
    text = str(error)
    if isinstance(error, llmkit.MissingAPIKeyError):
        # The command line has no flag for the key itself (shell history, process list).
        text = text.replace("pass api_key=...", "name another variable with --api-key-env")
        text += " (or try it with llmkit's fake provider: --fake)"
    print(f"llmkit: error: {where}{name}{one_line(text)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0, 1 for an llmkit error, 130 when interrupted (argparse exits 2 on
        a usage error itself).
    """
    for stream in (sys.stdout, sys.stderr):
        # A model's text may hold characters the terminal's encoding cannot show: escape
        # them rather than fail half-way (JSON output switches stdout to UTF-8 instead).
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    ns = _parser().parse_args(argv)
    try:
        status: int = ns.run(ns)
    except KeyboardInterrupt:
        return 130
    except (llmkit.LLMError, _Failure) as e:
        _report(e)
        return 1
    except BrokenPipeError:
        # The reader went away (`llmkit models | head`): stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status
