"""`nika run`: check first, then execute, then report — the one entry point the CLI calls.

A workflow the check refuses never starts and spends zero tokens: the verdict is printed and
the exit status is 1. Launch refusals (an undeclared `--var`, a missing required input, an
unreadable secret) stop before the first event as well. A started run streams its events
(`--json`: NDJSON on stdout; otherwise human progress on stderr and the `outputs` object on
stdout), writes `--report` when asked, and exits 0 (success) · 1 (failure) · 130 (SIGINT).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from nika._term import json_printable, printable
from nika.agent.seams import Provider, ToolExecutor
from nika.check import Verdict, check
from nika.check.render import render_human
from nika.errors import NikaError
from nika.providers import resolve_provider
from nika.runtime.bus import EventBus, EventSink
from nika.runtime.events import UnitAttempt
from nika.runtime.journal import TRACE_DIR, JournalSink, manifest
from nika.runtime.nested import ChildFrames
from nika.runtime.permits import PermitGate
from nika.runtime.progress import ProgressSink
from nika.runtime.report import EventLog, build_report, refused_report, to_json
from nika.runtime.runner import Runner, RunResult
from nika.runtime.secrets import Masker, resolve_secrets
from nika.runtime.services import ProviderPool, RunServices
from nika.runtime.stream import NdjsonSink
from nika.runtime.toolbox import Toolbox
from nika.runtime.values import bind_inputs, parse_var
from nika.runtime.verbs.agent import reachable_servers
from nika.syntax.loader import load_document
from nika.syntax.model import AgentBody, InvokeBody, Workflow, build_workflow
from nika.tools.builtins import TerminalPromptIO
from nika.tools.mcp_registry import McpRegistry, load_registry

if TYPE_CHECKING:
    from nika.tools.mcp import McpExecutor

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
EXIT_CANCELLED: Final = 130
MAX_DEPTH: Final = 8
"""How deep `invoke: workflow:` children may nest before `NIKA-SEC-003`."""

SinkFactory = Callable[[JournalSink], EventSink]
"""Builds an extra sink, given the run's journal (to join its frames: OpenTelemetry)."""


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


@dataclass(slots=True)
class Streams:
    """Where the run writes: stdout (results, `--json` events) and stderr (progress)."""

    out: TextIO
    err: TextIO


def run_command(options: RunOptions, streams: Streams,
                environ: Mapping[str, str] | None = None,
                extra_sinks: Sequence[SinkFactory] = ()) -> int:
    """Run `nika run` end to end; returns the exit status. Every started run writes its
    journal (17); `extra_sinks` are attached to the bus after it."""
    env = dict(os.environ if environ is None else environ)
    try:
        source = options.file.read_bytes()
    except OSError as exc:
        streams.err.write(f"nika run: cannot read {str(options.file)!r}: {exc.strerror or exc}\n")
        _write_report(options, refused_report([], Masker()))
        return EXIT_USAGE
    verdict = check(source, path=str(options.file))
    if not verdict.valid:
        _print_refusal(options, streams, verdict)
        _write_report(options, refused_report(verdict.errors, Masker()))
        return EXIT_FAILURE
    workflow = _model(source, str(options.file))
    try:
        inputs = bind_inputs(workflow.inputs, dict(parse_var(v) for v in options.vars), env)
        secrets = resolve_secrets(workflow.secrets, environ=env, base_dir=options.file.parent)
    except NikaError as exc:
        streams.err.write(f"nika run: {exc.code}: {printable(exc.detail)}\n")
        _write_report(options, refused_report([exc], Masker()))
        return EXIT_USAGE if exc.code.startswith("NIKA-INPUT") else EXIT_FAILURE
    mask = Masker(secrets.values())
    log = EventLog()
    journal = JournalSink(options.trace_dir or Path.cwd() / TRACE_DIR,
                          manifest=manifest(source, workflow), mask=mask)
    sinks: list[EventSink] = [log, journal, NdjsonSink(streams.out) if options.json
                              else ProgressSink()]
    sinks += [make(journal) for make in extra_sinks]
    bus = EventBus(sinks=sinks, mask=mask)
    result = asyncio.run(_run(options, workflow, inputs, secrets, mask, bus, env))
    bus.close()
    _write_report(options, build_report(result, log.entries, mask, bus.failures))
    if options.output == "json":
        if result.state == "success":
            streams.out.write(to_json(mask(dict(result.outputs))) + "\n")
    elif not options.json and workflow.outputs:
        streams.out.write(json_printable(to_json(mask(dict(result.outputs)))) + "\n")
    if journal.path is not None:
        torn = " · INCOMPLETE: a write failed" if journal.failed else ""
        streams.err.write(f"journal {_shown(journal.path)} · head {journal.head}{torn}\n")
    for failure in bus.failures:
        streams.err.write(f"nika run: sink {failure.sink} failed at {failure.stage}: "
                          f"{printable(str(failure.error))}\n")
    return {"success": EXIT_OK, "failure": EXIT_FAILURE, "cancelled": EXIT_CANCELLED}[result.state]


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _model(source: bytes, path: str) -> Workflow:
    workflow, findings = build_workflow(load_document(source, path=path))
    if workflow is None or findings:  # the check just passed the same bytes
        raise AssertionError("a checked workflow failed to build")
    return workflow


