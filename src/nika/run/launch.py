"""`nika run`: check first, then execute, then report — the one entry point the CLI calls.

Every argument is judged before anything runs (`preflight.py`): an unusable `--report` target,
an unknown `--model` provider, a missing or malformed MCP registry, an undeclared `--var` or a
missing required input is exit 2 with its code, and no task starts. A workflow the check
refuses never starts and spends zero tokens: the verdict is printed and the exit status is 1;
so is an unreadable secret store. A started run streams its events
(`--json`: NDJSON on stdout; otherwise human progress on stderr and the `outputs` object on
stdout), writes `--report` when asked, and exits 0 (success) · 1 (failure) · 75 (paused: a
prompt awaits `--resume --answer`, see `pause`) · 130 / 143 / 129 (stopped by SIGINT / SIGTERM /
SIGHUP: tasks cancelled, children reaped, report and terminal frame written — `signals.py`;
every child carries the watchdog marker of `children.py`, so none outlives the engine).

`--resume JOURNAL` (ADR-099, see `resume`; its arguments are read in `_resuming`) judges
the journal before the first frame: a broken or absent chain, a head other than `--head`
pins, an unreadable journal exit 2, another engine version without the matching
`--resume-compat` 3; a `--from` or `--answer` naming no fitting task exits 2.

`--output json` is the export contract (01 §what leaves a run, 08 §sub-workflow invocation):
stdout carries exactly one JSON object, the typed `outputs:` (`{}` when none are declared),
and only when the run succeeded — a caller that launched us with `capture: stdout` reads
either the whole contract or a non-zero exit, never a partial object.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, TextIO

from nika import codes
from nika._term import json_printable, printable
from nika.agent.seams import Provider, ToolExecutor
from nika.canonical import loose_json
from nika.check import check_workflow
from nika.check.verdict import refused
from nika.errors import NikaError
from nika.journal.bus import EventBus, EventSink, SinkFailure
from nika.journal.frames import UnitAttempt, WorkflowEnded
from nika.journal.lock import judge, warning
from nika.journal.records import RunResult
from nika.journal.replay import Replay, ResumePlan
from nika.journal.resume import ResumeRefusal
from nika.journal.runs import Policy, sweep
from nika.journal.writer import TRACE_DIR, JournalSink, manifest
from nika.masking import Masker
from nika.providers import resolve_provider
from nika.run import _boot, preflight
from nika.run._resuming import resume_answers, resume_plan
from nika.run._said import JournalLine, print_failure, print_refusal, shown
from nika.run.budget import SpendCap, cancelled_by
from nika.run.children import ChildGuard
from nika.run.nested import MAX_DEPTH, ChildFrames
from nika.run.pause import EXIT_PAUSED, PauseRequested, child_answers
from nika.run.permits import PermitGate
from nika.run.placement import LOCAL, Placement
from nika.run.runner import Runner
from nika.run.secrets import resolve_secrets
from nika.run.services import ProviderPool, RunServices
from nika.run.signals import Stop, exit_code
from nika.run.toolbox import Toolbox, needs_mcp
from nika.run.values import bind_inputs, parse_var
from nika.syntax.loader import read_source
from nika.syntax.model import Workflow
from nika.tools.builtins import TerminalPromptIO
from nika.tools.mcp_registry import McpRegistry, load_registry

if TYPE_CHECKING:
    from nika.tools.mcp import McpExecutor

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
EXIT_CANCELLED: Final = 130

SinkFactory = Callable[[JournalSink], EventSink]
"""Builds an extra sink, given the run's journal (to join its frames: OpenTelemetry)."""


