"""`--max-cost-usd` (13 · cause `budget`): the run's spend cap, one object the whole run reads.

`SpendCap` is a bus sink folding every `cost_incurred` frame of the run (a child workflow's
calls arrive forwarded onto the root bus, so they count) and the one place that says whether
the cap is crossed. Once the priced spend exceeds it:

- the scheduler settles every task it has not started `cancelled` (`runner.py`);
- a unit not yet at its attempt — a `for_each` iteration, a retry, a child workflow's task —
  settles `cancelled` instead of starting (`execute.py`);
- an agent loop in flight finishes its current turn, then stops (the agent's `StopCheck`
  seam is this object's `__call__`).

All of them carry `NIKA-RUN-1704`, which makes the terminal frame's outcome cause `budget`;
the run ends `cancelled(budget)` only when one of them did — a run whose last call crossed the
cap with nothing left to start ends as its tasks did.
Work already under way completes and is counted: a model call is never abandoned half-paid.
Unpriced calls count nothing toward the cap; they are named on every frame instead.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeGuard

from nika import codes
from nika.errors import NikaError
from nika.journal.bus import RunEvent
from nika.journal.ledger import CostLedger


class SpendCap:
    """The cap and the spend it is judged against (an `EventSink` on the root bus)."""

    def __init__(self, cap: Decimal) -> None:
        self.cap = cap
        self._ledger = CostLedger()
        self._crossed: NikaError | None = None

    def emit(self, event: RunEvent) -> None:
        self._ledger.emit(event)

    def close(self) -> None:
        """Nothing to release: the figures are read while the run goes on."""

    def crossed(self) -> NikaError | None:
        """Why the spend is past the cap (the first reading that saw it, kept), or None."""
        if self._crossed is None and self._ledger.run.usd > self.cap:
            self._crossed = NikaError(
                codes.RUN_1704, f"the run spent ${self._ledger.run.usd:.6f}, past its "
                f"--max-cost-usd {self.cap} (in-flight work completed and is counted)")
        return self._crossed

    def __call__(self) -> NikaError | None:
        """The agent loop's `StopCheck`: the crossing, asked between turns."""
        return self.crossed()

    def manifest(self) -> dict[str, Any]:
        """The boot manifest's `budget` claim: the cap as a JSON number, in USD."""
        whole = self.cap == self.cap.to_integral_value()  # `5`, never `5.0`
        return {"max_cost_usd": int(self.cap) if whole else float(self.cap)}


def cancelled_by(error: NikaError | None) -> TypeGuard[NikaError]:
    """Whether `error` is the budget's cancellation (and not a failure to recover from)."""
    return error is not None and error.code == codes.RUN_1704
