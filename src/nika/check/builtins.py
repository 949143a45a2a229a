"""Rung: builtin `invoke:` contracts that hold before anything runs (stdlib/builtins-v0.1).

The closed `nika:*` set (`NIKA-INVOKE-001` for a name outside it), the loop-only
builtins standing alone (`NIKA-BUILTIN-DONE-001` · `NIKA-BUILTIN-COMPOSE-001`), and
each builtin's statically-checkable argument contract (`NIKA-BUILTIN-001`, or the
builtin's own parse-time code where the stdlib names one). Only literal values are
judged: an argument carrying a `${{ … }}` island is the run's to validate. A literal jq
program (`nika:jq`'s `expression:`, `nika:fetch`'s `jq:`) must compile and read no
ambient (`env`, `$ENV`, `input`…) — `NIKA-VAR-005`, the code the run would raise.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from nika.check._builtin_args import misfits
from nika.check._builtin_contracts import BUILTINS, CONTRACTS, Report
from nika.check.context import CheckContext, Finding
from nika.errors import NikaError
from nika.syntax.binding import compile_jq
from nika.syntax.model import AgentBody, InvokeBody, Task

_JQ_PROGRAMS: Final = {"nika:jq": "expression", "nika:fetch": "jq"}
"""The argument that carries a jq program, per builtin."""

_SHAPE_CODES: Final = {
    "nika:date": "NIKA-BUILTIN-DATE-001",
    "nika:hash": "NIKA-BUILTIN-HASH-001",
    "nika:inspect": "NIKA-BUILTIN-INSPECT-001",
    "nika:tts_generate": "NIKA-BUILTIN-TTS_GENERATE-001",
}
"""Builtins whose own code covers a malformed argument (stdlib/builtins-v0.1); the rest
use the static contract's `NIKA-BUILTIN-001`."""

_LOOP_ONLY = {
    "nika:done": ("NIKA-BUILTIN-DONE-001", "the loop-completion sentinel"),
    "nika:compose": ("NIKA-BUILTIN-COMPOSE-001", "the agent's self-check intrinsic"),
}


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

    close = difflib.get_close_matches(tool, sorted(BUILTINS), n=1)
    hint = f" — did you mean `{close[0]}`?" if close else ""
    return ctx.error(
        "NIKA-INVOKE-001",
        f"`{tool}` is not a builtin; the `nika:` namespace is closed ({len(BUILTINS)} "
        f"builtins){hint}",
        at,
    )


def _invoke(
    ctx: CheckContext, task: Task, tool: str, args: Mapping[str, Any]
) -> Iterator[NikaError]:
    at = (*task.path, "invoke", "tool")
    if tool not in BUILTINS:
        yield _unknown(ctx, tool, at)
        return
    if tool in _LOOP_ONLY:
        code, role = _LOOP_ONLY[tool]
        yield ctx.error(
            code,
            f"task `{task.id}` invokes `{tool}` standalone; it is {role} and is valid "
            "only inside an "
            f"`agent:` loop — add it to an agent's `tools:` whitelist instead",
            at,
        )
        return
    found: list[NikaError] = []
    args_at = (*task.path, "invoke", "args")
    shape_code = _SHAPE_CODES.get(tool, "NIKA-BUILTIN-001")
    misfit: set[str] = set()

    def report(code: str, detail: str, key: str | None = None) -> None:
        if key in misfit:
            return  # the argument's shape finding already speaks for it
        where = (*args_at, key) if key is not None and key in args else args_at
        found.append(ctx.error(code, f"task `{task.id}` · `{tool}`: {detail}", where))

    for key, why in misfits(tool, args):
        report(shape_code, why, key)
        misfit.add(key)
    contract = CONTRACTS.get(tool)
    if contract is not None:
        rep: Report = report
        contract(args, rep)
    yield from found
    if _JQ_PROGRAMS.get(tool) not in misfit:
        yield from _jq_program(ctx, task, tool, args)


def _jq_program(
    ctx: CheckContext, task: Task, tool: str, args: Mapping[str, Any]
) -> Iterator[NikaError]:
    key = _JQ_PROGRAMS.get(tool)
    program = args.get(key) if key is not None else None
    if key is None or not isinstance(program, str) or "${{" in program:
        return  # absent or not a string: the contract's finding · templated: the run's
    try:
        compile_jq(program)
    except NikaError as err:
        yield ctx.error(
            err.code,
            f"task `{task.id}` · `{tool}` `{key}:`: {err.detail}",
            (*task.path, "invoke", "args", key),
        )


def _whitelist(ctx: CheckContext, task: Task, tools: tuple[str, ...]) -> Iterator[NikaError]:
    for i, entry in enumerate(tools):
        name = entry[1:] if entry.startswith("!") else entry
        if name.startswith("nika:") and "*" not in name and name not in BUILTINS:
            yield _unknown(ctx, name, (*task.path, "agent", "tools", i))
