"""The conversation: messages, their parts, tool calls, usage and the Context.

Everything here is a pydantic model and round-trips through JSON exactly:
``Context.model_dump_json()`` / ``Context.model_validate_json()`` is the durable transcript,
across processes and versions. Message unions are discriminated by ``role``, parts by ``type``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._diagnostics import Diagnostic
from ._documents import CachePoint, DocumentPart, to_document_part
from ._errors import InvalidRequestError, ToolDefinitionError
from ._tools.definition import Tool
from ._tools.provider import AnyTool, ProviderTool

__all__ = [
    "AssistantMessage",
    "CachePoint",
    "Citation",
    "Context",
    "DocumentPart",
    "ImagePart",
    "Message",
    "StopReason",
    "TextPart",
    "ThinkingPart",
    "ToolCall",
    "ToolCallStatus",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "tool_result",
    "user",
]

StopReason = Literal[
    "stop", "length", "tool_use", "content_filter", "refusal", "pause", "error", "aborted"
]
ToolCallStatus = Literal["complete", "recovered", "invalid"]


class Citation(BaseModel):
    """A source the model cited for (a span of) a text part.

    Attributes:
        url: The cited web page, when the source is one.
        title: The cited document's, page's or search result's title.
        cited_text: The text quoted from the source, when the provider sends it.
        start: Offset (in characters) in the text part's own text where the cited span
            starts, when the provider gives one; positions inside the cited document stay in
            ``provider_data``.
        end: Offset where the cited span ends (exclusive).
        source: Which source: a document index, file id or search-result index.
        provider_data: The provider's citation object verbatim (sent back to the same model
            as its request type takes it).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    url: str | None = None
    title: str | None = None
    cited_text: str | None = None
    start: int | None = None
    end: int | None = None
    source: int | str | None = None
    provider_data: dict[str, Any] | None = None


def _no_citations(value: list[Citation]) -> bool:
    return not value


