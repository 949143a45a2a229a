"""One admitted task's pipeline (03 §the dispatch pipeline), after the gate let it in:

    BINDINGS  `with:` materializes            error → failure, `on_error` NOT consulted
    WHEN      the local condition             false → skipped · error → failure (boundary)
    FAN-OUT   `for_each` items, evaluated once  non-array → NIKA-VAR-006 · empty → skipped
    VERB      the attempt loop                `retry:` then `on_error:` govern this stage only
    EXTRACT   `extract:` jq bindings           over the raw (or recovered) output

A *unit* is the plain task or one `for_each` iteration: `timeout:`, `retry:` and `on_error:`
apply per unit, and each attempt holds one slot of the run's concurrency bound — never the
backoff sleep, never a fan-out parent waiting on its iterations.

A fan-out resumes per iteration (ADR-099 §1): each iteration that succeeds journals a
`checkpoint_written` frame with its own input hash (the item and index take part) and output;
resuming, an iteration whose record matches is served from it (`task_cache_hit` with its
`iteration`) and only the others run. An iteration whose prompt pauses the run lets its
siblings finish (their checkpoints are what the resume serves), then pauses the task.

Past the run's spend cap (`budget.SpendCap`), a unit about to begin an attempt — a `for_each`
iteration, a retry, a task that waited for a slot — settles `cancelled` with `NIKA-RUN-1704`
instead (a budget stop is never retried nor recovered by `on_error`); a fan-out with such
iterations and no failed one settles `cancelled` too, its finished iterations checkpointed
for a resume. Cleanup units are exempt: an unwind still runs after its producer.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from nika import codes
from nika.errors import NikaError, task_error
from nika.journal.frames import (
    CheckpointWritten,
    TaskCacheHit,
    TaskNotes,
    TaskRetrying,
    UnitAttempt,
)
from nika.journal.records import error_record
from nika.journal.replay import Replay, replayed
from nika.run.budget import cancelled_by
from nika.run.liveness import Liveness
from nika.run.pause import PauseRequested
from nika.run.placement import LOCAL, Placement
from nika.run.retry import backoff_seconds, should_retry
from nika.run.services import RunServices
from nika.run.verbs import ChildRunner, VerbAttempt
from nika.syntax.binding import apply_jq, interpolate, parse_sites
from nika.syntax.expr import LOOP_LOCALS, references
from nika.syntax.model import Task

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a task (or one iteration) settled into, before it becomes a `TaskRecord`."""

    status: Literal["success", "failure", "skipped", "cancelled"]
    output: Any = None
    error: NikaError | None = None
    attempts: int = 0
    bindings: Mapping[str, Any] = field(default_factory=dict)
    recovered_from: Mapping[str, Any] | None = None
    """The error `on_error: recover` settled this success from, as expressions read errors
    (05 §error structure: code … `task_id`, `attempt`) — the cause of a `recovered` outcome."""


class _FailFast(Exception):
    """An iteration failed under `fail_fast: true`: the task group cancels its siblings."""


def _loop_reads(value: Any) -> bool:
    return any(ref.root in LOOP_LOCALS
               for site in parse_sites(value) for ref in references(site.expr))


def _internal(task: Task, exc: Exception) -> NikaError:
    return task_error(
        codes.IMPL_001, task.id,
        f"the engine failed with {type(exc).__name__}: {exc}; this is an "
        "engine bug — please report it with the workflow",
        exception=type(exc).__name__,
    )


