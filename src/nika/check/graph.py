"""The four graphs of a workflow (spec 03 §The four graphs) and the order they imply.

Every edge is derived from one declaration: a `with:` reference (data · `E_d`), a
`group.<name>` fold (one fan-in edge per member · `E_d`), an `after:` entry (control ·
`E_c`), an `on_error.recover:` reference (recovery · `E_r`) or an `after: {x: unwind}`
attachment (finally · `E_f`). Only `E_d ∪ E_c` schedules: that is the precedence graph
`G_p` whose Kahn waves the runtime executes, and cleanup units (tasks attached through
`unwind`) never enter it.

`Graph` is a pure value: build it once with `Graph.build` (or `derive` from a workflow
model) and query it. Every query is O(V + E) or better and deterministic: ids are
sorted wherever a set is rendered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal

from nika.check._islands import reads as references_in
from nika.check._scc import strong_components
from nika.syntax.model import KeyPath, TaskId, Workflow
from nika.syntax.template import walk_strings

Status = Literal["success", "failure", "skipped", "cancelled"]

STATUSES: Final[tuple[Status, ...]] = ("success", "failure", "skipped", "cancelled")
"""The closed vocabulary of settled states, in the spec's order."""

ALL_STATUSES: Final[frozenset[Status]] = frozenset(STATUSES)

PREDICATES: Final = ("success", "failure", "skipped", "terminal")
"""The closed `after:` predicate set that creates control edges (spec 03 §after)."""

UNWIND: Final = "unwind"
"""The `after:` entry that attaches a cleanup unit (an `E_f` edge, never a predicate)."""

OBSERVATION_FIELDS: Final = frozenset({"status", "duration_ms", "started_at", "ended_at"})
"""Record fields whose read is a terminal observation: every settled state admits."""


class EdgeKind(StrEnum):
    """The edge roles of the graph projection (spec 03 §Graph projection)."""

    VALUE = "value"
    TERMINAL_OBSERVATION = "terminal-observation"
    FAILURE_OBSERVATION = "failure-observation"
    FAN_IN = "fan-in"
    CONTROL = "control"
    RECOVERY = "recovery"
    FINALLY = "finally"


_SCHEDULING: Final = frozenset(
    {
        EdgeKind.VALUE,
        EdgeKind.TERMINAL_OBSERVATION,
        EdgeKind.FAILURE_OBSERVATION,
        EdgeKind.FAN_IN,
        EdgeKind.CONTROL,
    }
)

_ROLE_PASS: Final[Mapping[EdgeKind, frozenset[Status]]] = {
    EdgeKind.VALUE: frozenset({"success", "skipped"}),
    EdgeKind.TERMINAL_OBSERVATION: ALL_STATUSES,
    EdgeKind.FAILURE_OBSERVATION: frozenset({"failure", "skipped"}),
    EdgeKind.FAN_IN: ALL_STATUSES,
}

_PREDICATE_PASS: Final[Mapping[str, frozenset[Status]]] = {
    "success": frozenset({"success"}),
    "failure": frozenset({"failure"}),
    "skipped": frozenset({"skipped"}),
    "terminal": ALL_STATUSES,
}


def role_of_field(field_name: str) -> EdgeKind:
    """The data-edge role of a `tasks.X.<field_name>` read (spec 03 §with).

    `.error` observes failure, the timing/status fields observe any outcome, and
    `.output` or a named `extract:` binding reads the value.
    """
    if field_name == "error":
        return EdgeKind.FAILURE_OBSERVATION
    if field_name in OBSERVATION_FIELDS:
        return EdgeKind.TERMINAL_OBSERVATION
    return EdgeKind.VALUE


@dataclass(frozen=True, slots=True)
class Edge:
    """One derived edge `source → target`.

    `predicate` is set on control edges, `binding` on data edges (the `with:` key that
    created them), and `site` points at the declaration so diagnostics can locate it.
    """

    source: TaskId
    target: TaskId
    kind: EdgeKind
    predicate: str | None = None
    binding: str | None = None
    site: KeyPath = ()

    @property
    def schedules(self) -> bool:
        """True for `E_d ∪ E_c` edges: the ones that order execution."""
        return self.kind in _SCHEDULING

    @property
    def pass_set(self) -> frozenset[Status]:
        """The producer states that admit the consumer (spec 03 §gate algebra v2).

        Recovery and finally edges never gate, so their pass-set is every state.
        """
        if self.kind is EdgeKind.CONTROL:
            return _PREDICATE_PASS.get(self.predicate or "", ALL_STATUSES)
        return _ROLE_PASS.get(self.kind, ALL_STATUSES)


