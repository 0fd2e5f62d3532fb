"""The pieces of the llama-server integration suite that are not tests: what an exchange is,
the transports that keep the server's bytes, and the running server (see ``conftest.py``)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import llmkit


@dataclass
class Exchange:
    """One HTTP exchange as it went over the wire."""

    request: dict[str, Any]
    status: int
    content_type: str
    body: bytes


def _keep(
    exchanges: list[Exchange], request: httpx.Request, response: httpx.Response, body: bytes
) -> httpx.Response:
    """Note the exchange; hand llmkit the same response, its body already read."""
    media_type = response.headers.get("content-type", "").split(";")[0].strip()
    exchanges.append(Exchange(json.loads(request.content), response.status_code, media_type, body))
    framing = ("content-length", "transfer-encoding")  # the body is whole now
    headers = [(k, v) for k, v in response.headers.items() if k not in framing]
    return httpx.Response(response.status_code, headers=headers, content=body)


class Recorder(httpx.BaseTransport):
    """An httpx transport that forwards to the server and keeps what went by."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.exchanges: list[Exchange] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        body = response.read()
        response.close()
        return _keep(self.exchanges, request, response, body)

    def close(self) -> None:
        self.inner.close()

    @property
    def last(self) -> Exchange:
        return self.exchanges[-1]


@dataclass
class Server:
    """A running llama-server: its base URL and the llmkit model that talks to it."""

    base_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def model(self, **fields: Any) -> llmkit.Model:
        return llmkit.Model(
            provider="llamacpp", id="tiny", api="openai-chat", base_url=self.base_url, **fields
        )

    def client(self) -> tuple[httpx.Client, Recorder]:
        recorder = Recorder()
        return httpx.Client(transport=recorder, timeout=60), recorder


class AsyncRecorder(httpx.AsyncBaseTransport):
    """:class:`Recorder` for ``httpx.AsyncClient``."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        return _keep(self.exchanges, request, response, body)

    async def aclose(self) -> None:
        await self.inner.aclose()

    @property
    def last(self) -> Exchange:
        return self.exchanges[-1]
