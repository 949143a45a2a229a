"""Stall-guard cost per turn at W=16 and W=64, its compares, and the loop's own per-turn cost.

Run: .venv/bin/python bench/guard_bench.py
The baseline is the agent loop's per-turn overhead measured in the same run (bench/loop_bench.py),
so the printed ratio says what share of a turn the guard adds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from nika.agent.config import AgentConfig
from nika.agent.guard import StallGuard
from nika.agent.seams import CallId, ToolCall, ToolResult

TURNS = 2_000
REPEATS = 5


def _turns() -> list[tuple[list[ToolCall], list[ToolResult]]]:
    # Realistic-sized turns: one call with a few args, a ~1 KiB observation, no cycle.
    body = "x" * 1024
    return [
        (
            [ToolCall(CallId(f"c{i}"), "nika:read", {"path": f"src/file_{i}.py", "limit": 200})],
            [ToolResult(f"{i}:{body}")],
        )
        for i in range(TURNS)
    ]


def guard_cost(window: int) -> tuple[float, float]:
    """Median µs per recorded turn, and compares per turn."""
    turns = _turns()
    samples = []
    compares = 0
    config = AgentConfig(guard_window=window, max_reflections=0, stall_after=10**9)
    for _ in range(REPEATS):
        guard = StallGuard(config)
        start = time.perf_counter()
        for calls, results in turns:
            guard.record(calls, results)
        samples.append((time.perf_counter() - start) / TURNS * 1e6)
        compares = guard.compares
    return statistics.median(samples), compares / TURNS


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from loop_bench import loop_overhead_us

    loop_us = loop_overhead_us(50)
    print(f"loop overhead per turn (T=50, baseline): {loop_us:8.2f} µs")
    for window in (16, 64):
        cost, compares = guard_cost(window)
        print(
            f"guard W={window:<3} {cost:8.2f} µs/turn  {compares:5.1f} compares/turn "
            f"(bound W²/4 = {window * window // 4})  ratio to loop turn: {cost / loop_us:.3f}"
        )


if __name__ == "__main__":
    main()
