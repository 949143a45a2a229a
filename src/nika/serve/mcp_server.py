"""`nika mcp`: the engine as a Model Context Protocol server over stdio, for coding agents.

Read-only by default. Five tools, each the CLI's answer to the same question: `nika_check` (the
verdict of `nika check --json --lint`), `nika_inspect` (the canonical projection, byte for
byte `nika inspect`'s), `nika_explain` (an error code's meaning, category and fix),
`nika_schema` (the workflow JSON Schema) and `nika_examples` (the shipped examples). None runs
a workflow or writes a file, and a `path` must resolve inside the directory the server was
started in. Only `nika mcp --allow-run` adds a sixth, `nika_run`: a checked run in a child
process, held to the permits the workflow declares, killed at its timeout or when the call
is cancelled.

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
RUN_TOOL: Final = types.Tool(
    name="nika_run",
    description=(
        "Run a Nika workflow file (under the working directory) and return its exit code, "
        "its typed outputs as JSON and the tail of its log. Offered only because the server "
        "was started with `nika mcp --allow-run`; the run is checked first and holds to the "
        "permits the workflow itself declares. `vars` supplies inputs (name -> value)."
    ),
    input_schema={"type": "object", "required": ["path"], "additionalProperties": False,
                  "properties": {"path": {"type": "string"},
                                 "vars": {"type": "object"}}},
    annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                      open_world_hint=True),
)
RUN_TIMEOUT_S: Final = 900.0
"""A run the agent started ends (its process killed) after this long."""

_LOG_TAIL: Final = 4000
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


async def run_workflow(arguments: dict[str, Any], root: Path) -> str:
    """`nika run PATH --output json` as a child process in `root`, bounded by `RUN_TIMEOUT_S`
    (a cancelled call or a stopping server kills it)."""
    import sys

    from nika._term import printable

    extra = sorted(set(arguments) - {"path", "vars"})
    if extra:
        raise NikaError(codes.SERVE_001, f"nika_run takes no argument {extra[0][:80]!r}")
    path = _text(arguments, "path")
    await anyio.to_thread.run_sync(_oracle.read_inside, path, root)  # confined, readable
    given = arguments.get("vars") or {}
    if not isinstance(given, dict):
        raise NikaError(codes.SERVE_001, "`vars` must be an object: input name -> value")
    argv = [sys.executable, "-m", "nika.cli", "run", path, "--output", "json"]
    for name, value in sorted(given.items()):
        argv += ["--var", f"{name}={json.dumps(value, ensure_ascii=False)}"]
    with anyio.fail_after(RUN_TIMEOUT_S):
        done = await anyio.run_process(argv, cwd=root, check=False)
    out = done.stdout.decode("utf-8", errors="replace")
    try:
        outputs: Any = json.loads(out) if out.strip() else None
    except ValueError:
        outputs = None
    log = printable(done.stderr.decode("utf-8", errors="replace")[-_LOG_TAIL:],
                    keep_newlines=True)
    return json.dumps({"exit_code": done.returncode, "outputs": outputs, "log_tail": log},
                      ensure_ascii=False, sort_keys=True)


def build_server(root: Path, *, allow_run: bool = False) -> Server[Any]:
    """The low-level SDK server with nika's five tools (six with `allow_run`), answering
    from `root`."""
    offered = [*TOOLS, RUN_TOOL] if allow_run else list(TOOLS)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=offered)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            if allow_run and params.name == RUN_TOOL.name:
                text = await run_workflow(arguments, root)
            else:
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


async def serve(root: Path, allow_run: bool = False) -> None:
    """Serve MCP on stdio until stdin closes."""
    from nika.serve._mcp_wire import bounded_stdio

    server = build_server(root, allow_run=allow_run)
    async with bounded_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main(root: Path | None = None, *, allow_run: bool = False) -> int:
    """`nika mcp`'s body: serve until stdin closes, exit 0."""
    anyio.run(serve, root or Path.cwd(), allow_run)
    return 0
