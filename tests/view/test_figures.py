"""The figures `trace show` prints: sizes, tokens, dollars (never a made-up $0), durations;
and a content value folded, shown whole, or marked as kept truncated by the journal."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from nika.journal.content import Captured
from nika.journal.ledger import Spend
from nika.view._show_content import FOLD_CHARS, content_label
from nika.view.figures import (
    cost_text,
    duration_text,
    size_text,
    spend_text,
    tokens_text,
    usd_text,
)


def test_sizes_tokens_and_durations() -> None:
    assert [size_text(n) for n in (812, 12_595, 4 << 20)] == ["812 B", "12.3 KiB", "4.0 MiB"]
    assert tokens_text(1000, None) == "1,000→? tokens"
    assert [duration_text(v) for v in (12.5, 840, 12_300, None)] == \
        ["12.5 ms", "840 ms", "12.3 s", "unrecorded"]


def test_money_is_dollars_or_unpriced_never_a_made_up_zero() -> None:
    assert [usd_text(v) for v in (Decimal("0.018"), 0.000123, Decimal(1))] == \
        ["$0.018", "$0.000123", "$1.00"]
    assert cost_text(Decimal("0.018")) == "$0.018" and cost_text("mock/echo") == "unpriced"
    assert spend_text(Spend()) == "no model call"
    assert spend_text(Spend(unpriced=Counter({"mock": 2}))) == "unpriced"
    assert spend_text(Spend(Decimal("0.036"), 2)) == "$0.036"
    assert spend_text(Spend(Decimal("0.036"), 2, Counter({"mock": 1}))) == \
        "$0.036 + 1 unpriced call"
    billed = Spend()
    billed.report(Decimal("0.07"))  # a tool's own bill: real dollars, though no model call
    assert spend_text(billed) == "$0.07"


def test_an_absurd_amount_is_spelt_plainly_and_never_raises() -> None:
    # An untrusted journal's figure: quantizing these to the micro-dollar would raise.
    assert [usd_text(v) for v in (1e300, 1e22, float("inf"), -float("inf"), float("nan"),
                                   Decimal("1E+40"))] == \
        ["$1e+300", "$1e+22", "$inf", "$-inf", "$nan", "$1e+40"]
    assert usd_text(Decimal("999999999.5")) == "$999999999.5"


def test_a_long_value_folds_to_its_first_line_and_its_size() -> None:
    long = Captured.of("first line\n" + "x" * FOLD_CHARS)
    assert content_label("reply", long, full=False) == \
        "[dim]reply[/] first line [dim]… (251 B, --full to show)[/]"
    assert content_label("reply", long, full=True).endswith("x" * FOLD_CHARS)
    assert content_label("reply", None, full=False) == "[dim]reply[/] unrecorded"


def test_a_value_the_journal_kept_truncated_says_so_and_escapes_what_it_shows() -> None:
    held = Captured("head[bold]\x1b", True, 70_000, "ab" * 32)
    shown = content_label("result", held, full=True)
    assert shown.startswith("[dim]result[/] head\\[bold]\\x1b")  # markup and ESC escaped
    assert "the journal kept the first 11 B of 68.4 KiB · sha256 abababababababab…" in shown
