"""The page's history back into a conversation: :func:`from_ui_messages` and :func:`approvals`.

A ``useChat`` page posts every ``UIMessage`` on every turn. The input came from a browser, so
every shape is checked here and anything malformed is an :class:`~llmkit.InvalidRequestError`
naming the message and part; nothing else escapes. What ``to_ui_stream`` recorded under
``"llmkit"`` (``_record.py``) restores what the visible parts cannot say.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from .._diagnostics import Diagnostic
from .._documents import PDF, DocumentPart
from .._errors import InvalidRequestError
from .._messages import (
    AssistantMessage,
    Citation,
    Context,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserPart,
)
from ._approval import Approval, refusal_text
from ._record import KEY, RECORD_TYPE, parsed_arguments
from ._untrusted import Where as _Where
from ._untrusted import check_json

__all__ = ["approvals", "from_ui_messages"]

_T = TypeVar("_T")

_TOOL_STATES = frozenset(
    {
        "input-streaming",
        "input-available",
        "approval-requested",
        "approval-responded",
        "output-available",
        "output-error",
        "output-denied",
    }
)
_USER_PARTS: TypeAdapter[list[UserPart]] = TypeAdapter(list[UserPart])
_CITATIONS: TypeAdapter[list[Citation]] = TypeAdapter(list[Citation])
_MESSAGE_FIELDS = (
    "provider",
    "api",
    "model",
    "response_id",
    "provider_data",
    "stop_reason",
    "raw_stop_reason",
)


def _get(
    where: _Where,
    obj: Mapping[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    *,
    optional: bool = False,
) -> Any:
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        wanted = {
            "str": "a string",
            "dict": "an object",
            "list": "a list",
            "bool": "true or false",
            "int": "an integer",
        }
        fallback = f"a {names}"
        what = wanted.get(names, fallback)
        got = "missing" if key not in obj else f"a {type(value).__name__}"
        where.fail(f"{key!r} must be {what}, not {got}")
    return value


def _model(where: _Where, build: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Build a pydantic model from untrusted values; its complaints become ours."""
    try:
        return build(*args, **kwargs)
    except ValidationError as error:
        first = error.errors()[0]
        loc = ".".join(str(x) for x in first.get("loc", ()))
        where.fail(f"{first.get('msg', 'invalid value')}" + (f" (at {loc})" if loc else ""))
    except (ValueError, TypeError) as error:  # a validator's own message
        where.fail(str(error))


def _llmkit(where: _Where, part: Mapping[str, Any], slot: str) -> dict[str, Any] | None:
    """``part[slot]["llmkit"]`` (an object) if there."""
    metadata = _get(where, part, slot, dict, optional=True)
    if metadata is None:
        return None
    found: dict[str, Any] | None = _get(where, metadata, KEY, dict, optional=True)
    return found