@dataclass(frozen=True, slots=True)
class Graph:
    """The derived graphs of one workflow.

    `nodes` are the tasks of `G_p` in declaration order; `cleanup` the cleanup units
    (tasks attached through `unwind`), which are nodes of the projection but never of
    `G_p`. `edges` holds every edge whose endpoints are declared tasks; `dangling` the
    edges whose source names no declared task (the `NIKA-DAG-002` class).
    """

    nodes: tuple[TaskId, ...]
    cleanup: tuple[TaskId, ...]
    edges: tuple[Edge, ...]
    dangling: tuple[Edge, ...]
    _incoming: Mapping[TaskId, tuple[Edge, ...]] = field(repr=False, compare=False)
    _outgoing: Mapping[TaskId, tuple[Edge, ...]] = field(repr=False, compare=False)
    _producers: Mapping[TaskId, tuple[TaskId, ...]] = field(repr=False, compare=False)
    _consumers: Mapping[TaskId, tuple[TaskId, ...]] = field(repr=False, compare=False)
    _cleanup_of: Mapping[TaskId, tuple[TaskId, ...]] = field(repr=False, compare=False)

    @classmethod
    def build(
        cls,
        tasks: Iterable[TaskId],
        edges: Iterable[Edge],
        *,
        cleanup: Iterable[TaskId] = (),
    ) -> Graph:
        """Index `edges` over the declared `tasks` (declaration order is preserved).

        Tasks listed in `cleanup` stay outside `G_p`; a scheduling edge touching one
        is kept in `edges` but does not order anything.
        """
        units = tuple(dict.fromkeys(cleanup))
        unit_set = frozenset(units)
        declared = dict.fromkeys(tasks)
        nodes = tuple(t for t in declared if t not in unit_set)
        node_set = frozenset(nodes)
        incoming: dict[TaskId, list[Edge]] = {t: [] for t in nodes}
        outgoing: dict[TaskId, list[Edge]] = {t: [] for t in nodes}
        kept: list[Edge] = []
        dangling: list[Edge] = []
        unwinds: dict[TaskId, list[TaskId]] = {}
        for edge in edges:
            if edge.source not in declared or edge.target not in declared:
                dangling.append(edge)
                continue
            kept.append(edge)
            if edge.kind is EdgeKind.FINALLY:
                unwinds.setdefault(edge.source, []).append(edge.target)
            elif edge.schedules and edge.source in node_set and edge.target in node_set:
                incoming[edge.target].append(edge)
                outgoing[edge.source].append(edge)
        return cls(
            nodes=nodes,
            cleanup=units,
            edges=tuple(kept),
            dangling=tuple(dangling),
            _incoming={t: tuple(es) for t, es in incoming.items()},
            _outgoing={t: tuple(es) for t, es in outgoing.items()},
            _producers={t: tuple(sorted({e.source for e in es})) for t, es in incoming.items()},
            _consumers={t: tuple(sorted({e.target for e in es})) for t, es in outgoing.items()},
            _cleanup_of={t: tuple(dict.fromkeys(us)) for t, us in unwinds.items()},
        )

    # -- adjacency over G_p --------------------------------------------------------

    def incoming(self, task: TaskId) -> tuple[Edge, ...]:
        """The `G_p` edges into `task`, in declaration order (empty for a non-node)."""
        return self._incoming.get(task, ())

    def outgoing(self, task: TaskId) -> tuple[Edge, ...]:
        """The `G_p` edges out of `task`, in declaration order (empty for a non-node)."""
        return self._outgoing.get(task, ())

    def producers(self, task: TaskId) -> tuple[TaskId, ...]:
        """The distinct `G_p` predecessors of `task`, sorted."""
        return self._producers.get(task, ())

    def consumers(self, task: TaskId) -> tuple[TaskId, ...]:
        """The distinct `G_p` successors of `task`, sorted."""
        return self._consumers.get(task, ())

    def ancestors(self, task: TaskId) -> frozenset[TaskId]:
        """Every task with a `G_p` path to `task` (itself only when on a cycle)."""
        return self._reach(task, forward=False)

    def descendants(self, task: TaskId) -> frozenset[TaskId]:
        """Every task reachable from `task` along `G_p` (itself only when on a cycle)."""
        return self._reach(task, forward=True)

    def _reach(self, start: TaskId, *, forward: bool) -> frozenset[TaskId]:
        seen: set[TaskId] = set()
        queue = deque([start])
        while queue:
            current = queue.popleft()
            for nxt in self.consumers(current) if forward else self.producers(current):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return frozenset(seen)

    # -- the other three edge sets -------------------------------------------------

    def of_kind(self, kind: EdgeKind) -> tuple[Edge, ...]:
        """Every declared-endpoint edge of `kind`, in derivation order."""
        return tuple(e for e in self.edges if e.kind is kind)

    def cleanup_of(self, producer: TaskId) -> tuple[TaskId, ...]:
        """The cleanup units attached to `producer` by `unwind`, in declaration order."""
        return self._cleanup_of.get(producer, ())

    # -- order ---------------------------------------------------------------------

    def cycles(self) -> tuple[tuple[TaskId, ...], ...]:
        """One witness cycle per cyclic strongly connected component of `G_p`.

        A witness is a closed path `(a, b, …, a)` starting at the component's smallest
        id and taking the shortest way back (a self-edge is `(a, a)`). Components are
        ordered by that smallest id. Empty iff `G_p` is acyclic.
        """
        witnesses = [self._witness(c) for c in strong_components(self.nodes, self.consumers)]
        return tuple(sorted(w for w in witnesses if w))

    def _witness(self, component: frozenset[TaskId]) -> tuple[TaskId, ...]:
        start = min(component)
        if len(component) == 1 and start not in self.consumers(start):
            return ()
        parent: dict[TaskId, TaskId] = {}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            for nxt in self.consumers(current):
                if nxt not in component:
                    continue
                if nxt == start:
                    path = [current]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return (*reversed(path), start)
                if nxt not in parent:
                    parent[nxt] = current
                    queue.append(nxt)
        return ()

    def recovery_deadlocks(self) -> tuple[tuple[tuple[Edge, ...], tuple[TaskId, ...]], ...]:
        """Each cycle of the resolution graph a recovery edge lies on: its recovery edges
        and one witness.

        The resolution graph is `G_p ∪ E_r` (05 §recover: a recovery await parks until its
        source settles), plus one "settles after" edge from each cleanup unit to the producer
        it unwinds (a producer settles outward only once its cleanup ran). A recovery edge
        `s → d` on a cycle of it can never resolve: `d` awaits `s` while `s` (transitively)
        waits on `d`. One entry per strongly connected component holding such an edge (an
        N-task recovery ring is one entry, not N, so the answer stays linear): its recovery
        edges ordered by declaring task, then source, and the witness of the first, the
        closed chain `(d, …, s, d)`, each task waiting on the one before it, shortest first
        leg; a self-recovery's is `(d, d)`. Ordered by that first edge.
        """
        recovery = self.of_kind(EdgeKind.RECOVERY)
        if not recovery:
            return ()
        waits: dict[TaskId, list[TaskId]] = {t: list(self.consumers(t)) for t in self.nodes}
        for unit in self.cleanup:
            waits.setdefault(unit, [])
        for edge in recovery:
            waits[edge.source].append(edge.target)
        for producer, units in self._cleanup_of.items():
            for unit in units:
                waits[unit].append(producer)
        order = tuple(waits)
        successors = {t: tuple(dict.fromkeys(ts)) for t, ts in waits.items()}
        component = {
            t: i
            for i, members in enumerate(strong_components(order, successors.__getitem__))
            for t in members
        }
        stuck: dict[int, list[Edge]] = {}
        for edge in recovery:
            if component[edge.source] == component[edge.target]:
                stuck.setdefault(component[edge.source], []).append(edge)
        found = []
        for edges in stuck.values():
            edges.sort(key=lambda e: (e.target, e.source))
            first = edges[0]
            witness = (*_chain(successors, first.target, first.source), first.target)
            found.append((tuple(edges), witness))
        return tuple(sorted(found, key=lambda f: (f[0][0].target, f[0][0].source)))

    def topological_waves(self) -> tuple[tuple[TaskId, ...], ...]:
        """Kahn waves over `G_p`: wave k holds the tasks whose longest producer chain has
        length k, sorted by id. Tasks on or downstream of a cycle land in no wave.
        """
        indegree = {t: len(self.producers(t)) for t in self.nodes}
        current = sorted(t for t, n in indegree.items() if n == 0)
        waves: list[tuple[TaskId, ...]] = []
        while current:
            waves.append(tuple(current))
            ready: set[TaskId] = set()
            for task in current:
                for nxt in self.consumers(task):
                    indegree[nxt] -= 1
                    if indegree[nxt] == 0:
                        ready.add(nxt)
            current = sorted(ready)
        return tuple(waves)


