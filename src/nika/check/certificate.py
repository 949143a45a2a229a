"""Rung: the termination and cost certificate (spec 07 §nika check · §the spend-honesty law).

Static resource analysis, zero execution, contributed as the `"certificate"` section:

- `terminates` with its `reasons`: the precedence graph is acyclic and no recovery await
  closes a cycle with it (`G_p ∪ E_r`), every `for_each`
  iterates a finite collection, every `agent:` loop stops within `max_turns` (default
  10), every retry within `max_attempts` — or false, naming what has no bound (a cycle,
  a child workflow this certificate does not compose). The claim is about the workflow's
  structure; how long one process or tool call takes is its `timeout:`'s business.
- per task (`tasks`) and in total: attempts (retries × iterations), model calls, tool
  calls, output tokens and USD, each a number, a formula over run-time symbols
  (`15 × |inputs.items|`, explained under `symbols`), or null with its why.
- the spend-honesty law: totals carry a `floor` (the bounded part: the worst case is at
  least this) and a `ceiling` (null unless every task is bounded and priced); every
  `unbounded` task is named once with its why, every `unpriced` one with its model; a
  fan-out over a provably empty collection is `never_run` and gets no row.

Figures are exact until rendered; dollars render at fixed places, ceilings rounded up
and floors down, so the JSON is byte-stable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from nika.check._bounds import Bound, total
from nika.check._quantities import Quantities
from nika.check._spend import DEFAULT_MAX_TURNS, TaskSpend, assess
from nika.check._suggest import chain_text
from nika.check.context import CheckContext, Finding, Section
from nika.check.energy import reading
from nika.check.graph import EdgeKind, Graph, derive
from nika.syntax.model import AgentBody, InvokeBody, Workflow

_RESOURCES = ("model_calls", "tool_calls", "output_tokens", "cost_usd")


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Contribute the `certificate` section and the `energy` reading of the same rows."""
    quantities = Quantities(ctx.workflow)
    rows = [assess(task, ctx.workflow, quantities) for task in ctx.workflow.tasks.values()]
    yield Section("certificate", _certificate(rows, quantities, ctx.graph()))
    yield Section("energy", reading(rows))


def certify(workflow: Workflow, graph: Graph | None = None) -> dict[str, Any]:
    """The certificate of `workflow` as a JSON-ready mapping (`graph`: its derived graphs,
    when the caller already holds them)."""
    quantities = Quantities(workflow)
    rows = [assess(task, workflow, quantities) for task in workflow.tasks.values()]
    return _certificate(rows, quantities, graph if graph is not None else derive(workflow))


def _certificate(rows: list[TaskSpend], quantities: Quantities, graph: Graph) -> dict[str, Any]:
    live = [row for row in rows if not row.never_runs]
    terminates, reasons = _termination(graph, live)
    return {
        "terminates": terminates,
        "reasons": reasons,
        "tasks": {str(row.task.id): _row(row) for row in live},
        "total": _totals(live),
        "unbounded": [
            {"task": str(row.task.id), "why": row.why["output_tokens"]}
            for row in live
            if row.spend == "unbounded"
        ],
        "unpriced": [
            {"task": str(row.task.id), "model": row.model, "why": row.why["cost_usd"]}
            for row in live
            if row.spend == "unpriced"
        ],
        "never_run": [str(row.task.id) for row in rows if row.never_runs],
        "symbols": dict(sorted(quantities.symbols.items())),
        "rates": {
            row.rate.model: {
                "input_usd_per_mtok": float(row.rate.input),
                "output_usd_per_mtok": float(row.rate.output),
                "source": row.rate.source,
                "as_of": row.rate.as_of,
            }
            for row in sorted(live, key=lambda r: r.rate.model if r.rate else "")
            if row.rate is not None and row.rate.billed
        },
    }


def _row(row: TaskSpend) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "verb": row.task.verb,
        "model": row.model,
        "iterations": row.iterations.render(),
        "attempts": row.attempts.render(),
        "spend": row.spend,
        "why": dict(sorted(row.why.items())),
    }
    for name in _RESOURCES:
        value: Bound | None = getattr(row, name)
        figures[name] = None if value is None else value.render(money=name == "cost_usd")
    return figures


def _totals(rows: list[TaskSpend]) -> dict[str, Any]:
    out: dict[str, Any] = {"attempts": total(r.attempts for r in rows).render()}
    for name in _RESOURCES:
        values: list[Bound | None] = [getattr(r, name) for r in rows]
        money = name == "cost_usd"
        known = total(v for v in values if v is not None)
        out[name] = {
            "floor": known.render(money=money, floor=True),
            "ceiling": known.render(money=money) if None not in values else None,
        }
    return out


def _termination(graph: Graph, rows: list[TaskSpend]) -> tuple[bool, list[str]]:
    failures = [f"cycle {chain_text(cycle, quote='')}" for cycle in graph.cycles()]
    failures += [
        f"recovery cycle {chain_text(cycle, quote='')}: `{edges[0].target}` recovers from "
        f"`{edges[0].source}`, which waits on it, so the recovery await never ends"
        + (f" ({_more(len(edges) - 1)} on it)" if len(edges) > 1 else "")
        for edges, cycle in graph.recovery_deadlocks()
    ]
    for row in rows:
        body = row.task.body
        if isinstance(body, InvokeBody) and body.workflow is not None:
            failures.append(
                f"task `{row.task.id}` invokes child workflow {body.workflow!r}, whose "
                "termination this certificate does not compose"
            )
        elif isinstance(body, AgentBody) and row.model_calls is None:
            failures.append(f"agent task `{row.task.id}`: {row.why['model_calls']}")
    if failures:
        return False, failures
    reasons = ["the precedence graph is acyclic"]
    if graph.of_kind(EdgeKind.RECOVERY):
        reasons.append("no recovery await closes a cycle (G_p ∪ E_r is acyclic)")
    fans = [r for r in rows if r.task.for_each is not None]
    if fans:
        reasons.append(
            "every for_each iterates a finite collection ("
            + _listing(fans, lambda r: str(r.iterations.render()))
            + ")"
        )
    agents = [r for r in rows if isinstance(r.task.body, AgentBody)]
    if agents:
        reasons.append("every agent loop stops within max_turns (" + _listing(agents, _turns) + ")")
    retried = [r for r in rows if r.task.retry is not None]
    if retried:
        reasons.append(
            "every retry stops within max_attempts ("
            + _listing(retried, lambda r: str(r.task.retry.max_attempts if r.task.retry else 1))
            + ")"
        )
    return True, reasons


def _turns(row: TaskSpend) -> str:
    body = row.task.body
    declared = body.max_turns if isinstance(body, AgentBody) else None
    return f"default {DEFAULT_MAX_TURNS}" if declared is None else str(declared)


def _listing(rows: Iterable[TaskSpend], show: Callable[[TaskSpend], str]) -> str:
    return ", ".join(f"{row.task.id}: {show(row)}" for row in rows)


def _more(n: int) -> str:
    return f"{n} more recovery edge{'s' if n > 1 else ''}"
