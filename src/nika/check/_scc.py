"""Strongly connected components (Tarjan), the cycle finder under `Graph.cycles`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from nika.syntax.model import TaskId


def strong_components(
    nodes: Iterable[TaskId], successors: Callable[[TaskId], Sequence[TaskId]]
) -> list[frozenset[TaskId]]:
    """Tarjan's algorithm, iterative so a 10,000-task chain cannot hit the recursion limit."""
    index: dict[TaskId, int] = {}
    low: dict[TaskId, int] = {}
    on_stack: set[TaskId] = set()
    stack: list[TaskId] = []
    components: list[frozenset[TaskId]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[TaskId, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            following = successors(node)
            if child < len(following):
                work.append((node, child + 1))
                nxt = following[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members: set[TaskId] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                components.append(frozenset(members))
    return components
