"""The lethal-trifecta law (`NIKA-SEC-009` · NEP-0002 v2.x · 05-errors · 10-authority).

The Rule of Two as a static check. Three legs are read off the declared boundary and
the body:

- ① private read — `permits.fs.read` is non-empty;
- ② untrusted ingress — a task brings in content the workflow did not author: a
  `nika:fetch` invoke, an `mcp:*` invoke, an `agent:` whose whitelist admits either,
  or an `exec:` task (v2.2: `permits.exec` is itself the ingress channel);
- ③ external egress — `permits.net.http` is non-empty, an `fs.write` glob escapes the
  workflow directory (absolute or `..`-rooted), or `exec` is enabled.

With all three declared, the law asks for a realized flow: the ingress content must
REACH an egress-capable task's effect surface (its verb arguments, or the `for_each:`
it fans over) along `with:` data edges of the derived graph. A binding read only by
`when:` decides, it does not transmit. Every task a tainted binding reaches carries the
taint onward (model outputs and exec captures included); a sink that is itself an
ingress task is judged on its inputs only, never on its own result.

The flow is gated when a blocking `invoke: nika:prompt` (no `default:`) stands on every
route into the sink over `G_p` (`with:` ∪ `after:`): one such gate dominating the sink
is the canonical form, a gate per branch cuts the same routes. A route whose edge admits
a `cancelled` producer (a `terminal` edge, a status observation, a group fold) — or a
failed gate — reaches the sink with no answer given, so no gate stands on it.

One finding per ungated tainted egress task, in declaration order, witness-named
`source → … → sink` (the shortest data path, ties broken by task id). One topological
pass: O(V + E) after the graph's sorted waves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.check._islands import reads
from nika.check._laws import egress_capable, may_reach
from nika.check.context import CheckContext
from nika.check.graph import Edge, EdgeKind, Graph
from nika.check.judge import canonical_glob, root_class
from nika.check.secret_flow import _sink_values as surface_values
from nika.errors import NikaError
from nika.syntax.model import InvokeBody, Task, TaskId
from nika.syntax.template import walk_strings

if TYPE_CHECKING:
    from nika.syntax.declarations import Permits

INGRESS_BUILTINS: Final = frozenset({"nika:fetch"})
_CARRIERS: Final = frozenset({EdgeKind.VALUE, EdgeKind.FAN_IN})
"""The data edges that carry content. A status, timing or `.error` observation carries
none (the spec's always-pattern — `after: {save: terminal}` + `tasks.save.status` into a
ping — is not a flow), nor does an `after:` control edge."""


@dataclass(frozen=True, slots=True)
class Reach:
    """How untrusted content first reaches a task: `dist` data hops from its ingress
    source, over the producer `via` (None: the task is the source itself)."""

    dist: int
    source: TaskId
    via: TaskId | None


def run(ctx: CheckContext) -> Iterator[NikaError]:
    """One `NIKA-SEC-009` per ungated egress task the untrusted content reaches."""
    permits = ctx.workflow.permits
    tasks = ctx.workflow.tasks
    if permits is None or not private_read(permits) or not egress_legs(permits):
        return
    if not any(is_ingress(t) for t in tasks.values()):
        return
    graph = ctx.graph()
    order = [t for wave in graph.topological_waves() for t in wave]
    taint: dict[TaskId, Reach] = {}
    fed: dict[TaskId, Reach] = {}
    gated: dict[TaskId, bool] = {}
    for tid in order:
        task = tasks[tid]
        incoming = graph.incoming(tid)
        gated[tid] = is_blocking_gate(task) or (
            bool(incoming) and all(_holds(e, gated, tasks) for e in incoming)
        )
        reach = _fed(graph, task, taint)
        if reach is not None:
            fed[tid] = reach
        if is_ingress(task):
            taint[tid] = Reach(0, tid, None)
        elif reach is not None:
            taint[tid] = reach
    legs = ", ".join(egress_legs(permits))
    for tid in tasks:
        reach = fed.get(tid)
        if reach is None or gated[tid] or not egress_capable(tasks[tid]):
            continue
        yield _finding(ctx, tasks[tid], _witness(taint, reach, tid), legs)


def private_read(permits: Permits) -> bool:
    """Leg ①: the boundary grants some private read."""
    return any(isinstance(g, str) and not g.startswith("!") for g in permits.fs_read or ())


def egress_legs(permits: Permits) -> tuple[str, ...]:
    """Leg ③, named: the declared grants that let content leave (empty: no egress leg)."""
    legs: list[str] = []
    if any(isinstance(h, str) for h in permits.net_http or ()):
        legs.append("permits.net.http")
    if any(_escapes(g) for g in permits.fs_write or ()):
        legs.append("an escaping permits.fs.write glob")
    if permits.exec is True or (isinstance(permits.exec, tuple) and permits.exec):
        legs.append("permits.exec")
    return tuple(legs)


def _escapes(glob: Any) -> bool:
    if not isinstance(glob, str) or glob.startswith("!") or "${{" in glob:
        return False
    return root_class(canonical_glob(glob)) != ""


def is_ingress(task: Task) -> bool:
    """Leg ②: does this task bring in content the workflow did not author?"""
    return may_reach(task, INGRESS_BUILTINS)


def is_blocking_gate(task: Task) -> bool:
    """A `nika:prompt` with no `default:` pauses until a human answers: the gate."""
    body = task.body
    return (
        isinstance(body, InvokeBody) and body.tool == "nika:prompt" and "default" not in body.args
    )


def transmitted(task: Task) -> frozenset[str] | None:
    """The `with:` bindings the task's effect surface reads (None: the whole `with`)."""
    names: set[str] = set()
    values: list[Any] = [value for _label, value, _site in surface_values(task)]
    if task.for_each is not None:
        values.append(task.for_each.items)
    for value in values:
        for _at, text in walk_strings(value):
            for ref in reads(text):
                if ref.root != "with":
                    continue
                if not ref.path:
                    return None
                names.add(str(ref.path[0]))
    return frozenset(names)