def _chain(
    successors: Mapping[TaskId, tuple[TaskId, ...]], start: TaskId, goal: TaskId
) -> tuple[TaskId, ...]:
    """The shortest path `start … goal` along `successors` (BFS; `(start,)` when equal)."""
    parent: dict[TaskId, TaskId] = {start: start}
    queue = deque([start])
    while queue and goal not in parent:
        current = queue.popleft()
        for nxt in successors[current]:
            if nxt not in parent:
                parent[nxt] = current
                queue.append(nxt)
    path = [goal]
    while path[-1] != start:
        path.append(parent[path[-1]])
    return tuple(reversed(path))


@dataclass(frozen=True, slots=True)
class Read:
    """One `${{ tasks.… }}` or `${{ group.… }}` reference found in a value.

    `name` is the task id or group name (None for a bare root), `path` the steps after
    it (`("output", "items", 0)`), `site` the key path of the string it sits in.
    """

    root: Literal["tasks", "group"]
    name: str | None
    path: tuple[str | int, ...]
    site: KeyPath

    @property
    def projection(self) -> str | None:
        """The record field read (`output`, `status`, a binding name), None when unprojected."""
        return str(self.path[0]) if self.path else None


def reads(value: Any, site: KeyPath) -> Iterator[Read]:
    """Every `tasks.*` / `group.*` reference in the strings nested in `value`, in order.

    Malformed islands are skipped here: the variables rung reports them.
    """
    for at, text in walk_strings(value, site):
        for ref in references_in(text):
            if ref.root in ("tasks", "group"):
                root: Literal["tasks", "group"] = "tasks" if ref.root == "tasks" else "group"
                name = str(ref.path[0]) if ref.path else None
                yield Read(root, name, ref.path[1:], at)


