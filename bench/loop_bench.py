"""The agent loop's own per-turn overhead, and whether it stays flat as the transcript grows.

Run: .venv/bin/python bench/loop_bench.py

Scenario (issue 3): T turns of one tool call each, then a final answer; a provider whose replies
are prebuilt; an in-memory executor with 50 definitions, all whitelisted (so the router ranks
them every turn). The loop's overhead is the time of `run_agent` minus the time spent inside
the provider and the executor, divided by the turns — CPU time of this process
(`time.process_time`), so other load on a shared machine does not inflate it. The ratio
T=200 / T=50 must stay ≤ 1.2 (no per-turn work proportional to the history).

Baseline, measured in the same run: a bare hand-written loop that only awaits the same
provider and executor (no routing, whitelist, guard, events, budgets) — the floor any loop
pays for the two awaits. A passthrough row (routing threshold raised above the universe)
separates the BM25 ranking's share from the rest of the loop; a spend-cap row passes the run's
`SpendCap` (never crossed) as the loop's `StopCheck`, asked before every turn. Each figure is
the best of several runs (other load on the machine only ever adds time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from nika.agent import (
    AgentConfig,
    AgentSpec,
    CallId,
    InMemoryExecutor,
    ModelRequest,
    ModelResponse,
    StopCheck,
    ToolCall,
    ToolDefinition,
    ToolName,
    ToolResult,
    run_agent,
)
from nika.agent.fakes import RecordingObserver
from nika.run.budget import SpendCap

TOOLS = 50
REPEATS = 9


def _definitions() -> list[ToolDefinition]:
    verbs = ["read", "write", "list", "search", "fetch", "parse", "index", "render", "sync", "diff"]
    objects = ["file", "issue", "page", "record", "branch"]
    return [
        ToolDefinition(
            ToolName(f"nika:{verb}_{obj}"),
            f"{verb.capitalize()} one {obj} by id and return its content as text.",
            {
                "type": "object",
                "required": ["id"],
                "properties": {"id": {"type": "string", "description": f"The {obj} id."}},
            },
            "builtin",
        )
        for verb in verbs
        for obj in objects
    ][:TOOLS]


class _Timed:
    """Prebuilt replies and a trivial executor, both timing themselves."""

    def __init__(self, replies: Sequence[ModelResponse]) -> None:
        self._replies = replies
        self._next = 0
        self.inside = 0.0
        defs = _definitions()
        self.executor = InMemoryExecutor((d, self._tool) for d in defs)

    @staticmethod
    def _tool(args: Mapping[str, Any]) -> ToolResult:
        return ToolResult(f"content of {args['id']}")

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.process_time()
        reply = self._replies[self._next]
        self._next += 1
        self.inside += time.process_time() - started
        return reply

    def definitions(self) -> Sequence[ToolDefinition]:
        return self.executor.definitions()

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        started = time.process_time()
        result = await self.executor.call(name, args)
        self.inside += time.process_time() - started
        return result


def _replies(turns: int) -> list[ModelResponse]:
    names = [d.name for d in _definitions()]
    replies = [
        ModelResponse(
            f"step {i}: reading the next item",
            (ToolCall(CallId(f"c{i}"), names[i % len(names)], {"id": f"item-{i}"}),),
            None,
            "tool_calls",
        )
        for i in range(turns)
    ]
    replies.append(ModelResponse("final answer", (), None, "end_turn"))
    return replies


async def _loop_cpu(turns: int, observed: bool, ranked: bool,
                    stop: StopCheck | None = None) -> float:
    """CPU seconds `run_agent` spends outside the provider and the executor."""
    fake = _Timed(_replies(turns))
    # A threshold above any universe (50 tools + the whitelisted intrinsics) passes all through.
    threshold = AgentConfig().route_threshold if ranked else 10**9
    spec = AgentSpec(prompt="Read every item and summarise.", model="mock/bench", tools=["nika:*"])
    started = time.process_time()
    await run_agent(
        spec,
        provider=fake,
        tools=fake,
        observer=RecordingObserver() if observed else None,
        config=AgentConfig(default_max_turns=turns + 1, route_threshold=threshold),
        stop=stop,
    )
    return time.process_time() - started - fake.inside


async def _capped_cpu(turns: int, observed: bool, ranked: bool) -> float:
    """`_loop_cpu` under a spend cap never crossed: the `StopCheck` asked before every turn."""
    return await _loop_cpu(turns, observed, ranked, stop=SpendCap(Decimal(1)))


async def _bare_cpu(turns: int, observed: bool, ranked: bool) -> float:
    fake = _Timed(_replies(turns))
    request = ModelRequest(model="mock/bench", system=None, messages=())
    started = time.process_time()
    while True:
        reply = await fake.complete(request)
        if not reply.tool_calls:
            break
        for tool_call in reply.tool_calls:
            await fake.call(tool_call.name, tool_call.args)
    return time.process_time() - started - fake.inside


def _per_turn(run: Any, turns: int, observed: bool, ranked: bool) -> tuple[float, float]:
    """(µs per tool turn, µs of per-run setup). A run answering at once is the setup;
    subtracting it leaves the marginal cost of the T tool turns. Each run is repeated and the
    fastest kept: on a shared machine other load only ever adds time."""
    zero = min(asyncio.run(run(0, observed, ranked)) for _ in range(REPEATS))
    full = min(asyncio.run(run(turns, observed, ranked)) for _ in range(REPEATS))
    return (full - zero) / turns * 1e6, zero * 1e6


def loop_overhead_us(turns: int, *, observed: bool = False, ranked: bool = True) -> float:
    """Median µs of the loop's own work per tool turn over a `turns`-turn run."""
    _per_turn(_loop_cpu, 5, observed, ranked)  # warm caches (regexes, imports)
    return _per_turn(_loop_cpu, turns, observed, ranked)[0]


def main() -> None:
    _per_turn(_loop_cpu, 5, False, True)  # warm caches (regexes, imports)
    rows = {
        "bare await loop (base)": (_bare_cpu, False, True),
        "run_agent, ranked routing": (_loop_cpu, False, True),
        "run_agent, ranked + observer": (_loop_cpu, True, True),
        "run_agent, ranked + spend cap": (_capped_cpu, False, True),
        "run_agent, passthrough routing": (_loop_cpu, False, False),
    }
    figures = {
        label: {t: _per_turn(run, t, observed, ranked) for t in (50, 200)}
        for label, (run, observed, ranked) in rows.items()
    }
    print(f"agent loop CPU overhead per tool turn ({TOOLS} tools, best of {REPEATS})")
    print(f"{'':34}{'T=50':>10}{'T=200':>10}{'200/50':>9}{'setup/run':>12}")
    for label, row in figures.items():
        (at50, setup), (at200, _) = row[50], row[200]
        print(f"{label:34}{at50:9.1f}µ{at200:9.1f}µ{at200 / at50:9.2f}{setup:11.0f}µ")
    ranked, passthrough = (
        figures["run_agent, ranked routing"],
        figures["run_agent, passthrough routing"],
    )
    ratio = ranked[200][0] / ranked[50][0]
    print(f"BM25 ranking share at T=200: {ranked[200][0] - passthrough[200][0]:.1f} µs/turn")
    print(f"flatness ratio T=200/T=50: {ratio:.2f} (must be <= 1.2)")
    base = figures["bare await loop (base)"][200][0]
    print(f"run_agent vs bare base at T=200: {ranked[200][0] / base:.1f}x")
    if ratio > 1.2:
        raise SystemExit("per-turn overhead grows with the transcript")


if __name__ == "__main__":
    main()
