"""One obvious way, for edges and failure paths (spec 03 §One obvious way: /010, /002–/005).

The dividing line the spec states once: `with:` imports data (and IS the data edge),
`after:` orders on state, `on_error:`/`retry:` decide what happens inside a task's own
failure. Each rule below flags one construct that restates another's default or smuggles
another's job; every one fires only on a precise static signature.
"""

from __future__ import annotations

from collections.abc import Iterator

from nika.check.context import CheckContext
from nika.check.graph import EdgeKind
from nika.check.lint._finding import Lint, found
from nika.check.lint._read import authored, binding_names, null_tests, verb_node
from nika.syntax.model import ExecBody, InvokeBody, Task, TaskId
from nika.syntax.template import is_literal

_SHELL_WORK = frozenset("|&;<>$`")
"""Shell syntax that turns an `echo` into real work (a redirect, a pipe, an expansion)."""


def non_tightening_after(ctx: CheckContext) -> Iterator[Lint]:
    """/010 · « B consumes A's output »: an `after: {a: terminal}` beside a `with:` value
    edge to `a` changes nothing — the edges compose by intersection, and the value
    edge's {success, skipped} is inside `terminal` already."""
    graph = ctx.graph()
    for task in ctx.workflow.tasks.values():
        valued = {e.source for e in graph.incoming(task.id) if e.kind is EdgeKind.VALUE}
        restated = [p for p, pred in task.after.items() if pred == "terminal" and p in valued]
        if not restated:
            continue
        names = ", ".join(f"`{p}`" for p in restated)
        first = restated[0]
        yield found(
            ctx,
            "one-obvious-way/010",
            task,
            f"`after: {{{first}: terminal}}` restates the `with:` value edge to {names}: a "
            "non-tightening `after:` entry beside a value edge changes nothing (the data IS "
            "the edge, and it already runs on success or skipped)",
            f"drop the `after:` entry, or tighten it to `after: {{{first}: success}}` to "
            "refuse the skipped-null case",
        )


def unacknowledged_skip(ctx: CheckContext) -> Iterator[Lint]:
    """/002 · « depend on a skippable producer »: an `on_error: { skip: true }` producer
    whose value-reading dependents never acknowledge the skip either way — no
    `after: {a: success}` (skip cancels me) and no test of the binding (skip reads null)."""
    graph = ctx.graph()
    tasks = ctx.workflow.tasks
    for task in tasks.values():
        if task.on_error is None or task.on_error.action != "skip":
            continue
        blind = [c for c in graph.consumers(task.id) if _blind_to_skip(ctx, task.id, tasks[c])]
        if not blind:
            continue
        names = ", ".join(f"`{c}`" for c in blind)
        yield found(
            ctx,
            "one-obvious-way/002",
            task,
            f"`on_error: {{ skip: true }}` on `{task.id}`, whose dependents never acknowledge "
            f"the skip either way: {names} read its value, which is null after a skip",
            f"decide the skip path in each dependent: `after: {{{task.id}: success}}` (a skip "
            "cancels it), or test the binding in its `when:` (`${{ with.<name> != null }}`)",
        )


def _blind_to_skip(ctx: CheckContext, producer: TaskId, consumer: Task) -> bool:
    edges = [e for e in ctx.graph().incoming(consumer.id) if e.source == producer]
    values = {e.binding for e in edges if e.kind is EdgeKind.VALUE and e.binding}
    if not values:
        return False  # control or observation only: the dependent decided on the state
    if any(e.kind is EdgeKind.CONTROL and e.predicate in ("success", "skipped") for e in edges):
        return False
    observed = {e.binding for e in edges if e.binding}
    if binding_names(consumer.when) & observed:
        return False
    return not null_tests(verb_node(ctx, consumer)) & values


