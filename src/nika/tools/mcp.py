"""MCP tools as a `ToolExecutor`: `mcp:<server>/<tool>` names served by real MCP servers.

Usage (the runtime)::

    async with McpExecutor(load_registry(project_dir)) as mcp:
        await mcp.load_definitions({"time", "git"})  # the servers an agent's whitelist reaches
        universe = mcp.definitions()
        result = await mcp.call("mcp:time/get_current_time", {"timezone": "UTC"})

Servers start lazily - on `load_definitions`, or on the first `call` naming them - and all stop
when the `async with` block ends. `call` never raises for a failure on the tool side: the
result carries `is_error=True` and a `ToolFailure`, for the agent loop to feed back:

- the tool answered `isError` / the server rejected the call: NIKA-MCP-002 (`tool_error`),
  never transient — whatever the tool's own payload says (`_mcp_errors` decides, by its table);
- the call overran `call_timeout`: NIKA-MCP-002, transient;
- the server is not configured, failed to start or died: NIKA-MCP-001, and that server's tools
  leave `definitions()` while the other servers keep working;
- the name is not `mcp:<server>/<tool>`, or the server has no such tool: NIKA-INVOKE-001.

Result text is capped at `max_result_bytes` (UTF-8) with a visible truncation marker; structured
content rides along in `ToolResult.structured` when it fits under the same cap.

Only names of the form `mcp:<server>/<tool>` ever leave this executor, with `<tool>` matching
the spec grammar `[A-Za-z0-9_-]+`; a server tool named otherwise (e.g. `nika:compose`) is not
offered at all, so no MCP server can pose as a builtin.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Mapping
from types import TracebackType
from typing import Any, Final, Literal, Self

import anyio
from mcp_types import CallToolResult

from nika import codes
from nika.agent.seams import ToolDefinition, ToolName, ToolResult
from nika.canonical import loose_json
from nika.errors import NikaError
from nika.masking import Masker
from nika.syntax.toolref import MCP_SERVER, MCP_TOOL
from nika.tools._mcp_connection import Connection, Limits
from nika.tools._mcp_errors import SERVER_DOWN, reported
from nika.tools._mcp_render import render, truncate
from nika.tools.mcp_registry import McpRegistry

log = logging.getLogger("nika.tools.mcp")

DEFAULT_MAX_RESULT_BYTES: Final = 64 * 1024
"""The default cap on a result's text fed back to a model, in UTF-8 bytes."""

NAME_RE: Final = re.compile(rf"^mcp:({MCP_SERVER.pattern})/({MCP_TOOL.pattern})$")
"""An MCP tool reference (spec 02 §tool reference grammar): server, then tool."""

_TOOL_RE: Final = re.compile(r"^[A-Za-z0-9_-]+$")
_UNKNOWN_TOOL: Final = codes.INVOKE_001
_SHUTDOWN_GRACE: Final = 10.0  # seconds for all servers to stop before they are abandoned
_ERROR_EXCERPT: Final = 500


def mcp_tool_name(server: str, tool: str) -> ToolName:
    """The canonical name of `tool` on `server`: `mcp:<server>/<tool>`."""
    return ToolName(f"mcp:{server}/{tool}")