def _holds(edge: Edge, gated: Mapping[TaskId, bool], tasks: Mapping[TaskId, Task]) -> bool:
    """Does the human's answer stand on this route? Its producer must be gated, and the
    edge must not admit a producer that never got the answer: a `cancelled` one (a
    `terminal` edge fires after an unanswered pause), nor a failed gate."""
    if not gated[edge.source] or "cancelled" in edge.pass_set:
        return False
    return not (is_blocking_gate(tasks[edge.source]) and "failure" in edge.pass_set)


def _fed(graph: Graph, task: Task, taint: Mapping[TaskId, Reach]) -> Reach | None:
    """The nearest tainted producer whose content lands on `task`'s effect surface."""
    carried = transmitted(task)
    best: Reach | None = None
    for edge in graph.incoming(task.id):
        if edge.kind not in _CARRIERS or edge.source not in taint:
            continue
        if carried is not None and edge.binding not in carried:
            continue
        up = taint[edge.source]
        here = Reach(up.dist + 1, up.source, edge.source)
        if best is None or (here.dist, here.via or "") < (best.dist, best.via or ""):
            best = here
    return best


def _witness(taint: Mapping[TaskId, Reach], reach: Reach, sink: TaskId) -> list[TaskId]:
    """`source → … → sink` along the recorded nearest producers."""
    path = [sink]
    step: Reach | None = reach
    while step is not None and step.via is not None:
        path.append(step.via)
        step = taint.get(step.via)
    path.reverse()
    return path


def _finding(ctx: CheckContext, task: Task, path: list[TaskId], legs: str) -> NikaError:
    source, sink = path[0], task.id
    return ctx.error(
        codes.SEC_009,
        f"lethal trifecta complete: the boundary grants private read (permits.fs.read) and "
        f"external egress ({legs}), and the untrusted content of `{source}` reaches the "
        f"egress task `{sink}` ({' → '.join(path)}) with no blocking human gate on the "
        f"way; gate it — an `invoke: nika:prompt` task with no `default:` at the root, "
        f"every route into `{sink}` hanging off it — or drop a leg: narrow permits.fs.read, "
        f"cut the flow from `{source}`, or narrow the egress permits",
        (*task.path,),
        source=source,
        sink=sink,
        path=list(path),
    )
