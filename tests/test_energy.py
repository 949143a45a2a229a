"""The energy rate table: only sourced, dated, scoped figures enter (07 law 5)."""

from __future__ import annotations

import json

import pytest

from nika.energy import PROVENANCES, SCOPES, energy_of, is_local, parse_table

ROW = {"wh_per_mtok_out": 10.0, "provenance": "independent-measured", "scope": "gpu",
       "measured_at": "2025-12", "source": "a lab"}


def _table(**row: object) -> str:
    return json.dumps({"models": {"p/m": {**ROW, **row}}})


def test_the_shipped_table_reads_and_every_row_carries_its_axes() -> None:
    rate = energy_of("groq/qwen/qwen3-32b")
    assert rate is not None and rate.wh_per_mtok_out == 86.6
    assert (rate.provenance, rate.scope, rate.measured_at) == ("independent-measured", "gpu",
                                                               "2025-12")
    assert energy_of("anthropic/claude-sonnet-4") is None  # no sourced figure: unpriced


@pytest.mark.parametrize("bad", [
    {"wh_per_mtok_out": 0}, {"wh_per_mtok_out": -1}, {"wh_per_mtok_out": "12"},
    {"provenance": "a guess"}, {"scope": "planet"}, {"measured_at": "recently"},
    {"measured_at": None}, {"source": " "},
])
def test_a_row_without_a_figure_origin_scope_or_date_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        parse_table(_table(**bad))


def test_the_vocabularies_are_the_spec_s() -> None:
    assert PROVENANCES == ("measured-local", "independent-measured", "vendor-claim",
                           "independent-estimate")
    assert SCOPES == ("gpu", "device", "fleet")
    assert is_local("ollama/llama3") and not is_local("groq/qwen/qwen3-32b")
