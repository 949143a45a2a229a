"""The bounded integer feature transforms of a Decision Bundle (spec 11 §transforms).

A transform clamps its input to the declared `[min, max]` first, so it is total on every
integer; then `clamp` is the clamped value, `linear` is `v × scale_bp ÷ 10000 + offset`
(floor division: integers only, no float ever rounds) and `bucket` is the value of the first
edge the input is below (the last value past every edge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BASIS: int = 10_000
"""One whole in basis points: `8735` is 87.35%."""


def apply(transform: Mapping[str, Any], value: int) -> int:
    """The transform of `value` (a validated transform: integer fields, sorted edges)."""
    v = max(transform["min"], min(transform["max"], value))
    kind = transform["kind"]
    if kind == "clamp":
        return int(v)
    if kind == "linear":
        return int(v * transform.get("scale_bp", BASIS) // BASIS + transform.get("offset", 0))
    values = transform["values"]
    for i, edge in enumerate(transform["edges"]):
        if v < edge:
            return int(values[i])
    return int(values[-1])


def span(transform: Mapping[str, Any]) -> tuple[int, int]:
    """The interval an unknown input contributes: the transform at its range's two ends,
    ordered. (The reference evaluator reads the ends only, so a non-monotone bucket table's
    inner values stay outside the interval; byte-equal receipts keep that reading.)"""
    low, high = apply(transform, transform["min"]), apply(transform, transform["max"])
    return min(low, high), max(low, high)


def weighted(value: int, weight_bp: int) -> int:
    """A term's contribution: the transformed value at its basis-point weight (floored)."""
    return value * weight_bp // BASIS
