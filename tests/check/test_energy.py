"""The energy reading of `nika check --json` (07 §the spend-honesty law)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nika.check import check

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "tests" / "runtime"


def energy(text: str) -> dict[str, Any]:
    verdict = check(text.encode())
    section: dict[str, Any] = verdict.sections["energy"]
    return section


def _fixtures() -> list[Path]:
    return sorted(p.parent for p in CORPUS.glob("energy/*/expected-energy.json"))


def _matches(want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _matches(v, got[k])
                                             for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            _matches(a, b) for a, b in zip(want, got, strict=True))
    if isinstance(want, float | int) and not isinstance(want, bool):
        return isinstance(got, float | int) and abs(got - want) <= 1e-9 * max(1, abs(want))
    return bool(want == got)


@pytest.mark.parametrize("fixture", _fixtures(), ids=lambda p: p.name)
def test_every_reference_workflow_reads_its_expected_energy(fixture: Path) -> None:
    expected = json.loads((fixture / "expected-energy.json").read_text(encoding="utf-8"))
    expected.pop("note", None)
    got = energy((fixture / "input.yaml").read_text(encoding="utf-8"))
    assert _matches(expected, got), json.dumps(got, indent=1)


HEAD = "nika: e\npermits: {}\ntasks:\n"


def test_a_ceiling_needs_a_cap_and_a_sourced_figure_and_carries_its_axes() -> None:
    got = energy(HEAD + "  a:\n    infer: { model: groq/openai/gpt-oss-20b, prompt: x, "
                 "max_tokens: 1000 }\n    retry: { max_attempts: 3 }\n")
    [row] = got["tasks"]
    assert row["per_call_tokens"] == 1000 and row["wh"] == pytest.approx(3 * 1000 * 7.9 / 1e6)
    assert (row["provenance"], row["scope"], row["measured_at"]) == (
        "independent-measured", "gpu", "2025-12")
    assert got["scope_subtotals"] == [["gpu", pytest.approx(0.0237)]]


def test_a_proven_empty_fan_out_is_never_run_and_gets_no_row() -> None:
    got = energy(HEAD + "  a:\n    for_each: { items: [] }\n    infer: { model: "
                 "groq/openai/gpt-oss-20b, prompt: \"x ${{ item }}\", max_tokens: 10 }\n")
    assert got["counts"]["never_runs"] == 1 and got["tasks"] == []
    nonempty = energy(HEAD + "  a:\n    for_each: { items: [1, 2] }\n    infer: { model: "
                      "groq/openai/gpt-oss-20b, prompt: \"x ${{ item }}\", max_tokens: 10 }\n")
    assert nonempty["counts"]["never_runs"] == 0 and len(nonempty["tasks"]) == 1


def test_unknown_stays_unknown_and_a_local_model_is_never_free() -> None:
    got = energy(HEAD + "  a:\n    infer: { model: ollama/llama3, prompt: x, max_tokens: 5 }\n"
                 "  b:\n    infer: { model: anthropic/claude-sonnet-4, prompt: x, "
                 "max_tokens: 5 }\n  c:\n    exec: { command: [echo] }\n")
    assert got["counts"] == {"total": 2, "uncapped": 0, "unpriced": 2, "unpriced_local": 1,
                             "never_runs": 0}
    assert got["tasks"] == [] and got["scope_subtotals"] == []


def test_a_fan_out_sized_at_run_time_has_no_number_so_it_is_uncapped() -> None:
    got = energy("nika: e\npermits: {}\ninputs:\n  xs: { type: { array: string } }\ntasks:\n  a:\n"
                 "    for_each: { items: \"${{ inputs.xs }}\" }\n    infer: { model: "
                 "groq/openai/gpt-oss-20b, prompt: \"x ${{ item }}\", max_tokens: 10 }\n")
    assert got["counts"]["uncapped"] == 1 and got["tasks"] == []


def test_the_human_reading_never_rounds_a_ceiling_down() -> None:
    from nika.check.render import render_human

    text = HEAD + "  a:\n    infer: { model: groq/qwen/qwen3-32b, prompt: x, max_tokens: 64000 }\n"
    shown = render_human(check(text.encode()), "e.yaml")
    assert "energy: gpu ≤ 5.6 Wh (output, worst case)" in shown
