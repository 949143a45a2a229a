"""What a run settled, as data both the run and its views read: one `TaskRecord` per task
(with its `tasks.X` projection) and the `RunResult` of the whole run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from nika.check.graph import Status
from nika.errors import NikaError
from nika.journal.frames import WorkflowState


def rfc3339(ns: int | None) -> str | None:
    """A unix-nanosecond instant as an RFC 3339 UTC timestamp (millisecond precision)."""
    if ns is None:
        return None
    stamp = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def error_record(error: NikaError, task: str, attempt: int) -> dict[str, Any]:
    """A typed error as expressions read it (05 §error structure)."""
    return {
        "code": error.code,
        "category": error.category,
        "message": error.detail,
        "transient": error.transient,
        "details": dict(error.details),
        "task_id": task,
        "attempt": attempt,
    }


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One settled task. `error` survives on `skipped` only through `on_error: skip`."""

    task: str
    status: Status
    output: Any = None
    error: NikaError | None = None
    attempts: int = 0
    started_at: int | None = None
    ended_at: int | None = None
    duration_ms: int = 0
    bindings: Mapping[str, Any] = field(default_factory=dict)
    view: Mapping[str, Any] = field(default_factory=dict, compare=False)
    recovered_from: Mapping[str, Any] | None = None
    """On a success `on_error: recover` settled: the original error (13 §payload), as
    `error_record` shapes it — code, category, message, transient, details, task_id, attempt."""

    @classmethod
    def settle(
        cls,
        task: str,
        status: Status,
        *,
        output: Any = None,
        error: NikaError | None = None,
        attempts: int = 0,
        started_at: int | None = None,
        ended_at: int | None = None,
        bindings: Mapping[str, Any] | None = None,
        recovered_from: Mapping[str, Any] | None = None,
    ) -> TaskRecord:
        """Build the record and its `tasks.X` projection once (reads are then O(1))."""
        duration = (
            max(0, (ended_at - started_at) // 1_000_000)
            if started_at is not None and ended_at is not None
            else 0
        )
        bound = dict(bindings or {})
        value = output if status == "success" else None
        # The projection: defined-null reads (04) — no value unless the task succeeded.
        view: dict[str, Any] = {name: v if status == "success" else None
                                for name, v in bound.items()}
        view.update(
            output=value,
            status=status,
            # Readable on failure, and on the skip that preserved it (05 §Fields); a
            # cancelled task's reason stays in the report, never in expressions (04).
            error=error_record(error, task, attempts)
            if error is not None and status in ("failure", "skipped") else None,
            started_at=rfc3339(started_at),
            ended_at=rfc3339(ended_at),
            duration_ms=duration,
        )
        return cls(task, status, value, error, attempts, started_at, ended_at, duration,
                   bound, view, recovered_from if status == "success" else None)


@dataclass(frozen=True, slots=True)
class RunResult:
    """A finished run: the state, every task's record (declaration order), the outputs."""

    state: WorkflowState
    records: Mapping[str, TaskRecord]
    outputs: Mapping[str, Any]
    output_error: NikaError | None = None
    cleanup: frozenset[str] = field(default_factory=frozenset)
    paused: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The prompts a paused run waits on, by name (`approve`, `call/approve` in a child)."""
    error: NikaError | None = None
    """The workflow's own terminal error, beside its tasks' (a refused output contract, a run
    that could not progress): what its terminal frame carries."""
