"""The worker side: one verb attempt, run on a Ray worker, its facts streamed to the driver.

`unit_stream` is the body of the Ray task (a streaming generator). It rebuilds the verb's
world from what a worker may trust — the workflow model, the resolved environment with
secrets sealed, its OWN secret sources, its OWN file system and environment — and runs the
very same verb code as a local run. Authority is local to the machine doing the work: the
permit gate (`PermitGate`, the check's judge), the exec blocklist and the composed child
environment are all applied here, before dispatch.

Nothing here writes the journal. What the verb emits becomes packets, sealed, yielded in
batches (whatever accumulated since the last batch):

    ("frame", Frame)                 a typed bus frame (permit_checked, verb_invoked, …) + `node`
    ("agent", AgentEvent)            one typed agent-loop event, for the driver's ONE adapter
    ("done", output)                 the attempt's raw output — always last
    ("error", ToolFailure)           the attempt's NikaError as frozen data — always last

An outcome met after this node's raylet died is replaced by node loss (`NIKA-CLUSTER-001`):
Ray's teardown of a dead node kills the attempt's children, so the attempt's own verdict on
them means nothing.

The verb runs on its own event loop in a helper thread so that the generator's thread stays
free to receive Ray's cancellation (a KeyboardInterrupt): it then cancels the verb, which
kills an exec's process group and reaps it, exactly as a local timeout does.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.agent.config import AgentConfig
from nika.agent.observe import AgentEvent
from nika.agent.seams import ToolFailure
from nika.check.judge import PermitJudge
from nika.errors import NikaError, task_error
from nika.journal.bus import EventBus, RunEvent
from nika.journal.frames import TaskNotes, UnitAttempt
from nika.masking import Masker
from nika.providers import resolve_provider
from nika.run.cluster import keeper
from nika.run.cluster.faults import died
from nika.run.cluster.sealing import Sealer
from nika.run.permits import PermitGate
from nika.run.secrets import resolve_secrets
from nika.run.services import ProviderPool, RunServices
from nika.run.toolbox import Toolbox, needs_mcp
from nika.run.verbs import VerbAttempt, run_verb
from nika.syntax.model import TaskId, Workflow
from nika.tools.mcp_registry import load_registry

Packet = tuple[Any, ...]
"""One tagged message to the driver (the shapes above)."""
Emit = Callable[[Packet], None]
Body = Callable[["UnitCall"], Iterator[list[Packet]]]
"""The Ray task body's shape: `unit_stream`'s."""

_POLL: Final = 0.05
_CANCEL_GRACE: Final = 30.0
"""How long a cancelled attempt may take to unwind (kill and reap its children)."""


@dataclass(frozen=True, slots=True)
class UnitCall:
    """One verb attempt as shipped to a worker. `env` is the attempt's resolved environment
    without `secrets` and sealed; `workflow` holds the model's object ref inside a list, so
    Ray leaves it unresolved until a worker's cache misses (`workflow_key`)."""

    workflow: list[Any]
    workflow_key: str
    task: str
    env: Mapping[str, Any]
    unit: UnitAttempt
    timeout: float | None
    model: str | None
    workflow_dir: str
    base_dir: str
    mcp_config: str | None
    agent_config: AgentConfig
    callers: tuple[PermitJudge, ...] = ()
    """A child workflow's callers' boundaries (innermost first): its permits ∩ theirs."""


_WORKFLOWS: OrderedDict[str, Workflow] = OrderedDict()
_WORKFLOWS_KEPT: Final = 16


def _workflow(call: UnitCall) -> Workflow:
    found = _WORKFLOWS.get(call.workflow_key)
    if found is None:
        import ray

        found = ray.get(call.workflow[0])
        _WORKFLOWS[call.workflow_key] = found
        while len(_WORKFLOWS) > _WORKFLOWS_KEPT:
            _WORKFLOWS.popitem(last=False)
    else:
        _WORKFLOWS.move_to_end(call.workflow_key)
    return found


def _node() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())


def _secrets(workflow: Workflow, environ: Mapping[str, str], base: Path) -> dict[str, str]:
    """The worker's own reading of every declared secret (the driver's never travels)."""
    try:
        return resolve_secrets(workflow.secrets, environ=environ, base_dir=base)
    except NikaError as exc:
        raise NikaError(
            exc.code,
            f"on Ray worker node {_node()[:12]}: {exc.detail} — every worker resolves the "
            "workflow's secrets from its own sources: set the variable (or place the file) "
            "in the environment of every node's `ray start`",
            details={**exc.details, "node": _node()},
        ) from None


class _Outbox:
    """The worker's only bus sink: each frame becomes a sealed message (seq and time are
    the driver's to assign)."""

    def __init__(self, emit: Emit, sealer: Sealer, node: str) -> None:
        self._emit, self._sealer, self._node = emit, sealer, node

    def emit(self, event: RunEvent) -> None:
        self._emit(("frame", self._sealer.seal(dataclasses.replace(event.frame,
                                                                    node=self._node))))

    def close(self) -> None:
        """Nothing buffered."""


class _Forward:
    """The agent loop's observer on a worker: each typed event goes to the driver as is."""

    def __init__(self, emit: Emit, sealer: Sealer) -> None:
        self._emit, self._sealer = emit, sealer

    def on_event(self, event: AgentEvent) -> None:
        self._emit(("agent", self._sealer.seal(event)))


