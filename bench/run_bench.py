"""The runtime scheduler's per-task overhead and peak memory.

Run: .venv/bin/python bench/run_bench.py

Two scenarios, each a real `Runner` over a real `nika:emit` builtin (`BuiltinExecutor`),
events flowing through the bus into the report's event log:

- fan-out/fan-in: 1,000 independent `nika:emit` tasks plus one task folding all of them
  (`after: {…: success}` × 1,000);
- for_each: one task fanning `nika:emit` over 10,000 items.

Figures are CPU time of this process (`time.process_time`, so other load on a shared machine
does not inflate them) divided by the task (or iteration) count, best of several runs; the
peak is the tracemalloc peak of one run (parse and check excluded: only the run is traced).
"""

from __future__ import annotations

import asyncio
import random
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from nika.check.graph import derive
from nika.providers.mock import MockProvider
from nika.runtime.bus import EventBus
from nika.runtime.permits import PermitGate
from nika.runtime.report import EventLog
from nika.runtime.runner import Runner, RunResult
from nika.runtime.secrets import Masker
from nika.runtime.services import ProviderPool, RunServices
from nika.runtime.toolbox import Toolbox
from nika.syntax.loader import load_document
from nika.syntax.model import Workflow, build_workflow

EMIT = "invoke: { tool: nika:emit, args: { event_type: bench.tick } }"


def fan_out_in(n: int) -> str:
    lines = ["nika: bench-fan", "tasks:"]
    lines += [f"  leaf_{i}:\n    {EMIT}" for i in range(n)]
    after = ", ".join(f"leaf_{i}: success" for i in range(n))
    lines.append(f"  fold:\n    after: {{ {after} }}\n    {EMIT}")
    return "\n".join(lines) + "\n"


def for_each(n: int) -> str:
    return (f"nika: bench-map\nconst:\n  items: {list(range(n))}\ntasks:\n  each:\n"
            f"    for_each: {{ items: \"${{{{ const.items }}}}\" }}\n    {EMIT}\n")


def build(text: str) -> Workflow:
    workflow, findings = build_workflow(load_document(text))
    assert workflow is not None and not findings, findings[:3]
    return workflow


def runner_for(workflow: Workflow) -> Callable[[], Runner]:
    graph = derive(workflow)

    def make() -> Runner:
        bus = EventBus(sinks=[EventLog()])
        gate = PermitGate(workflow, bus)
        toolbox = Toolbox(workflow, gate, base_dir=Path.cwd(), mask=Masker(), bus=bus)
        services = RunServices(
            workflow=workflow, workflow_dir=Path.cwd(), base_dir=Path.cwd(), environ={},
            secrets={}, mask=Masker(), bus=bus, gate=gate, tools=toolbox.for_task, mcp=None,
            providers=ProviderPool(lambda model, timeout: MockProvider()), model=None,
        )
        return Runner(services, inputs={}, rng=random.Random(0), graph=graph)

    return make


def measure(name: str, text: str, units: int, repeats: int = 3) -> None:
    make = runner_for(build(text))
    best = float("inf")
    result: RunResult | None = None
    for _ in range(repeats):
        runner = make()
        start = time.process_time()
        result = asyncio.run(runner.run())
        best = min(best, time.process_time() - start)
    assert result is not None and result.state == "success", result and result.state
    tracemalloc.start()
    asyncio.run(make().run())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{name:<34} {units:>6} units  total {best * 1000:8.1f} ms  "
          f"per unit {best / units * 1e6:7.1f} µs  peak {peak / 2**20:6.1f} MiB")


def main() -> None:
    measure("fan-out/fan-in (1,000 + 1 tasks)", fan_out_in(1000), 1001)
    measure("for_each (10,000 iterations)", for_each(10_000), 10_000)


if __name__ == "__main__":
    main()
