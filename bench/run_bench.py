"""The runtime scheduler's per-task overhead and peak memory, the journal's cost per task,
and the resume planning time.

Run: .venv/bin/python bench/run_bench.py

Two scheduler scenarios, each a real `Runner` over a real `nika:emit` builtin
(`BuiltinExecutor`), events flowing through the bus into the report's event log:

- fan-out/fan-in: 1,000 independent `nika:emit` tasks plus one task folding all of them
  (`after: {…: success}` × 1,000);
- for_each: one task fanning `nika:emit` over 10,000 items.

Figures are CPU time of this process (`time.process_time`, so other load on a shared machine
does not inflate them) divided by the task (or iteration) count, best of several runs; the
peak is the tracemalloc peak of one run (parse and check excluded: only the run is traced).

The journal rows run the fan-out again with the spec-17 journal attached, without and with
the fsync at task boundaries, and report WALL time (an fsync is I/O wait, not CPU) per task
against the journal-less run measured in the same process. The journal is written under the
working directory's `.nika/`, the filesystem real runs write to.

The resume row writes a real 10,000-task journal, then times what `nika run --resume` does
before its first task: judge the journal (the chain walk) and fold it into a plan
(`resume.load_plan`), then identify every task and look it up (`Replay`).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

from nika.check.graph import derive
from nika.journal._sync import fdatasync
from nika.journal.bus import EventBus, EventSink, RunEvent
from nika.journal.records import RunResult
from nika.journal.replay import Replay
from nika.journal.resume import load_plan
from nika.journal.writer import DURABLE_KINDS, JournalSink, manifest
from nika.masking import Masker
from nika.providers.mock import MockProvider
from nika.run.permits import PermitGate
from nika.run.runner import Runner
from nika.run.services import ProviderPool, RunServices
from nika.run.toolbox import Toolbox
from nika.syntax.loader import load_document
from nika.syntax.model import Workflow, build_workflow
from nika.view.report import EventLog

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


def runner_for(workflow: Workflow,
               sinks: Callable[[], Sequence[EventSink]] = lambda: ()) -> Callable[[], Runner]:
    graph = derive(workflow)

    def make() -> Runner:
        bus = EventBus(sinks=[EventLog(), *sinks()])
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


def journal_cost(n: int, scratch: Path, rounds: int = 7) -> None:
    workflow = build(fan_out_in(n))
    counter = iter(range(10**6))

    def journal(kind: type[JournalSink], sync: bool) -> Callable[[], Sequence[EventSink]]:
        return lambda: [kind(scratch / f"j{next(counter)}", sync=sync)]

    configs = [("no journal", runner_for(workflow)),
               ("journal, flush per frame", runner_for(workflow, journal(JournalSink, False))),
               ("journal + fsync thread (shipped)", runner_for(workflow,
                                                               journal(JournalSink, True))),
               ("journal + fsync inline on loop", runner_for(workflow,
                                                            journal(InlineSyncJournal, False)))]
    best = {name: (float("inf"), float("inf")) for name, _ in configs}
    for _ in range(rounds):  # interleaved, so machine load drifts over all configs alike
        for name, make in configs:
            runner = make()
            wall, cpu = time.perf_counter(), time.process_time()
            result = asyncio.run(runner.run())
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            assert result.state == "success", result.state
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    base = best["no journal"][0]
    for name, (wall, cpu) in best.items():
        print(f"{name:<34} {n + 1:>6} tasks  per task wall {wall / (n + 1) * 1e6:7.1f} µs  "
              f"cpu {cpu / (n + 1) * 1e6:7.1f} µs  wall ×{wall / base:5.2f} vs no journal")


class InlineSyncJournal(JournalSink):
    """The journal with its fsync on the event loop: the cost the syncer thread avoids."""

    def emit(self, event: RunEvent) -> None:
        super().emit(event)
        if event.kind in DURABLE_KINDS and self._file is not None:
            fdatasync(self._file.fileno())


def resume_planning(n: int, scratch: Path) -> None:
    text = fan_out_in(n - 1)
    workflow = build(text)
    sink = JournalSink(scratch / "resume", sync=False, manifest=manifest(text.encode(), workflow))
    result = asyncio.run(runner_for(workflow, lambda: [sink])().run())
    assert result.state == "success" and sink.path is not None
    graph = derive(workflow)
    best_load = best_hits = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        plan = load_plan(sink.path, graph)
        loaded = time.perf_counter()
        replay = Replay(workflow, Path.cwd(), None, plan)
        views = {t: r.view for t, r in result.records.items()}
        env = {"inputs": {}, "const": {}, "secrets": {}, "tasks": views}
        served = sum(replay.lookup(t, replay.definition(task), replay.inputs(task, env))
                     is not None for t, task in workflow.tasks.items())
        done = time.perf_counter()
        assert served == n, served
        best_load, best_hits = min(best_load, loaded - start), min(best_hits, done - loaded)
    size = sink.path.stat().st_size
    print(f"{'resume plan: walk + fold':<34} {n:>6} tasks  wall {best_load * 1000:8.1f} ms  "
          f"per task {best_load / n * 1e6:7.1f} µs  ({size / 2**20:.1f} MiB journal)")
    print(f"{'resume plan: identify + look up':<34} {n:>6} tasks  wall {best_hits * 1000:8.1f} ms"
          f"  per task {best_hits / n * 1e6:7.1f} µs")


def main() -> None:
    measure("fan-out/fan-in (1,000 + 1 tasks)", fan_out_in(1000), 1001)
    measure("for_each (10,000 iterations)", for_each(10_000), 10_000)
    root = Path.cwd() / ".nika"
    root.mkdir(exist_ok=True)  # the filesystem real journals go to (a tmpfs would lie)
    scratch = Path(tempfile.mkdtemp(prefix="bench-", dir=root))
    try:
        journal_cost(1000, scratch)
        resume_planning(10_000, scratch)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
