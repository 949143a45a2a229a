"""The run report (`nika run --report PATH`): the shape the conformance harness reads.

    {"workflow_state": "success" | "failure" | "cancelled" | "paused",
     "tasks": {id: {"status", "output", "error": {code, category, message, detail, details}
                    | null, "attempts", "duration_ms",
                    "recovered_from": {code, …, task_id, attempt}}},   # recovered only
     "outputs": {...},
     "events": [{"kind", "task"}, ...],
     "paused": {prompt: {"task_id", "mode", "message", "choices"}}   # a paused run only

Canonical JSON (sorted keys, compact separators, UTF-8), every value through the masker. A
workflow refused before it started has no tasks and carries the verdict's errors under
`refused`; sink failures (the journal, a broken pipe) are reported under `sink_failures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nika.canonical import loose_json
from nika.errors import NikaError
from nika.journal.bus import RunEvent, SinkFailure
from nika.journal.records import RunResult, TaskRecord
from nika.masking import Masker


class EventLog:
    """The report's sink: keeps `(kind, task)` per event — small enough for 10,000 tasks."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str | None]] = []

    def emit(self, event: RunEvent) -> None:
        self.entries.append((event.kind, event.task))

    def close(self) -> None:
        """Nothing to release: the entries are read after the run."""


def error_dict(error: NikaError) -> dict[str, Any]:
    """A typed error as the report carries it (`message` and `detail` are the same text)."""
    return {
        "code": error.code,
        "category": error.category,
        "message": error.detail,
        "detail": error.detail,
        "transient": error.transient,
        "details": dict(error.details),
    }


def _task(record: TaskRecord) -> dict[str, Any]:
    out = record.output
    if isinstance(out, bytes | bytearray):
        out = {"bytes": len(out)}  # bytes are opaque (04): the report names their size
    task = {
        "status": record.status,
        "output": out,
        "error": error_dict(record.error) if record.error is not None else None,
        "attempts": record.attempts,
        "duration_ms": record.duration_ms,
    }
    if record.recovered_from is not None:  # the error `on_error: recover` settled (13)
        task["recovered_from"] = dict(record.recovered_from)
    return task


def build_report(
    result: RunResult,
    events: Sequence[tuple[str, str | None]],
    mask: Masker,
    sink_failures: Sequence[SinkFailure] = (),
) -> dict[str, Any]:
    """The report of a finished run, masked."""
    report: dict[str, Any] = {
        "workflow_state": result.state,
        "tasks": {task: _task(record) for task, record in result.records.items()},
        "outputs": dict(result.outputs),
        "events": [{"kind": k, "task": t} if t is not None else {"kind": k} for k, t in events],
    }
    if result.output_error is not None:
        report["error"] = error_dict(result.output_error)
    if result.paused:
        report["paused"] = {task: dict(prompt) for task, prompt in result.paused.items()}
    if sink_failures:
        report["sink_failures"] = [
            {"sink": f.sink, "stage": f.stage, "error": f.error} for f in sink_failures
        ]
    masked: dict[str, Any] = mask(report)
    return masked


def refused_report(errors: Sequence[NikaError], mask: Masker) -> dict[str, Any]:
    """The report of a workflow that never started (refused by the check or at launch)."""
    report = {
        "workflow_state": "failure",
        "tasks": {},
        "outputs": {},
        "events": [],
        "refused": [error_dict(e) for e in errors],
    }
    masked: dict[str, Any] = mask(report)
    return masked


def to_json(report: Mapping[str, Any]) -> str:
    """Canonical JSON text; non-JSON values (bytes inside outputs) render as strings."""
    return loose_json(report)
