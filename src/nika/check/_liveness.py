"""Static liveness (spec 03 §Static liveness): which tasks are cancelled on every run.

Each task's statically reachable settled-state set is folded along `G_p` in
topological order. A task is provably dead when one producer's reachable states,
narrowed by every edge it sends (edges from one producer compose by intersection),
leave nothing that admits it — or when its `when:` gate is false under every
reachable combination of the producers it observes. The pass is sound, not
complete: edges are judged independently, so correlated producers are not seen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nika.check.graph import ALL_STATUSES, Edge, Graph, Status
from nika.syntax.model import TaskId

WhenGate = Callable[[Mapping[TaskId, frozenset[Status]]], bool]
"""Given the admitted states of a task's producers, is its `when:` false on every combination?"""


@dataclass(frozen=True, slots=True)
class SettleShape:
    """What a task can settle once admitted, from its own declaration.

    `when_false` is a literal `when: false` (skipped, never success/failure);
    `may_skip` a skip route (a `when:` expression, `for_each`, `on_error: skip`).
    """

    when_false: bool = False
    may_skip: bool = False

    def settles(self) -> frozenset[Status]:
        """The reachable states of a live task with this shape (cancelled always is)."""
        if self.when_false:
            return frozenset({"skipped", "cancelled"})
        base: set[Status] = {"success", "failure", "cancelled"}
        if self.may_skip:
            base.add("skipped")
        return frozenset(base)


@dataclass(frozen=True, slots=True)
class Death:
    """Why `task` is provably dead: a non-admitting `edge` (with its producer's
    reachable `states`), or, when `edge` is None, a `when:` gate false on every run."""

    task: TaskId
    edge: Edge | None
    states: frozenset[Status]


def dead_tasks(
    graph: Graph,
    shapes: Mapping[TaskId, SettleShape],
    gates: Mapping[TaskId, WhenGate],
) -> tuple[Death, ...]:
    """Every provably dead task of an acyclic `graph`, in wave order.

    Tasks missing from `shapes` have the default shape; tasks on a cycle are skipped
    (the cycle is its own finding).
    """
    reachable: dict[TaskId, frozenset[Status]] = {}
    deaths: list[Death] = []
    for wave in graph.topological_waves():
        for task in wave:
            death, admitted = _judge(graph, task, reachable)
            if death is None:
                gate = gates.get(task)
                if gate is not None and gate(admitted):
                    death = Death(task, None, frozenset())
            if death is None:
                reachable[task] = shapes.get(task, SettleShape()).settles()
                continue
            deaths.append(death)
            reachable[task] = (
                frozenset({"cancelled"}) if death.edge else frozenset({"skipped", "cancelled"})
            )
    return tuple(deaths)


def _judge(
    graph: Graph, task: TaskId, reachable: Mapping[TaskId, frozenset[Status]]
) -> tuple[Death | None, dict[TaskId, frozenset[Status]]]:
    """Narrow each producer's reachable states through its edges into `task`."""
    admitted: dict[TaskId, frozenset[Status]] = {}
    for edge in graph.incoming(task):
        states = admitted.get(edge.source, reachable.get(edge.source, ALL_STATUSES))
        narrowed = states & edge.pass_set
        if not narrowed:
            return Death(task, edge, reachable.get(edge.source, ALL_STATUSES)), admitted
        admitted[edge.source] = narrowed
    return None, admitted
