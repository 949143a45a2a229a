"""The certificate section as a few human lines (the JSON is the section itself).

A total is printed as `≤ ceiling` only when the certificate proved one; otherwise as
`≥ floor` followed by the tasks that keep it from being a ceiling, each named once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from nika.check._bounds import MONEY_PLACES

_TOTALS: Final = (
    ("model_calls", "model calls"),
    ("tool_calls", "tool calls"),
    ("output_tokens", "output tokens"),
    ("cost_usd", "cost"),
)


def certificate_lines(cert: Mapping[str, Any]) -> list[str]:
    """`certificate:` and its indented lines."""
    verdict = "yes" if cert.get("terminates") else "NO"
    lines = ["certificate:", f"  terminates: {verdict} — {'; '.join(cert.get('reasons', []))}"]
    totals, rows = cert.get("total", {}), cert.get("tasks", {})
    lines.append(
        "  "
        + " · ".join(
            f"{label} {_bounded(key, totals.get(key, {}), rows)}" for key, label in _TOTALS
        )
    )
    lines.extend(f"  no ceiling for {u['task']} — {u['why']}" for u in cert.get("unbounded", []))
    lines.extend(
        f"  unpriced {u['task']} ({u['model']}) — {u['why']}" for u in cert.get("unpriced", [])
    )
    if cert.get("never_run"):
        lines.append(f"  never run: {', '.join(cert['never_run'])}")
    lines.extend(f"  where {name} = {meaning}" for name, meaning in cert.get("symbols", {}).items())
    return lines


def _bounded(key: str, total: Mapping[str, Any], rows: Mapping[str, Any]) -> str:
    money = key == "cost_usd"
    ceiling = total.get("ceiling")
    if ceiling is not None:
        return f"≤ {_figure(ceiling, money)}"
    open_ended = ", ".join(task for task, row in rows.items() if row.get(key) is None)
    return f"≥ {_figure(total.get('floor', 0), money)} (no ceiling: {open_ended})"


def _figure(value: Any, money: bool) -> str:
    if isinstance(value, float):
        value = f"{value:.{MONEY_PLACES}f}".rstrip("0").rstrip(".")
    elif isinstance(value, str) and money:
        value = f"({value})"
    return f"${value}" if money else str(value)


def energy_lines(energy: Mapping[str, Any]) -> list[str]:
    """The energy reading in one line (plus one per measured task): a ceiling per scope
    class, or no total at all when a task is uncapped — never 0 Wh for what is unknown."""
    counts, rows = energy.get("counts", {}), energy.get("tasks", [])
    if not counts.get("total"):
        return []
    if not rows:  # nothing to add up: say so plainly, never 0 Wh
        return ["  energy: not estimated — no measured Wh figure for this workflow's models"]
    parts = [f"{len(rows)} of {counts['total']} model tasks measured"]
    parts += [f"{counts[k]} {noun}" for k, noun in (("uncapped", "uncapped"),
                                                   ("unpriced", "unpriced"),
                                                   ("never_runs", "never run"))
              if counts.get(k)]
    subtotals = " · ".join(f"{scope} ≤ {_wh(wh)} Wh" for scope, wh in
                           energy.get("scope_subtotals", []))
    if counts.get("uncapped"):
        head = (f"no total ceiling (bounded portion {subtotals})" if subtotals
                else "no total ceiling")
    elif subtotals:
        head = f"{subtotals} (output, worst case)"
    else:
        head = "unpriced — no sourced Wh figure for these models, never 0 Wh"
    lines = [f"  energy: {head} · {' · '.join(parts)}"]
    lines.extend(f"    {r['task']} {r['model']} ≤ {_wh(r['wh'])} Wh ({r['provenance']} · "
                 f"{r['scope']} · {r['measured_at']})" for r in rows)
    return lines


def _wh(value: float) -> str:
    """A ceiling rounded up, never to zero (a zero would claim free inference)."""
    if value >= 1:
        return f"{math.ceil(value * 10) / 10:.1f}"
    return f"{math.ceil(value * 1000) / 1000:.3f}"
