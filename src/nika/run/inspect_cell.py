"""The live cell `nika:inspect` reads: the run's own state, seeded at run start.

The DAG is known before the first task (`dag_info` is seeded when the cell is built, so
`available: true` from the start); records, cost and the thread counts follow the bus as
tasks settle. The cell is an event sink like any other — it sees masked events only.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from nika.check.graph import derive
from nika.journal.bus import RunEvent
from nika.journal.frames import TaskEnded, TaskStarted, model_call
from nika.prices import call_cost
from nika.syntax.model import Workflow


class LiveInspect:
    """An `InspectSource` fed by the run's events."""

    def __init__(self, workflow: Workflow) -> None:
        graph = derive(workflow)
        self._order = tuple(workflow.tasks)
        self._dag = {
            "nodes": list(self._order),
            "edges": [
                {"source": e.source, "target": e.target, "kind": e.kind.value} for e in graph.edges
            ],
            "waves": [list(wave) for wave in graph.topological_waves()],
        }
        self._records: dict[str, dict[str, Any]] = {}
        self._running: set[str] = set()
        self._by_task: dict[str, Decimal] = {}
        self._by_provider: dict[str, Decimal] = {}
        self._unpriced: list[str] = []

    def emit(self, event: RunEvent) -> None:
        frame, task = event.frame, event.task
        if task is None:
            return
        if isinstance(frame, TaskStarted):
            self._running.add(task)
        elif isinstance(frame, TaskEnded):
            self._running.discard(task)
            record: dict[str, Any] = {"id": task, "status": frame.status,
                                      "duration_ms": frame.duration_ms}
            if frame.error is not None:
                record["error_code"] = frame.error.code
            self._records[task] = record
        elif (call := model_call(frame)) is not None:
            model = call[0]
            cost = call_cost(*call)
            if isinstance(cost, str):
                self._unpriced.append(f"{task}: {cost}")
                return
            provider = model.partition("/")[0]
            self._by_task[task] = self._by_task.get(task, Decimal(0)) + cost
            self._by_provider[provider] = self._by_provider.get(provider, Decimal(0)) + cost

    def close(self) -> None:
        """Nothing to flush: the cell lives as long as the run."""

    def view(self, name: str) -> Mapping[str, Any]:
        """One of the four views, as of now."""
        if name == "dag_info":
            return {"view": name, **self._dag}
        if name == "records":
            tasks = [
                self._records.get(t)
                or {"id": t, "status": "running" if t in self._running else "pending"}
                for t in self._order
            ]
            return {"view": name, "tasks": tasks}
        if name == "threads":
            done = len(self._records)
            active = len(self._running)
            return {
                "view": name,
                "active": active,
                "completed": done,
                "queued": max(len(self._order) - done - active, 0),
            }
        return {
            "view": name,
            "total_usd": float(sum(self._by_task.values(), Decimal(0))),
            "by_task": {t: float(c) for t, c in sorted(self._by_task.items())},
            "by_provider": {p: float(c) for p, c in sorted(self._by_provider.items())},
            "unpriced": list(self._unpriced),
        }
