"""`nika mcp`: the engine as a Model Context Protocol server over stdio, for coding agents.

Read-only. Five tools, each the CLI's answer to the same question: `nika_check` (the
verdict of `nika check --json --lint`), `nika_inspect` (the canonical projection, byte for
byte `nika inspect`'s), `nika_explain` (an error code's meaning, category and fix),
`nika_schema` (the workflow JSON Schema) and `nika_examples` (the shipped examples). Nothing
runs a workflow or writes a file, and a `path` must resolve inside the directory the server
was started in.

Built on the official SDK's low-level `Server`; the stdio wire is `_mcp_wire`'s bounded one.
A refusal is a tool result with `isError` whose text starts with the `NIKA-…` code; the
server stays up, and exits when its stdin closes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext

from nika import __version__, codes
from nika.errors import NikaError
from nika.serve import _oracle

_WORKFLOW_ARGS: Final = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "A workflow file, relative to the server's "
                 "working directory (it may not leave it)."},
        "source": {"type": "string", "description": "The workflow's YAML text, for a draft "
                   "not yet on disk."},
    },
    "additionalProperties": False,
}

TOOLS: Final = (
    types.Tool(
        name="nika_check",
        description=(
            "Statically check a Nika workflow (YAML) without running anything. Pass `path` "
            "(a file under the working directory) or `source` (the YAML text of a draft). "
            "Returns the verdict as JSON: `valid`, `errors` and `hints` (each with `code`, "
            "`line`, `column` and a `detail` that names the fix), `lints` (style warnings), "
            "the `plan` (task waves), the inferred `effects` and the cost `certificate`. Call "
            "it after every edit and fix each error's detail until `valid` is true."
        ),
        input_schema=_WORKFLOW_ARGS,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="nika_inspect",
        description=(
            "The graph of a valid Nika workflow (`graph_format: 3`), as canonical JSON: "
            "`nodes` in execution-wave order (each with `verb`, `permits` it needs, `when`, "
            "`fan_out`, `cost_interval` in USD) and `edges` (`value` data flow with its "
            "`with:` binding, `control` ordering with its predicate, `recovery`, `finally` "
            "cleanup). Same bytes as `nika inspect FILE`. A workflow with errors has no "
            "graph: the result is an error listing the findings (fix them with nika_check)."
        ),
        input_schema=_WORKFLOW_ARGS,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="nika_explain",
        description=(
            "Explain a Nika error code such as `NIKA-DAG-002` (the `NIKA-` prefix may be "
            "left out): what it means, its category (parse, validation, security, budget, "
            "…), whether a retry may help, and how to fix it."
        ),
        input_schema={"type": "object", "required": ["code"], "additionalProperties": False,
                      "properties": {"code": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="nika_schema",
        description=(
            "The JSON Schema (draft 2020-12) of a Nika workflow file's structure: the "
            "top-level keys, task fields, the four verbs (`infer`, `exec`, `invoke`, `agent`) "
            "and their fields. Read it before writing a workflow from scratch; `nika_check` "
            "judges everything the schema cannot."
        ),
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="nika_examples",
        description=(
            "Working Nika workflows shipped with the engine. Without `name`, lists their "
            "file names; with `name`, returns that example's YAML, a starting point to "
            "adapt. Each one checks clean."
        ),
        input_schema={"type": "object", "additionalProperties": False,
                      "properties": {"name": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
)
_NAMES: Final = frozenset(tool.name for tool in TOOLS)


def answer(name: str, arguments: dict[str, Any], root: Path) -> str:
    """The text of tool `name`'s answer; raises `NikaError` for a refusal."""
    allowed = {"nika_check": {"path", "source"}, "nika_inspect": {"path", "source"},
               "nika_explain": {"code"}, "nika_schema": set(), "nika_examples": {"name"}}
    if name not in allowed:
        raise NikaError(codes.SERVE_001, f"there is no tool {name[:80]!r}; the tools are "
                        f"{', '.join(sorted(_NAMES))}")
    extra = sorted(set(arguments) - allowed[name])
    if extra:
        raise NikaError(codes.SERVE_001, f"{name} takes no argument {extra[0][:80]!r}; it "
                        f"takes {sorted(allowed[name]) or 'none'}")
    handlers: dict[str, Callable[[], str]] = {
        "nika_check": lambda: _oracle.check_json(_oracle.source_of(arguments, root)),
        "nika_inspect": lambda: _inspect(arguments, root),
        "nika_explain": lambda: json.dumps(_oracle.explain(_text(arguments, "code")),
                                           ensure_ascii=False, sort_keys=True),
        "nika_schema": _oracle.workflow_schema_text,
        "nika_examples": lambda: _examples(arguments),
    }
    return handlers[name]()


def _text(arguments: dict[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise NikaError(codes.SERVE_001, f"`{key}` must be a string")
    return value


def _inspect(arguments: dict[str, Any], root: Path) -> str:
    source = _oracle.source_of(arguments, root)
    projection = _oracle.projection_of(source)
    if projection.json is None:
        raise NikaError(codes.SERVE_001, "no graph: the workflow has findings (reason: "
                        f"{projection.reason}); fix them first —\n"
                        + _oracle.findings_text(projection, source.name))
    return projection.json


def _examples(arguments: dict[str, Any]) -> str:
    if "name" not in arguments:
        return "\n".join(_oracle.example_names()) + "\n"
    return _oracle.example_text(_text(arguments, "name"))


def build_server(root: Path) -> Server[Any]:
    """The low-level SDK server with nika's five tools, answering from `root`."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            # The check is CPU work: off the event loop, so pings and cancels stay live.
            text = await anyio.to_thread.run_sync(answer, params.name, arguments, root)
        except NikaError as exc:
            refusal = f"{exc.code}: {exc.detail}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=refusal)],
                                        is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("nika", version=__version__, instructions=(
        "Nika's static oracle: check, inspect and explain Nika workflow files. Read-only."),
        on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(root: Path) -> None:
    """Serve MCP on stdio until stdin closes."""
    from nika.serve._mcp_wire import bounded_stdio

    server = build_server(root)
    async with bounded_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(root: Path | None = None) -> int:
    """`nika mcp`'s body: serve until stdin closes, exit 0."""
    anyio.run(serve, root or Path.cwd())
    return 0
