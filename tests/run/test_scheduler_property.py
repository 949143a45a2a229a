"""The scheduler's invariant over random DAGs: every task runs exactly once, after all of its
producers finished, and the concurrency bound is never exceeded."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.run._harness import run, tools

from nika.agent.fakes import definition


@st.composite
def dags(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], int]:
    n = draw(st.integers(min_value=1, max_value=12))
    edges = [(a, b) for b in range(n) for a in range(b)
             if draw(st.booleans()) and draw(st.booleans())]
    return n, edges, draw(st.integers(min_value=1, max_value=4))


def _text(n: int, edges: list[tuple[int, int]]) -> str:
    lines = ["nika: prop", "tasks:"]
    for b in range(n):
        lines.append(f"  t{b}:")
        producers = [a for a, bb in edges if bb == b]
        if producers:
            lines.append("    with:")
            lines += [f"      p{a}: \"${{{{ tasks.t{a}.output }}}}\"" for a in producers]
        lines.append(f"    invoke: {{ tool: nika:track, args: {{ id: t{b} }} }}")
    return "\n".join(lines) + "\n"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags())
def test_scheduler_invariant(case: tuple[int, list[tuple[int, int]], int]) -> None:
    n, edges, bound = case
    log: list[tuple[str, str]] = []
    live = {"now": 0, "peak": 0}

    async def track(args: Any) -> Any:
        live["now"] += 1
        live["peak"] = max(live["peak"], live["now"])
        log.append(("start", args["id"]))
        await asyncio.sleep(0)
        log.append(("end", args["id"]))
        live["now"] -= 1
        return args["id"]

    result, _ = run(_text(n, edges), concurrency=bound,
                    executor=tools([(definition("nika:track"), track)]))
    assert result.state == "success"
    starts = [t for kind, t in log if kind == "start"]
    assert sorted(starts) == sorted(f"t{i}" for i in range(n))  # each exactly once
    position = {(kind, t): i for i, (kind, t) in enumerate(log)}
    for a, b in edges:
        assert position[("end", f"t{a}")] < position[("start", f"t{b}")]
    assert live["peak"] <= bound