class _Reader:
    def __init__(self, diagnostics: list[Diagnostic] | None) -> None:
        self.diagnostics = diagnostics
        self.system: list[str] = []
        self.messages: list[Message] = []
        self.approvals: dict[str, Approval] = {}

    def skip(self, where: _Where, kind: str, what: str | None = None) -> None:
        if self.diagnostics is not None:
            what = what or f"a {kind[:80]!r} part was skipped (llmkit does not take it)"
            self.diagnostics.append(
                Diagnostic(
                    kind="ui_part_skipped",
                    message=f"{where}: {what}",
                    details={"message": where.index, "part": where.part, "type": kind[:200]},
                )
            )

    def read(self, messages: object) -> None:
        if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
            raise InvalidRequestError(
                f"UI message history must be a list of UI messages, not a {type(messages).__name__}"
            )
        for index, message in enumerate(messages):
            if not isinstance(message, Mapping):
                _Where(index, None).fail(
                    f"a UI message must be an object, not a {type(message).__name__}"
                )
            check_json(index, message)
            where = _Where(index, message.get("id"))
            if "id" in message and not isinstance(message["id"], str):
                where.fail("'id' must be a string")
            role = message.get("role")
            parts = _get(where, message, "parts", list)
            for n, part in enumerate(parts):
                if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                    where.part = n
                    where.fail("a part must be an object with a string 'type'")
            if role == "system":
                self.read_system(where, parts)
            elif role == "user":
                self.read_user(where, parts)
            elif role == "assistant":
                self.read_assistant(where, parts)
            else:
                where.fail(
                    f"'role' must be 'system', 'user' or 'assistant', not {str(role)[:40]!r}"
                )

    # -- system and user ------------------------------------------------------------------

    def read_system(self, where: _Where, parts: list[dict[str, Any]]) -> None:
        for n, part in enumerate(parts):
            where.part = n
            if part["type"] == "text":
                self.system.append(_get(where, part, "text", str))
            else:
                self.skip(where, part["type"])

    def read_user(self, where: _Where, parts: list[dict[str, Any]]) -> None:
        content: list[Any] = []
        for n, part in enumerate(parts):
            where.part = n
            kind = part["type"]
            if kind == "text":
                content.append(TextPart(text=_get(where, part, "text", str)))
            elif kind == "file":
                taken = self.file(where, part)
                if taken is None:
                    self.skip(where, f"file ({part['mediaType'][:60]})")
                else:
                    content.append(taken)
            else:
                self.skip(where, kind)
        where.part = None
        self.messages.append(_model(where, UserMessage, content=content))

    def file(self, where: _Where, part: Mapping[str, Any]) -> Any:
        media_type = _get(where, part, "mediaType", str).lower()
        url = _get(where, part, "url", str)
        title = _get(where, part, "filename", str, optional=True)
        data: str | None = None
        if url.startswith("data:"):
            head, comma, body = url[5:].partition(",")
            if not comma or not head.endswith(";base64"):
                where.fail("a file's data: URL must be base64 (data:<type>;base64,<data>)")
            data = body
        if media_type.startswith("image/"):
            if data is not None:
                return _model(where, ImagePart, data=data, media_type=media_type)
            return _model(where, ImagePart, url=url)
        if media_type == PDF:
            if data is not None:
                return _model(where, DocumentPart, data=data, title=title)
            return _model(where, DocumentPart, url=url, title=title)
        if media_type.startswith("text/") and data is not None:
            try:
                text = base64.b64decode(data, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                where.fail("a text file's data is not base64 of UTF-8 text")
            return _model(where, DocumentPart, text=text, media_type=media_type, title=title)
        return None  # a type no request takes (or a text file by URL, which llmkit never fetches)

    # -- assistant --------------------------------------------------------------------------

    def read_assistant(self, where: _Where, parts: list[dict[str, Any]]) -> None:
        if not parts:  # a page's message for a response that never got going
            self.skip(where, "(no parts)", "an assistant message without parts was skipped")
            return
        step: list[tuple[int, dict[str, Any]]] = []
        for n, part in enumerate(parts):
            if part["type"] == "step-start":
                self.step(where, step)
                step = []
            else:
                step.append((n, part))
        self.step(where, step)

    def step(self, where: _Where, parts: list[tuple[int, dict[str, Any]]]) -> None:
        texts: list[tuple[int, str, dict[str, Any]]] = []
        thoughts: list[tuple[int, str, dict[str, Any]]] = []
        tools: dict[str, tuple[int, dict[str, Any]]] = {}
        order: list[tuple[str, Any]] = []  # the visible content, in order
        record: tuple[int, dict[str, Any]] | None = None
        for n, part in parts:
            where.part = n
            kind = part["type"]
            if kind == "text":
                texts.append((n, _get(where, part, "text", str), part))
                order.append(("text", len(texts) - 1))
            elif kind == "reasoning":
                thoughts.append((n, _get(where, part, "text", str), part))
                order.append(("reasoning", len(thoughts) - 1))
            elif kind.startswith("tool-") or kind == "dynamic-tool":
                call_id = _get(where, part, "toolCallId", str)
                if not call_id:
                    where.fail("'toolCallId' must not be empty")
                if call_id in tools:
                    where.fail(f"a second tool part for call {call_id[:80]!r}")
                tools[call_id] = (n, part)
                order.append(("tool", call_id))
            elif kind == RECORD_TYPE:
                if record is not None:
                    where.fail("a second data-llmkit part in one step")
                record = (n, _get(where, part, "data", dict))
            else:
                self.skip(where, kind)
        if record is None and not order:
            return
        content: list[Any] = []
        head: dict[str, Any] = {}
        recorded: dict[str, dict[str, Any]] = {}
        if record is None:
            for kind, key in order:
                if kind == "text":
                    n, text, part = texts[key]
                    where.part = n
                    content.append(TextPart(text=text))
                elif kind == "reasoning":
                    n, text, part = thoughts[key]
                    content.append(ThinkingPart(thinking=text))
                else:
                    content.append(self.call(where, *tools[key], None))
        else:
            where.part = record[0]
            data = record[1]
            head = _get(where, data, "message", dict)
            for entry in _get(where, data, "content", list):
                if not isinstance(entry, Mapping):
                    where.fail("a data-llmkit content entry must be an object")
                content.append(self.entry(where, entry, texts, thoughts, tools, recorded))
            for call_id, (n, part) in tools.items():  # calls the record does not list
                if call_id not in recorded:
                    content.append(self.call(where, n, part, None))
        where.part = record[0] if record is not None else None
        fields = {k: head[k] for k in _MESSAGE_FIELDS if head.get(k) is not None}
        assistant = _model(where, AssistantMessage, content=content, **fields)
        self.messages.append(assistant)
        self.results(where, assistant, tools, recorded)

    def entry(
        self,
        where: _Where,
        entry: Mapping[str, Any],
        texts: list[tuple[int, str, dict[str, Any]]],
        thoughts: list[tuple[int, str, dict[str, Any]]],
        tools: dict[str, tuple[int, dict[str, Any]]],
        recorded: dict[str, dict[str, Any]],
    ) -> Any:
        kind = entry.get("type")
        if kind == "tool_call":
            call_id = _get(where, entry, "id", str)
            if call_id not in tools or call_id in recorded:
                where.fail(
                    f"data-llmkit names a call the step does not show once: {call_id[:80]!r}"
                )
            recorded[call_id] = dict(entry)
            n, part = tools[call_id]
            return self.call(where, n, part, entry)
        if kind not in ("text", "thinking"):
            where.fail(f"a data-llmkit content entry of unknown type {str(kind)[:40]!r}")
        field = "text" if kind == "text" else "thinking"
        shown = texts if kind == "text" else thoughts
        ordinal = _get(where, entry, "ui", int, optional=True)
        if ordinal is not None:
            if not 0 <= ordinal < len(shown):
                where.fail(f"data-llmkit names a {kind} part the step does not have")
            text = shown[ordinal][1]
        else:
            text = _get(where, entry, field, str)
        if kind == "text":
            citations = _get(where, entry, "citations", list, optional=True) or []
            return _model(
                where,
                TextPart,
                text=text,
                citations=_model(where, _CITATIONS.validate_python, citations),
            )
        return _model(
            where,
            ThinkingPart,
            thinking=text,
            signature=_get(where, entry, "signature", str, optional=True),
            redacted=_get(where, entry, "redacted", bool, optional=True) or False,
            replay=_get(where, entry, "replay", dict, optional=True),
        )

    def call(
        self, where: _Where, n: int, part: Mapping[str, Any], entry: Mapping[str, Any] | None
    ) -> ToolCall:
        where.part = n
        if part["type"] == "dynamic-tool":
            name = _get(where, part, "toolName", str)
        else:
            name = part["type"][len("tool-") :]
        if not name:
            where.fail("a tool part needs a tool name")
        state = _get(where, part, "state", str)
        if state not in _TOOL_STATES:
            where.fail(f"unknown tool part state {state[:40]!r}")
        call_id = part["toolCallId"]
        if entry is not None:
            raw = _get(where, entry, "raw_arguments", str)
            arguments = entry.get("arguments")
            if arguments is None:
                arguments = parsed_arguments(raw)
            if not isinstance(arguments, dict):
                where.fail("the recorded arguments are not a JSON object")
            return _model(
                where,
                ToolCall,
                id=call_id,
                name=name,
                arguments=arguments,
                raw_arguments=raw,
                status=entry.get("status", "complete"),
                provider_id=_get(where, entry, "provider_id", str, optional=True),
                replay=_get(where, entry, "replay", dict, optional=True),
            )
        # No record (a page's own message): the input is all there is.
        given = part.get("input")
        if isinstance(given, dict):
            try:
                raw = json.dumps(given, ensure_ascii=False, allow_nan=False)
            except ValueError:
                where.fail("the tool input is not JSON")
            return _model(
                where, ToolCall, id=call_id, name=name, arguments=given, raw_arguments=raw
            )
        raw = given if isinstance(given, str) else ""
        return _model(where, ToolCall, id=call_id, name=name, raw_arguments=raw, status="invalid")

    def results(
        self,
        where: _Where,
        assistant: AssistantMessage,
        tools: dict[str, tuple[int, dict[str, Any]]],
        recorded: dict[str, dict[str, Any]],
    ) -> None:
        # Results in the order they were streamed after the step (their recorded index), then
        # those without one (a later response's, a refusal, a page's own) in call order.
        found: list[tuple[tuple[int, int], ToolResultMessage]] = []
        for position, call in enumerate(assistant.tool_calls):
            n, part = tools[call.id]
            where.part = n
            result = self.outcome(where, call, part, recorded.get(call.id))
            if result is not None:
                index, message = result
                found.append(((0, index) if index is not None else (1, position), message))
        found.sort(key=lambda item: item[0])
        self.messages.extend(result for _, result in found)

    def outcome(
        self,
        where: _Where,
        call: ToolCall,
        part: Mapping[str, Any],
        entry: Mapping[str, Any] | None,
    ) -> tuple[int | None, ToolResultMessage] | None:
        state = part["state"]
        approval = _get(where, part, "approval", dict, optional=True)
        if state == "approval-responded":
            if approval is None:
                where.fail("an approval-responded tool part needs an 'approval'")
            self.approvals[call.id] = Approval(
                tool_call_id=call.id,
                approval_id=_get(where, approval, "id", str),
                approved=_get(where, approval, "approved", bool),
                reason=_get(where, approval, "reason", str, optional=True),
            )
            return None
        if state == "output-denied":
            reason = (
                None if approval is None else _get(where, approval, "reason", str, optional=True)
            )
            text = refusal_text(reason)
            return None, _model(
                where,
                ToolResultMessage,
                tool_call_id=call.id,
                tool_name=call.name,
                content=[TextPart(text=text)],
                is_error=True,
            )
        if state not in ("output-available", "output-error"):
            return None
        meta = _llmkit(where, part, "resultProviderMetadata")
        if meta is None and entry is not None and state == "output-error":
            return None  # a relayed tool-input-error: the call got no result
        is_error = state == "output-error"
        if is_error:
            text = _get(where, part, "errorText", str)
        else:
            output = part.get("output")
            if isinstance(output, str):
                text = output
            else:
                try:
                    text = json.dumps(output, ensure_ascii=False, allow_nan=False)
                except (TypeError, ValueError):
                    where.fail("the tool output is not JSON")
        index: int | None = None
        name = call.name
        content: Any = [TextPart(text=text)]
        if meta is not None:
            index = _get(where, meta, "index", int, optional=True)
            name = _get(where, meta, "tool_name", str, optional=True) or name
            if "content" in meta:
                content = _model(where, _USER_PARTS.validate_python, meta["content"])
        result = _model(
            where,
            ToolResultMessage,
            tool_call_id=call.id,
            tool_name=name,
            content=content,
            is_error=is_error,
        )
        return index, result


def from_ui_messages(messages: object, *, diagnostics: list[Diagnostic] | None = None) -> Context:
    """The AI SDK ``UIMessage`` s a ``useChat`` page posts (parsed JSON), as a conversation.

    System messages become ``Context.system`` (joined by blank lines); a user ``text`` part a
    :class:`~llmkit.TextPart`, a ``file`` an :class:`~llmkit.ImagePart` (``image/*``) or a
    :class:`~llmkit.DocumentPart` (PDF; ``text/*`` as a ``data:`` URL); each assistant step
    (``step-start``) one :class:`~llmkit.AssistantMessage` (``text`` → ``TextPart``,
    ``reasoning`` → ``ThinkingPart``, tool parts → ``ToolCall``), followed by a
    :class:`~llmkit.ToolResultMessage` for each of its calls that has an outcome
    (``output-available``; ``output-error`` and ``output-denied`` with ``is_error``, a
    denial's reason in its text). Calls waiting for an approval (or for the page) get no
    result: see :func:`approvals`. What ``to_ui_stream`` recorded under ``"llmkit"``
    restores everything else a request to the same model uses (signatures, replay data, the
    exact argument text). ``tools`` stay the caller's: the returned context has none.

    Args:
        messages: The ``messages`` list of the page's request body, as parsed JSON.
        diagnostics: A list to append a ``ui_part_skipped`` :class:`~llmkit.Diagnostic` to
            for each part not taken (``data-*``, ``source-*``, files no request takes,
            unknown parts).

    Returns:
        The conversation, without tools.

    Raises:
        InvalidRequestError: Anything malformed (the input came from a browser), naming the
            message (index and id) and part.
    """
    reader = _Reader(diagnostics)
    reader.read(messages)
    system = "\n\n".join(reader.system) if reader.system else None
    return Context(system=system, messages=reader.messages)


def approvals(messages: object) -> dict[str, Approval]:
    """The page's answers to approval requests, keyed by tool call id, for the calls that
    have no result yet (tool parts in state ``approval-responded``).

    Run an approved call and give its result to ``to_ui_stream``; for a denied one, add
    :meth:`Approval.refusal` to the conversation and give the :class:`Approval` itself to
    ``to_ui_stream`` (the page then shows ``output-denied``).

    Raises:
        InvalidRequestError: As :func:`from_ui_messages`, which reads the same input.
    """
    reader = _Reader(None)
    reader.read(messages)
    return reader.approvals
