"""The figures a person reads off a journal: sizes, tokens, money, durations.

One spelling each, shared by `nika trace show`'s timeline and its totals, `nika trace ls`,
`nika trace verify`'s cost replay and the `--html` page (which adds only its markup). Money is
never made up: a call the price table cannot price reads `unpriced` (07 §the spend-honesty
law), and spend that is partly priced says how many calls it leaves out.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from nika.journal.decoded import ReadCostIncurred
from nika.journal.ledger import Counted, Spend


def size_text(size: int) -> str:
    """Bytes for a person: `812 B`, `12.3 KiB`, `4.0 MiB`."""
    if size < 1024:
        return f"{size} B"
    if size < 1 << 20:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1 << 20):.1f} MiB"


def tokens_text(input_tokens: int | None, output_tokens: int | None) -> str:
    """`1,000→2,000 tokens` (`?` for a count the journal lacks)."""
    def count(n: int | None) -> str:
        return "?" if n is None else f"{n:,}"
    return f"{count(input_tokens)}→{count(output_tokens)} tokens"


_PLAIN_FROM: Final = Decimal("1e15")
"""From here on an amount is spelt plainly (`$1e+300`): quantizing it to the micro-dollar would
pass the decimal context's 28 digits, and no real bill is that large."""


def usd_text(usd: Decimal | float) -> str:
    """Dollars to the micro-dollar the ledger keeps: `$0.018`, `$0.000123`. An untrusted
    journal's absurd figure never raises: `$1e+300`, `$inf`, `$nan` (spelt plainly)."""
    amount = Decimal(str(usd))
    if not amount.is_finite() or abs(amount) >= _PLAIN_FROM:
        return f"${float(amount):g}"
    text = f"{amount.quantize(Decimal('0.000001')):f}".rstrip("0")
    return "$" + (text + "00" if text.endswith(".") else text)


def cost_text(cost: Decimal | str) -> str:
    """One call's cost (`nika.prices.call_cost`): dollars, or `unpriced`."""
    return usd_text(cost) if isinstance(cost, Decimal) else "unpriced"


def counted_text(record: ReadCostIncurred, counted: Counted, model: str) -> str:
    """One `cost_incurred` frame's line, as `Spend.count` counted it: `spend M · $0.07
    (reported by the tool)` or `model M · 1,000→2,000 tokens · $0.018` (`model`: the record's,
    escaped for the caller's surface)."""
    if counted.tool and record.cost_usd is not None:
        why = "" if isinstance(counted.cost, Decimal) else f", {counted.cost}"
        return f"spend {model} · {usd_text(record.cost_usd)} (reported by the tool{why})"
    return (f"model {model} · {tokens_text(record.input_tokens, record.output_tokens)}"
            f" · {cost_text(counted.cost)}")


def spend_text(spend: Spend) -> str:
    """A task's or a run's spend: `$0.036`, `unpriced`, or `$0.018 + 1 unpriced call`."""
    unpriced = spend.unpriced_count or 0
    if not spend.priced:
        return "unpriced" if unpriced else "no model call"
    if not unpriced:
        return usd_text(spend.usd)
    return f"{usd_text(spend.usd)} + {unpriced} unpriced call{'s' if unpriced > 1 else ''}"


def duration_text(ms: float | None) -> str:
    """`12.5 ms`, `840 ms`, `12.3 s` (`unrecorded` when the journal lacks it)."""
    if ms is None:
        return "unrecorded"
    if ms < 100:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"
