"""What a workflow resolves, by digest: the entries `nika lock` pins and `nika run` compares.

- a model: `<provider>/<model>` → its provider id, its model id and the digest of the
  provider's catalog row (`nika.syntax.providers`: family, class, endpoint, key variables). A
  hosted model has no content digest a client can see, so the pin is the catalog entry the
  engine resolves it through, never the weights;
- a builtin: `nika:<name>` → the digest of its stdlib declaration (the argument schema, the
  named rules with the args they read and the codes they carry);
- an MCP tool: `mcp:<server>/<tool>` → the digest of the surface its server lists (name,
  description, input schema), read by starting each server the workflow can reach ONCE,
  within `LIST_TIMEOUT` seconds, and stopping it.

A model or tool named through a `${{ }}` template is resolved only at run time and is not
pinned here; a composed child pins its own dependencies in its own `nika.lock`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from nika import codes
from nika.errors import NikaError
from nika.journal._semantic_ir import value
from nika.journal.semantic import domain_hash
from nika.syntax.globs import Whitelist
from nika.syntax.model import AgentBody, InvokeBody, Workflow
from nika.syntax.providers import PROVIDERS, parse_model
from nika.tools.mcp_registry import McpRegistry

LIST_TIMEOUT: Final = 30.0
"""Seconds for every reachable MCP server to start and list its tools, all together."""


@dataclass(frozen=True, slots=True)
class Surfaces:
    """Every dependency a workflow resolves now, by lock key; `unlisted` names the MCP
    servers that could not be listed (why, by server)."""

    providers: Mapping[str, Mapping[str, str]]
    tools: Mapping[str, Mapping[str, str]]
    unlisted: Mapping[str, str] = field(default_factory=dict)


def _models(workflow: Workflow, default: str | None) -> set[str]:
    found = {default} if default else set()
    for task in workflow.tasks.values():
        if task.verb in ("infer", "agent"):
            model = task.model or default
            if model:
                found.add(model)
    return {m for m in found if "${{" not in m}


def provider_entry(model: str) -> dict[str, str]:
    """The lock entry of one `<provider>/<model>` (raises `NikaError` on a malformed one)."""
    ref = parse_model(model)
    info = PROVIDERS[ref.provider]
    row = {"id": info.id, "family": info.family, "kind": info.kind,
           "base_url": info.base_url, "key_vars": list(info.key_vars)}
    return {"provider": ref.provider, "model": ref.name,
            "digest": domain_hash("artifact", row)}


def builtin_entry(name: str) -> dict[str, str]:
    """The lock entry of one builtin: the digest of its declaration."""
    from nika.stdlib import DECLARATIONS

    decl = DECLARATIONS[name]
    surface = {"name": decl.name, "schema": value(dict(decl.schema)), "code": decl.code,
               "codes": dict(sorted(decl.codes.items())),
               "rules": [{"name": r.name, "reads": list(r.reads), "code": r.code,
                          "source": r.source} for r in decl.rules]}
    return {"kind": "builtin", "digest": domain_hash("artifact", surface)}


def _tool_digest(name: str, description: str, parameters: Mapping[str, Any]) -> str:
    return domain_hash("artifact", {"name": name, "description": description,
                                    "parameters": value(dict(parameters))})


def _references(workflow: Workflow) -> tuple[set[str], list[tuple[str, ...]]]:
    """Tools named outright (`invoke: tool:`), and each agent's whitelist."""
    named: set[str] = set()
    lists: list[tuple[str, ...]] = []
    for task in workflow.tasks.values():
        body = task.body
        if isinstance(body, InvokeBody) and body.tool and "${{" not in body.tool:
            named.add(body.tool)
        elif isinstance(body, AgentBody) and body.tools:
            lists.append(tuple(body.tools))
    return named, lists


def _servers(named: Iterable[str], lists: Iterable[tuple[str, ...]],
             registry: McpRegistry) -> set[str]:
    """The MCP servers the workflow can reach: those named, every one under a server glob."""
    wanted = {n[len("mcp:"):].split("/", 1)[0] for n in named if n.startswith("mcp:")}
    for patterns in lists:
        for pattern in patterns:
            body = pattern.removeprefix("!")
            if pattern.startswith("!") or not body.startswith(("mcp:", "*", "?", "[")):
                continue
            server = body[len("mcp:"):].split("/", 1)[0] if body.startswith("mcp:") else "*"
            if any(ch in server for ch in "*?["):
                wanted |= set(registry.servers)
            else:
                wanted.add(server)
    return wanted


async def _listed(registry: McpRegistry, servers: set[str]) -> tuple[
        dict[str, tuple[str, str, Mapping[str, Any]]], dict[str, str]]:
    import anyio

    from nika.tools.mcp import McpExecutor

    found: dict[str, tuple[str, str, Mapping[str, Any]]] = {}
    failed: dict[str, str] = {}
    if not servers:
        return found, failed
    async with McpExecutor(registry, servers=servers & set(registry.servers),
                           start_timeout=LIST_TIMEOUT) as executor:
        with anyio.move_on_after(LIST_TIMEOUT) as scope:
            definitions = await executor.load_definitions(servers & set(registry.servers))
        if scope.cancelled_caught:
            return found, {s: f"did not list its tools within {LIST_TIMEOUT:g}s"
                           for s in sorted(servers)}
        for d in definitions:
            found[d.name] = (d.name, d.description, d.parameters)
        failed = {s: e.detail for s, e in executor.failures.items()}
    for server in sorted(servers - set(registry.servers)):
        failed[server] = f"is not configured in {registry.where()}"
    return found, failed


def resolve(workflow: Workflow, registry: McpRegistry | None, *,
            model: str | None = None) -> Surfaces:
    """Every dependency `workflow` resolves now (`model`: the run's default model)."""
    import anyio

    from nika.stdlib import NAMES

    providers = {m: provider_entry(m) for m in sorted(_models(workflow, model or workflow.model))}
    named, lists = _references(workflow)
    whitelists = [Whitelist.compile(patterns) for patterns in lists]
    builtins = {n for n in named if n in NAMES}
    builtins |= {n for n in NAMES for w in whitelists if w.allows(n)}
    tools: dict[str, dict[str, str]] = {n: builtin_entry(n) for n in sorted(builtins)}
    servers = _servers(named, lists, registry or McpRegistry())
    listed, unlisted = anyio.run(_listed, registry or McpRegistry(), servers)
    for name, (tool, description, parameters) in sorted(listed.items()):
        if name in named or any(w.allows(name) for w in whitelists):
            tools[name] = {"kind": "mcp", "digest": _tool_digest(tool, description, parameters)}
    for name in sorted(n for n in named if n.startswith("mcp:") and n not in listed):
        server = name[len("mcp:"):].split("/", 1)[0]
        unlisted.setdefault(server, f"lists no tool {name!r}")
    return Surfaces(providers, tools, unlisted)


def refuse_unlisted(surfaces: Surfaces) -> None:
    """`nika lock` pins only what it could read: an unlisted server is a refusal."""
    if surfaces.unlisted:
        server, why = sorted(surfaces.unlisted.items())[0]
        raise NikaError(codes.LOCK_001, f"MCP server {server!r} {why}; `nika lock` pins a "
                        "tool by the schema its server lists — fix the server (or its entry in "
                        "the MCP registry) and lock again")
