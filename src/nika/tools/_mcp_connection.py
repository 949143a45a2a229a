"""One MCP server's session, kept alive by its own supervisor task.

The SDK's `Client` holds anyio task groups and cancel scopes, which must be entered and exited by
the same task. A lazily started server is first needed from whatever task happens to call it,
and shut down from wherever the executor is closed; so each session lives inside a dedicated
supervisor task, and callers only send requests through it. Failures come back as values
(`NikaError`), translated at `nika.tools._mcp_errors`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from typing import Any, Final, TextIO, cast

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Implementation, Tool

from nika.errors import NikaError
from nika.tools._mcp_errors import SERVER_DOWN, Phase, StartTimeout, translate
from nika.tools._mcp_secrets import registry_masker
from nika.tools.mcp_registry import ServerSpec, StdioServer

log = logging.getLogger("nika.tools.mcp")

_CLIENT_INFO: Final = Implementation(name="nika", version="0.1.0")
_PAGE_CAP: Final = 100  # tools/list pages; a paginator that never ends must not hang a start
_TAIL_BYTES: Final = 2048
_TAIL_LINES: Final = 4
_SSE_READ_TIMEOUT: Final = 300.0  # an idle server-sent-event stream is not a failure


@dataclass(frozen=True, slots=True)
class Limits:
    """The executor's time limits, in seconds, and `child_env`: what every stdio server's
    environment must carry (the run's watchdog marker, `runtime/children.py`)."""

    call_timeout: float
    start_timeout: float
    child_env: Callable[[], Mapping[str, str]] | None = None


class Connection:
    """A started (or failed) MCP server. Not reusable: once `failure` is set it stays set."""

    def __init__(self, spec: ServerSpec, limits: Limits, where: str) -> None:
        self.spec = spec
        self.mask = registry_masker(spec.secrets)
        self.tools: tuple[Tool, ...] = ()
        self.failure: NikaError | None = None
        self._limits = limits
        self._where = where
        self._client: Client | None = None
        self._errlog: TextIO | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = anyio.Event()
        self._stop = anyio.Event()
        self._done = anyio.Event()
        self._scope = anyio.CancelScope()

    @property
    def alive(self) -> bool:
        return self._client is not None and self.failure is None

    async def start(self) -> NikaError | None:
        """Start the server if nobody has yet, wait until it is usable; its failure, or None."""
        if self._task is None:
            name = f"mcp:{self.spec.name}"
            self._task = asyncio.get_running_loop().create_task(self._supervise(), name=name)
        with anyio.move_on_after(self._limits.start_timeout):
            await self._ready.wait()
        if not self._ready.is_set():
            self._record(StartTimeout(), "start", None)
            self._scope.cancel()
        return self.failure

    async def call(self, tool: str, args: Mapping[str, Any]) -> CallToolResult | NikaError:
        """One `tools/call`; a transport or protocol failure is returned, not raised."""
        client = self._client
        if self.failure is not None:
            return self.failure
        if client is None:
            return NikaError(
                SERVER_DOWN,
                f"MCP server {self.spec.name!r} is already shut down (the run is ending); "
                "its tools cannot be called any more",
                transient=False,
                details={"server": self.spec.name, "tool": tool},
            )
        try:
            return await client.call_tool(
                tool, dict(args), read_timeout_seconds=self._limits.call_timeout
            )
        except Exception as exc:  # the translation boundary: see _mcp_errors
            return self._record(exc, "call", tool)

    def stop(self) -> None:
        """Ask the supervisor to close the session (and stop the server process)."""
        self._stop.set()

    def kill(self) -> None:
        """Abandon the session now: used only when a graceful stop overran its deadline."""
        self._scope.cancel()

    async def stopped(self) -> None:
        """Wait until the supervisor has exited (immediately if it never ran)."""
        if self._task is not None:
            await self._done.wait()

    async def _supervise(self) -> None:
        with ExitStack() as files:
            if isinstance(self.spec, StdioServer):
                # A real file, because the child process writes to its descriptor directly.
                errlog = files.enter_context(
                    tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
                )
                self._errlog = cast(TextIO, errlog)
            try:
                log.info("starting MCP server %r (%s)", self.spec.name, self._how())
                with self._scope:
                    await self._serve()
            finally:
                self._client = None
                self._errlog = None
                self._ready.set()
                self._done.set()

    async def _serve(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                transport = await self._transport(stack)
                client = Client(transport, cache=None, client_info=_CLIENT_INFO)
                await stack.enter_async_context(client)
                self.tools = await _list_tools(client)
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except Exception as exc:  # the translation boundary: see _mcp_errors
            self._record(exc, "call" if self._ready.is_set() else "start", None)

    async def _transport(self, stack: AsyncExitStack) -> Transport:
        spec = self.spec
        if isinstance(spec, StdioServer):
            if spec.cwd is not None and not spec.cwd.is_dir():
                raise NotADirectoryError(
                    f"cwd {spec.cwd} of server {spec.name!r} is not a directory"
                )
            extra = self._limits.child_env() if self._limits.child_env is not None else {}
            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env={**spec.env, **extra},
                cwd=spec.cwd,
            )
            assert self._errlog is not None
            return stdio_client(params, errlog=self._errlog)
        timeout = httpx2.Timeout(
            self._limits.start_timeout, read=max(self._limits.call_timeout, _SSE_READ_TIMEOUT)
        )
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=dict(spec.headers), timeout=timeout)
        )
        return streamable_http_client(spec.url, http_client=http)

    def _record(self, exc: BaseException, phase: Phase, tool: str | None) -> NikaError:
        """Translate `exc`; when it means the server is gone, remember that and wind it down."""
        result = translate(
            exc,
            phase=phase,
            server=self.spec.name,
            tool=tool,
            how=self._how(),
            where=self._where,
            call_timeout=self._limits.call_timeout,
            start_timeout=self._limits.start_timeout,
            mask=self.mask,
            tail=self._tail(),
        )
        if not result.lost:
            return result.error
        if self.failure is None:
            self.failure = result.error
            log.warning("%s: %s", result.error.code, result.error.detail)
            self._stop.set()
        return self.failure

    def _how(self) -> str:
        return self.mask.text(self.spec.describe())

    def _tail(self) -> str:
        """The last few lines the server wrote to stderr, masked: the likeliest explanation."""
        if self._errlog is None:
            return ""
        fd = self._errlog.fileno()
        size = os.fstat(fd).st_size
        raw = os.pread(fd, _TAIL_BYTES, max(0, size - _TAIL_BYTES))
        lines = [ln.strip() for ln in raw.decode("utf-8", "replace").splitlines() if ln.strip()]
        return self.mask.text(" | ".join(lines[-_TAIL_LINES:]))


async def _list_tools(client: Client) -> tuple[Tool, ...]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(_PAGE_CAP):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tuple(tools)
