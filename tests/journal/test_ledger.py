"""The spend fold: model calls priced at the table or counted unpriced, a tool's own reported
spend counted as its dollars (no model call), per task and per run."""

from __future__ import annotations

from decimal import Decimal

from nika.journal.bus import RunEvent
from nika.journal.decoded import ReadCostIncurred
from nika.journal.frames import CostIncurred
from nika.journal.ledger import NOT_COUNTED, CostLedger, Counted, Spend, fold


def test_a_call_is_priced_or_unpriced_with_why_never_zero() -> None:
    spend = Spend()
    assert spend.price("openai/gpt-4o", 1000, 500) == Decimal("0.0075")
    assert spend.price("mock/echo", 3, 6) == "unbilled provider 'mock'"
    assert spend.price(None, 1, 1) == "model unrecorded"
    assert (spend.calls, spend.priced, spend.tokens) == (3, 1, 1511)
    assert spend.usd == Decimal("0.0075")
    assert spend.unpriced_reasons == "model unrecorded; unbilled provider 'mock'"


def test_a_tools_reported_spend_is_dollars_but_no_model_call() -> None:
    spend = Spend()
    spend.report(Decimal("0.07"))
    assert (spend.calls, spend.priced, spend.reported, spend.tokens) == (0, 1, 1, 0)
    assert spend.usd_figure == 0.07 and spend.unpriced_count is None
    run = Spend()
    run.absorb(spend)
    run.absorb(spend)
    assert (run.calls, run.reported, run.usd) == (0, 2, Decimal("0.14"))


def test_the_replay_counts_the_journaled_tool_spend() -> None:
    spend = fold([("openai/gpt-4o", 1000, 500)], [Decimal("0.07")])
    assert (spend.calls, spend.priced, spend.usd) == (1, 2, Decimal("0.0775"))


def test_the_ledger_keeps_each_tasks_spend_and_the_runs() -> None:
    ledger = CostLedger()
    frames = [CostIncurred(task="draw[0]", model="nika:image_generate", input_tokens=None,
                           output_tokens=None, cost_usd=0.07),
              CostIncurred(task="ask", model="openai/gpt-4o", input_tokens=1000,
                           output_tokens=500)]
    for seq, frame in enumerate(frames):
        ledger.emit(RunEvent(seq, frame, 1_000_000 * seq))
    draw, ask = ledger.task("draw"), ledger.task("ask")
    assert draw is not None and ask is not None and ledger.task("idle") is None
    assert (draw.calls, draw.usd, ask.calls, ask.usd) == (0, Decimal("0.07"), 1,
                                                          Decimal("0.0075"))
    totals = ledger.totals(2_000_000)
    assert totals.total_cost_usd == 0.0775 and totals.unpriced_calls is None
    assert (totals.input_tokens, totals.output_tokens, totals.duration_ms) == (1000, 500, 2)


def test_count_folds_a_journaled_frame_once_for_every_view() -> None:
    spend = Spend()
    counted = [spend.count(ReadCostIncurred(model="nika:image_generate", cost_usd=cost))
               for cost in (0.07, 1e300, float("inf"), -1.0)]
    assert counted == [Counted(Decimal("0.07"), tool=True)] + [Counted(NOT_COUNTED, tool=True)] * 3
    assert spend.count(ReadCostIncurred(model="openai/gpt-4o", input_tokens=1000,
                                        output_tokens=500)) == Counted(Decimal("0.0075"),
                                                                       tool=False)
    assert (spend.calls, spend.reported, spend.usd) == (1, 1, Decimal("0.0775"))


def test_the_ledger_counts_no_absurd_reported_spend() -> None:
    ledger = CostLedger()
    for seq, cost in enumerate((1e300, 0.07)):
        ledger.emit(RunEvent(seq, CostIncurred(task="draw", model="nika:image_generate",
                                               input_tokens=None, output_tokens=None,
                                               cost_usd=cost), seq))
    assert ledger.run.usd == Decimal("0.07") and ledger.run.reported == 1
