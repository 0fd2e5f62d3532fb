"""The ``llmkit`` command line: the everyday debugging a transport library is for.

::

    llmkit models [PROVIDER] [--json]                  the catalogue, or one provider's models
    llmkit complete PROVIDER/MODEL PROMPT [--stream] [--json]    one call, printed
    llmkit request PROVIDER/MODEL PROMPT               the request that would be sent (nothing sent)
    llmkit replay FILE... --api API [--json]           captured raw response bodies -> events

Built on the public API only (``llmkit.stream``, ``build_request``, ``parse_stream``,
``parse_response``, ``models``, ``get_model``), with the standard library's ``argparse``.

Output: the answer (text and tool calls) goes to stdout; thinking, diagnostics and a one-line
summary go to stderr, so ``llmkit complete ... > answer.txt`` keeps only the answer.

Exit codes: 0 success; 1 an llmkit error (an API error, a failed stream, a missing key, an
unknown model: one line on stderr, never a traceback); 2 a usage error (argparse); 130
interrupted (Ctrl-C).

The JSON form of an event (``--json``; one object per line, UTF-8, the terminal event last) is
defined once, by :func:`event_json`: ``{"type": <the event's type>, ...its fields}``, pydantic
values as ``model_dump(mode="json")`` (``message``, ``tool_call``, ``usage``, ``diagnostic``),
``ToolCallDelta`` with its ``partial_arguments``, and the ``error`` of an ``Error`` event as
``{"class": <exception class name>, "message": ..., <status, provider, code, request_id,
retry_after on an APIError; phase on an APITimeoutError>}``. ``replay`` with several files
prints one such stream per file, in order; each ends with its terminal event. A non-streamed
JSON body has no events: ``replay`` prints the one ``done`` event its message makes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, get_args

from pydantic import BaseModel

import llmkit

__all__ = ["event_json", "main"]

_REDACTED = "<redacted>"
_READ_SIZE = 65536
_ERROR_FIELDS = ("status", "provider", "code", "request_id", "retry_after", "phase")
_APIS: tuple[str, ...] = get_args(llmkit.Api)
_REASONING = ("off", "minimal", "low", "medium", "high")


class _Failure(Exception):
    """A command-line mistake found after parsing (reported like an llmkit error: exit 1)."""


# --------------------------------------------------------------------------- the JSON form


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, BaseException):
        return _error_json(value)
    return value


def _error_json(error: BaseException) -> dict[str, Any]:
    out: dict[str, Any] = {"class": type(error).__name__, "message": str(error)}
    for name in _ERROR_FIELDS:
        if hasattr(error, name):
            out[name] = getattr(error, name)
    return out


def event_json(event: llmkit.Event) -> dict[str, Any]:
    """The stable JSON form of an event: ``type`` first, then the event's fields.

    Args:
        event: Any event ``stream()``/``parse_stream()`` yields.

    Returns:
        A dict ready for ``json.dumps``; see the module docstring for the form.
    """
    if isinstance(event, llmkit.ToolCallDelta):  # slotted properties, not a dataclass
        return {
            "type": event.type,
            "index": event.index,
            "id": event.id,
            "name": event.name,
            "arguments_delta": event.arguments_delta,
            "partial_arguments": event.partial_arguments,
        }
    out: dict[str, Any] = {"type": event.type}
    for field in dataclasses.fields(event):
        if field.name != "type":
            out[field.name] = _jsonable(getattr(event, field.name))
    return out


def _json_line(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- human output


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _summary(message: llmkit.AssistantMessage) -> str:
    """``stop tool_use (raw "tool_calls") · input 20 · output 7 · 2 diagnostics``."""
    parts = [f"stop {message.stop_reason}"]
    if message.raw_stop_reason is not None:
        parts[0] += f" (raw {json.dumps(message.raw_stop_reason)})"
    usage = message.usage
    for name in ("input", "output", "cache_read", "cache_write", "reasoning"):
        count = getattr(usage, name)
        if count is not None:
            parts.append(f"{name} {count}")
    if usage.cost is not None:
        parts.append(f"${usage.cost:.6f}")
    if message.diagnostics:
        parts.append(f"{len(message.diagnostics)} diagnostic(s)")
    return "[" + " · ".join(parts) + "]"


def _diagnostic_line(diagnostic: llmkit.Diagnostic) -> str:
    call = f" (call {diagnostic.tool_call_id})" if diagnostic.tool_call_id else ""
    return f"[diagnostic {diagnostic.kind}{call}] {_one_line(diagnostic.message)}"


class _Console:
    """Renders for a person: text and tool calls on stdout, thinking, diagnostics and a summary
    line on stderr.

    The two streams usually share one terminal, so a line left open on one is ended before the
    other is written to. Streamed blocks may interleave (parallel calls, a text part closed only
    at the end of the stream): a delta for another block than the one on the current line
    starts a new line. Diagnostics are printed at the end, with the summary, so that they do
    not cut a line of streamed arguments in two.
    """

    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self.out = out
        self.err = err
        self.last = out  # the stream written to last
        self.fresh = True  # whether ``last`` is at the start of a line
        self.block: int | None = None  # the block whose output is on stdout's current line

    def write(self, stream: IO[str], text: str) -> None:
        if not text:
            return
        if stream is not self.last:
            self.end_line()
            self.last = stream
            self.block = None
        stream.write(text)
        stream.flush()
        self.fresh = text.endswith("\n")

    def end_line(self) -> None:
        if not self.fresh:
            self.last.write("\n")
            self.last.flush()
            self.fresh = True
            self.block = None

    def own(self, index: int, header: str) -> None:
        """Give stdout's current line to the block at ``index``; another block's line is
        ended first and the new one starts with ``header``."""
        if self.last is not self.out or self.block != index:
            self.end_line()
            self.last = self.out
            self.write(self.out, header)
            self.block = index

    def event(self, event: llmkit.Event) -> None:
        """Render one event as it arrives (``complete --stream``)."""
        match event:
            case llmkit.TextDelta(index=index, delta=delta):
                self.own(index, "")
                self.write(self.out, delta)
            case llmkit.ThinkingDelta(delta=delta):
                if self.last is not self.err:
                    self.end_line()
                    self.write(self.err, "[thinking] ")
                self.write(self.err, delta)
            case llmkit.ToolCallStart(index=index, id=call_id, name=name):
                self.own(index, f"[tool call {name or '?'} {call_id}] ")
            case llmkit.ToolCallDelta(index=index, id=call_id, name=name):
                self.own(index, f"[tool call {name or '?'} {call_id} ...] ")
                self.write(self.out, event.arguments_delta)
            case llmkit.ToolCallEnd(index=index, tool_call=call):
                self.own(index, f"[tool call {call.name} {call.id}] {call.raw_arguments}")
                self.write(self.out, f"  ({call.status})\n")
            case llmkit.Done(message=message) | llmkit.Error(message=message):
                self.end(message)

    def message(self, message: llmkit.AssistantMessage) -> None:
        """Render a whole message (``complete`` without ``--stream``)."""
        if message.thinking:
            self.write(self.err, f"[thinking] {message.thinking}\n")
        if message.text:
            self.write(self.out, message.text + "\n")
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            line = f"[tool call {call.name} {call.id}] {arguments}  ({call.status})\n"
            self.write(self.out, line)
        self.end(message)

    def end(self, message: llmkit.AssistantMessage) -> None:
        """The diagnostics and the summary line."""
        self.end_line()
        for diagnostic in message.diagnostics:
            self.write(self.err, _diagnostic_line(diagnostic) + "\n")
        self.write(self.err, _summary(message) + "\n")


def _event_line(event: llmkit.Event) -> str:
    """One line per event for ``replay``: ``text_delta [0] delta="Hel"``."""
    if isinstance(event, llmkit.DiagnosticEvent):
        d = event.diagnostic
        call = f" call={d.tool_call_id}" if d.tool_call_id else ""
        details = f" details={_json_line(d.details)}" if d.details else ""
        return f"diagnostic {d.kind}{call} {_one_line(d.message)}{details}"
    data = event_json(event)
    head = data.pop("type")
    index = data.pop("index")
    if index is not None:
        head += f" [{index}]"
    if isinstance(event, (llmkit.Done, llmkit.Error)):
        data.pop("message")
        head += " " + _summary(event.message)
    fields = " ".join(f"{k}={_json_line(v)}" for k, v in data.items())
    return f"{head} {fields}".rstrip()


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
    tools: list[llmkit.Tool] = []
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
            raise _Failure(f"{ns.tools}: {_one_line(str(e))}") from None
    return llmkit.Context(system=ns.system, messages=[llmkit.user(prompt)], tools=tools)


def _options(ns: argparse.Namespace) -> dict[str, Any]:
    names = ("base_url", "max_tokens", "temperature", "reasoning", "timeout")
    return {name: getattr(ns, name) for name in names if getattr(ns, name) is not None}


# --------------------------------------------------------------------------- commands


def _cmd_models(ns: argparse.Namespace) -> int:
    found = llmkit.models(ns.provider)
    if not found:
        providers = ", ".join(sorted({m.provider for m in llmkit.models()}))
        raise _Failure(f"no model of provider {ns.provider!r} in the catalogue ({providers})")
    if ns.json:
        _utf8(sys.stdout)
        print(json.dumps([m.model_dump(mode="json") for m in found], ensure_ascii=False, indent=2))
        return 0
    rows = [("MODEL", "API", "CONTEXT", "MAX OUT", "INPUT", "REASONING", "$/M IN", "$/M OUT")]
    for m in found:
        rows.append(
            (
                f"{m.provider}/{m.id}",
                m.api,
                str(m.context_window or "-"),
                str(m.max_output_tokens or "-"),
                ",".join(m.input),
                "yes" if m.reasoning else "no",
                f"{m.cost.input:g}" if m.cost.input or m.cost.output else "-",
                f"{m.cost.output:g}" if m.cost.input or m.cost.output else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _cmd_complete(ns: argparse.Namespace) -> int:
    model = _model(ns.model, ns.api, ns.api_key_env)
    context = _context(ns)
    console = _Console(sys.stdout, sys.stderr)
    if ns.json:
        _utf8(sys.stdout)
    with llmkit.stream(model, context, **_options(ns)) as events:
        for event in events:
            if ns.json and (ns.stream or isinstance(event, (llmkit.Done, llmkit.Error))):
                print(_json_line(event_json(event)), flush=True)
            elif ns.stream and not ns.json:
                console.event(event)
            if isinstance(event, llmkit.Error):
                if not ns.json and not ns.stream:
                    console.message(event.message)
                raise event.error
    if not ns.json and not ns.stream:
        console.message(events.message)
    return 0


def _cmd_request(ns: argparse.Namespace) -> int:
    model = _model(ns.model, ns.api, ns.api_key_env)
    options = _options(ns)
    key = os.environ.get(model.api_key_env) if model.api_key_env else None
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
        print(_diagnostic_line(diagnostic), file=sys.stderr)
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
    """Print the events of one body; raise the error of a stream that ends in ``Error``."""
    chunks = _chunks(source)
    first = next(chunks, b"")
    events: Iterator[llmkit.Event]
    if first.lstrip().startswith(b"{"):  # a non-streamed JSON body: no events, one message
        try:
            message = llmkit.parse_response(model, first + b"".join(chunks))
        except ValueError as e:
            raise _Failure(f"the body is not valid JSON ({e})") from None
        events = iter([llmkit.Done(message=message)])
    else:
        events = llmkit.parse_stream(model, _prepend(first, chunks))
    for event in events:
        print(_json_line(event_json(event)) if as_json else _event_line(event), flush=True)
        if isinstance(event, llmkit.Error):
            raise event.error


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

    models = commands.add_parser("models", help="list the model catalogue")
    models.add_argument("provider", nargs="?", metavar="PROVIDER")
    models.add_argument("--json", action="store_true", help="a JSON array of models")
    models.set_defaults(run=_cmd_models)

    complete = commands.add_parser(
        "complete", help="make one call and print the reply", epilog=_EPILOG
    )
    _add_call_arguments(complete)
    complete.add_argument(
        "--stream", action="store_true", help="show text and tool-call arguments as they arrive"
    )
    complete.add_argument(
        "--json", action="store_true", help="the terminal event as JSON (every event: --stream)"
    )
    complete.set_defaults(run=_cmd_complete)

    request = commands.add_parser(
        "request", help="print the HTTP request that would be sent (nothing is sent)"
    )
    _add_call_arguments(request)
    request.set_defaults(run=_cmd_request)

    replay = commands.add_parser(
        "replay", help="decode a captured raw response body into events", epilog=_EPILOG
    )
    replay.add_argument(
        "files", nargs="+", metavar="FILE", help="a body as received; - reads stdin"
    )
    replay.add_argument("--api", required=True, choices=_APIS, help="the wire API it speaks")
    replay.add_argument(
        "--model",
        metavar="PROVIDER/MODEL",
        help="decode as this model (a catalogue entry, or a custom one on --api)",
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
    print(f"llmkit: error: {where}{name}{_one_line(str(error))}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0, 1 for an llmkit error, 130 when interrupted (argparse exits 2 on
        a usage error itself).
    """
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
