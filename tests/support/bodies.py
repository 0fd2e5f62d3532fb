"""The request body llmkit sends, as the request-building tests read it.

:func:`sent` builds a request with ``llmkit.build_request`` and, given an official SDK's request
type (:mod:`tests.support.sdk`), validates the body with it: nested shapes are really checked
(``consume``) and no key the SDK type lacks is sent (``unknown_keys``). A wire's test module
binds its oracle once: ``body_of = partial(sent_kinds, CHAT_PARAMS)``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

import llmkit
from tests.support.helpers import consume
from tests.support.sdk import unknown_keys


def sent(
    oracle: TypeAdapter[Any] | None,
    model: llmkit.Model,
    context: llmkit.Context,
    *,
    api_key: str = "sk-test",
    known_keys: bool = True,
    **options: Any,
) -> tuple[dict[str, Any], list[llmkit.Diagnostic]]:
    """The JSON body of the request for this call and the diagnostics building it gave; the
    body passes ``oracle`` (when given), with no key it does not define unless ``known_keys``
    is false."""
    request = llmkit.build_request(model, context, api_key=api_key, **options)
    body = json.loads(request.content)
    if oracle is not None:
        consume(oracle.validate_python(body))  # the SDK's own request type accepts it
        assert not known_keys or unknown_keys(oracle, body) == []
    return body, request.extensions["llmkit.diagnostics"]


def sent_kinds(
    oracle: TypeAdapter[Any] | None,
    model: llmkit.Model,
    context: llmkit.Context,
    **options: Any,
) -> tuple[dict[str, Any], list[str]]:
    """:func:`sent` with the diagnostics' kinds, in order."""
    body, diagnostics = sent(oracle, model, context, **options)
    return body, [d.kind for d in diagnostics]
