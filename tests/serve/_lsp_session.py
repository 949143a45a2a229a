"""A pygls `LanguageClient` spawning `nika lsp`, with the diagnostics it receives queued per
document: what the LSP tests, the parity test and the benchmark drive the server with."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

SRC: Final = Path(__file__).resolve().parents[2] / "src"
TIMEOUT: Final = 60.0


@dataclass
class RawResponse:
    """A response whose `result` stays JSON data (pygls would make named tuples of it, which
    rename keywords such as an edge's `from`)."""

    id: int | str
    result: Any = None
    jsonrpc: str = "2.0"


class _Protocol(LanguageServerProtocol):
    def get_result_type(self, method: str) -> Any:  # type: ignore[override]
        if method == "nika/semanticDocument":
            return RawResponse
        return super().get_result_type(method)


class Session:
    """One running server and what it published."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.published: dict[str, asyncio.Queue[types.PublishDiagnosticsParams]] = {}
        self.capabilities: types.ServerCapabilities | None = None

    def queue(self, uri: str) -> asyncio.Queue[types.PublishDiagnosticsParams]:
        return self.published.setdefault(uri, asyncio.Queue())

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The next diagnostics published for `uri`."""
        params = await asyncio.wait_for(self.queue(uri).get(), TIMEOUT)
        return list(params.diagnostics)

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)))

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def semantic(self, uri: str) -> Any:
        return await asyncio.wait_for(self.client.protocol.send_request_async(
            "nika/semanticDocument", {"textDocument": {"uri": uri}}), TIMEOUT)


@asynccontextmanager
async def lsp_session(cwd: Path, *, experimental: bool = True) -> AsyncIterator[Session]:
    """`nika lsp` spawned in `cwd`, initialized (asking for `experimental.nika` unless told
    not to), shut down and reaped on exit."""
    client = LanguageClient("nika-tests", "1", protocol_cls=_Protocol)
    session = Session(client)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        session.queue(params.uri).put_nowait(params)

    env = {**os.environ, "PYTHONPATH": str(SRC)}
    await client.start_io(sys.executable, "-m", "nika.cli", "lsp", cwd=str(cwd), env=env)
    try:
        result = await asyncio.wait_for(client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(
                experimental={"nika": {"semanticDocument": True}} if experimental else None),
            root_uri=cwd.as_uri())), TIMEOUT)
        session.capabilities = result.capabilities
        client.initialized(types.InitializedParams())
        yield session
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
    finally:
        server = client._server  # the spawned process: reaped here, whatever happened
        if server is not None and server.returncode is None:
            try:
                await asyncio.wait_for(server.wait(), 10)
            except TimeoutError:
                server.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)
