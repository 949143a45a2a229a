"""The scheduler: a task starts the moment its last producer settles (not wave by wave).

Every task settles exactly once into one of the four terminal states. A task whose producers
have all settled meets the gate (GATE-v2): an edge outside its pass-set settles it
`cancelled` at once (`NIKA-CANCEL-001`), and that settle may cancel its own consumers in turn
— the dead path propagates iteratively, so a 10,000-task chain never recurses. Admitted
tasks run the pipeline (`execute.py`) as asyncio tasks; the concurrency bound is a semaphore
held per verb attempt.

`unwind` cleanup units (03 §unwind) never enter `G_p`: they run right after their producer's
verb finished — on success, failure, timeout or cancellation, before the producer settles
outward — and only for a producer that started. Their failure never changes the workflow.

A run that can no longer progress — nothing live, tasks still unsettled (a recovery await
cycle the check did not see, or tasks that can never be released) — ends at once with
`NIKA-DAG-010` naming the blocked tasks (`liveness.py`): the parked tasks fail with it and
nothing new starts.

Every task is identified before it runs (`replay.Replay`: definition and resolved-input
hashes, journaled on its terminal frame). Resuming a journal, a task whose two hashes match a
recorded completion is not run: it emits `task_cache_hit` and settles `success` with the
recorded output (ADR-099), then its usual terminal frame, so the new journal is itself a
complete resume source. A prompt that pauses the run (`pause.PauseRequested`) parks its task
and everything downstream; the rest settles, then the run ends `paused`.

The services' `budget` (`--max-cost-usd`, 13 · cause `budget`, `budget.SpendCap`): once the
run's priced spend exceeds it, in-flight work completes and is counted, and every task not yet
started settles `cancelled` with `NIKA-RUN-1704` instead of starting.

The workflow state (05 §workflow-level): `cancelled` after `cancel()` or a crossed budget,
else `failure` when any task failed unrecovered, the run stalled, or a typed output misfits,
else `paused` when a prompt awaits an answer, else `success`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.canonical import loose_json
from nika.check.graph import Graph, derive
from nika.errors import NikaError, task_error
from nika.journal.assets import Asset, may_name_files, task_assets
from nika.journal.frames import (
    TaskCacheHit,
    TaskEnded,
    TaskNotes,
    TaskRecovered,
    TaskScheduled,
    TaskStarted,
    WorkflowEnded,
    WorkflowStarted,
    WorkflowState,
)
from nika.journal.ledger import CostLedger
from nika.journal.records import RunResult, TaskRecord
from nika.journal.replay import Record, Replay, replayed
from nika.run.budget import cancelled_by
from nika.run.execute import Pipeline, Settlement, Sleep
from nika.run.gates import blocking_edge
from nika.run.liveness import Liveness
from nika.run.outputs import workflow_outputs
from nika.run.pause import PauseRequested
from nika.run.placement import LOCAL, Placement
from nika.run.services import RunServices
from nika.run.values import const_values
from nika.run.verbs import ChildRunner
from nika.syntax.model import AgentBody, ExecBody, InferBody, InvokeBody, Task, TaskId


class Runner:
    """Runs one checked workflow once. Build, then `await run()`; `cancel()` from anywhere on
    the loop (SIGINT) cancels running tasks and settles the rest `cancelled`."""

    def __init__(
        self,
        services: RunServices,
        *,
        inputs: Mapping[str, Any],
        concurrency: int = 8,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
        child: ChildRunner | None = None,
        graph: Graph | None = None,
        replay: Replay | None = None,
        placement: Placement = LOCAL,
        origins: Mapping[str, str] | None = None,
    ) -> None:
        """`origins`: where each bound input came from (04 · the boot manifest's `inputs`);
        None when the caller states none (a child workflow, an embedder)."""
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self._services = services
        self._workflow = services.workflow
        self._graph = graph or derive(self._workflow)
        self._bus = services.bus
        self._clock = services.bus.clock
        self._inputs = dict(inputs)
        self._origins = origins
        self._records: dict[str, TaskRecord] = {}
        self._views: dict[str, Mapping[str, Any]] = {}
        self._remaining = {t: len(self._graph.producers(t)) for t in self._graph.nodes}
        self._running: dict[str, asyncio.Task[None]] = {}
        self._unsettled = len(self._graph.nodes)
        self._all_settled = asyncio.Event()
        self._cancelled = False
        self._stalled: NikaError | None = None
        self._liveness = Liveness(self._stall, lambda: self._unsettled > 0)
        self._paused: dict[str, dict[str, Any]] = {}
        self._parked: set[str] = set()
        self._replay = replay or Replay(self._workflow, services.workflow_dir, services.model)
        self._ledger = CostLedger()
        self._budget = services.budget
        self._bus.attach(self._ledger)
        self._base_env = {
            "inputs": self._inputs,
            "const": const_values(self._workflow.const),
            "secrets": dict(services.secrets),
        }
        self._pipeline = Pipeline(
            services=services, base_env=self._base_env, views=self._views,
            await_task=self._await_task, liveness=self._liveness,
            slots=asyncio.Semaphore(concurrency), sleep=sleep,
            rng=rng or random.Random(), child=child, replay=self._replay,
            placement=placement,
        )

    # -- public ---------------------------------------------------------------------------

    async def run(self) -> RunResult:
        """Execute every task; returns when all have settled."""
        mask = self._services.mask
        self._bus.emit(WorkflowStarted(workflow=self._workflow.name,
                                       tasks=len(self._graph.nodes),
                                       inputs=None if self._origins is None
                                       else _json(mask(dict(self._origins)))))
        for task_id in self._graph.nodes:
            self._bus.emit(TaskScheduled(task=task_id))
        if not self._graph.nodes:
            self._all_settled.set()
        self._release([t for t in self._graph.nodes if self._remaining[t] == 0])
        self._liveness.check()
        await self._all_settled.wait()
        parked_cleanup = {u for t in self._parked for u in self._graph.cleanup_of(TaskId(t))}
        for unit in self._graph.cleanup:
            if unit not in self._records and unit not in parked_cleanup:
                # A cleanup whose producer never started unwinds nothing (03 §unwind).
                self._settle_record(TaskRecord.settle(unit, "skipped"))
        return self._finish()

    def cancel(self) -> None:
        """User cancellation (05: a blanket kill): running tasks are cancelled, nothing new
        starts, every unsettled task settles `cancelled`."""
        if self._cancelled:
            return
        self._cancelled = True
        for job in list(self._running.values()):
            job.cancel()

    # -- scheduling -----------------------------------------------------------------------

    def _release(self, ready: list[TaskId]) -> None:
        """Admit or cancel every ready task; cancellations cascade through a worklist."""
        work = list(ready)
        while work:
            task_id = work.pop()
            task = self._workflow.tasks[task_id]
            blocked = blocking_edge(self._graph.incoming(task_id), self._status)
            crossed = self._crossed()
            if crossed is not None:
                work.extend(self._settle(TaskRecord.settle(task_id, "cancelled", error=NikaError(
                    codes.RUN_1704, f"task {task_id!r} is cancelled: {crossed.detail}",
                    details={"task": task_id}))))
                continue
            if blocked is None and not self._cancelled and self._stalled is None:
                self._running[task_id] = asyncio.create_task(self._execute(task),
                                                             name=f"nika:{task_id}")
                self._liveness.started()
                continue
            if blocked is not None:
                reason = (f"task {task_id!r} is cancelled: its producer {blocked.source!r} "
                          f"settled {self._status(blocked.source)}, outside the "
                          f"{blocked.kind.value} edge's pass-set "
                          f"{{{', '.join(sorted(blocked.pass_set))}}} (03 §gate algebra)")
            elif self._stalled is not None:
                reason = (f"task {task_id!r} is cancelled: the run stopped before it started "
                          f"({self._stalled.code}: it could not progress)")
            else:
                reason = f"task {task_id!r} is cancelled: the run was cancelled before it started"
            error = NikaError(codes.CANCEL_001, reason, details={"task": task_id})
            work.extend(self._settle(TaskRecord.settle(task_id, "cancelled", error=error)))

    def _crossed(self) -> NikaError | None:
        """Why the run's priced spend is past its budget, or None."""
        return self._budget.crossed() if self._budget is not None else None

    def _status(self, task_id: str) -> str:
        return self._records[task_id].status

    async def _execute(self, task: Task) -> None:
        started = self._clock.now_ns()
        def_hash = self._replay.definition(task)
        input_hash = self._replay.inputs(task, {**self._base_env, "tasks": self._views})
        notes = TaskNotes(note=_note(task, self._services.model), def_hash=def_hash,
                          input_hash=input_hash)
        hit = self._replay.lookup(task.id, def_hash, input_hash)
        if hit is not None:
            self._running.pop(task.id, None)
            self._release(await self._serve(task, hit, notes))
            self._liveness.ended()
            return
        self._bus.emit(TaskStarted(task=task.id, verb=task.verb, note=notes.note))
        try:
            outcome = await self._pipeline.run(task, notes)
        except PauseRequested as pause:
            self._running.pop(task.id, None)
            self._park(task.id, pause.prompts)
            self._liveness.ended()
            return
        except asyncio.CancelledError:
            # Settling (and unwinding) still has to happen: take the cancellation as handled.
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            outcome = None
        except Exception as exc:  # an engine bug settles this task, never hangs the run
            outcome = Settlement("failure", error=task_error(
                codes.IMPL_001, task.id, f"internal error {type(exc).__name__}: "
                f"{exc}; this is an engine bug — please report it"))
        record = self._record(task, outcome, started, notes)
        if outcome is None or outcome.attempts > 0:  # only a producer that started unwinds
            await self._unwind(task.id, record)
        notes.assets = await self._assets(record)
        self._running.pop(task.id, None)
        self._release(self._settle(record, notes))
        self._liveness.ended()

    async def _serve(self, task: Task, hit: Record, notes: TaskNotes) -> list[TaskId]:
        """Settle `task` from its journal record (ADR-099 §2: visible, never silent)."""
        self._bus.emit(TaskCacheHit(task=task.id, def_hash=hit.def_hash,
                                    input_hash=hit.input_hash, matched_line=hit.line,
                                    matched_uuid=hit.uuid))
        notes.cache_hit = True
        ended = self._clock.now_ns()  # a served task spent no time: its view keeps the record's
        record = TaskRecord.settle(task.id, "success", output=hit.output, attempts=0,
                                   started_at=ended - hit.duration_ms * 1_000_000,
                                   ended_at=ended, bindings=hit.bindings)
        notes.assets = await self._assets(record)
        return self._settle(record, notes)

    async def _assets(self, record: TaskRecord) -> tuple[Asset, ...] | None:
        """A success's files, hashed off the loop if its output names any (a cancel waits)."""
        if not may_name_files(record):  # most outputs name no file: no thread hop for them
            return None
        hashing = asyncio.ensure_future(
            asyncio.to_thread(task_assets, record, self._services.base_dir))
        try:
            return await asyncio.shield(hashing)
        except asyncio.CancelledError:
            if (current := asyncio.current_task()) is not None:
                current.uncancel()
            return await hashing

    def _park(self, task_id: str, prompts: Mapping[str, Mapping[str, Any]]) -> None:
        """Prompts await a human (the task's own, or its child workflow's): `task_id` and
        everything downstream of it stay unsettled in this run (no terminal frame — they did
        not end), the rest carries on."""
        for name, payload in prompts.items():
            self._paused[name] = dict(self._services.mask(payload))
        work = [TaskId(task_id)]
        while work:
            current = work.pop()
            if current in self._parked or current in self._records:
                continue
            self._parked.add(current)
            self._unsettled -= 1
            work.extend(self._graph.consumers(current))
        if self._unsettled == 0:
            self._all_settled.set()

    def _record(self, task: Task, outcome: Settlement | None, started: int,
                notes: TaskNotes) -> TaskRecord:
        ended = self._clock.now_ns()
        if outcome is None and self._stalled is not None and not self._cancelled:
            return TaskRecord.settle(task.id, "failure", error=self._stalled,
                                     started_at=started, ended_at=ended)
        if outcome is None:
            error = NikaError(codes.CANCEL_001, f"task {task.id!r} was cancelled while running "
                              "(user cancellation)", details={"task": task.id})
            return TaskRecord.settle(task.id, "cancelled", error=error, started_at=started,
                                     ended_at=ended)
        recovered_from = None
        if outcome.recovered_from is not None:
            recovered_from = self._services.mask(outcome.recovered_from)
            self._bus.emit(TaskRecovered(task=task.id, code=recovered_from["code"]))
        return TaskRecord.settle(
            task.id, outcome.status, output=outcome.output,
            error=self._services.mask.error(outcome.error) if outcome.error else None,
            attempts=outcome.attempts, started_at=started, ended_at=ended,
            bindings=outcome.bindings, recovered_from=recovered_from,
        )

    def _settle(self, record: TaskRecord, notes: TaskNotes | None = None) -> list[TaskId]:
        """Record the settle, emit its terminal frame, and return the consumers it made ready."""
        self._settle_record(record, notes)
        ready: list[TaskId] = []
        for consumer in self._graph.consumers(TaskId(record.task)):
            self._remaining[consumer] -= 1
            if self._remaining[consumer] == 0:
                ready.append(consumer)
        self._unsettled -= 1
        if self._unsettled == 0:
            self._all_settled.set()
        return ready

    def _settle_record(self, record: TaskRecord, notes: TaskNotes | None = None) -> None:
        self._records[record.task] = record
        self._views[record.task] = record.view
        notes = notes or TaskNotes()
        recovered_from = record.recovered_from
        cause = ("recovered" if recovered_from is not None else "cache_hit" if notes.cache_hit
                 else "budget" if record.error is not None and record.error.code == codes.RUN_1704
                 else "normal")
        payload: dict[str, Any] = {"attempts": record.attempts}
        if recovered_from is not None:  # 13 §payload: the original error
            payload["recovered_from"] = recovered_from
        spend = self._ledger.task(record.task)
        self._bus.emit(TaskEnded(
            task=record.task, note=notes.note, status=record.status,
            duration_ms=record.duration_ms, attempts=record.attempts, def_hash=notes.def_hash,
            unwinds=notes.unwinds, input_hash=notes.input_hash, inputs=notes.inputs,
            agent=notes.agent,
            cache_hit=notes.cache_hit or None, recovered_from=recovered_from,
            cost_usd=spend.usd_figure if spend else None,
            unpriced_calls=spend.unpriced_count if spend else None,
            cost_unpriced=spend.unpriced_reasons if spend else None,
            replay=(replayed(record.output, record.bindings, self._services.mask)
                    if record.status == "success" else None),
            error=record.error,
            assets=notes.assets,
            outcome=_json({"cause": cause, "class": record.status, "payload": payload})))
        self._liveness.settled(record.task)

    async def _await_task(self, task_id: str, waiter: str) -> str:
        if task_id not in self._records:
            await self._liveness.park(waiter, task_id)
        return self._records[task_id].status

    def _stall(self) -> None:
        """Nothing is live yet tasks are unsettled: end the run, naming what is blocked."""
        if self._stalled is not None or self._cancelled:
            return
        parked = self._liveness.parked
        pending = [t for t in self._graph.nodes if t not in self._records
                   and t not in self._running and t not in self._parked]
        shown = [f"{t} (awaits {', '.join(s)})" for t, s in parked.items()]
        shown += [f"{t} (never released)" for t in pending]
        self._stalled = NikaError(
            codes.DAG_010,
            f"the run cannot progress: no task is running and none can start, yet "
            f"{len(parked) + len(pending)} task(s) are unsettled — {'; '.join(shown)}; a "
            "recovery await cycle or an unschedulable task (run `nika check` on the workflow "
            "and break the wait cycle it names)",
            details={"blocked": sorted(parked), "awaits": {t: list(s) for t, s in parked.items()},
                     "pending": pending},
        )
        for job in list(self._running.values()):
            job.cancel()  # each parked task settles `failure` with this error (`_record`)
        if not self._running:  # nothing parked: the never-released tasks are the blocked ones
            for task_id in pending:
                self._settle(TaskRecord.settle(task_id, "failure", error=self._stalled))

    async def _unwind(self, producer: str, record: TaskRecord) -> None:
        """Run the producer's cleanup units (declaration order), then theirs."""
        units = self._graph.cleanup_of(TaskId(producer))
        if not units:
            return
        # Cleanup reads its producer (03 §unwind): visible now, settled outward after.
        self._views[producer] = record.view
        for unit in units:
            task = self._workflow.tasks[unit]
            started = self._clock.now_ns()
            self._bus.emit(TaskStarted(task=unit, unwinds=producer))
            notes = TaskNotes(unwinds=producer)
            try:
                outcome: Settlement | None = await asyncio.shield(self._pipeline.run(task, notes))
            except asyncio.CancelledError:
                outcome = None
            unit_record = self._record(task, outcome, started, notes)
            await self._unwind(unit, unit_record)
            notes.assets = await self._assets(unit_record)
            self._settle_record(unit_record, notes)

    # -- the end --------------------------------------------------------------------------

    def _finish(self) -> RunResult:
        cleanup = frozenset(self._graph.cleanup)
        failed = any(r.status == "failure" for t, r in self._records.items() if t not in cleanup)
        settled = not self._paused or failed or self._cancelled or self._stalled is not None
        # A paused run's outputs read a world still waiting for its human: they are evaluated
        # by the run that settles it (the resume), never here.
        outputs, output_error = (workflow_outputs(self._workflow, self._base_env, self._views)
                                 if settled else ({}, None))
        # cancelled(budget) names work the cap kept from starting (13): a run whose every
        # task ran to its end is not cancelled because its last call crossed the cap.
        over_budget = next((self._crossed() or r.error for r in self._records.values()
                            if cancelled_by(r.error)), None)
        state: WorkflowState = (
            "cancelled" if self._cancelled or over_budget is not None
            else "failure" if failed or output_error is not None or self._stalled is not None
            else "paused" if self._paused
            else "success"
        )
        paused = self._paused
        error = (self._stalled if self._stalled is not None and state == "failure"
                 else over_budget or output_error)
        self._bus.emit(WorkflowEnded(
            workflow=self._workflow.name, state=state,
            prompt=paused[min(paused)] if paused and state == "paused" else None,
            paused=tuple(sorted(paused)) if paused else None,
            outputs=_json(self._services.mask(outputs)) if state != "paused" else None,
            totals=self._ledger.totals(self._clock.now_ns()), error=error))
        ordered: dict[str, TaskRecord] = {
            t: self._records[t] for t in self._workflow.tasks if t in self._records
        }
        return RunResult(state, ordered, outputs, output_error, cleanup, dict(self._paused),
                         error)


def _json(value: Any) -> str:
    """A payload serialized into one field value (17: the frame grammar stays flat)."""
    return loose_json(value)


def _note(task: Task, default_model: str | None) -> str:
    """The one-line reading of a task's verb, as frames carry it (`exec · echo`)."""
    body = task.body
    if isinstance(body, InferBody | AgentBody):
        return f"{task.verb} · {body.model or default_model or 'no model'}"
    if isinstance(body, ExecBody):
        if body.command:
            first = body.command[0]
            return f"exec · {first if isinstance(first, str) else 'argv'}"
        return "exec · shell"
    if isinstance(body, InvokeBody):
        return f"invoke · {body.tool or body.workflow}"
    return task.verb