def _print_refusal(options: RunOptions, streams: Streams, verdict: Verdict) -> None:
    if options.json:
        streams.out.write(json_printable(verdict.to_json()) + "\n")
    else:
        streams.err.write(render_human(verdict, str(options.file)))
        streams.err.write("nika run: the workflow was refused by the check; nothing ran\n")


def _write_report(options: RunOptions, report: Mapping[str, Any]) -> None:
    if options.report is not None:
        options.report.write_text(to_json(report) + "\n", encoding="utf-8")


def _uses_mcp(workflow: Workflow) -> bool:
    """Can any task reach an MCP tool? (Loading the MCP client costs seconds of imports.)"""
    for task in workflow.tasks.values():
        body = task.body
        if isinstance(body, InvokeBody) and (body.workflow is not None
                                             or (body.tool or "").startswith("mcp:")):
            return True
        if isinstance(body, AgentBody) and body.tools:
            servers = reachable_servers(body.tools)
            if servers is None or servers:
                return True
    return False


def _registry(options: RunOptions, env: Mapping[str, str]) -> McpRegistry | None:
    try:
        return load_registry(Path.cwd(), explicit=options.mcp_config, environ=env)
    except NikaError:
        # A broken registry matters only to a task that calls an MCP tool; that task
        # fails with NIKA-MCP-001 / NIKA-INVOKE-001 naming the server.
        return None


async def _run(options: RunOptions, workflow: Workflow, inputs: Mapping[str, Any],
               secrets: Mapping[str, str], mask: Masker, bus: EventBus,
               env: Mapping[str, str]) -> RunResult:
    registry = _registry(options, env) if _uses_mcp(workflow) else None
    async with contextlib.AsyncExitStack() as stack:
        mcp: McpExecutor | None = None
        if registry is not None:
            from nika.tools.mcp import McpExecutor

            mcp = await stack.enter_async_context(McpExecutor(registry))

        def provider(model: str, timeout: float | None) -> Provider:
            return resolve_provider(model, env=env, secrets=secrets, timeout=timeout)

        def tools_for(
            wf: Workflow, gate: PermitGate, events: EventBus
        ) -> Callable[[str], ToolExecutor]:
            return Toolbox(wf, gate, base_dir=Path.cwd(), mask=mask, bus=events, mcp=mcp,
                           prompt_io=TerminalPromptIO.if_tty()).for_task

        gate = PermitGate(workflow, bus)
        providers = ProviderPool(provider)
        stack.push_async_callback(providers.aclose)  # SDK connection pools end with the run
        services = RunServices(
            workflow=workflow, workflow_dir=options.file.parent.resolve(),
            base_dir=Path.cwd(), environ=env, secrets=secrets, mask=mask, bus=bus,
            gate=gate, tools=tools_for(workflow, gate, bus), mcp=mcp,
            providers=providers, model=options.model or workflow.model,
        )

        async def child(path: Path, args: Mapping[str, Any], unit: UnitAttempt,
                        depth: int = 1, into: EventBus = bus) -> Any:
            if depth > MAX_DEPTH:
                raise NikaError("NIKA-SEC-003", f"child workflow {str(path)!r} nests deeper "
                                f"than {MAX_DEPTH} levels; break the recursion",
                                details={"workflow": str(path), "depth": depth})
            source = path.read_bytes()
            verdict = check(source, path=str(path))
            if not verdict.valid:
                first = verdict.errors[0]
                raise NikaError(first.code, f"child workflow {str(path)!r} is refused by the "
                                f"check: {first.detail}", category=first.category,
                                details={"workflow": str(path)})
            sub = _model(source, str(path))
            # The child's frames join the invoking run's bus (`into`), nested under `unit`.
            child_bus = EventBus(sinks=[ChildFrames(into, unit)], clock=bus.clock, mask=mask)
            sub_gate = PermitGate(sub, child_bus)
            sub_services = dataclasses.replace(
                services, workflow=sub, workflow_dir=path.parent.resolve(), gate=sub_gate,
                tools=tools_for(sub, sub_gate, child_bus),
                bus=child_bus, model=sub.model or services.model)
            outcome = await Runner(
                sub_services, inputs=bind_inputs(sub.inputs, args, env),
                concurrency=options.concurrency,
                child=lambda p, a, u: child(p, a, u, depth + 1, child_bus),
            ).run()
            if outcome.state != "success":
                failed = next((r.error for r in outcome.records.values()
                               if r.status == "failure" and r.error), outcome.output_error)
                if failed is not None:
                    raise NikaError(failed.code, f"child workflow {str(path)!r} failed: "
                                    f"{failed.detail}", category=failed.category,
                                    details={"workflow": str(path)})
            return dict(outcome.outputs)

        runner = Runner(services, inputs=inputs, concurrency=options.concurrency, child=child)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, runner.cancel)
        try:
            return await runner.run()
        finally:
            loop.remove_signal_handler(signal.SIGINT)

