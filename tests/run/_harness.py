"""Drive the real runtime from workflow text, with test doubles only at the seams."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from nika.agent.executors import InMemoryExecutor
from nika.agent.fakes import definition
from nika.agent.seams import Provider, ToolExecutor
from nika.errors import NikaError
from nika.journal.bus import EventBus, RunEvent
from nika.journal.records import RunResult
from nika.journal.verify import TraceVerdict, read_journal, verify
from nika.journal.wire import wire
from nika.masking import Masker
from nika.providers.mock import MockProvider
from nika.run.permits import PermitGate
from nika.run.runner import Runner
from nika.run.services import ProviderPool, RunServices
from nika.run.values import bind_inputs
from nika.syntax.loader import load_document
from nika.syntax.model import Workflow, build_workflow

RESEARCH_AGENT: Final = """\
model: mock/echo
permits:
  tools: ["nika:done"]
tasks:
  research:
    agent:
      tools: ["nika:done"]
      max_turns: 3
      prompt: "Research the topic"
"""
"""A workflow body (after its `nika:` name line) with one agent task on the mock provider."""


class Recorder:
    """An event sink that keeps every event."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def emit(self, event: RunEvent) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass

    def kinds(self, task: str | None = None) -> list[str]:
        return [e.kind for e in self.events if task is None or e.task == task]


def wire_fields(event: RunEvent) -> dict[str, Any]:
    """An event's fields as the journal and `--json` write them (the one serializer)."""
    return dict(wire(event.frame))


class FixedClock:
    """A clock that advances one millisecond per reading: durations are deterministic."""

    def __init__(self) -> None:
        self.ns = 1_700_000_000_000_000_000

    def now_ns(self) -> int:
        self.ns += 1_000_000
        return self.ns

    def monotonic(self) -> float:
        return self.ns / 1e9


def _assert_tool(args: Mapping[str, Any]) -> Any:
    if args.get("condition") is not True:
        raise NikaError("NIKA-BUILTIN-ASSERT-001", str(args.get("message", "assertion failed")))
    return True


def _flaky(state: dict[str, int], failures: int) -> Callable[[Mapping[str, Any]], Any]:
    def call(args: Mapping[str, Any]) -> Any:
        state["calls"] = state.get("calls", 0) + 1
        if state["calls"] <= failures:
            raise NikaError("NIKA-MCP-002", "transient blip", transient=True)
        return {"calls": state["calls"]}
    return call


def tools(extra: Iterable[tuple[Any, Any]] = ()) -> InMemoryExecutor:
    """nika:emit / nika:log / nika:assert doubles plus `extra` (definition, function) pairs."""
    base = [
        (definition("nika:emit", parameters={"type": "object"}), lambda a: dict(a)),
        (definition("nika:log", parameters={"type": "object"}), lambda a: None),
        (definition("nika:assert", parameters={"type": "object"}), _assert_tool),
    ]
    return InMemoryExecutor([*base, *extra])


def workflow(text: str) -> Workflow:
    wf, findings = build_workflow(load_document(text))
    assert wf is not None and not findings, findings
    return wf


def services(
    wf: Workflow,
    *,
    executor: ToolExecutor | None = None,
    provider: Provider | None = None,
    secrets: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[RunServices, Recorder]:
    recorder = Recorder()
    mask = Masker((secrets or {}).values())
    bus = EventBus(sinks=[recorder], clock=FixedClock(), mask=mask)
    ex = executor or tools()
    chosen = provider or MockProvider()
    return RunServices(
        workflow=wf, workflow_dir=base_dir or Path.cwd(), base_dir=base_dir or Path.cwd(),
        environ=dict(environ or {"PATH": "/usr/bin:/bin"}), secrets=dict(secrets or {}),
        mask=mask, bus=bus, gate=PermitGate(wf, bus), tools=lambda task: ex, mcp=None,
        providers=ProviderPool(lambda model, timeout: chosen), model=wf.model,
    ), recorder


async def no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


def run(
    text: str,
    *,
    inputs: Mapping[str, Any] | None = None,
    concurrency: int = 8,
    **kw: Any,
) -> tuple[RunResult, Recorder]:
    wf = workflow(text)
    svc, recorder = services(wf, **kw)

    async def go() -> RunResult:
        bound = bind_inputs(wf.inputs, inputs or {}, {})
        return await Runner(svc, inputs=bound, concurrency=concurrency, sleep=no_sleep,
                            rng=random.Random(0)).run()

    return asyncio.run(go()), recorder


def journal_verdict(project: Path) -> TraceVerdict:
    """The chain walk of the one journal a CLI run left under `project/.nika/traces`."""
    [journal] = (project / ".nika" / "traces").glob("*.ndjson")
    return verify(read_journal(journal))
