"""one-obvious-way/decide: an `infer:` asked to decide hints toward `nika:decide` (spec 11)."""

from __future__ import annotations

from collections.abc import Callable

from nika.check import check

Lints = Callable[..., list[tuple[str, str]]]
RULE = "one-obvious-way/decide"


def test_fires_on_a_prompt_that_asks_the_model_to_decide(lints: Lints) -> None:
    src = """
    nika: w
    model: mock/echo
    tasks:
      triage:
        infer:
          prompt: "Read the PR and Decide whether it ships: answer yes or no."
          schema: { type: object, properties: { ship: { enum: [yes, no] } } }
      gate:
        infer:
          system: "You decide refunds."
          prompt: "Refund?"
    """
    assert lints(src, RULE) == [(RULE, "triage"), (RULE, "gate")]


def test_silent_on_fact_extraction_and_on_interpolated_data(lints: Lints) -> None:
    src = """
    nika: w
    model: mock/echo
    inputs:
      ticket: { type: string, default: "please decide now" }
    tasks:
      facts:
        infer:
          prompt: "Extract the urgency fact (0 or 1) from: ${{ inputs.ticket }}"
      decided:
        infer:
          prompt: "Summarise the undecided items · the ONE decision this week needs."
    """
    assert lints(src, RULE) == []


def test_the_hint_names_the_bundle_shape() -> None:
    src = "nika: w\nmodel: mock/echo\ntasks:\n  t:\n    infer: { prompt: 'decide the route' }\n"
    verdict = check(src, lint=True)
    assert verdict.valid and verdict.lints is not None
    [hint] = [f for f in verdict.lints if f.rule == RULE]
    assert "nika:decide" in hint.fix and "« decide »" in hint.message
    assert hint.location is not None and hint.location.line == 4
