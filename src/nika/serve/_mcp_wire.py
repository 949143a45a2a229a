"""MCP's stdio wire (newline-delimited JSON-RPC) with a bounded reader.

The SDK's own stdio transport reads a line of any length into memory and drops a line it
cannot parse without a word. This one reads at most `MAX_LINE` bytes of a line (the rest is
drained in chunks and discarded), and answers what it cannot pass on — an oversized line,
invalid UTF-8, invalid JSON, a message no JSON-RPC shape fits — with a JSON-RPC error
(`id` null when none could be read), written under the same lock as the server's replies.

The wire is the process's original stdin and stdout, claimed by `_stdio.claim`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any, Final

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from nika.serve._stdio import claim

MAX_LINE: Final = 4 * 1024 * 1024
"""Bytes of one message line: a 1 MiB workflow, JSON-escaped, with room to spare."""

_CHUNK: Final = 1 << 16
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600


class _Wire:
    """The protocol's two byte streams; every line written whole, under one lock."""

    def __init__(self, inp: IO[bytes], out: IO[bytes]) -> None:
        self.inp, self.out = inp, out
        self._lock = anyio.Lock()

    async def readline(self) -> tuple[bytes, bool]:
        """The next line (with its newline) and whether it fit; `(b"", True)` at EOF."""
        line = await anyio.to_thread.run_sync(self.inp.readline, MAX_LINE + 1,
                                              abandon_on_cancel=True)
        if len(line) <= MAX_LINE or line.endswith(b"\n"):
            return line, True
        while True:  # drain the rest of an oversized line, a chunk at a time
            rest = await anyio.to_thread.run_sync(self.inp.readline, _CHUNK,
                                                  abandon_on_cancel=True)
            if not rest or rest.endswith(b"\n"):
                return b"", False

    async def write(self, text: str) -> None:
        data = text.encode("utf-8")
        async with self._lock:
            await anyio.to_thread.run_sync(self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()


def _error(code: int, message: str, ident: Any = None) -> str:
    reply = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n"


async def _read_loop(wire: _Wire, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    async with sink:
        while True:
            line, fits = await wire.readline()
            if not fits:
                await wire.write(_error(INVALID_REQUEST, f"NIKA-SERVE-003: a message line is "
                                        f"past {MAX_LINE} bytes; send smaller messages"))
                continue
            if not line:
                return  # end of input: the server stops
            line = line.strip()
            if not line:
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError as exc:
                await wire.write(_refusal(line, exc))
                continue
            await sink.send(SessionMessage(message))


def _refusal(line: bytes, exc: ValueError) -> str:
    try:
        raw = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(PARSE_ERROR, "parse error: a message must be one line of UTF-8 JSON")
    ident = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(ident, str | int) or isinstance(ident, bool):
        ident = None
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return _error(INVALID_REQUEST, f"invalid request: no JSON-RPC message shape fits ({first})",
                  ident)


async def _write_loop(wire: _Wire, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
    async with source:
        async for item in source:
            text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            await wire.write(text + "\n")


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
          MemoryObjectSendStream[SessionMessage]]
]:
    """The server's read and write streams over the process's stdio, bounded."""
    inp, out = claim()
    wire = _Wire(inp, out)
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_read_loop, wire, read_in)
            group.start_soon(_write_loop, wire, write_out)
            yield read_out, write_in
            group.cancel_scope.cancel()
    finally:
        inp.close()
        out.close()
