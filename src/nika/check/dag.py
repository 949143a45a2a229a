"""The DAG-topology rung (spec 03): edge targets, predicates, groups, cycles, recovery
deadlocks, static liveness, status vocabulary — and the plan's topological waves.

Each finding is located at the declaration that created the offending edge.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Final

from nika import codes
from nika.check._islands import exprs, whole
from nika.check._liveness import Death, SettleShape, WhenGate, dead_tasks
from nika.check._suggest import LISTED, chain_text
from nika.check.context import CheckContext, Finding, Section
from nika.check.graph import (
    PREDICATES,
    STATUSES,
    UNWIND,
    Edge,
    EdgeKind,
    Graph,
    Status,
    cleanup_units,
    group_members,
    reads,
)
from nika.errors import NikaError
from nika.syntax.model import KeyPath, Task, TaskId, Workflow
from nika.syntax.template import walk_strings

if TYPE_CHECKING:
    from nika.syntax.expr import Expr, StatusComparison

_AFTER_WORDS: Final = (*PREDICATES, UNWIND)

_KIND_WORDS: Mapping[EdgeKind, str] = {
    EdgeKind.VALUE: "value edge (`with:` reads the value)",
    EdgeKind.TERMINAL_OBSERVATION: "terminal-observation edge",
    EdgeKind.FAILURE_OBSERVATION: "failure-observation edge (`with:` reads `.error`)",
    EdgeKind.FAN_IN: "fan-in edge",
}


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge the graphs of `ctx.workflow`; always contributes the `plan` section."""
    graph = ctx.graph()
    aliases = {t.id: _status_aliases(t) for t in ctx.workflow.tasks.values()}
    yield from _predicates(ctx)
    yield from _dangling(ctx, graph)
    yield from _groups(ctx)
    yield from _cycles(ctx, graph)
    yield from _recovery(ctx, graph)
    yield from _liveness(ctx, graph, aliases)
    yield from _vocabulary(ctx, aliases)
    yield Section("plan", {"waves": [list(wave) for wave in graph.topological_waves()]})


def _suggest(ctx: CheckContext, name: str, candidates: Collection[str]) -> str:
    close = ctx.suggestions.closest(name, candidates)
    return f" — did you mean `{close}`?" if close else ""


def _predicates(ctx: CheckContext) -> Iterator[NikaError]:
    allowed = ", ".join(PREDICATES)
    for task in ctx.workflow.tasks.values():
        for producer, predicate in task.after.items():
            if predicate in PREDICATES or predicate == UNWIND:
                continue
            yield ctx.error(
                codes.DAG_005,
                f"task `{task.id}` waits on `after: {{ {producer}: {predicate} }}`, but "
                f"`{predicate}` is not a predicate{_suggest(ctx, predicate, _AFTER_WORDS)}; "
                f"write one of {allowed} (or `unwind` to attach a cleanup task)",
                (*task.path, "after", producer),
                task=task.id,
                predicate=predicate,
            )


def _dangling(ctx: CheckContext, graph: Graph) -> Iterator[NikaError]:
    declared = ctx.workflow.tasks
    for edge in graph.dangling:
        where = {
            EdgeKind.CONTROL: "`after:`",
            EdgeKind.FINALLY: "`after:`",
            EdgeKind.RECOVERY: "`on_error.recover:`",
        }.get(edge.kind, f"`with: {{ {edge.binding}: … }}`")
        yield ctx.error(
            codes.DAG_002,
            f"task `{edge.target}` names `{edge.source}` in {where}, but no task "
            f"`{edge.source}` is declared{_suggest(ctx, edge.source, declared)}; declare it under "
            "`tasks:` or point at an existing task",
            edge.site,
            task=edge.target,
            reference=edge.source,
        )