class Pipeline:
    """Runs admitted tasks. `views` is the live `tasks` namespace (settled records only);
    `await_task(source, waiter)` waits for `source` to settle (the `recover:` await of 05);
    `liveness` counts a fan-out's iterations as the coroutines they are."""

    def __init__(
        self,
        *,
        services: RunServices,
        base_env: Mapping[str, Any],
        views: Mapping[str, Mapping[str, Any]],
        await_task: Callable[[str, str], Awaitable[str]],
        liveness: Liveness,
        slots: asyncio.Semaphore,
        sleep: Sleep,
        rng: random.Random,
        child: ChildRunner | None,
        replay: Replay,
        placement: Placement = LOCAL,
    ) -> None:
        self._services = services
        self._placement = placement
        self._base = dict(base_env)
        self._boundary = {**base_env, "tasks": views}
        self._views = views
        self._await_task = await_task
        self._liveness = liveness
        self._slots = slots
        self._sleep = sleep
        self._rng = rng
        self._child = child
        self._replay = replay

    async def run(self, task: Task, notes: TaskNotes) -> Settlement:
        """The whole pipeline for one admitted task."""
        loop_bound = {k for k, v in task.with_.items() if task.for_each and _loop_reads(v)}
        try:
            with_values = {k: interpolate(v, self._boundary)
                           for k, v in task.with_.items() if k not in loop_bound}
            env = {**self._base, "with": with_values}
            notes.inputs = with_values or None  # the terminal frame journals them (masked)
            if notes.unwinds is not None:
                # An unwind task may read the producer it cleans up after, and nothing else,
                # anywhere in the task, `when:` included (03 §unwind, 04 §the reference boundary).
                env["tasks"] = {notes.unwinds: self._views[notes.unwinds]}
            per_item_when = task.for_each is not None and _loop_reads(task.when)
            if not per_item_when and not self._when(task, env):
                return Settlement("skipped")
            items = self._items(task, env) if task.for_each is not None else None
        except NikaError as exc:
            return Settlement("failure", error=exc)
        if items is None:
            return await self._unit(task, env, notes, None)
        if not items:
            return Settlement("skipped")
        return await self._fan_out(task, items, env, loop_bound, per_item_when, notes)

    # -- the boundary -------------------------------------------------------------------

    @staticmethod
    def _when(task: Task, env: Mapping[str, Any]) -> bool:
        if task.when is None or isinstance(task.when, bool):
            return task.when is not False
        value = interpolate(task.when, env)
        if not isinstance(value, bool):
            raise task_error(
                codes.VAR_006, task.id,
                f"`when:` evaluated to {value!r}, not a bool; compare it "
                "explicitly (e.g. `!= null`, `> 0`)",
                when=task.when,
            )
        return value

    @staticmethod
    def _items(task: Task, env: Mapping[str, Any]) -> Sequence[Any]:
        assert task.for_each is not None
        items = interpolate(task.for_each.items, env)
        if not isinstance(items, list):
            kind = "null" if items is None else type(items).__name__
            raise task_error(
                codes.VAR_006, task.id,
                f"`for_each.items` evaluated to a {kind}, not an array; "
                "fan out over a list (gate a possibly-skipped producer with "
                "`after: { <producer>: success }` or a `when:` size check)",
                kind=kind,
            )
        return items

    # -- the fan-out --------------------------------------------------------------------

    async def _fan_out(
        self, task: Task, items: Sequence[Any], env: Mapping[str, Any], loop_bound: set[str],
        per_item_when: bool, notes: TaskNotes,
    ) -> Settlement:
        assert task.for_each is not None
        spec = task.for_each
        results: list[Settlement | None] = [None] * len(items)
        limit = asyncio.Semaphore(spec.max_parallel) if spec.max_parallel else None
        pauses: list[PauseRequested] = []
        # The parent's one live count becomes one per iteration; the last iteration to end
        # hands it back (an iteration cancelled before it ran never ends: fixed up below).
        outstanding = len(items)
        self._liveness.started(outstanding - 1)

        async def iteration(index: int) -> None:
            try:
                results[index] = await self._iteration(task, items[index], index, env,
                                                       loop_bound, per_item_when, notes)
            except PauseRequested as pause:
                pauses.append(pause)  # the siblings finish; the task pauses after them

        async def one(index: int) -> None:
            nonlocal outstanding
            try:
                if limit is None:
                    await iteration(index)
                else:
                    async with limit:
                        await iteration(index)
            finally:
                outstanding -= 1
                if outstanding:
                    self._liveness.ended()
            result = results[index]
            if spec.fail_fast and result is not None and result.status == "failure":
                raise _FailFast

        try:
            async with asyncio.TaskGroup() as group:
                for index in range(len(items)):
                    group.create_task(one(index))
        except* _FailFast:
            pass  # siblings were cancelled; their slots stay None
        if outstanding > 1:
            self._liveness.ended(outstanding - 1)
        if pauses and not any(r is not None and r.status == "failure" for r in results):
            raise PauseRequested.joined(pauses)
        return self._fold(task, results)

    async def _iteration(
        self, task: Task, item: Any, index: int, env: Mapping[str, Any], loop_bound: set[str],
        per_item_when: bool, notes: TaskNotes,
    ) -> Settlement:
        local = {**env, "item": item, "index": index}
        try:
            if loop_bound:
                boundary = {**self._boundary, "item": item, "index": index}
                local["with"] = {**env["with"], **{k: interpolate(task.with_[k], boundary)
                                                    for k in loop_bound}}
            if per_item_when and not self._when(task, local):
                return Settlement("skipped")
        except NikaError as exc:
            return Settlement("failure", error=exc)
        def_hash = self._replay.definition(task)
        task_hash = notes.input_hash
        if task_hash is None:  # a cleanup unit: identified here, once
            task_hash = notes.input_hash = self._replay.inputs(task, self._boundary)
        input_hash = self._replay.iteration(task_hash, index, item)
        bus = self._services.bus
        hit = self._replay.lookup_iteration(task.id, index, def_hash, input_hash)
        if hit is not None:
            bus.emit(TaskCacheHit(task=task.id, iteration=index, def_hash=def_hash,
                                  input_hash=input_hash, matched_line=hit.line,
                                  matched_uuid=hit.uuid))
            return Settlement("success", hit.output, None, 0, hit.bindings)
        outcome = await self._unit(task, local, notes, index)
        if outcome.status == "success":
            bus.emit(CheckpointWritten(
                task=task.id, iteration=index, def_hash=def_hash, input_hash=input_hash,
                attempts=outcome.attempts,
                replay=replayed(outcome.output, outcome.bindings, self._services.mask)))
        return outcome

    @staticmethod
    def _fold(task: Task, results: Sequence[Settlement | None]) -> Settlement:
        attempts = sum(r.attempts for r in results if r is not None)
        failed = [(i, r.error) for i, r in enumerate(results)
                  if r is not None and r.status == "failure" and r.error is not None]
        stopped = [(i, r.error) for i, r in enumerate(results)
                   if r is not None and r.status == "cancelled" and r.error is not None]
        if stopped and not failed:
            first = stopped[0][1]
            return Settlement("cancelled", attempts=attempts, error=NikaError(
                first.code, f"{len(stopped)} of {len(results)} iteration(s) of task "
                f"{task.id!r} were cancelled: {first.detail}", category=first.category,
                details={**first.details, "task": task.id,
                         "cancelled_iterations": [i for i, _ in stopped]}))
        if failed:
            index, first = failed[0]
            return Settlement("failure", attempts=attempts, error=NikaError(
                first.code,
                f"iteration {index} of {len(results)}: {first.detail}",
                category=first.category,
                transient=first.transient,
                details={**first.details, "iteration": index,
                         "failed_iterations": [i for i, _ in failed]},
            ))
        outputs = [r.output if r is not None and r.status == "success" else None
                   for r in results]
        bindings = {name: [r.bindings.get(name) if r is not None and r.status == "success"
                           else None for r in results] for name in task.extract}
        recovered = [(i, r.recovered_from) for i, r in enumerate(results)
                     if r is not None and r.recovered_from is not None]
        cause = None
        if recovered:  # the first recovered iteration names the cause, like a failure does
            at, source = recovered[0]
            cause = {**source, "details": {**source["details"], "iteration": at,
                                           "recovered_iterations": [i for i, _ in recovered]}}
        return Settlement("success", outputs, None, attempts, bindings, recovered_from=cause)

    # -- the verb stage -----------------------------------------------------------------

    async def _unit(
        self, task: Task, env: Mapping[str, Any], notes: TaskNotes, index: int | None
    ) -> Settlement:
        timeout = task.timeout.seconds if task.timeout is not None else None
        attempts = 0
        error: NikaError
        try:
            async with asyncio.timeout(timeout):
                while True:
                    attempts += 1
                    try:
                        async with self._slots:
                            if (halt := self._halted(task, notes)) is not None:
                                return Settlement("cancelled", error=halt, attempts=attempts - 1)
                            raw = await self._placement.run(VerbAttempt(
                                task, env, self._services, timeout, notes, self._child,
                                UnitAttempt(task.id, index, attempts)))
                        return Settlement("success", raw, None, attempts, self._extract(task, raw))
                    except NikaError as exc:
                        if cancelled_by(exc):  # an agent stopped by the cap: not a failure
                            return Settlement("cancelled", error=exc, attempts=attempts)
                        error = exc
                    except PauseRequested:
                        raise  # not a failure: the run waits for a human
                    except Exception as exc:  # an engine bug fails one task, never the run
                        error = _internal(task, exc)
                        break
                    if not should_retry(task.retry, error, attempts):
                        break
                    assert task.retry is not None
                    delay = backoff_seconds(task.retry, attempts, self._rng)
                    self._services.bus.emit(TaskRetrying(
                        task=task.id, attempt=attempts, code=error.code,
                        delay_ms=round(delay * 1000), iteration=index))
                    await self._sleep(delay)
        except TimeoutError:
            limit = task.timeout.text if task.timeout else None
            error = NikaError(
                codes.TIMEOUT_001,
                f"task {task.id!r} exceeded its timeout of {limit} after {attempts} "
                "attempt(s); raise `timeout:` or make the step faster",
                details={"task": task.id, "timeout": limit, "attempts": attempts},
            )
        return await self._on_error(task, error, attempts, env)

    def _halted(self, task: Task, notes: TaskNotes) -> NikaError | None:
        """The budget's cancellation of a unit about to begin an attempt, or None."""
        budget = self._services.budget
        crossed = budget.crossed() if budget is not None and notes.unwinds is None else None
        if crossed is None:
            return None
        return NikaError(crossed.code, f"task {task.id!r} is cancelled before its attempt: "
                         f"{crossed.detail}", details={"task": task.id})

    @staticmethod
    def _extract(task: Task, raw: Any) -> dict[str, Any]:
        return {name: apply_jq(program, raw) for name, program in task.extract.items()}

    async def _on_error(
        self, task: Task, error: NikaError, attempts: int, env: Mapping[str, Any]
    ) -> Settlement:
        policy = task.on_error
        if policy is None or (policy.on_codes and error.code not in policy.on_codes):
            return Settlement("failure", error=error, attempts=attempts)
        if policy.action == "skip":
            return Settlement("skipped", error=error, attempts=attempts)
        try:
            value = await self._recover(task, policy.recover, env)
        except NikaError:
            # An unusable recovery source fails the task as if `on_error` were absent (05).
            return Settlement("failure", error=error, attempts=attempts)
        try:
            bindings = self._extract(task, value)
        except NikaError as exc:
            return Settlement("failure", error=exc, attempts=attempts)
        return Settlement("success", value, None, attempts, bindings,
                       recovered_from=error_record(error, task.id, attempts))

    async def _recover(self, task: Task, value: Any, env: Mapping[str, Any]) -> Any:
        for site in parse_sites(value):
            for ref in references(site.expr):
                if ref.root != "tasks" or not ref.path:
                    continue
                source = str(ref.path[0])
                status = await self._await_task(source, task.id)
                if status != "success":
                    raise task_error(
                        codes.VAR_001, task.id,
                        f"the recovery source {source!r} settled {status}, "
                        "so it has no value to recover with",
                        source=source, status=status,
                    )
        return interpolate(value, {**env, "tasks": self._views})
