"""One obvious way, for fan-out (spec 03 §One obvious way: /006, /007).

`for_each:` is the one fan-out: `timeout:` on the fan-out task bounds each iteration,
`for_each.max_parallel:` caps the concurrency. A hand-rolled timer per element, or N
sequential copies of one task, re-implements what the field already says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from nika.check.context import CheckContext
from nika.check.lint._finding import Lint, found
from nika.check.lint._read import verb_node
from nika.syntax.model import ExecBody, InvokeBody, Task, TaskId

_TIMERS: Final = frozenset({"timeout", "gtimeout"})
_MIN_SHARDS: Final = 3
_ABSENT: Final = object()


def per_element_timer(ctx: CheckContext) -> Iterator[Lint]:
    """/006 · « time-bound an iteration »: a `timeout` wrapper inside a `for_each` body."""
    for task in ctx.workflow.tasks.values():
        if task.for_each is None or not isinstance(task.body, ExecBody):
            continue
        # The command reader loads with the first `exec:` a rule reads.
        from nika.check.lint._command import command_of

        head = command_of(task.body).head
        if head not in _TIMERS:
            continue
        yield found(
            ctx,
            "one-obvious-way/006",
            task,
            f"`{head}` wraps the `for_each` body of `{task.id}`: a per-element timing trick "
            "inside the body",
            "drop the wrapper and put `timeout:` on the fan-out task — it applies per "
            "iteration (spec 03 §for_each)",
        )


def manual_sharding(ctx: CheckContext) -> Iterator[Lint]:
    """/007 · « cap fan-out concurrency »: three or more tasks chained one after the other,
    each the same operation with exactly one varying slot — manual sharding."""
    tasks = ctx.workflow.tasks
    for chain in _chains(ctx):
        for run in _shard_runs(ctx, [tasks[t] for t in chain]):
            names = ", ".join(f"`{t.id}`" for t in run)
            yield found(
                ctx,
                "one-obvious-way/007",
                run[0],
                f"{len(run)} sequential tasks ({names}) run the same operation with one "
                "varying slot: manual sharding into N sequential tasks",
                "write ONE task with `for_each:` over the varying values, and cap its "
                "concurrency with `for_each.max_parallel:`",
            )


def _shard_runs(ctx: CheckContext, chain: list[Task]) -> Iterator[list[Task]]:
    """The maximal stretches of `chain` (at least three long) whose tasks differ in one
    and the same slot; linear in the chain."""
    start, slots = 0, frozenset[Any]()
    for k in range(len(chain) - 1):
        step = _slots_apart(ctx, chain[k], chain[k + 1])
        if step is not None and len(slots | step) <= 1:
            slots |= step
            continue
        if k + 1 - start >= _MIN_SHARDS and len(slots) == 1:
            yield chain[start : k + 1]
        start, slots = (k, step) if step is not None and len(step) <= 1 else (k + 1, frozenset())
    if len(chain) - start >= _MIN_SHARDS and len(slots) == 1:
        yield chain[start:]


def _chains(ctx: CheckContext) -> Iterator[list[TaskId]]:
    """Maximal paths of `G_p` where each link is a task's only producer and that
    producer's only single-producer consumer, from their heads, in declaration order."""
    graph = ctx.graph()
    followers: dict[TaskId, list[TaskId]] = {}
    for node in graph.nodes:
        producers = graph.producers(node)
        if len(producers) == 1:
            followers.setdefault(producers[0], []).append(node)
    link = {p: fs[0] for p, fs in followers.items() if len(fs) == 1}
    linked = set(link.values())
    for head in graph.nodes:
        if head in linked:
            continue
        chain, seen = [head], {head}
        while chain[-1] in link and link[chain[-1]] not in seen:
            chain.append(link[chain[-1]])
            seen.add(chain[-1])
        yield chain


def _slots_apart(ctx: CheckContext, a: Task, b: Task) -> frozenset[Any] | None:
    """The slots where two tasks' operations differ, or None when they are not the same
    operation at all (another verb, program form, word count, tool or child)."""
    if isinstance(a.body, ExecBody) and isinstance(b.body, ExecBody):
        from nika.check.lint._command import command_of

        ca, cb = command_of(a.body), command_of(b.body)
        if ca.form != cb.form or len(ca.words) != len(cb.words):
            return None
        pairs = enumerate(zip(ca.words, cb.words, strict=True))
        return frozenset(i for i, (x, y) in pairs if x != y)
    if isinstance(a.body, InvokeBody) and isinstance(b.body, InvokeBody):
        if (a.body.tool, a.body.workflow) != (b.body.tool, b.body.workflow):
            return None
        la, lb = _leaves(_args(ctx, a)), _leaves(_args(ctx, b))
        slots = la.keys() | lb.keys()
        return frozenset(k for k in slots if la.get(k, _ABSENT) != lb.get(k, _ABSENT))
    return None


def _args(ctx: CheckContext, task: Task) -> Any:
    node = verb_node(ctx, task)
    return node.get("args") if isinstance(node, Mapping) else None


def _leaves(value: Any, prefix: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], Any]:
    """Leaf path → scalar, over plain data (an empty container is a leaf of its own)."""
    if isinstance(value, Mapping) and value:
        out: dict[tuple[Any, ...], Any] = {}
        for key, item in value.items():
            out.update(_leaves(item, (*prefix, str(key))))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, item in enumerate(value):
            out.update(_leaves(item, (*prefix, i)))
        return out
    # typed, so `1` and `true` (equal in Python) stay two different values
    return {prefix: (type(value).__name__, repr(value))}
