"""GATE-v2 admission (03 §the gate algebra v2): a task runs iff every incoming edge's producer
settled inside that edge's pass-set. The gate is structural and cannot error."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from nika.check.graph import Edge


def blocking_edge(edges: Iterable[Edge], status_of: Callable[[str], str]) -> Edge | None:
    """The first edge that does not admit (for the cancellation's explanation)."""
    for edge in edges:
        if status_of(edge.source) not in edge.pass_set:
            return edge
    return None