def cleanup_units(workflow: Workflow) -> tuple[TaskId, ...]:
    """Tasks attached to a producer through `after: {x: unwind}`, in declaration order."""
    return tuple(t.id for t in workflow.tasks.values() if UNWIND in t.after.values())


def group_members(workflow: Workflow) -> Mapping[str, tuple[TaskId, ...]]:
    """Each declared group and its members in declaration order (cleanup units excluded:
    they cannot join a group, `NIKA-DAG-009`)."""
    units = frozenset(cleanup_units(workflow))
    members: dict[str, list[TaskId]] = {}
    for task in workflow.tasks.values():
        if task.group is not None and task.id not in units:
            members.setdefault(task.group, []).append(task.id)
    return {name: tuple(ids) for name, ids in members.items()}


def derive(workflow: Workflow) -> Graph:
    """The four graphs of `workflow` (spec 03 §The four graphs).

    `with:` references give data edges (role per field), `group.<name>` folds one
    fan-in edge per member, `after:` entries control edges (an unknown predicate gives
    none: that is `NIKA-DAG-005`), `unwind` entries finally edges, and
    `on_error.recover:` references recovery edges. Unprojected or malformed references
    give no edge (they are refused elsewhere).
    """
    groups = group_members(workflow)
    edges: list[Edge] = []
    for task in workflow.tasks.values():
        for binding, value in task.with_.items():
            for read in reads(value, (*task.path, "with", binding)):
                if read.name is None:
                    continue
                if read.root == "group":
                    edges.extend(
                        Edge(m, task.id, EdgeKind.FAN_IN, binding=binding, site=read.site)
                        for m in groups.get(read.name, ())
                    )
                elif read.projection is not None:
                    kind = role_of_field(read.projection)
                    edges.append(Edge(TaskId(read.name), task.id, kind, None, binding, read.site))
        for producer, predicate in task.after.items():
            site = (*task.path, "after", producer)
            if predicate == UNWIND:
                edges.append(Edge(producer, task.id, EdgeKind.FINALLY, predicate, site=site))
            elif predicate in PREDICATES:
                edges.append(Edge(producer, task.id, EdgeKind.CONTROL, predicate, site=site))
        if task.on_error is not None and task.on_error.action == "recover":
            for read in reads(task.on_error.recover, (*task.path, "on_error", "recover")):
                if read.root == "tasks" and read.name is not None:
                    edges.append(
                        Edge(TaskId(read.name), task.id, EdgeKind.RECOVERY, site=read.site)
                    )
    return Graph.build(workflow.tasks, edges, cleanup=cleanup_units(workflow))
