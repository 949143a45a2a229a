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
from importlib.resources import files
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


@lru_cache(maxsize=1)
def _table() -> Mapping[str, Price]:
    return parse_table(files("nika").joinpath("data/prices.json").read_text(encoding="utf-8"))
