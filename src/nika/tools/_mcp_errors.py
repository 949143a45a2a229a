"""The one boundary where `mcp`, `anyio`, `httpx2` and OS exceptions become `NikaError`s.

Every failure the MCP client stack can raise is matched against `_TABLE`, top to bottom; the
first row wins. A row says which code the failure gets, whether a retry may help, whether the
connection is gone for good (the executor then stops using that server), and the
prescriptive detail. Nothing else in `nika.tools` catches a third-party exception by type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import anyio
import httpx2
import pydantic
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INVALID_PARAMS, METHOD_NOT_FOUND, REQUEST_TIMEOUT

from nika import codes
from nika.errors import NikaError
from nika.masking import Masker

Phase = Literal["start", "call"]

SERVER_DOWN: Final = codes.MCP_001
CALL_FAILED: Final = codes.MCP_002


class StartTimeout(Exception):
    """Raised by the executor itself when a server misses its start deadline."""


@dataclass(frozen=True, slots=True)
class _Row:
    kinds: tuple[type[BaseException], ...]
    code: str
    transient: bool
    lost: bool
    detail: str
    rpc_code: int | None = None
    phase: Phase | None = None


_FIX_CALL: Final = "fix the arguments to match the tool's inputSchema"

_REPORTED: Final = _Row((), CALL_FAILED, False, False, "{target} reported an error: {message}")
"""A tool that answers `isError`: its words, never its payload's claims, and never transient —
a tool that wants a retry cannot ask for one through the data it returns."""
_GONE: Final = "its tools are unavailable for the rest of this run"

_TABLE: Final[tuple[_Row, ...]] = (
    _Row(
        (MCPError,),
        CALL_FAILED,
        True,
        False,
        "{target} did not answer within {call_timeout:g}s and was abandoned; retry with "
        "less work, or raise the executor's call_timeout",
        rpc_code=REQUEST_TIMEOUT,
    ),
    _Row(
        (MCPError,),
        SERVER_DOWN,
        False,
        True,
        "MCP server {server!r} closed the connection ({message}) - the process exited or the "
        "session ended; " + _GONE + ". Check the server ({how}) runs on its own",
        rpc_code=CONNECTION_CLOSED,
    ),
    _Row(
        (MCPError,),
        SERVER_DOWN,
        False,
        True,
        "MCP server {server!r} ({how}) does not speak the MCP methods nika needs ({message}); "
        "check the entry points at an MCP endpoint",
        rpc_code=METHOD_NOT_FOUND,
        phase="start",
    ),
    _Row(
        (MCPError,),
        CALL_FAILED,
        False,
        False,
        "{target} rejected the call ({message}); " + _FIX_CALL,
        rpc_code=INVALID_PARAMS,
    ),
    _Row(
        (MCPError,),
        SERVER_DOWN,
        False,
        True,
        "MCP server {server!r} ({how}) refused the handshake ({message}); check the entry "
        "(command, args, url, headers) in {where}",
        phase="start",
    ),
    _Row((MCPError,), CALL_FAILED, False, False, "{target} failed with MCP error {rpc}: {message}"),
    _Row(
        (StartTimeout,),
        SERVER_DOWN,
        True,
        True,
        "MCP server {server!r} ({how}) did not finish starting within {start_timeout:g}s; check "
        "that it starts by hand, or raise the executor's start_timeout",
    ),
    _Row(
        (httpx2.ConnectError, httpx2.ConnectTimeout),
        SERVER_DOWN,
        True,
        True,
        "cannot connect to MCP server {server!r} at {how} ({kind}); start it, or fix its 'url' "
        "in {where}",
    ),
    _Row(
        (httpx2.TimeoutException,),
        SERVER_DOWN,
        True,
        True,
        "MCP server {server!r} at {how} stopped responding ({kind}); " + _GONE,
    ),
    _Row(
        (httpx2.HTTPError, httpx2.InvalidURL),
        SERVER_DOWN,
        False,
        True,
        "HTTP exchange with MCP server {server!r} at {how} failed ({kind}: {message}); " + _GONE,
    ),
    _Row(
        (FileNotFoundError, PermissionError),
        SERVER_DOWN,
        False,
        True,
        "cannot launch MCP server {server!r}: {how!r} ({kind}); install it, put it on PATH or "
        "fix its 'command' in {where}",
    ),
    _Row(
        (OSError,),
        SERVER_DOWN,
        False,
        True,
        "cannot launch or reach MCP server {server!r} ({how}): {kind}: {message}; fix its entry "
        "in {where}",
        phase="start",
    ),
    _Row(
        (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError),
        SERVER_DOWN,
        False,
        True,
        "the connection to MCP server {server!r} broke ({kind}); " + _GONE,
    ),
    _Row(
        (pydantic.ValidationError,),
        CALL_FAILED,
        False,
        False,
        "MCP server {server!r} sent a reply that is not valid MCP ({kind}); report it to the "
        "server's authors",
    ),
    _Row(
        (Exception,),
        SERVER_DOWN,
        False,
        True,
        "MCP server {server!r} ({how}) failed to start ({kind}: {message}); check it runs by "
        "hand and its entry in {where}",
        phase="start",
    ),
    _Row(
        (Exception,),
        CALL_FAILED,
        False,
        False,
        "{target} failed inside the MCP client ({kind}: {message})",
    ),
)


@dataclass(frozen=True, slots=True)
class Translated:
    """A translated failure, and whether the server's connection is gone for good."""

    error: NikaError
    lost: bool


def translate(
    exc: BaseException,
    *,
    phase: Phase,
    server: str,
    tool: str | None,
    how: str,
    where: str,
    call_timeout: float,
    start_timeout: float,
    mask: Masker,
    tail: str = "",
) -> Translated:
    """Map one exception (possibly an exception group) to a `NikaError` through `_TABLE`.

    `how` is the safe description of the server (command or credential-free URL), `where` the
    registry file, `tail` the last lines of the server's stderr, `mask` the server's masker.
    """
    leaf = _leaf(exc)
    rpc = leaf.code if isinstance(leaf, MCPError) else None
    row = next(r for r in _TABLE if _matches(r, leaf, rpc, phase))
    detail = row.detail.format(
        target=f"mcp:{server}/{tool}" if tool else f"MCP server {server!r}",
        server=server,
        how=how,
        where=where,
        kind=type(leaf).__name__,
        message=_first_line(leaf),
        rpc=rpc,
        call_timeout=call_timeout,
        start_timeout=start_timeout,
    )
    details = {"server": server} if tool is None else {"server": server, "tool": tool}
    if tail and row.code == SERVER_DOWN:
        detail += f". Its stderr ended with: {tail}"
        details["stderr_tail"] = mask.text(tail)
    error = NikaError(row.code, mask.text(detail), transient=row.transient, details=details)
    return Translated(error=error, lost=row.lost)


def reported(server: str, tool: str, said: str) -> NikaError:
    """The failure of a call the tool itself answered with `isError` (`said`: its masked,
    excerpted text)."""
    row = _REPORTED
    detail = row.detail.format(target=f"mcp:{server}/{tool}", message=said or "no message")
    return NikaError(row.code, detail, transient=row.transient,
                     details={"server": server, "tool": tool})


def _matches(row: _Row, leaf: BaseException, rpc: int | None, phase: Phase) -> bool:
    if not isinstance(leaf, row.kinds):
        return False
    if row.phase is not None and row.phase != phase:
        return False
    return row.rpc_code is None or row.rpc_code == rpc


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside (anyio task groups wrap what their tasks raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else "no message"
    return line if len(line) <= 300 else line[:300] + "..."
