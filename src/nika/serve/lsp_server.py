"""`nika lsp`: a Language Server over stdio, on pygls.

One long-lived process checks each open document as it changes (debounced by `DEBOUNCE_S`,
off the event loop, the stale results of a superseded version dropped) and publishes every
finding as a diagnostic. Hover, definition, completion and code actions read the latest
check (`_lsp_features`); `nika/semanticDocument` (spec 16) answers the canonical projection
of the same check, wrapped with spans, when the client negotiated it under
`experimental.nika`. Positions are UTF-16 (the protocol's default, the only one offered).
The stdio loop is `_lsp_wire`'s bounded one; the server exits when stdin closes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Generator
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from nika import __version__
from nika.serve import _lsp_features as features
from nika.serve._ranges import Lines

DEBOUNCE_S: Final = 0.005
"""Quiet time after a change before the check runs: keystrokes in a burst cost one check."""

SEMANTIC_DOCUMENT: Final = "nika/semanticDocument"


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, advertising `experimental.nika` only to a client that asked for it."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        asked = params.capabilities.experimental
        server = self._server
        if isinstance(server, NikaServer) and isinstance(asked, dict) and "nika" in asked:
            server.negotiated = True
            result.capabilities.experimental = {
                "nika": {"semanticDocument": {"semantic_document_format": 1}}}
        return result


class NikaServer(LanguageServer):
    """The language server and the latest analysis of each open document."""

    def __init__(self) -> None:
        super().__init__("nika", __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.analyses: dict[str, features.Analysis] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.negotiated = False
        self.shutting_down = False

    async def analyse(self, uri: str) -> features.Analysis | None:
        """Check the document's current text (off the loop) and keep the result."""
        from nika.check import check_workflow

        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        path = _path_of(uri)
        checked = await asyncio.to_thread(check_workflow, text, path, lint=True)
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return None  # closed or superseded while it ran: the newer check publishes
        analysis = features.Analysis(uri, version, text, Lines.of(text), checked)
        self.analyses[uri] = analysis
        return analysis

    def schedule(self, uri: str) -> None:
        """(Re)start the debounced check of `uri`; the previous one is cancelled."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(self._debounced(uri))

    async def _debounced(self, uri: str) -> None:
        await asyncio.sleep(DEBOUNCE_S)
        analysis = await self.analyse(uri)
        if analysis is not None:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=analysis.version, diagnostics=features.diagnostics(analysis)))

    async def latest(self, uri: str) -> features.Analysis | None:
        """The analysis of the document as it is now (checked on demand when stale)."""
        known = self.analyses.get(uri)
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        if known is not None and known.version == document.version:
            return known
        return await self.analyse(uri)


def _path_of(uri: str) -> str | None:
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" else None


def build_server() -> NikaServer:
    """The server with every feature registered."""
    server = NikaServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NikaServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NikaServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NikaServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.analyses.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri,
                                                                            diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: NikaServer, params: types.HoverParams) -> types.Hover | None:
        analysis = await ls.latest(params.text_document.uri)
        return None if analysis is None else features.hover(analysis, params.position)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: NikaServer, params: types.DefinitionParams
                         ) -> types.Location | None:
        analysis = await ls.latest(params.text_document.uri)
        return None if analysis is None else features.definition(analysis, params.position)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=[".", ":"]))
    async def completion(ls: NikaServer, params: types.CompletionParams
                         ) -> list[types.CompletionItem]:
        analysis = await ls.latest(params.text_document.uri)
        return [] if analysis is None else features.completion(analysis, params.position)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def code_action(ls: NikaServer, params: types.CodeActionParams
                          ) -> list[types.CodeAction]:
        analysis = await ls.latest(params.text_document.uri)
        return [] if analysis is None else features.code_actions(analysis, params.context)

    @server.feature(SEMANTIC_DOCUMENT)
    async def semantic_document(ls: NikaServer, params: Any) -> dict[str, Any]:
        from pygls.exceptions import JsonRpcInvalidRequest

        from nika.check.projection import project
        from nika.serve._semantic import semantic_document as wrap

        if not ls.negotiated:
            raise JsonRpcInvalidRequest("nika/semanticDocument was not negotiated: announce "
                                        "`experimental.nika` in the client's capabilities")
        uri = _uri_of(params)
        analysis = await ls.latest(uri) if uri else None
        if analysis is None:
            raise JsonRpcInvalidRequest(f"no open document {str(uri)[:200]!r}")
        return wrap(project(analysis.checked), analysis.text)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: NikaServer, *_: Any) -> None:
        ls.shutting_down = True

    return server


def _uri_of(params: Any) -> str | None:
    document = getattr(params, "text_document", None) or getattr(params, "textDocument", None)
    uri = getattr(document, "uri", None)
    if uri is None and isinstance(document, dict):
        uri = document.get("uri")
    return uri if isinstance(uri, str) else None


def _utf16_only(body: bytes) -> bytes:
    """An `initialize` with the client's position encodings dropped: the server speaks UTF-16
    (the protocol's default), and pygls would otherwise pick the client's first choice."""
    try:
        raw = json.loads(body)
    except ValueError:
        return body
    if not isinstance(raw, dict) or raw.get("method") != "initialize":
        return body
    general = (((raw.get("params") or {}).get("capabilities") or {}).get("general") or {})
    if isinstance(general, dict) and general.pop("positionEncodings", None) is not None:
        return json.dumps(raw).encode("utf-8")
    return body


async def _serve(server: NikaServer) -> None:
    from pygls.io_ import StdoutWriter

    from nika.serve._lsp_wire import INVALID_REQUEST, error_frame, serve_wire
    from nika.serve._stdio import claim

    inp, out = claim()
    writer = StdoutWriter(out)  # type: ignore[arg-type]  # BinaryIO: a buffered file is one
    server.protocol.set_writer(writer)

    def handle(body: bytes) -> None:
        try:
            message = json.loads(_utf16_only(body), object_hook=server.protocol.structure_message)
        except Exception as exc:  # a shape pygls cannot structure: refuse this message only
            ident = _id_of(body)
            writer.write(error_frame(INVALID_REQUEST, f"invalid message: {type(exc).__name__}",
                                     ident))
            return
        server.protocol.handle_message(message)

    await serve_wire(inp, writer.write, handle, lambda: server.shutting_down)


def _id_of(body: bytes) -> Any:
    try:
        raw = json.loads(body)
    except ValueError:
        return None
    ident = raw.get("id") if isinstance(raw, dict) else None
    return ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None


def main() -> int:
    """`nika lsp`'s body: serve until stdin closes (or `exit`)."""
    server = build_server()
    try:
        asyncio.run(_serve(server))
    except (SystemExit, KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    return 0

