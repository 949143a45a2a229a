"""The run's spend, folded from its `cost_incurred` frames (one per model call).

Each call is priced at the shipped rate table (`nika.prices.call_cost`) or counted unpriced
with its reason — never as zero (07 §the spend-honesty law). The ledger is a bus sink, so a
child workflow's calls (forwarded onto the parent's bus under `call/fetch`) count toward the
invoking task. The runner reads it to put `cost_usd` on each task's terminal frame and
`total_cost_usd` on the run's; `nika trace verify` re-prices the same frames to replay them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from nika.journal.bus import RunEvent
from nika.journal.frames import PricedCall, model_call
from nika.prices import call_cost


def top_task(task: str) -> str:
    """The workflow-level task a (possibly nested, possibly iterated) frame belongs to."""
    return task.split("/", 1)[0].split("[", 1)[0]


@dataclass(slots=True)
class Spend:
    """Priced dollars and unpriced calls (by reason) of one task or one run."""

    usd: Decimal = Decimal(0)
    priced: int = 0
    unpriced: Counter[str] = field(default_factory=Counter)

    def add(self, cost: Decimal | str) -> None:
        if isinstance(cost, Decimal):
            self.usd += cost
            self.priced += 1
        else:
            self.unpriced[cost] += 1

    @property
    def usd_figure(self) -> float | None:
        """The dollars a frame carries: only when some call was priced (never a made-up
        zero)."""
        return round(float(self.usd), 6) if self.priced else None

    @property
    def unpriced_count(self) -> int | None:
        return sum(self.unpriced.values()) if self.unpriced else None

    @property
    def unpriced_reasons(self) -> str | None:
        return "; ".join(sorted(self.unpriced)) if self.unpriced else None


def fold(calls: Iterable[PricedCall]) -> Spend:
    """Re-price model calls (a journal's `cost_incurred` frames, in `nika trace verify`)."""
    spend = Spend()
    for call in calls:
        spend.add(call_cost(*call))
    return spend


class CostLedger:
    """An `EventSink` keeping the spend of every task and of the whole run."""

    def __init__(self) -> None:
        self.run = Spend()
        self._tasks: dict[str, Spend] = {}

    def emit(self, event: RunEvent) -> None:
        call = model_call(event.frame)
        if call is None or event.task is None:
            return
        cost = call_cost(*call)
        self.run.add(cost)
        self._tasks.setdefault(top_task(event.task), Spend()).add(cost)

    def task(self, task: str) -> Spend | None:
        """The spend of `task`, None when it made no model call."""
        return self._tasks.get(task)

    def close(self) -> None:
        """Nothing to release: the figures are read during and after the run."""
