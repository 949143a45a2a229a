"""Rung: builtin `invoke:` contracts that hold before anything runs (stdlib/builtins-v0.1).

The closed `nika:*` set (`NIKA-INVOKE-001` for a name outside it), the loop-only builtins
standing alone (`NIKA-BUILTIN-DONE-001` · `NIKA-BUILTIN-COMPOSE-001`), and each builtin's
argument contract as its declaration states it (`nika.stdlib`): the schema, then the rules —
`NIKA-BUILTIN-001`, or the builtin's own code where the stdlib names one, the very code the
executor refuses the same args with at run time. Only what the file states is judged: an
argument carrying a `${{ … }}` island is the run's to judge, as far as its shape is unknown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from nika import codes
from nika.check.context import CheckContext, Finding
from nika.errors import NikaError
from nika.stdlib import DECLARATIONS, LOOP_ONLY, NAMES
from nika.syntax.model import AgentBody, InvokeBody, Task


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge every builtin reference of the workflow."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if isinstance(body, InvokeBody) and body.tool is not None and body.tool.startswith("nika:"):
            yield from _invoke(ctx, task, body.tool, body.args)
        elif isinstance(body, AgentBody):
            yield from _whitelist(ctx, task, body.tools)


def _unknown(ctx: CheckContext, tool: str, at: tuple[str | int, ...]) -> NikaError:
    import difflib  # only a misspelt builtin pays for it

    close = difflib.get_close_matches(tool, sorted(NAMES), n=1)
    hint = f" — did you mean `{close[0]}`?" if close else ""
    return ctx.error(
        codes.INVOKE_001,
        f"`{tool}` is not a builtin; the `nika:` namespace is closed ({len(NAMES)} "
        f"builtins){hint}",
        at,
    )


def _invoke(
    ctx: CheckContext, task: Task, tool: str, args: Mapping[str, Any]
) -> Iterator[NikaError]:
    at = (*task.path, "invoke", "tool")
    if tool not in NAMES:
        yield _unknown(ctx, tool, at)
        return
    if tool in LOOP_ONLY:
        code, role = LOOP_ONLY[tool]
        yield ctx.error(
            code,
            f"task `{task.id}` invokes `{tool}` standalone; it is {role} and is valid only "
            "inside an `agent:` loop — add it to an agent's `tools:` whitelist instead",
            at,
        )
        return
    args_at = (*task.path, "invoke", "args")
    refusals = DECLARATIONS[tool].refusals(args, static=True)
    for refusal in refusals:
        where = (*args_at, refusal.arg) if refusal.arg is not None and refusal.arg in args \
            else args_at
        yield ctx.error(refusal.code, f"task `{task.id}` · `{tool}`: {refusal.detail}", where)
    if tool == "nika:decide" and not refusals:  # a literal bundle's own laws (spec 11)
        from nika.check.decisions import findings

        yield from findings(ctx, task, args)


def _whitelist(ctx: CheckContext, task: Task, tools: tuple[str, ...]) -> Iterator[NikaError]:
    for i, entry in enumerate(tools):
        name = entry[1:] if entry.startswith("!") else entry
        if name.startswith("nika:") and "*" not in name and name not in NAMES:
            yield _unknown(ctx, name, (*task.path, "agent", "tools", i))
