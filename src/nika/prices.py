"""Which models bill by the token, and at what sourced rate.

The agent loop's usage-absence gate (`NIKA-AGENT-005`) needs one answer: if a provider reports
no token usage for this model, could spend be hiding? The provider prefix decides (providers
§Local vs cloud): `mock/…` is a test fixture and the five local prefixes run on the operator's
own machine, so nothing is billed per token; every other prefix — including ones this table has
never heard of — is treated as priced, so an unknown provider fails closed.

The static cost certificate needs the second answer: `price_of(model)` reads the shipped rate
table (`nika/data/prices.json`, USD per million tokens, every row with its source page and the
month it was recorded). An unbilled provider has a zero rate; a billed model absent from the
table has none — unpriced, never zero (spec 07 §the spend-honesty law).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final

UNBILLED_PROVIDERS: Final = frozenset({"mock", "ollama", "lmstudio", "llamacpp", "localai", "vllm"})
"""Provider prefixes whose calls carry no per-token bill (test fixture + local servers)."""

_SNAPSHOT: Final = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")
"""A dated snapshot suffix (`claude-sonnet-4-20250514`, `gpt-4o-2024-08-06`): same list price
as its alias in the table."""


@dataclass(frozen=True, slots=True)
class Price:
    """One model's rate in USD per million tokens, with where and when it was read.

    `billed` is False for mock and local providers (both rates zero, no source needed).
    """

    model: str
    input: Decimal
    output: Decimal
    source: str
    as_of: str | None
    billed: bool = True


def provider_of(model: str) -> str:
    """The provider prefix of a `<provider>/<name>` model id ('' when there is none)."""
    head, sep, _ = model.partition("/")
    return head if sep else ""


def is_priced(model: str) -> bool:
    """Does a call to `model` bill per token, so its usage must be reported?"""
    return provider_of(model) not in UNBILLED_PROVIDERS


def price_of(model: str) -> Price | None:
    """The rate of `model`: zero for an unbilled provider, the table's row (a dated snapshot
    falls back to its alias), or None when no sourced rate exists."""
    if not is_priced(model):
        zero = Decimal(0)
        return Price(model, zero, zero, f"unbilled provider {provider_of(model)!r}", None, False)
    table = _table()
    row = table.get(model)
    if row is None:
        row = table.get(_SNAPSHOT.sub("", model))
    return row


def parse_table(text: str) -> Mapping[str, Price]:
    """Parse a rate table document; a row without a positive rate pair, a source or an
    `as_of` month is refused (`ValueError`): a dateless or sourceless figure never enters."""
    doc = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    rows: dict[str, Price] = {}
    for model, raw in doc["models"].items():
        rows[model] = _row(model, raw)
    return MappingProxyType(rows)


def _row(model: str, raw: Mapping[str, Any]) -> Price:
    rate_in, rate_out = raw.get("input"), raw.get("output")
    if (
        not (isinstance(rate_in, Decimal) and isinstance(rate_out, Decimal))
        or min(rate_in, rate_out) < 0
    ):
        raise ValueError(f"price row {model!r}: input and output must be non-negative numbers")
    source, as_of = raw.get("source"), raw.get("as_of")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"price row {model!r} has no source")
    if not isinstance(as_of, str) or not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", as_of):
        raise ValueError(f"price row {model!r} has no as_of date (YYYY-MM)")
    if not is_priced(model):
        raise ValueError(f"price row {model!r} names an unbilled provider")
    return Price(model, rate_in, rate_out, source, as_of)


PRICING_SCHEMA: Final = "nika-py/model-pricing@1"
"""The schema marker of the shipped rate table, as a run's boot manifest pins it."""


@dataclass(frozen=True, slots=True)
class TablePin:
    """A rate table's identity as a journal pins it (15: the versioned rate table is part of
    the run's pin): its schema, the date of its newest row, its bytes' digest (16 hex)."""

    schema: str
    as_of: str
    sha256_16: str

    def to_dict(self) -> dict[str, str]:
        """The pin as the `pricing` manifest field serializes it."""
        return {"as_of": self.as_of, "schema": self.schema, "sha256_16": self.sha256_16}


@lru_cache(maxsize=1)
def table_pin() -> TablePin:
    """The identity of the rate table this engine ships."""
    import hashlib  # a run's manifest pins the table; `nika check` never does

    as_of = max((row.as_of for row in _table().values() if row.as_of), default="unrecorded")
    return TablePin(PRICING_SCHEMA, as_of, hashlib.sha256(_table_bytes()).hexdigest()[:16])


def _table_bytes() -> bytes:
    from importlib.resources import files  # loaded when a price is first needed

    return files("nika").joinpath("data/prices.json").read_bytes()


@lru_cache(maxsize=1)
def _table() -> Mapping[str, Price]:
    return parse_table(_table_bytes().decode("utf-8"))


def call_cost(model: str, input_tokens: Any, output_tokens: Any) -> Decimal | str:
    """The USD cost of one model call at the shipped table, or why it has none: a mock or
    local model is the operator's own (unpriced, never free — 07), a model without a row has
    no sourced rate, a call without reported usage cannot be priced."""
    rate = price_of(model)
    if rate is None:
        return f"no sourced rate for {model}"
    if not rate.billed:
        return f"unbilled provider {provider_of(model)!r}"
    if not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0
               for t in (input_tokens, output_tokens)):
        return "token usage unreported"
    cost: Decimal = (rate.input * input_tokens + rate.output * output_tokens) / 1_000_000
    return cost
