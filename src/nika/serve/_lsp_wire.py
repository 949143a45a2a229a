"""The language server's stdio loop: LSP's `Content-Length` framing, with bounds.

pygls' own loop reads a header line of any length and a body of whatever length the header
claims. This one caps both: a header line at `MAX_HEADER` bytes, a body at `MAX_BODY` (a
10 MB document fits, and is then refused by the check's own 1 MiB cap as a diagnostic). A
larger claim is answered with an error and its bytes are skipped in chunks up to the next
`Content-Length:` header, so memory stays bounded whatever the client sends. A body that is
not UTF-8 JSON gets a JSON-RPC parse error (`id` null); a request after `shutdown` gets
`InvalidRequest` (pygls would drop it silently and leave the client waiting).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import IO, Any, Final

MAX_HEADER: Final = 8 * 1024
MAX_BODY: Final = 24 * 1024 * 1024
_CHUNK: Final = 1 << 16
_LENGTH: Final = re.compile(rb"^Content-Length:\s*(\d{1,20})\s*$", re.IGNORECASE)
_MARK: Final = b"Content-Length:"
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600


class _Reader:
    """Blocking reads of the wire, each run in the executor (never on the event loop)."""

    def __init__(self, inp: IO[bytes]) -> None:
        self.inp = inp
        self.pending = b""  # bytes read past a resynchronisation point

    def _take(self, n: int) -> bytes:
        head, self.pending = self.pending[:n], self.pending[n:]
        return head

    def readline(self) -> tuple[bytes, bool]:
        """A header line and whether it fit `MAX_HEADER` (an oversized one is drained)."""
        if self.pending:
            cut = self.pending.find(b"\n")
            if cut >= 0:
                return self._take(cut + 1), True
            line = self._take(len(self.pending)) + self.inp.readline(MAX_HEADER)
        else:
            line = self.inp.readline(MAX_HEADER + 1)
        if len(line) <= MAX_HEADER or line.endswith(b"\n"):
            return line, True
        while (rest := self.inp.readline(_CHUNK)) and not rest.endswith(b"\n"):
            pass
        return b"", False

    def read(self, n: int) -> bytes:
        """Exactly `n` bytes, fewer only at end of input."""
        parts = [self._take(n)]
        got = len(parts[0])
        while got < n:
            chunk = self.inp.read(min(_CHUNK, n - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def skip_to_header(self) -> bool:
        """Discard input up to the next `Content-Length:` (kept for the next read); False at
        the end of input. Only a window of the mark's length is held between chunks."""
        tail = b""
        while True:
            chunk = self.inp.read1(_CHUNK) if hasattr(self.inp, "read1") else self.inp.read(_CHUNK)
            if not chunk:
                return False
            window = tail + chunk
            at = window.find(_MARK)
            if at >= 0:
                self.pending = window[at:]
                return True
            tail = window[-len(_MARK):]


def _frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def error_frame(code: int, message: str, ident: Any = None) -> bytes:
    """A JSON-RPC error response, framed."""
    return _frame({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})


async def serve_wire(
    inp: IO[bytes],
    write: Callable[[bytes], None],
    handle: Callable[[bytes], None],
    shut_down: Callable[[], bool],
) -> None:
    """Read framed messages until end of input, handing each body to `handle`; `write` sends
    raw frames (the refusals), `shut_down` says whether `shutdown` was received."""
    loop = asyncio.get_running_loop()
    reader = _Reader(inp)
    while True:
        length: int | None = None
        while True:
            line, fits = await loop.run_in_executor(None, reader.readline)
            if not fits:
                write(error_frame(INVALID_REQUEST, "NIKA-SERVE-003: a header line is past "
                                  f"{MAX_HEADER} bytes"))
                continue
            if not line:
                return
            if not line.strip():
                break
            match = _LENGTH.match(line.strip())
            if match:
                length = int(match.group(1))
        if length is None:
            write(error_frame(INVALID_REQUEST, "a message needs a Content-Length header"))
            continue
        if length > MAX_BODY:
            write(error_frame(INVALID_REQUEST, f"NIKA-SERVE-003: a {length}-byte message is "
                              f"past the server's {MAX_BODY}-byte bound; it was skipped"))
            if not await loop.run_in_executor(None, reader.skip_to_header):
                return
            continue
        body = await loop.run_in_executor(None, reader.read, length)
        if len(body) < length:
            return
        _dispatch(body, write, handle, shut_down)


def _dispatch(
    body: bytes,
    write: Callable[[bytes], None],
    handle: Callable[[bytes], None],
    shut_down: Callable[[], bool],
) -> None:
    try:
        raw = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        write(error_frame(PARSE_ERROR, "parse error: a message body must be UTF-8 JSON"))
        return
    if not isinstance(raw, dict):
        write(error_frame(INVALID_REQUEST, "a message must be a JSON object"))
        return
    if shut_down() and "id" in raw and raw.get("method") not in (None, "exit"):
        write(error_frame(INVALID_REQUEST, "the server is shutting down: only `exit` is "
                          "accepted now", raw.get("id")))
        return
    handle(body)
