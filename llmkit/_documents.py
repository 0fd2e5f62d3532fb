"""The content parts of the production features: :class:`DocumentPart` (a PDF or a text document)
and :class:`CachePoint` ("cache the prompt up to here"), and turning a ``documents=`` item into a
DocumentPart.

Both are allowed in ``UserMessage.content`` and ``ToolResultMessage.content``; each wire maps them
in its request builder (docs/design.md §5 "Documents", "Prompt caching"), reporting what a model
cannot take (``document_omitted``). llmkit never fetches a URL itself: a URL document is sent as a
URL, to the wires that take one.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["PDF", "CachePoint", "DocumentPart", "to_document_part"]

PDF = "application/pdf"
_PDF_MAGIC = b"%PDF-"


class DocumentPart(BaseModel):
    """A document: a PDF (inline base64 ``data`` or by ``url``) or a text document (``text``).

    Exactly one of ``data``, ``url`` and ``text`` is set. ``media_type`` is
    ``application/pdf`` for ``data`` and ``url`` (the default), and ``text/plain`` or another
    ``text/*`` type for ``text`` (the default there is ``text/plain``).

    Attributes:
        data: Base64 of the PDF bytes (no ``data:`` prefix).
        url: An ``http(s)`` URL of a PDF; sent as a URL to the wires that take one (llmkit never
            fetches it), omitted (reported) on the others.
        text: The text of a plain-text document.
        media_type: ``application/pdf``, or a ``text/*`` type for ``text``.
        title: A title (Anthropic ``title``; the ``filename`` OpenAI needs with ``file_data``).
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["document"] = "document"
    data: str | None = None
    url: str | None = None
    text: str | None = None
    media_type: str = PDF
    title: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_media_type(cls, value: Any) -> Any:
        if (
            isinstance(value, dict)
            and value.get("text") is not None
            and not value.get("media_type")
        ):
            return {**value, "media_type": "text/plain"}
        return value

    @model_validator(mode="after")
    def _one_source(self) -> DocumentPart:
        if sum(v is not None for v in (self.data, self.url, self.text)) != 1:
            raise ValueError("DocumentPart needs exactly one of data, url or text")
        if self.text is not None:
            if not self.media_type.startswith("text/"):
                raise ValueError(
                    f"A text DocumentPart needs a text/* media_type, not {self.media_type!r}"
                )
        elif self.media_type != PDF:
            raise ValueError(
                "A DocumentPart with data or url is a PDF (application/pdf), "
                f"not {self.media_type!r}"
            )
        from ._messages import check_base64, check_part_url

        if self.url is not None:
            check_part_url("DocumentPart", self.url)
        if self.data is not None:
            check_base64("DocumentPart", self.data)
        return self

    @property
    def is_pdf(self) -> bool:
        """Whether this is a PDF (``data`` or ``url``), as opposed to a text document."""
        return self.text is None


class CachePoint(BaseModel):
    """ "Cache the prompt up to here": a prompt-caching breakpoint after the part before it.

    Anthropic: ``cache_control`` on the block before it (at most four per request, the rest
    reported); OpenAI models with explicit breakpoints: ``prompt_cache_breakpoint`` on the part
    before it; wires with only automatic prefix caching need nothing and ignore it.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True)

    type: Literal["cache_point"] = "cache_point"


def _from_bytes(data: bytes, title: str | None) -> DocumentPart:
    if not data.startswith(_PDF_MAGIC):
        raise ValueError("Unrecognised document bytes: expected a PDF (starting with %PDF-)")
    return DocumentPart(data=base64.b64encode(data).decode("ascii"), title=title)


def _from_path(path: Path) -> DocumentPart:
    data = path.read_bytes()
    if data.startswith(_PDF_MAGIC):
        return _from_bytes(data, path.name)
    guessed = mimetypes.guess_type(path.name)[0]
    if guessed is None or not guessed.startswith("text/"):
        raise ValueError(f"{path.name}: a document path must be a PDF or a text file")
    return DocumentPart(text=data.decode("utf-8"), media_type=guessed, title=path.name)


def _from_data_url(url: str) -> DocumentPart:
    header, sep, payload = url[5:].partition(",")
    if not sep or not header.endswith(";base64"):
        raise ValueError("data: URLs must be base64 (data:<type>;base64,<data>)")
    media_type = header[: -len(";base64")]
    if media_type == PDF:
        return DocumentPart(data=payload)
    if media_type.startswith("text/"):
        text = base64.b64decode(payload, validate=True).decode("utf-8")
        return DocumentPart(text=text, media_type=media_type)
    raise ValueError(f"Unsupported document data: URL type {media_type!r}")


def to_document_part(document: DocumentPart | bytes | str | Path) -> DocumentPart:
    """Turn a ``documents=`` item into a DocumentPart: a DocumentPart as is, raw PDF bytes
    (sniffed by ``%PDF-``), a ``data:`` URL (a PDF, or ``text/*`` decoded as UTF-8), an
    ``http(s)`` URL (a PDF by URL) or a ``pathlib.Path`` (a PDF, or a text file; its name is the
    title).

    Raises:
        ValueError: The item is none of these.
    """
    if isinstance(document, DocumentPart):
        return document
    if isinstance(document, (bytes, bytearray)):
        return _from_bytes(bytes(document), None)
    if isinstance(document, Path):
        return _from_path(document)
    if isinstance(document, str):
        if document.startswith("data:"):
            return _from_data_url(document)
        if document.startswith(("http://", "https://")):
            return DocumentPart(url=document)
    raise ValueError(f"Unsupported document: {type(document).__name__}")
