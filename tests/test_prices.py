"""The shipped rate table and its two readers, `is_priced` and `price_of`."""

from __future__ import annotations

import json
from decimal import Decimal
from importlib.resources import files

import pytest

from nika.prices import UNBILLED_PROVIDERS, is_priced, parse_table, price_of
from nika.syntax.providers import PROVIDERS


def _shipped() -> str:
    return files("nika").joinpath("data/prices.json").read_text(encoding="utf-8")


def test_every_shipped_row_is_sourced_dated_and_billed() -> None:
    rows = parse_table(_shipped())
    assert len(rows) >= 10
    for model, price in rows.items():
        assert price.model == model and price.billed and price.as_of and price.source
        assert model.split("/")[0] in PROVIDERS
    assert "prices change" in json.loads(_shipped())["about"].lower()


def test_unbilled_providers_are_exactly_the_catalogs_local_and_mock_ones() -> None:
    assert {p.id for p in PROVIDERS.values() if p.local} == UNBILLED_PROVIDERS


@pytest.mark.parametrize("model", ["mock/echo", "ollama/llama3", "vllm/x"])
def test_an_unbilled_model_has_a_zero_rate_and_is_not_priced(model: str) -> None:
    price = price_of(model)
    assert price is not None and not price.billed and not is_priced(model)
    assert price.input == price.output == 0


def test_a_known_model_has_its_rate_and_a_dated_snapshot_falls_back_to_its_alias() -> None:
    price = price_of("openai/gpt-4o")
    assert price is not None and price.output == Decimal("10.00") and is_priced("openai/gpt-4o")
    assert price_of("openai/gpt-4o-2024-08-06") == price
    mini = price_of("openai/gpt-4o-mini")
    assert mini is not None and mini.output < price.output


@pytest.mark.parametrize("model", ["openai/gpt-novel", "nvidia/anything", "nosuch/model"])
def test_a_billed_model_without_a_row_is_unpriced_never_zero(model: str) -> None:
    assert price_of(model) is None and is_priced(model)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ({"input": 1, "output": 2, "source": "https://x"}, "as_of"),
        ({"input": 1, "output": 2, "as_of": "2025-06"}, "source"),
        ({"input": -1, "output": 2, "source": "s", "as_of": "2025-06"}, "non-negative"),
        ({"input": "1", "output": 2, "source": "s", "as_of": "2025-06"}, "non-negative"),
    ],
)
def test_a_sourceless_dateless_or_bad_row_is_refused(row: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_table(json.dumps({"models": {"openai/x": row}}))


def test_a_row_for_an_unbilled_provider_is_refused() -> None:
    row = {"input": 1, "output": 1, "source": "s", "as_of": "2025-06"}
    with pytest.raises(ValueError, match="unbilled"):
        parse_table(json.dumps({"models": {"mock/echo": row}}))
