"""`invoke:` — one tool call through the `ToolExecutor` seam the agent uses (02 §invoke), or a
child workflow (`invoke: workflow:` · 14).

The tool is re-judged as a `tool` effect at dispatch, its args resolve and are validated
against the tool's own JSON Schema (`NIKA-INVOKE-002`) before the call, an unknown name is
`NIKA-INVOKE-001`, and a failed call raises the tool's `ToolFailure` as its `NikaError`
(transient only where the executor's boundary said so). The output is the tool's structured
value when it has one, else its text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from time import perf_counter
from typing import Any, Final

import jsonschema

from nika import codes
from nika.agent.seams import ToolDefinition, ToolExecutor
from nika.errors import task_error
from nika.journal.frames import ToolInvoked, UnitAttempt, VerbInvoked
from nika.run.events import spend_frame
from nika.run.pause import PauseRequested, prompt_payload
from nika.run.services import RunServices, servers_down
from nika.stdlib import LOOP_ONLY
from nika.syntax.binding import interpolate
from nika.syntax.model import InvokeBody, Task
from nika.tools.builtins.prompt import PROMPT_001, supplied_answer

ChildRunner = Callable[[Path, Mapping[str, Any], UnitAttempt], Awaitable[Any]]
"""Runs a child workflow file with its args as inputs for the invoking `UnitAttempt` (whose
frames nest the child's); returns its `outputs` object."""

PROMPT: Final = "nika:prompt"


async def run_invoke(
    task: Task, body: InvokeBody, env: Mapping[str, Any], services: RunServices,
    child: ChildRunner | None, unit: UnitAttempt,
) -> Any:
    """Dispatch the tool (or the child workflow) and return its output."""
    args = interpolate(dict(body.args), env)
    if body.workflow is not None:
        return await _child(task, body.workflow, args, services, child, unit)
    name = body.tool or ""
    loop_only = LOOP_ONLY.get(name)
    if loop_only is not None:
        raise task_error(
            loop_only[0], task.id,
            f"{name} only means something inside an `agent:` loop; grant it "
            "in an agent's `tools:` instead of invoking it",
            tool=name,
        )
    services.gate.tool(task.id, name)
    tools = services.tools(task.id)
    definition = await _definition(task, name, tools, services)
    if not name.startswith("nika:"):
        # Builtins validate their own args, with the per-builtin codes the stdlib names.
        _validate(task, definition, args)
    services.bus.emit(VerbInvoked(task=task.id, verb="invoke", tool=name))
    if name == PROMPT and task.id in services.answers:
        return _answered(task, args, services)
    started = perf_counter()
    result = await tools.call(name, args)
    services.bus.emit(ToolInvoked(
        task=task.id, tool=name, is_error=result.is_error,
        error_code=result.error.code if result.error else None,
        duration_ms=round((perf_counter() - started) * 1000, 3), arguments=args,
        result=result.structured if result.structured is not None else result.content,
    ))
    if result.is_error:
        if name == PROMPT and services.pausable and result.error is not None \
                and result.error.code == PROMPT_001:
            raise PauseRequested({task.id: prompt_payload(task.id, args)})
        if result.error is None:  # an embedder's executor that gave no typed failure
            raise task_error(codes.MCP_002 if name.startswith("mcp:") else codes.IMPL_001,
                             task.id, f"{name} failed: {result.content[:500]}", tool=name)
        raise result.error.to_error()
    if name.startswith("nika:"):
        spent = spend_frame(task.id, name, result.structured)
        if spent is not None:  # the builtin's own bill joins the run's ledger
            services.bus.emit(spent)
        # Builtins always carry their value in `structured`; a null output stays null.
        return result.structured
    return result.structured if result.structured is not None else result.content


def _answered(task: Task, args: Mapping[str, Any], services: RunServices) -> Any:
    """Bind the answer supplied for this prompt (`--answer`), journaled as the tool's call."""
    value = supplied_answer(args, services.answers[task.id])
    services.bus.emit(ToolInvoked(task=task.id, tool=PROMPT, is_error=False, error_code=None,
                                  answered="supplied non-interactively (--answer)"))
    return value


async def _definition(
    task: Task, name: str, tools: ToolExecutor, services: RunServices
) -> ToolDefinition:
    found = _find(tools, name)
    if found is None and name.startswith("mcp:") and services.mcp is not None:
        server = name[len("mcp:"):].split("/", 1)[0]
        await services.mcp.load_definitions({server})
        found = _find(tools, name)
        down = servers_down(services.mcp.failures, {server}, task.id, f"invokes {name}, so needs")
        if found is None and down is not None:
            raise down
    if found is None:
        raise task_error(
            codes.INVOKE_001, task.id,
            f"no tool named {name!r} is available; check the spelling "
            "against the builtin list, or configure the MCP server in .nika/mcp.json",
            tool=name,
        )
    return found


def _find(tools: ToolExecutor, name: str) -> ToolDefinition | None:
    return next((d for d in tools.definitions() if d.name == name), None)


def _validate(task: Task, definition: ToolDefinition, args: Mapping[str, Any]) -> None:
    try:
        jsonschema.validate(dict(args), dict(definition.parameters))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(args)"
        raise task_error(
            codes.INVOKE_002, task.id,
            f"args of {definition.name} do not fit its schema at {where}: "
            f"{exc.message}; fix `args:`",
            tool=definition.name, at=where,
        ) from None
    except jsonschema.SchemaError:
        # A tool's broken schema is the tool's defect; the call itself decides.
        return


async def _child(
    task: Task, target: str, args: Any, services: RunServices, child: ChildRunner | None,
    unit: UnitAttempt,
) -> Any:
    if child is None or target.startswith("registry:"):
        raise task_error(
            codes.COMP_001, task.id,
            f"the child workflow {target!r} cannot be run by this engine "
            "(only local-file children are supported); inline the child's tasks or run it "
            "separately with `nika run`",
            workflow=target,
        )
    path = Path(target)
    if not path.is_absolute():
        path = services.workflow_dir / path
    services.bus.emit(VerbInvoked(task=task.id, verb="invoke", workflow=target))
    return await child(path, args if isinstance(args, Mapping) else {}, unit)