class TextPart(BaseModel):
    """Plain text.

    Attributes:
        text: The text.
        citations: The sources the model cited for it (assistant text only; empty by default,
            and then left out of the JSON).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["text"] = "text"
    text: str
    citations: list[Citation] = Field(default_factory=list, exclude_if=_no_citations)


_URL_SCHEMES = ("http://", "https://", "s3://", "gs://")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}\Z")


def check_part_url(what: str, url: str) -> None:
    """A part's URL is one a provider fetches (http(s), or a bucket: s3://, gs://); never a
    local file, a script or an inline page (``file:``, ``javascript:``, ``data:text/html``)."""
    if not url.lower().startswith(_URL_SCHEMES):
        scheme = url.split(":", 1)[0][:20] if ":" in url else "no scheme"
        raise ValueError(f"{what} url must be http(s):// (or s3://, gs://), not {scheme!r}")


def check_base64(what: str, data: str) -> None:
    """``data`` is strict base64 (no ``data:`` prefix, no line breaks)."""
    if len(data) % 4 or not _BASE64.match(data):
        raise ValueError(f"{what} data is not base64 (no data: prefix, no line breaks)")


class ImagePart(BaseModel):
    """An image, inline (base64 ``data``) or by ``url``; exactly one of the two is set.

    Attributes:
        data: Base64 of the image bytes (no ``data:`` prefix).
        url: An ``http(s)`` URL.
        media_type: ``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` (required
            with ``data``).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["image"] = "image"
    data: str | None = None
    url: str | None = None
    media_type: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> ImagePart:
        if (self.data is None) == (self.url is None):
            raise ValueError("ImagePart needs exactly one of data or url")
        if self.data is not None and not self.media_type:
            raise ValueError("ImagePart with data needs a media_type")
        if self.media_type is not None and not self.media_type.lower().startswith("image/"):
            raise ValueError(f"ImagePart needs an image/* media_type, not {self.media_type!r}")
        if self.url is not None:
            check_part_url("ImagePart", self.url)
        if self.data is not None:
            check_base64("ImagePart", self.data)
        return self


class ThinkingPart(BaseModel):
    """Reasoning the model showed (or an opaque, redacted block of it).

    Attributes:
        thinking: The reasoning text ("" for a redacted block).
        signature: The provider's signature over this block (Anthropic), needed to replay it.
        redacted: True for an encrypted block whose text is not visible.
        replay: Other opaque provider data needed to send this part back to the same model
            (for example an encrypted reasoning item or the field name it arrived in).
            Never interpreted; only replayed to the model that produced it.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str | None = None
    redacted: bool = False
    replay: dict[str, Any] | None = None


FREEFORM_CALLS = frozenset({"custom", "custom_tool_call"})
"""``ToolCall.replay["type"]`` of a call whose input is freeform text, not JSON arguments: an
OpenAI custom tool's call on the Chat (``custom``) and Responses (``custom_tool_call``) wires
(docs/design.md §6). Either wire sends such a call back in its own form."""


class ToolCall(BaseModel):
    """A call the model asked for. Executing it is the caller's business.

    Attributes:
        id: Always non-empty and stable: the provider's id, or a deterministic one llmkit
            made when the provider sent none (then ``provider_id`` says what it sent).
        name: The tool name.
        arguments: The parsed arguments; possibly recovered (see ``status``); ``{}`` when
            nothing could be recovered, and for a freeform call (below).
        raw_arguments: The exact argument text received. A freeform call (an OpenAI custom
            tool's: ``replay["type"]`` is ``"custom"`` or ``"custom_tool_call"``) has its
            input here, plain text that is not parsed as JSON.
        status: ``complete`` (strict JSON object, or a freeform call's whole input),
            ``recovered`` (repaired or a truncated prefix: not safe to execute without
            looking) or ``invalid``.
        provider_id: The id as the provider sent it, when llmkit had to synthesise or rewrite
            it (``""`` for a missing id).
        replay: Opaque provider data to send back with this call to the same model (for
            example a Gemini thought signature).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = ""
    status: ToolCallStatus = "complete"
    provider_id: str | None = None
    replay: dict[str, Any] | None = None


class Usage(BaseModel):
    """Token counts, one convention for every provider.

    ``input`` counts every input token the model read, cache reads and writes included (so
    non-cached input is ``input - cache_read - cache_write``); ``output`` includes
    ``reasoning``; ``cost`` (USD, from the model's prices) bills each bucket once. A count the
    provider did not report is ``None``, never guessed.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None
    cost: float | None = None


AssistantPart = Annotated[Union[TextPart, ThinkingPart, ToolCall], Field(discriminator="type")]
UserPart = Annotated[
    Union[TextPart, ImagePart, DocumentPart, CachePoint], Field(discriminator="type")
]


def _text_to_parts(value: Any) -> Any:
    if isinstance(value, str):
        return [TextPart(text=value)]
    return value


class UserMessage(BaseModel):
    """A user turn: text, images, documents and cache points. ``content`` may be given as a
    plain string."""

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    role: Literal["user"] = "user"
    content: list[UserPart]

    if TYPE_CHECKING:
        # What a type checker and the reference see of the constructor: ``content`` as a
        # string or any sequence of parts (pydantic makes it a list).
        def __init__(
            self,
            *,
            content: str | Sequence[TextPart | ImagePart | DocumentPart | CachePoint],
            role: Literal["user"] = "user",
        ) -> None: ...

    _coerce = field_validator("content", mode="before")(_text_to_parts)

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


class AssistantMessage(BaseModel):
    """A model turn, as assembled from the provider's response.

    Attributes:
        content: Text, thinking and tool calls in the order the model produced them.
        stop_reason: Why generation stopped (llmkit's closed set).
        raw_stop_reason: The provider's own value, unchanged.
        usage: Token counts (``None`` fields where the provider reported nothing).
        diagnostics: Every repair, inference, rewrite or drop made for this message.
        provider: Provider name of the model that produced it.
        api: Wire API it came over.
        model: Model id (as requested).
        response_id: The provider's response id, when it sent one.
        error: A short description when ``stop_reason`` is ``error`` or ``aborted``.
        provider_data: Provider-specific data kept verbatim: replayed to the same model where
            the provider requires it (OpenRouter ``reasoning_details``), informational
            otherwise (OpenRouter ``native_finish_reason``).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    role: Literal["assistant"] = "assistant"
    content: list[AssistantPart] = Field(default_factory=list)
    stop_reason: StopReason = "stop"
    raw_stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    provider: str | None = None
    api: str | None = None
    model: str | None = None
    response_id: str | None = None
    error: str | None = None
    provider_data: dict[str, Any] | None = None

    if TYPE_CHECKING:
        # What a type checker and the reference see of the constructor (pydantic makes
        # ``content`` and ``diagnostics`` lists).
        def __init__(
            self,
            *,
            content: str | Sequence[TextPart | ThinkingPart | ToolCall] = (),
            stop_reason: StopReason = "stop",
            raw_stop_reason: str | None = None,
            usage: Usage = ...,
            diagnostics: Sequence[Diagnostic] = (),
            provider: str | None = None,
            api: str | None = None,
            model: str | None = None,
            response_id: str | None = None,
            error: str | None = None,
            provider_data: dict[str, Any] | None = None,
            role: Literal["assistant"] = "assistant",
        ) -> None: ...

    _coerce = field_validator("content", mode="before")(_text_to_parts)

    @property
    def text(self) -> str:
        """All text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    @property
    def thinking(self) -> str:
        """All visible thinking joined."""
        return "".join(p.thinking for p in self.content if isinstance(p, ThinkingPart))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls, in order."""
        return [p for p in self.content if isinstance(p, ToolCall)]

    def diagnostics_for(self, call_id: str) -> list[Diagnostic]:
        """The diagnostics that concern the tool call with this id."""
        return [d for d in self.diagnostics if d.tool_call_id == call_id]


class ToolResultMessage(BaseModel):
    """The caller's result for one tool call.

    Attributes:
        tool_call_id: The ``ToolCall.id`` this answers.
        tool_name: The called tool's name (some providers require it on results).
        content: Text, images, documents and cache points.
        is_error: True when the call failed (the model sees it as an error).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    role: Literal["tool"] = "tool"
    tool_call_id: str
    tool_name: str
    content: list[UserPart]
    is_error: bool = False

    _coerce = field_validator("content", mode="before")(_text_to_parts)

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


Message = Annotated[
    Union[UserMessage, AssistantMessage, ToolResultMessage], Field(discriminator="role")
]


class Context(BaseModel):
    """Everything sent to the model: system prompt, messages, tools.

    ``tools`` holds function :class:`Tool` s and, next to them, :class:`ProviderTool` s
    (provider-hosted tools, sent only to their own wire API).

    ``model_dump_json()`` / ``model_validate_json()`` round-trip exactly; a tool made from a
    pydantic model comes back as a plain schema tool (its public fields equal).
    """

    system: str | None = None
    messages: list[Message] = Field(default_factory=list)
    tools: list[AnyTool] = Field(default_factory=list)  # Tool | ProviderTool

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, validate_assignment=True)

    if TYPE_CHECKING:
        # What a type checker sees of the constructor: any sequence (a tuple, a list[Tool[X]]
        # or a list[UserMessage] built beforehand) where the attributes are lists of a union,
        # which list's invariance would refuse. pydantic makes them lists.
        def __init__(
            self,
            *,
            system: str | None = None,
            messages: Sequence[Message] = (),
            tools: Sequence[Tool[Any] | ProviderTool] = (),
        ) -> None: ...

    @model_validator(mode="after")
    def _unique_tool_names(self) -> Context:
        check_tool_names(self.tools, ToolDefinitionError)
        return self


def check_tool_names(tools: Sequence[AnyTool], error: type[Exception]) -> None:
    """Raise ``error`` when two function tools share a name (provider tools are checked by
    the wire they go to)."""
    seen: set[str] = set()
    for t in tools:
        if not isinstance(t, Tool):
            continue
        if t.name in seen:
            raise error(f"Duplicate tool name {t.name!r}: tool names must be unique")
        seen.add(t.name)


_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def _sniff(data: bytes) -> str:
    for magic, media_type in _SIGNATURES:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise ValueError("Unrecognised image bytes: expected PNG, JPEG, GIF or WebP")


def to_image_part(image: ImagePart | bytes | str) -> ImagePart:
    """Turn an ``images=`` item (ImagePart, raw bytes, ``data:`` URL, http(s) URL) into an
    ImagePart."""
    if isinstance(image, ImagePart):
        return image
    if isinstance(image, (bytes, bytearray)):
        data = bytes(image)
        return ImagePart(data=base64.b64encode(data).decode("ascii"), media_type=_sniff(data))
    if isinstance(image, str):
        if image.startswith("data:"):
            header, sep, payload = image[5:].partition(",")
            if not sep or not header.endswith(";base64"):
                raise ValueError("data: URLs must be base64 (data:<type>;base64,<data>)")
            return ImagePart(data=payload, media_type=header[: -len(";base64")])
        if image.startswith(("http://", "https://")):
            return ImagePart(url=image)
    raise ValueError(f"Unsupported image: {type(image).__name__}")


Document = Union[DocumentPart, bytes, str, Path]
"""A ``documents=`` item: a DocumentPart, raw PDF bytes, a ``data:`` URL, an ``http(s)`` URL or
a ``pathlib.Path``."""


def user(
    text: str,
    images: Iterable[ImagePart | bytes | str] = (),
    documents: Iterable[Document] = (),
) -> UserMessage:
    """A user message with text, optional images (ImagePart, bytes, data: or http(s) URL) and
    optional documents (DocumentPart, PDF bytes, data: or http(s) URL, pathlib.Path).

    Raises:
        ValueError: An image or document of a kind llmkit does not recognise.
    """
    parts: list[Any] = [TextPart(text=text)]
    parts.extend(to_image_part(i) for i in images)
    parts.extend(to_document_part(d) for d in documents)
    return UserMessage(content=parts)


def tool_result(
    call: ToolCall,
    text: str,
    images: Iterable[ImagePart | bytes | str] = (),
    is_error: bool = False,
    *,
    documents: Iterable[Document] = (),
) -> ToolResultMessage:
    """The result message for ``call`` (its id and name are copied), with optional images and
    documents (as for :func:`user`)."""
    parts: list[Any] = [TextPart(text=text)]
    parts.extend(to_image_part(i) for i in images)
    parts.extend(to_document_part(d) for d in documents)
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=parts, is_error=is_error
    )


def as_context(context: object) -> Context:
    """``context`` as a :class:`Context`.

    Raises:
        InvalidRequestError: anything else, naming ``context`` (before anything is sent).
    """
    if isinstance(context, Context):
        return context
    if isinstance(context, str):
        return Context(messages=[user(context)])
    if isinstance(context, Sequence) and not isinstance(context, (bytes, bytearray)):
        for i, item in enumerate(context):
            if not isinstance(item, (UserMessage, AssistantMessage, ToolResultMessage)):
                raise InvalidRequestError(
                    f"context[{i}] is a {type(item).__name__}, not a message: a sequence given "
                    "as context holds UserMessage, AssistantMessage or ToolResultMessage items"
                )
        return Context(messages=list(context))
    raise InvalidRequestError(
        "context must be an llmkit.Context, a str or a sequence of messages "
        f"(got {type(context).__name__})"
    )
