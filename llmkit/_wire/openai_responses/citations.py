"""Citations on the Responses wire: ``output_text`` annotations (``url_citation``,
``file_citation``, ``container_file_citation``, ``file_path``) as :class:`~llmkit.Citation` s
when decoding, and back as the annotations of an ``output_text`` part on replay."""

from __future__ import annotations

from typing import Any

from ..._messages import Citation, TextPart

__all__ = ["annotation_citation", "output_annotations"]

# The fields each annotation type takes in a request (openai's ResponseOutputTextParam).
_ANNOTATION_FIELDS: dict[str, tuple[str, ...]] = {
    "url_citation": ("type", "url", "title", "start_index", "end_index"),
    "file_citation": ("type", "file_id", "filename", "index"),
    "container_file_citation": (
        *("type", "container_id", "file_id", "filename", "start_index", "end_index"),
    ),
    "file_path": ("type", "file_id", "index"),
}


def _offset(value: Any, shift: int) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value + shift
    return None


def annotation_citation(raw: dict[str, Any], shift: int = 0) -> Citation:
    """A Responses ``output_text`` annotation as a :class:`~llmkit.Citation`; ``shift`` moves
    its ``start_index``/``end_index`` into the whole text part."""
    url, title = raw.get("url"), raw.get("title", raw.get("filename"))
    source = raw.get("file_id")
    return Citation(
        url=url if isinstance(url, str) else None,
        title=title if isinstance(title, str) else None,
        start=_offset(raw.get("start_index"), shift),
        end=_offset(raw.get("end_index"), shift),
        source=source if isinstance(source, str) else None,
        provider_data=dict(raw),
    )


def output_annotations(part: TextPart) -> list[dict[str, Any]]:
    """The part's Responses annotations as ``output_text`` takes them; offsets are the
    citation's own (in the whole text part, which goes back as one ``output_text``)."""
    out: list[dict[str, Any]] = []
    for c in part.citations:
        raw = c.provider_data or {}
        kind = raw.get("type")
        fields = _ANNOTATION_FIELDS.get(kind) if isinstance(kind, str) else None
        if fields is None:
            continue  # from another wire
        annotation = {k: raw[k] for k in fields if k in raw}
        if "start_index" in annotation and c.start is not None and c.end is not None:
            annotation["start_index"], annotation["end_index"] = c.start, c.end
        out.append(annotation)
    return out