def failure_duplicate(ctx: CheckContext) -> Iterator[Lint]:
    """/003 · « retry on transient failure »: an `after: {a: failure}` task doing exactly
    `a`'s work again re-implements `retry:`."""
    for task in ctx.workflow.tasks.values():
        original = _duplicated(ctx, task)
        if original is None:
            continue
        yield found(
            ctx,
            "one-obvious-way/003",
            task,
            f"`{task.id}` is an `after: {{{original}: failure}}` duplicate of the failing task "
            f"`{original}`: a second copy of the same work re-implements retry",
            f"delete `{task.id}` and put `retry:` on `{original}` — the ONE retry shape "
            "(`max_attempts` · `backoff_*` · `on_codes`)",
        )


def fallback_value_task(ctx: CheckContext) -> Iterator[Lint]:
    """/004 · « provide a fallback value »: a second task `after: {a: failure}` that only
    produces a literal value; the route belongs in the failing task itself."""
    for task in ctx.workflow.tasks.values():
        failing = _failure_producers(task)
        if not failing or _duplicated(ctx, task) is not None or not _mere_value(ctx, task):
            continue
        original = failing[0]
        yield found(
            ctx,
            "one-obvious-way/004",
            task,
            f"`{task.id}` runs `after: {{{original}: failure}}` only to provide a fallback "
            "value; a task on the failure path is for real work",
            f"delete `{task.id}` and put `on_error: {{ recover: <the value> }}` on "
            f"`{original}` — the route stays in the failing task",
        )


def terminal_cleanup(ctx: CheckContext) -> Iterator[Lint]:
    """/005 · « cleanup that always runs »: a task with `after: {…: terminal}` on every
    other task is a cleanup smuggled into the graph."""
    nodes = ctx.graph().nodes
    if len(nodes) < 3:
        return  # with one other task, a terminal edge is just the report pattern
    node_set = frozenset(nodes)
    for task in ctx.workflow.tasks.values():
        if task.id not in node_set:
            continue
        terminal = {p for p, pred in task.after.items() if pred == "terminal"}
        if len(terminal) != len(nodes) - 1 or task.id in terminal or not terminal <= node_set:
            continue
        yield found(
            ctx,
            "one-obvious-way/005",
            task,
            f"`{task.id}` carries `after: {{…: terminal}}` on every other task — a cleanup "
            "smuggled into the graph",
            "attach the cleanup to what it cleans with `after: {<task>: unwind}` (it runs on "
            "every outcome of a started producer), or keep ONE terminal report task after "
            "the tasks whose outcome it reports",
        )


def _failure_producers(task: Task) -> list[TaskId]:
    return [p for p, pred in task.after.items() if pred == "failure"]


def _duplicated(ctx: CheckContext, task: Task) -> TaskId | None:
    """The failure producer whose work `task` repeats verbatim (verb body, bindings and
    fan-out as written), if any."""
    mine = _work(ctx, task)
    for producer in _failure_producers(task):
        other = ctx.workflow.tasks.get(producer)
        if other is not None and other.verb == task.verb and _work(ctx, other) == mine:
            return producer
    return None


def _work(ctx: CheckContext, task: Task) -> tuple[object, object, object]:
    return (
        verb_node(ctx, task),
        authored(ctx, (*task.path, "with")),
        authored(ctx, (*task.path, "for_each")),
    )


def _mere_value(ctx: CheckContext, task: Task) -> bool:
    """A conservative « mere value »: a literal `nika:jq`, or a literal `echo`/`printf`."""
    body = task.body
    if isinstance(body, InvokeBody):
        return body.tool == "nika:jq" and is_literal(dict(body.args))
    if not isinstance(body, ExecBody):
        return False
    from nika.check.lint._command import command_of  # loads with the first `exec:` read

    cmd = command_of(body)
    if cmd.head not in ("echo", "printf") or cmd.pathed:
        return False
    if cmd.line is not None:
        return "${{" not in cmd.line and not (_SHELL_WORK & set(cmd.line))
    return all("${{" not in w for w in cmd.words)
