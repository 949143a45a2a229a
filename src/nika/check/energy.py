"""The energy reading of `nika check --json` (spec 07 §the spend-honesty law).

It reads the certificate's task rows — ONE classification for both spend rungs, so the
same task has the same shape on both — and states, per task that calls a model:

- a ceiling (`wh`) only where BOTH a proven token cap and a sourced figure exist: the cap ×
  iterations × attempts × Wh per million output tokens. The row carries the three axes
  without which two honest numbers are incomparable: `provenance`, `scope`, `measured_at`;
- `uncapped`: no number bounds its output tokens (no cap, or a fan-out sized at run time).
  Counted here, NAMED at cost (the certificate's `unbounded`) — once, not once per rung;
- `never_runs`: a fan-out over a provably empty collection — a proven zero, no row;
- `unpriced`: it will spend, and no sourced figure exists for its model — never 0 Wh;
  `unpriced_local` counts those on a local runtime (the operator's own watts).

Watt-hours sum within a scope class and never across one: `scope_subtotals` holds one
`[scope, wh]` pair per class, ordered by class name.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from nika.check._spend import TaskSpend
from nika.syntax.model import AgentBody, InferBody


def reading(rows: Iterable[TaskSpend]) -> dict[str, Any]:
    """The `energy` section over the certificate's rows."""
    counts = {"total": 0, "uncapped": 0, "unpriced": 0, "unpriced_local": 0, "never_runs": 0}
    tasks: list[dict[str, Any]] = []
    subtotals: dict[str, Fraction] = {}
    for row in rows:
        if not isinstance(row.task.body, InferBody | AgentBody):
            continue
        counts["total"] += 1
        tokens = row.output_tokens.constant if row.output_tokens is not None else None
        attempts = row.attempts.constant
        if tokens is None or attempts is None:
            counts["uncapped"] += 1
            continue
        if attempts == 0:
            counts["never_runs"] += 1
            continue
        model = row.model or ""
        from nika.energy import energy_of, is_local  # the sourced table, with the first model

        rate = energy_of(model) if model and "${{" not in model else None
        if rate is None:
            counts["unpriced"] += 1
            counts["unpriced_local"] += is_local(model)
            continue
        wh = tokens * Fraction(repr(rate.wh_per_mtok_out)) / 1_000_000
        subtotals[rate.scope] = subtotals.get(rate.scope, Fraction(0)) + wh
        tasks.append({"task": str(row.task.id), "model": model,
                      "per_call_tokens": int(tokens / attempts), "wh": float(wh),
                      "provenance": rate.provenance, "scope": rate.scope,
                      "measured_at": rate.measured_at, "source": rate.source})
    return {"counts": counts,
            "scope_subtotals": [[scope, float(wh)] for scope, wh in sorted(subtotals.items())],
            "tasks": tasks}