class McpExecutor:
    """A `ToolExecutor` over the servers of an `McpRegistry` (optionally only `servers`).

    `child_env` (called when a stdio server starts) is merged into its environment: the run's
    watchdog marker, so the server dies with the engine however the engine ends."""

    def __init__(
        self,
        registry: McpRegistry,
        *,
        servers: Collection[str] | None = None,
        call_timeout: float = 60.0,
        start_timeout: float = 20.0,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        child_env: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        if call_timeout <= 0 or start_timeout <= 0 or max_result_bytes <= 0:
            raise ValueError("call_timeout, start_timeout and max_result_bytes must be positive")
        self._registry = registry
        self._allowed = frozenset(registry.servers if servers is None else servers)
        self._limits = Limits(call_timeout, start_timeout, child_env)
        self._cap = max_result_bytes
        self._connections: dict[str, Connection] = {}
        self._failures: dict[str, NikaError] = {}
        self._defs: dict[str, tuple[ToolDefinition, ...]] = {}
        self._state: Literal["new", "open", "closed"] = "new"

    async def __aenter__(self) -> Self:
        if self._state != "new":
            raise RuntimeError("an McpExecutor is entered once")
        self._state = "open"
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._state = "closed"
        conns = list(self._connections.values())
        for conn in conns:
            conn.stop()
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(_SHUTDOWN_GRACE):
                for conn in conns:
                    await conn.stopped()
            for conn in conns:
                conn.kill()
                await conn.stopped()

    @property
    def failures(self) -> Mapping[str, NikaError]:
        """Servers that could not be used, by name (not configured, failed to start, died)."""
        return dict(self._failures)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The universe of the servers started so far and still alive, by server name."""
        return tuple(
            d
            for name, defs in sorted(self._defs.items())
            if self._connections[name].alive
            for d in defs
        )

    async def load_definitions(
        self, servers: Collection[str] | None = None
    ) -> tuple[ToolDefinition, ...]:
        """Start `servers` (default: every server this executor may use) concurrently and return
        their tools. A server that cannot be used is left out and listed in `failures`."""
        wanted = sorted(self._allowed if servers is None else set(servers))
        async with anyio.create_task_group() as group:
            for name in wanted:
                group.start_soon(self._ensure, name)
        return tuple(
            d
            for name in wanted
            if name in self._defs and self._connections[name].alive
            for d in self._defs[name]
        )

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        """Call `mcp:<server>/<tool>`, starting its server first if needed."""
        match = NAME_RE.match(name)
        if match is None:
            return ToolResult.failed(
                NikaError(
                    _UNKNOWN_TOOL,
                    f"{name!r} is not an MCP tool name; call MCP tools as mcp:<server>/<tool>",
                )
            )
        server, tool = match.groups()
        conn, failure = await self._ensure(server)
        if failure is not None:
            return ToolResult.failed(failure)
        assert conn is not None
        if not any(t.name == tool for t in conn.tools):
            offered = ", ".join(d.name for d in self._defs[server]) or "no tools"
            return ToolResult.failed(
                NikaError(
                    _UNKNOWN_TOOL,
                    f"MCP server {server!r} has no tool {tool!r}; it offers: {offered}",
                    details={"server": server, "tool": tool},
                )
            )
        outcome = await conn.call(tool, args)
        if isinstance(outcome, NikaError):
            return ToolResult.failed(outcome)
        return self._result(server, tool, outcome, conn.mask)

    async def _ensure(self, server: str) -> tuple[Connection | None, NikaError | None]:
        """The connection to `server`, started and ready, or why there is none."""
        if self._state != "open":
            raise RuntimeError("use the executor inside `async with McpExecutor(...)`")
        spec = self._registry.servers.get(server)
        if spec is None or server not in self._allowed:
            refusal = _not_configured(server, self._registry, spec is None)
            return None, self._failures.setdefault(server, refusal)
        conn = self._connections.get(server)
        if conn is None:
            conn = self._connections[server] = Connection(
                spec, self._limits, self._registry.where()
            )
        failure = await conn.start()
        if failure is not None:
            self._failures.setdefault(server, failure)
        elif server not in self._defs:
            self._defs[server] = _definitions(server, conn)
        return conn, failure

    def _result(self, server: str, tool: str, outcome: CallToolResult,
                mask: Masker) -> ToolResult:
        structured = mask(outcome.structured_content)
        text = truncate(mask.text(render(outcome.content, structured)), self._cap)
        if structured is not None and len(loose_json(structured).encode()) > self._cap:
            structured = None
        if not outcome.is_error:
            return ToolResult(content=text, structured=structured)
        # The tool's words are the model's feedback; its payload decides nothing (transience
        # included): the failure is the boundary table's.
        failure = reported(server, tool, text[:_ERROR_EXCERPT] + (
            "..." if len(text) > _ERROR_EXCERPT else ""))
        return ToolResult.failed(failure, content=text or failure.detail, structured=structured)


def _definitions(server: str, conn: Connection) -> tuple[ToolDefinition, ...]:
    defs: list[ToolDefinition] = []
    for tool in conn.tools:
        if not _TOOL_RE.match(tool.name):
            log.warning(
                "MCP server %r offers a tool named %r, which mcp:<server>/<tool> cannot name "
                "(allowed: letters, digits, '_', '-'); it is not offered",
                server,
                tool.name,
            )
            continue
        defs.append(
            ToolDefinition(
                name=mcp_tool_name(server, tool.name),
                description=tool.description or tool.title or "",
                parameters=dict(tool.input_schema),
                source="mcp",
            )
        )
    return tuple(defs)


def _not_configured(server: str, registry: McpRegistry, missing: bool) -> NikaError:
    if missing:
        known = ", ".join(registry.servers) or "none"
        detail = (
            f"MCP server {server!r} is not configured (configured: {known}); add it under "
            f'"mcpServers" in {registry.where()}'
        )
    else:
        detail = f"MCP server {server!r} is configured but not available to this run"
    return NikaError(SERVER_DOWN, detail, transient=False, details={"server": server})