def _groups(ctx: CheckContext) -> Iterator[NikaError]:
    workflow = ctx.workflow
    groups = group_members(workflow)
    for task in workflow.tasks.values():
        for binding, value in task.with_.items():
            for read in reads(value, (*task.path, "with", binding)):
                if read.root != "group" or (read.name is not None and read.name in groups):
                    continue
                known = ctx.suggestions.listing(groups, quote="`") or "none"
                if read.name is None:
                    what = "`${{ group }}`, which names no group"
                else:
                    what = (
                        f"`${{{{ group.{read.name} }}}}`, but no task declares "
                        f"`group: {read.name}`{_suggest(ctx, read.name, groups)}"
                    )
                yield ctx.error(
                    codes.DAG_008,
                    f"task `{task.id}` folds {what} in `with: {{ {binding}: … }}` (declared "
                    f"groups: {known}); add `group: <name>` to each member task, then fold "
                    "`${{ group.<name> }}`",
                    read.site,
                    task=task.id,
                )
    units = frozenset(cleanup_units(workflow))
    for task in workflow.tasks.values():
        if task.id in units and task.group is not None:
            yield ctx.error(
                codes.DAG_009,
                f"cleanup task `{task.id}` (attached by `unwind`) declares `group: {task.group}`; "
                "a cleanup unit never schedules, so it cannot be folded — remove `group:` or "
                "make it an ordinary task (`after: {…: terminal}`)",
                (*task.path, "group"),
                task=task.id,
            )


def _edge_between(graph: Graph, source: TaskId, target: TaskId) -> Edge:
    return next(e for e in graph.incoming(target) if e.source == source)


def _cycles(ctx: CheckContext, graph: Graph) -> Iterator[NikaError]:
    for cycle in graph.cycles():
        shown = chain_text(cycle, quote="")
        hops = [_edge_between(graph, a, b) for a, b in zip(cycle, cycle[1:], strict=False)]
        declared = "; ".join(
            f"`{e.target}` {'after' if e.kind is EdgeKind.CONTROL else 'reads'} `{e.source}`"
            for e in hops[:LISTED]
        ) + (f"; … {len(hops) - LISTED} more" if len(hops) > LISTED else "")
        if len(cycle) == 2:
            fix = f"task `{cycle[0]}` depends on itself; remove that `with:`/`after:` entry"
        else:
            fix = "remove or redirect one of those `with:`/`after:` entries"
        yield ctx.error(
            codes.DAG_001,
            f"the tasks form a cycle {shown} ({declared}), so none of them can ever start; {fix}",
            hops[0].site,
            cycle=list(cycle),
        )


def _recovery(ctx: CheckContext, graph: Graph) -> Iterator[NikaError]:
    # 05 §recover: the resolution graph G_p ∪ E_r must be acyclic (self-recovery, recovering
    # from a downstream task, and two tasks recovering from each other are all its cycles).
    # One finding per cycle, however many recovery edges it holds: a ring stays one line.
    for edges, cycle in graph.recovery_deadlocks():
        edge = edges[0]
        declaring, source = edge.target, edge.source
        if source == declaring:
            why = "itself, so the recovery would wait on the very task that failed"
        else:
            why = (
                f"`{source}`, which cannot settle before `{declaring}` does (wait chain "
                f"{chain_text(cycle)}: each waits on the one before it), so the recovery "
                "would wait forever"
            )
        others = [f"`{e.target}` from `{e.source}`" for e in edges[1 : 1 + LISTED]]
        if len(edges) > 1 + LISTED:
            others.append(f"… {len(edges) - 1 - LISTED} more")
        also = f"; the same cycle also holds {', '.join(others)}" if others else ""
        yield ctx.error(
            codes.DAG_004,
            f"task `{declaring}` recovers from {why}{also}; recover from a task that does not "
            "wait on it (directly, through `with:`/`after:`, or through its own "
            "`on_error.recover:`), or from a literal value",
            edge.site,
            task=declaring,
            source=source,
            cycle=list(cycle),
            recovering=[e.target for e in edges],
        )


def _status_aliases(task: Task) -> dict[str, TaskId]:
    """`with:` bindings that are exactly `${{ tasks.P.status }}`, by binding name."""
    aliases: dict[str, TaskId] = {}
    for binding, value in task.with_.items():
        expr = _whole_expr(value)
        if expr is None:
            continue
        # The expression language is loaded only where an island was found.
        from nika.syntax.expr import Ident, Member

        if (
            isinstance(expr, Member)
            and expr.name == "status"
            and isinstance(expr.target, Member)
            and isinstance(expr.target.target, Ident)
            and expr.target.target.name == "tasks"
        ):
            aliases[binding] = TaskId(expr.target.name)
    return aliases


