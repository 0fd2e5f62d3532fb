"""Regenerate docs/servers.md from llmkit's provider profiles (``python docs/gen_servers.py``).

The table is data-driven so the docs cannot drift from what llmkit does: a test checks that
docs/servers.md equals this script's output.
"""

from __future__ import annotations

import ast
import itertools
import json
from importlib import resources
from pathlib import Path
from typing import Any

import llmkit._wire.openai_chat.compat
from llmkit._wire.openai_chat.compat import OpenAIChatCompat

HEADER = """# Supported servers and their compat flags

Generated from `llmkit/data/providers.json` by `docs/gen_servers.py` — do not edit by hand.

Every provider below is reachable with `llmkit.Model(provider=..., id=..., api=...)` (the
profile fills in `base_url`, the key variable and the compat flags) or through
`llmkit.get_model(provider, id)` for catalogued models. A custom server on a known host gets
that host's profile; any other OpenAI-compatible server is one line:
`llmkit.Model(provider="myserver", id="m", api="openai-chat", base_url="http://host:port/v1")`,
with `compat={...}` to set flags field by field.

| provider | base URL | key variable | key required | flags that differ from api.openai.com |
| --- | --- | --- | --- | --- |
"""

# The flags a server's source is read for, whether or not its profile changes them: each is a
# claim about what the server reads or needs.
CHECKED = (
    "max_tokens_field",
    "supports_usage_in_streaming",
    "supports_strict",
    "supports_parallel_tool_calls",
    "supports_developer_role",
    "thinking_format",
    "reasoning_fields",
)
SOURCES_INTRO = """For the servers whose code is on PyPI, each flag below was read off the
server's own source (file and line, in the version named), so a flag that says a server lacks
something says what that server's code does. Hosted APIs are described from their documentation
(the `docs` links in `llmkit/data/providers.json`)."""


def render() -> str:
    """The Markdown text of docs/servers.md."""
    text = resources.files("llmkit").joinpath("data/providers.json").read_text("utf-8")
    providers = json.loads(text)["providers"]
    defaults = OpenAIChatCompat()
    rows = []
    for name, profile in providers.items():
        compat = OpenAIChatCompat.model_validate(profile.get("compat", {}))
        changed = [
            f"`{field}={getattr(compat, field)!r}`"
            for field in OpenAIChatCompat.model_fields
            if getattr(compat, field) != getattr(defaults, field)
        ]
        if profile.get("platform"):  # a cloud platform: auth and endpoints in docs/cloud.md
            changed.insert(0, f"platform `{profile['platform']}` (docs/cloud.md)")
        rows.append(
            f"| {name} | {profile.get('base_url') or '(your endpoint)'} | "
            f"{profile.get('api_key_env') or '-'} | "
            f"{'yes' if profile.get('api_key_required', True) else 'no'} | "
            f"{', '.join(changed) or '-'} |"
        )
    flags = ["", "## The flags", ""]
    docs = _attribute_docs("OpenAIChatCompat")
    for field in OpenAIChatCompat.model_fields:
        doc = " ".join(docs.get(field, "").split())
        flags.append(f"- `{field}` (default `{getattr(defaults, field)!r}`): {doc}")
    sources = _sources(providers, defaults)
    return HEADER + "\n".join(rows) + "\n" + "\n".join(flags + sources) + "\n"


def _sources(providers: dict[str, Any], defaults: OpenAIChatCompat) -> list[str]:
    """Where each flag of a server whose source is public comes from (its ``evidence``)."""
    out = ["", "## The servers' source", "", SOURCES_INTRO]
    for name, profile in providers.items():
        if "source" not in profile:
            continue
        evidence = profile.get("evidence", {})
        said = "Checked against" if evidence else "Not checked against its source"
        out += ["", f"### {name}", "", f"{said}: {profile['source']}."]
        compat = OpenAIChatCompat.model_validate(profile.get("compat", {}))
        changed = {
            f for f in OpenAIChatCompat.model_fields if getattr(compat, f) != getattr(defaults, f)
        }
        if evidence:
            missing = (changed | set(CHECKED)) - set(evidence)
            if missing:  # every flag the profile sets, and every checked one, has its line
                raise ValueError(f"{name}: no source cited for {sorted(missing)}")
            out.append("")
            for field in OpenAIChatCompat.model_fields:
                if field in evidence:
                    out.append(f"- `{field}={getattr(compat, field)!r}`: {evidence[field]}.")
    return out


def _attribute_docs(class_name: str) -> dict[str, str]:
    """The docstring under each field of ``class_name`` in llmkit/_wire/openai_chat/compat.py."""
    source = Path(llmkit._wire.openai_chat.compat.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    docs: dict[str, str] = {}
    for field, doc in itertools.pairwise(cls.body):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field.target.id] = doc.value.value
    return docs


if __name__ == "__main__":
    Path(__file__).with_name("servers.md").write_text(render(), encoding="utf-8")
