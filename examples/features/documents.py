"""Documents: PDFs and text documents in ``user(..., documents=[...])`` and tool results.

    python examples/features/documents.py

Runs against llmkit's fake provider. A PDF (bytes, a ``data:`` or ``http(s)`` URL, a
``pathlib.Path``) becomes each wire's document part; a text document is text where a wire has
no text-document block; a model without ``"pdf"`` in ``Model.input`` gets a placeholder and a
``document_omitted`` diagnostic — and the fake refuses a PDF to a model that cannot read one,
as the real API does.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import llmkit
from llmkit.testing import FakeProvider, FakeReply

PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp, "notes.md")
        notes.write_text("# Meeting notes\n- ship on Friday\n", "utf-8")
        message = llmkit.user("Summarise both.", documents=[PDF, notes])
    for api in ("anthropic-messages", "openai-chat", "openai-responses", "gemini"):
        with FakeProvider([FakeReply("A catalogue and notes.")], api=api) as fake:
            model = fake.model(input=["text", "pdf"])
            llmkit.complete(model, llmkit.Context(messages=[message]), api_key=fake.api_key)
            body = fake.requests[0].body
            turns: Any = body.get("messages") or body.get("input") or body.get("contents")
            parts = turns[0]
            items = parts.get("content") or parts.get("parts")
            kinds = [p.get("type") or next(iter(p)) for p in items]
            print(f"{api}: {kinds}")
    # A model that reads no PDFs: a placeholder, reported (never silently dropped).
    with FakeProvider(
        [FakeReply("I cannot see the PDF.")], api="anthropic-messages", input=["text"]
    ) as fake:
        reply = llmkit.complete(
            fake.model(), llmkit.Context(messages=[message]), api_key=fake.api_key
        )
        print("text-only:", [d.kind for d in reply.diagnostics if d.kind == "document_omitted"])
        try:  # the client believing the model reads PDFs: the fake answers as the API would
            llmkit.complete(
                fake.model(input=["text", "pdf"]),
                llmkit.Context(messages=[message]),
                api_key=fake.api_key,
            )
        except llmkit.APIError as e:
            print("refused:", e.status, e.message)


if __name__ == "__main__":
    main()