def _whole_expr(value: object) -> Expr | None:
    return whole(value) if isinstance(value, str) else None


def _gate(expr: Expr, aliases: Mapping[str, TaskId]) -> WhenGate:
    from nika.check._gate import always_false

    return lambda admitted: always_false(expr, aliases, admitted)


def _liveness(
    ctx: CheckContext, graph: Graph, aliases: Mapping[TaskId, Mapping[str, TaskId]]
) -> Iterator[NikaError]:
    shapes: dict[TaskId, SettleShape] = {}
    gates: dict[TaskId, WhenGate] = {}
    for task in ctx.workflow.tasks.values():
        skip_route = (
            isinstance(task.when, str)
            or task.for_each is not None
            or (task.on_error is not None and task.on_error.action == "skip")
        )
        shapes[task.id] = SettleShape(when_false=task.when is False, may_skip=skip_route)
        expr = _whole_expr(task.when)
        if expr is not None:
            gates[task.id] = _gate(expr, aliases[task.id])
    for death in dead_tasks(graph, shapes, gates):
        yield _death(ctx, ctx.workflow, death)


def _states(states: Iterable[Status]) -> str:
    return "{" + ", ".join(s for s in STATUSES if s in set(states)) + "}"


def _death(ctx: CheckContext, workflow: Workflow, death: Death) -> NikaError:
    task = workflow.tasks[death.task]
    edge = death.edge
    if edge is None:
        return ctx.error(
            codes.DAG_006,
            f"task `{task.id}` can never run: its `when:` is false for every outcome its "
            "observed producers can reach; fix the condition or the producers' `after:`",
            (*task.path, "when"),
            task=task.id,
        )
    if edge.kind is EdgeKind.CONTROL:
        spelled = f"`after: {{ {edge.source}: {edge.predicate} }}`"
    else:
        spelled = f"the {_KIND_WORDS.get(edge.kind, 'edge')} from `{edge.source}`"
    if death.states == frozenset({"cancelled"}):
        why = f"`{edge.source}` is itself never admitted (always cancelled)"
    else:
        why = f"`{edge.source}` can only settle {_states(death.states)}"
    return ctx.error(
        codes.DAG_006,
        f"task `{task.id}` is cancelled on every run: {spelled} admits only "
        f"{_states(edge.pass_set)}, but {why}; pick a predicate the producer can reach "
        "(e.g. `terminal`), or give the producer that route",
        edge.site,
        task=task.id,
        producer=edge.source,
    )


def _vocabulary(
    ctx: CheckContext, aliases: Mapping[TaskId, Mapping[str, TaskId]]
) -> Iterator[NikaError]:
    workflow = ctx.workflow
    for task in workflow.tasks.values():
        surfaces: list[tuple[KeyPath, object]] = [((*task.path, "with"), task.with_)]
        if task.when is not None:
            surfaces.append(((*task.path, "when"), task.when))
        for site, value in surfaces:
            yield from _bad_literals(ctx, value, site, aliases[task.id])
    for name, output in workflow.outputs.items():
        yield from _bad_literals(ctx, output.value, output.path or ("outputs", name), {})


def _bad_literals(
    ctx: CheckContext, value: object, site: KeyPath, aliases: Mapping[str, TaskId]
) -> Iterator[NikaError]:
    for at, text in walk_strings(value, site):
        for expr in exprs(text):
            from nika.syntax.expr import status_comparisons

            for cmp in status_comparisons(expr, aliases):
                if cmp.literal is None or cmp.literal in STATUSES:
                    continue
                yield _out_of_vocabulary(ctx, cmp, at)


def _out_of_vocabulary(ctx: CheckContext, cmp: StatusComparison, at: KeyPath) -> NikaError:
    verdict = "never holds" if cmp.op in ("==", "in") else "always holds"
    literal = repr(cmp.literal)
    return ctx.error(
        codes.DAG_007,
        f"the status of `{cmp.task}` is compared with {literal} (`{cmp.op}`), which no task "
        f"status can equal, so the test {verdict}"
        f"{_suggest(ctx, str(cmp.literal), STATUSES)}; compare with one of {', '.join(STATUSES)}",
        at,
        task=cmp.task,
        literal=cmp.literal,
    )
