"""What a run's model calls cost, summed the one way the trace page shows it: every verb's
calls (an `infer:` call's `cost_incurred` and an agent turn's `model_called` alike), priced
at the engine's table (`nika.prices.call_cost`). A call the table cannot price is counted as
unpriced, never as $0 (07 §the spend-honesty law)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from nika.prices import call_cost


@dataclass(slots=True)
class Spend:
    """Model calls summed: tokens (a call without reported usage adds none), the priced USD
    total, and how many calls have no price with the first reason why."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: Decimal = Decimal(0)
    unpriced: int = 0
    why: str | None = None
    """Why the first unpriced call has no price (`unbilled provider 'mock'`, …)."""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, model: str | None, input_tokens: int | None,
            output_tokens: int | None) -> Decimal | str:
        """Count one call; returns its cost, or why it has none."""
        self.calls += 1
        self.input_tokens += input_tokens or 0
        self.output_tokens += output_tokens or 0
        cost = (call_cost(model, input_tokens, output_tokens) if model is not None
                else "model unrecorded")
        if isinstance(cost, str):
            self.unpriced += 1
            self.why = self.why or cost
        else:
            self.usd += cost
        return cost

    def reported(self, dollars: Decimal) -> None:
        """Count a tool's own reported spend (real dollars, no model call)."""
        self.usd += dollars

    def merge(self, other: Spend) -> None:
        """Add `other`'s calls to these."""
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.usd += other.usd
        self.unpriced += other.unpriced
        self.why = self.why or other.why


def usd(amount: Decimal) -> str:
    """`$0.0125`, `$0.000250`: four decimals from a cent up, six below (a cheap call still
    shows its digits)."""
    return f"${amount:,.4f}" if amount >= Decimal("0.01") else f"${amount:.6f}"