async def _attempt(call: UnitCall, emit: Emit, workflow: Workflow, secrets: dict[str, str],
                   sealer: Sealer) -> Any:
    task = workflow.tasks[TaskId(call.task)]
    environ = dict(os.environ)
    base_dir = Path(call.base_dir)
    env = {**sealer.unseal(call.env), "secrets": secrets}
    mask = Masker(secrets.values())
    bus = EventBus(sinks=[_Outbox(emit, sealer, _node())])
    gate = PermitGate.under_judges(workflow, bus, call.callers)
    async with contextlib.AsyncExitStack() as stack:
        mcp = None
        if needs_mcp(task):
            from nika.tools.mcp import McpExecutor

            try:
                registry = load_registry(
                    base_dir, environ=environ,
                    explicit=Path(call.mcp_config) if call.mcp_config else None)
            except NikaError:
                registry = None  # the call itself fails naming the server, as locally
            if registry is not None:
                mcp = await stack.enter_async_context(McpExecutor(registry))
        providers = ProviderPool(lambda model, timeout: resolve_provider(
            model, env=environ, secrets=secrets, timeout=timeout))
        stack.push_async_callback(providers.aclose)
        services = RunServices(
            workflow=workflow, workflow_dir=Path(call.workflow_dir), base_dir=base_dir,
            environ=environ,
            secrets=secrets, mask=mask, bus=bus, gate=gate,
            tools=Toolbox(workflow, gate, base_dir=base_dir, mask=mask, bus=bus,
                          mcp=mcp, environ=environ).for_task,
            mcp=mcp, providers=providers, model=call.model, agent_config=call.agent_config,
            observe=lambda unit, _notes: _Forward(emit, sealer),
            # An exec body dies with this worker, its setsid descendants included.
            exec_keeper=keeper.keeper_argv() if keeper.available() else (),
        )
        # The loop's summary is the driver's (its adapter follows the forwarded events).
        return await run_verb(VerbAttempt(task, env, services, call.timeout, TaskNotes(),
                                          child=None, unit=call.unit))


def _raylet() -> int | None:
    """This worker's parent when it is the node's raylet (as Ray starts workers), else None."""
    parent = os.getppid()
    return parent if os.environ.get("RAY_RAYLET_PID") == str(parent) else None


class _Attempt:
    """Runs `_attempt` on a fresh event loop in a helper thread; `cancel` is thread-safe."""

    def __init__(self, call: UnitCall, emit: Emit) -> None:
        self._call, self._emit = call, emit
        self._raylet = _raylet()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._job: asyncio.Task[None] | None = None
        self._cancelled = False
        self._lock = threading.Lock()

    def run(self) -> None:
        asyncio.run(self._main())

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._job is not None:
                with contextlib.suppress(RuntimeError):  # the loop already closed: done
                    self._loop.call_soon_threadsafe(self._job.cancel)

    async def _main(self) -> None:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._job = asyncio.create_task(self._guarded())
            if self._cancelled:
                self._job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._job

    async def _guarded(self) -> None:
        sealer = Sealer({})
        outcome: Packet
        try:
            workflow = _workflow(self._call)
            secrets = _secrets(workflow, os.environ, Path(self._call.workflow_dir))
            sealer = Sealer(secrets)
            outcome = ("done", await _attempt(self._call, self._emit, workflow, secrets, sealer))
        except NikaError as exc:
            outcome = ("error", ToolFailure.of(exc))
        except asyncio.CancelledError:
            self._emit(("error", None))
            raise
        except Exception as exc:  # an engine bug fails this attempt, named, never the worker
            outcome = ("error", ToolFailure.of(task_error(
                codes.IMPL_001, self._call.task, "the engine failed on a Ray worker with "
                f"{type(exc).__name__}: {exc}; this is an engine bug — please report it",
                exception=type(exc).__name__)))
        if self._raylet is not None and os.getppid() != self._raylet:
            # The raylet died under the attempt (this worker was re-parented as it did), and
            # Ray tears a node down only after its raylet is gone — SIGKILLing the workers'
            # children first — so whatever the attempt met since may be that teardown: an
            # outcome now is the node's loss, never the attempt's own (the driver's rule for
            # a stream cut short, applied where the stream may still end cleanly).
            outcome = ("error", ToolFailure.of(died(
                self._call.unit, "its node's raylet died while the attempt ran")))
        self._emit((outcome[0], sealer.seal(outcome[1])))


def _next(outbox: queue.SimpleQueue[Packet]) -> Packet:
    # Short waits, not one blocking get: Ray delivers a cancellation as an exception raised
    # between bytecodes of this thread, which a get blocked in C would never reach.
    while True:
        with contextlib.suppress(queue.Empty):
            return outbox.get(timeout=_POLL)


def unit_stream(call: UnitCall) -> Iterator[list[Packet]]:
    """The Ray task body: yields batches of messages; the last batch ends with the outcome."""
    outbox: queue.SimpleQueue[Packet] = queue.SimpleQueue()
    attempt = _Attempt(call, outbox.put)
    thread = threading.Thread(target=attempt.run, name=f"nika:{call.unit.path}", daemon=True)
    thread.start()
    finished = False
    try:
        while not finished:
            batch = [_next(outbox)]
            with contextlib.suppress(queue.Empty):
                while True:
                    batch.append(outbox.get_nowait())
            finished = batch[-1][0] in ("done", "error")
            yield batch
    finally:
        # Cancelled by the driver (a KeyboardInterrupt here) or abandoned: the verb stops
        # and its children are reaped before this worker takes another task.
        if not finished:
            attempt.cancel()
        thread.join(_CANCEL_GRACE)