class RunViews(Protocol):
    """What a person (and the `--report` file) sees of a run. The CLI assembles it
    (`nika.view.console.Console`); the run reports through it and never imports a view."""

    def sinks(self) -> Sequence[EventSink]:
        """The view's event sinks, attached after the journal (the record comes first)."""
        ...

    def refused(self, errors: Sequence[NikaError]) -> None:
        """A run that never started, with the errors that stopped it."""
        ...

    def finished(self, result: RunResult, mask: Masker, failures: Sequence[SinkFailure]) -> None:
        """A run that ended (any state), with the sinks that failed on the way."""
        ...


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The `nika run` command line."""

    file: Path
    vars: Sequence[str] = ()
    model: str | None = None
    json: bool = False
    output: str | None = None
    """`json`: stdout is exactly the outputs object of a successful run (see the module doc)."""
    report: Path | None = None
    concurrency: int = 8
    mcp_config: Path | None = None
    trace_dir: Path | None = None
    """Where the journal goes (None: `.nika/traces/` under the working directory)."""
    resume: Path | None = None
    """A journal to resume from (ADR-099): settled tasks are served from it."""
    resume_compat: str | None = None
    """The recorded engine version the operator declares compatible (17 §the fold law)."""
    resume_unverified: bool = False
    """Resume from a journal whose chain does not verify (journaled on the manifest)."""
    resume_head: str | None = None
    """`--head HEX`: the head the resumed journal must end at (the full 64 hex digits)."""
    from_task: str | None = None
    """With `resume`: run this task and its downstream live even when their hashes match."""
    answers: Sequence[str] = ()
    """`TASK=VALUE` answers to `nika:prompt` tasks, for runs without a terminal."""
    executor: str = "local"
    """Where verb attempts run: `local` (this process) or `ray` (a Ray cluster's workers)."""
    ray_address: str | None = None
    """`--ray-address` (else NIKA_RAY_ADDRESS; neither: a local Ray instance for this run)."""
    locked: bool = False
    """`--locked`: refuse before any task starts unless `nika.lock` holds (spec 15)."""
    max_cost_usd: Decimal | None = None
    """`--max-cost-usd`: past it, unstarted work settles cancelled(budget) (13, `budget`)."""
    no_gc: bool = False
    """Skip the trace collection at run start (ADR-100 D2)."""


@dataclass(slots=True)
class Streams:
    """Where the run writes: stdout (results, `--json` events) and stderr (progress)."""

    out: TextIO
    err: TextIO


def run_command(options: RunOptions, streams: Streams, views: RunViews,
                environ: Mapping[str, str] | None = None,
                extra_sinks: Sequence[SinkFactory] = (),
                placement: Placement | None = None) -> int:
    """Run `nika run` end to end; returns the exit status. Every started run writes its
    journal (17); `extra_sinks` are attached to the bus after it. `placement` is an
    embedder's own (a `RayPlacement` on a cluster it joined); None: `options.executor`'s."""
    env = dict(os.environ if environ is None else environ)
    try:
        named = preflight.arguments(
            preflight.Arguments(options.file, options.report, options.model, options.mcp_config),
            env, Path.cwd())
    except NikaError as exc:  # the report target itself may be what is wrong: none written
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        return EXIT_USAGE
    stdin = options.file == Path("-")  # `nika run -` reads the workflow as `nika check -` does
    try:
        source = read_source(str(options.file))  # guarded: never a FIFO, device, /dev/zero
    except NikaError as exc:
        if exc.code == codes.YAML_010:  # past the profile's cap: refused as the check says
            print_refusal(streams.err, streams.out, options.json, options.file, refused([exc]), b"")
            views.refused([exc])
            return EXIT_FAILURE
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        views.refused([])
        return EXIT_USAGE
    checked = check_workflow(source, path=None if stdin else str(options.file))
    verdict, workflow = checked.verdict, checked.runnable  # the model the check judged
    if workflow is None:
        print_refusal(streams.err, streams.out, options.json, options.file, verdict,
                      source)
        views.refused(verdict.errors)
        return EXIT_FAILURE
    try:
        supplied = dict(parse_var(v) for v in options.vars)
        inputs = _boot.Bound(  # the values, who gave each (04), and the spend cap (13)
            bind_inputs(workflow.inputs, supplied, env),
            _boot.origins(workflow.inputs, supplied, env, terminal=_boot.terminal()),
            SpendCap(options.max_cost_usd) if options.max_cost_usd is not None else None)
        registry = named
        if _uses_mcp(workflow) and registry is None:
            registry = load_registry(Path.cwd(), environ=env)
    except NikaError as exc:
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        views.refused([exc])
        return EXIT_USAGE
    try:  # the lock holds, or the run says what drifted (nika.journal.lock's matrix)
        held = judge(options.file, workflow, registry, locked=options.locked,
                     model=options.model)
    except NikaError as exc:
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        views.refused([exc])
        return EXIT_FAILURE
    if (drifted := warning(held)) is not None:
        streams.err.write(f"nika run: {printable(drifted)}\n")
    try:
        secrets = resolve_secrets(workflow.secrets, environ=env, base_dir=options.file.parent)
        if options.executor == "local" and placement is None:  # a Ray worker has its own env
            preflight.credentials(workflow, options.model or workflow.model, env, secrets)
    except NikaError as exc:
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        views.refused([exc])
        return EXIT_FAILURE
    try:
        answers = resume_answers(options, workflow)
        plan = resume_plan(options, workflow)
    except ResumeRefusal as refusal:
        streams.err.write(f"nika run: {refusal.error.code}: {printable(refusal.error.detail)}\n")
        views.refused([refusal.error])
        return refusal.exit_code
    for notice in plan.notices if plan is not None else ():
        streams.err.write(f"nika run: {printable(notice)}\n")
    executor = contextlib.ExitStack()
    try:
        placement = executor.enter_context(
            _executor(options, env) if placement is None else contextlib.nullcontext(placement))
    except NikaError as exc:
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        views.refused([exc])
        return EXIT_USAGE if exc.code == codes.CLUSTER_003 else EXIT_FAILURE
    mask = Masker(secrets.values())
    replay = Replay(workflow, options.file.parent.resolve(), options.model or workflow.model, plan)
    traces = options.trace_dir or Path.cwd() / TRACE_DIR
    if not options.no_gc:  # maintenance rides usage (ADR-100 D2): one line when it acts
        swept = sweep(traces, Policy.from_env(env), time.time_ns(),
                      keep=(options.resume,) if options.resume is not None else ())
        if swept is not None:
            streams.err.write(swept + "\n")
    budget = inputs.budget
    journal = JournalSink(traces, mask=mask, manifest=manifest(
        source, workflow, semantic=replay.semantic(),
        extra=_boot.claims(plan, held.digest, budget)))
    sinks: list[EventSink] = [journal, *views.sinks()]
    sinks += [make(journal) for make in extra_sinks]
    bus = EventBus(sinks=sinks + ([budget] if budget is not None else []), mask=mask)
    mcp_servers = registry if _uses_mcp(workflow) else None
    children = ChildGuard()
    line = JournalLine(streams.err, journal)
    stop = Stop(lambda _signum: _force_exit(bus, stop, workflow, line))

    def execute() -> RunResult:
        return asyncio.run(_run(options, workflow, inputs, secrets, mask, bus, env, replay,
                                answers, mcp_servers, placement, stop, children))

    try:
        return _settle(options, streams, views, workflow, executor, bus, line, stop, execute,
                       mask, children)
    except BaseException:  # a crash, in the run or after it, still names the record it left
        line.say()
        raise


def _settle(options: RunOptions, streams: Streams, views: RunViews, workflow: Workflow,
            executor: contextlib.ExitStack, bus: EventBus, line: JournalLine, stop: Stop,
            execute: Callable[[], RunResult], mask: Masker, children: ChildGuard) -> int:
    """Run the workflow (`execute`), then say how it ended; returns the exit status."""
    try:
        with executor:
            result = execute()
    finally:
        children.close()  # stragglers (a background grandchild) go with the run
    bus.close()
    views.finished(result, mask, bus.failures)
    if options.output == "json":
        if result.state == "success":
            streams.out.write(json_printable(loose_json(mask(dict(result.outputs)))) + "\n")
    elif not options.json and workflow.outputs and result.state == "success":
        streams.out.write(json_printable(loose_json(mask(dict(result.outputs)))) + "\n")
    if result.state == "failure":
        print_failure(streams.err, result)
    line.say()
    for failure in bus.failures:
        streams.err.write(f"nika run: sink {failure.sink} failed at {failure.stage}: "
                          f"{printable(str(failure.error))}\n")
    for task, prompt in result.paused.items():
        streams.err.write(f"nika run: paused at {task!r}: {printable(str(prompt.get('message')))}"
                          f" — resume with: nika run {shown(options.file)} --resume "
                          f"{shown(line.path) if line.path else 'JOURNAL'} "
                          f"--answer {task}=VALUE\n")
    if result.state == "cancelled" and stop.received is not None:
        return exit_code(stop.received)
    if result.state == "cancelled" and options.max_cost_usd is not None:
        return EXIT_FAILURE  # no signal came: the budget stopped the run (13 · cause budget)
    return {"success": EXIT_OK, "failure": EXIT_FAILURE, "cancelled": EXIT_CANCELLED,
            "paused": EXIT_PAUSED}[result.state]


def _force_exit(bus: EventBus, stop: Stop, workflow: Workflow, line: JournalLine) -> None:
    """The second signal: no more waiting. The journal gets its terminal frame unless the
    runner already wrote one, and its path is said; the watchdog takes the children down once
    we are gone."""
    if not stop.settled:
        bus.emit(WorkflowEnded(workflow=workflow.name, state="cancelled", forced=True,
                               signal=signal.Signals(stop.received or signal.SIGTERM).name))
    bus.close()
    line.say()
    os._exit(exit_code(stop.received or signal.SIGTERM))


def _executor(options: RunOptions,
              env: Mapping[str, str]) -> contextlib.AbstractContextManager[Placement]:
    if options.executor != "ray":
        return contextlib.nullcontext(LOCAL)
    from nika.run.cluster import RayConfig, ray_placement

    return ray_placement(RayConfig.from_env(env, options.ray_address),
                         mcp_config=str(options.mcp_config) if options.mcp_config else None)


def _uses_mcp(workflow: Workflow) -> bool:
    return any(needs_mcp(task) for task in workflow.tasks.values())


async def _run(options: RunOptions, workflow: Workflow, inputs: _boot.Bound,
               secrets: Mapping[str, str], mask: Masker, bus: EventBus,
               env: Mapping[str, str], replay: Replay, answers: Mapping[str, str],
               registry: McpRegistry | None, placement: Placement, stop: Stop,
               children: ChildGuard) -> RunResult:
    loop = asyncio.get_running_loop()
    stop.install(loop)  # from here on, a signal is a clean stop, never a default kill
    try:
        return await _serve(options, workflow, inputs, secrets, mask, bus, env, replay,
                            answers, registry, placement, stop, children)
    finally:
        stop.remove(loop)


async def _serve(options: RunOptions, workflow: Workflow, inputs: _boot.Bound,
                 secrets: Mapping[str, str], mask: Masker, bus: EventBus,
                 env: Mapping[str, str], replay: Replay, answers: Mapping[str, str],
                 registry: McpRegistry | None, placement: Placement, stop: Stop,
                 children: ChildGuard) -> RunResult:
    async with contextlib.AsyncExitStack() as stack:
        mcp: McpExecutor | None = None
        if registry is not None:
            from nika.tools.mcp import McpExecutor

            mcp = await stack.enter_async_context(McpExecutor(registry, child_env=children.env))

        def provider(model: str, timeout: float | None) -> Provider:
            return resolve_provider(model, env=env, secrets=secrets, timeout=timeout)

        def tools_for(
            wf: Workflow, gate: PermitGate, events: EventBus
        ) -> Callable[[str], ToolExecutor]:
            return Toolbox(wf, gate, base_dir=Path.cwd(), mask=mask, bus=events, mcp=mcp,
                           prompt_io=TerminalPromptIO.if_tty(), environ=env).for_task

        gate = PermitGate(workflow, bus)
        providers = ProviderPool(provider)
        stack.push_async_callback(providers.aclose)  # SDK connection pools end with the run
        services = RunServices(
            workflow=workflow, workflow_dir=options.file.parent.resolve(),
            base_dir=Path.cwd(), environ=env, secrets=secrets, mask=mask, bus=bus,
            gate=gate, tools=tools_for(workflow, gate, bus), mcp=mcp,
            providers=providers, model=options.model or workflow.model,
            answers=answers, pausable=True, children=children, budget=inputs.budget,
        )

        async def child(path: Path, args: Mapping[str, Any], unit: UnitAttempt,
                        depth: int = 1, into: EventBus = bus, caller: PermitGate = gate,
                        above: RunServices = services, plan: ResumePlan | None = replay.plan,
                        ) -> Any:
            if depth > MAX_DEPTH:
                raise NikaError(codes.SEC_003, f"child workflow {str(path)!r} nests deeper "
                                f"than {MAX_DEPTH} levels; break the recursion",
                                details={"workflow": str(path), "depth": depth})
            checked = check_workflow(read_source(str(path)), path=str(path))
            sub = checked.runnable
            if sub is None:
                first = checked.verdict.errors[0]
                raise NikaError(first.code, f"child workflow {str(path)!r} is refused by the "
                                f"check: {first.detail}", category=first.category,
                                details={"workflow": str(path)})
            # The child's frames join the invoking run's bus (`into`), nested under `unit`.
            child_bus = EventBus(sinks=[ChildFrames(into, unit)], clock=bus.clock, mask=mask)
            sub_gate = PermitGate(sub, child_bus, caller=caller)  # own permits ∩ the caller's
            # A prompt in the child pauses the run as one at the top does, named by `unit`.
            sub_services = dataclasses.replace(
                above, workflow=sub, workflow_dir=path.parent.resolve(), gate=sub_gate,
                tools=tools_for(sub, sub_gate, child_bus), bus=child_bus,
                model=sub.model or above.model, answers=child_answers(above.answers, unit.path))
            # Resuming, the child serves its own settled tasks from the journal.
            sub_plan = plan.within(unit.path, unit.task) if plan is not None else None
            outcome = await Runner(
                sub_services, inputs=bind_inputs(sub.inputs, args, env),
                concurrency=options.concurrency, placement=placement,
                replay=Replay(sub, sub_services.workflow_dir, sub_services.model, sub_plan,
                              replay.closure),
                child=lambda p, a, u: child(p, a, u, depth + 1, child_bus, sub_gate,
                                            sub_services, sub_plan),
            ).run()
            if outcome.state == "paused":
                raise PauseRequested(outcome.paused).within(unit.path)
            if outcome.state == "cancelled" and cancelled_by(outcome.error):
                # the cap stopped the child: its caller settles cancelled(budget) too
                raise NikaError(codes.RUN_1704, f"child workflow {str(path)!r} was stopped: "
                                f"{outcome.error.detail}", details={"workflow": str(path)})
            if outcome.state != "success":
                failed = next((r.error for r in outcome.records.values()
                               if r.status == "failure" and r.error), outcome.output_error)
                if failed is not None:
                    raise NikaError(failed.code, f"child workflow {str(path)!r} failed: "
                                    f"{failed.detail}", category=failed.category,
                                    details={"workflow": str(path)})
            return dict(outcome.outputs)

        runner = Runner(services, inputs=inputs.values, concurrency=options.concurrency,
                        child=child, replay=replay, placement=placement,
                        origins=inputs.origins)
        stop.attach(runner.cancel)
        result = await runner.run()
        stop.settled = True  # the terminal frame is written: a forced exit adds none
        return result

