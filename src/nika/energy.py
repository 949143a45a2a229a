"""How many watt-hours a model's output costs, per a sourced measurement (spec 07).

`energy_of(model)` reads the shipped table (`nika/data/energy.json`): Wh per million OUTPUT
tokens (decode dominates measured inference; a per-total figure would dilute it with
nearly-free prefill), each row with its provenance, its scope class and the month it was
measured. A row without them is refused when the table is read — a dateless or sourceless
figure never enters. A model without a row has no figure: unpriced, never 0 Wh.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Final

PROVENANCES: Final = ("measured-local", "independent-measured", "vendor-claim",
                      "independent-estimate")
"""The closed provenance vocabulary (07 §the spend-honesty law, law 5)."""
SCOPES: Final = ("gpu", "device", "fleet")
"""The scope classes a figure covers; watt-hours never sum across them (law 4)."""
LOCAL_PROVIDERS: Final = frozenset({"ollama", "lmstudio", "llamacpp", "localai", "vllm"})
"""Local runtimes: the operator's own watts, unpriced by design (never « free »)."""

_SNAPSHOT: Final = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True, slots=True)
class EnergyRate:
    """One model's measured output energy and what the figure covers."""

    model: str
    wh_per_mtok_out: float
    provenance: str
    scope: str
    measured_at: str
    source: str


def is_local(model: str) -> bool:
    """Does `model` run on one of the local runtimes (the operator's own hardware)?"""
    return model.partition("/")[0] in LOCAL_PROVIDERS


def energy_of(model: str) -> EnergyRate | None:
    """The sourced figure of `model` (a dated snapshot falls back to its alias), or None."""
    table = _table()
    return table.get(model) or table.get(_SNAPSHOT.sub("", model))


def parse_table(text: str) -> Mapping[str, EnergyRate]:
    """Parse an energy table; a row missing a positive figure, a known provenance and scope,
    a `YYYY-MM` month or a source is refused (`ValueError`)."""
    doc = json.loads(text)
    return MappingProxyType({model: _row(model, raw) for model, raw in doc["models"].items()})


def _row(model: str, raw: Mapping[str, Any]) -> EnergyRate:
    wh = raw.get("wh_per_mtok_out")
    if isinstance(wh, bool) or not isinstance(wh, int | float) or not math.isfinite(wh) \
            or wh <= 0:
        raise ValueError(f"energy row {model!r}: wh_per_mtok_out must be a positive number "
                         "(a zero would claim free inference)")
    if raw.get("provenance") not in PROVENANCES:
        raise ValueError(f"energy row {model!r}: provenance must be one of {PROVENANCES}")
    if raw.get("scope") not in SCOPES:
        raise ValueError(f"energy row {model!r}: scope must be one of {SCOPES}")
    month, source = raw.get("measured_at"), raw.get("source")
    if not isinstance(month, str) or not re.fullmatch(r"\d{4}-\d{2}", month):
        raise ValueError(f"energy row {model!r} has no measured_at month (YYYY-MM)")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"energy row {model!r} has no source")
    return EnergyRate(model, float(wh), raw["provenance"], raw["scope"], month, source)


@lru_cache(maxsize=1)
def _table() -> Mapping[str, EnergyRate]:
    from pathlib import Path

    path = Path(__file__).parent / "data" / "energy.json"
    return parse_table(path.read_text(encoding="utf-8"))
