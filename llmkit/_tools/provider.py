"""Provider-hosted tools: :class:`ProviderTool`, a tool the provider runs itself (web search,
code execution, file search, Google Search grounding), standing in ``Context.tools`` next to
function tools.

Its ``spec`` is appended verbatim to the ``tools`` array of a request for its wire API and left
out, reported (``option_unsupported``), on any other wire. What the tool produces (Anthropic
server-tool blocks, Responses hosted-tool items, Gemini code-execution parts) is kept in the
message as opaque replay data and sent back verbatim to the same model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeAlias, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Tag

from .definition import Tool

__all__ = ["AnyTool", "ProviderTool"]


class ProviderTool(BaseModel):
    """A provider-hosted tool for one wire API.

    ``ProviderTool("anthropic-messages", {"type": "web_search_20250305", "name": "web_search",
    "max_uses": 3})``, ``ProviderTool("openai-responses", {"type": "web_search"})``,
    ``ProviderTool("gemini", {"google_search": {}})``.

    Attributes:
        api: The wire API (a ``Model.api`` value) whose requests carry it.
        spec: The tool entry exactly as that wire's ``tools`` array takes it; never
            interpreted or rewritten by llmkit.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(defer_build=True, frozen=True)

    api: str
    spec: dict[str, Any]

    def __init__(
        self, api: str | None = None, spec: dict[str, Any] | None = None, **data: Any
    ) -> None:
        # Positional like the contract writes it, ProviderTool(api, spec), and by keyword.
        if api is not None:
            data["api"] = api
        if spec is not None:
            data["spec"] = spec
        super().__init__(**data)

    @property
    def name(self) -> str | None:
        """The name in ``spec`` (Anthropic server tools have one), else ``None``."""
        name = self.spec.get("name")
        return name if isinstance(name, str) else None


def _which(value: Any) -> str:
    if isinstance(value, ProviderTool):
        return "provider"
    if isinstance(value, dict) and "spec" in value and "api" in value:
        return "provider"
    return "function"


if TYPE_CHECKING:
    AnyTool: TypeAlias = Tool[Any] | ProviderTool
else:
    # At run time the plain Tool class (not Tool[Any]: pydantic would re-validate a Tool into
    # a new Tool[Any] instance, losing its args model), told apart from a ProviderTool by
    # ``api`` and ``spec`` so that a transcript's tools come back as what they were.
    AnyTool = Annotated[
        Union[Annotated[Tool, Tag("function")], Annotated[ProviderTool, Tag("provider")]],
        Discriminator(_which),
    ]
"""An entry of ``Context.tools``: a function :class:`Tool` (of any argument type) or a
:class:`ProviderTool`."""
