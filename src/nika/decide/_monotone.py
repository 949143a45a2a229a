"""Declared monotonicity, checked on a bundle's own fixtures (spec 11 §Decision IR).

For every term declaring its key `increases` (or `decreases`) and every pair of probe fixtures
(positive · negative · ambiguous) that hold that key at different values and are otherwise
EQUAL, the dimension's point score must not move against the declared direction. Pairs are
found without comparing every pair: fixtures are grouped by the rest of their evidence (a
frozen form with Python's equality, which the reference evaluator's pairwise `==` uses, so
`1`, `1.0` and `true` are one value), and within a group, ordered by the key's value, no score
may fall below (rise above) the best score of a smaller value. Linear-logarithmic in the
fixtures, so a bundle with many fixtures cannot stall a check.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from nika.decide import _transform

_PROBES = frozenset({"positive", "negative", "ambiguous"})


@dataclass(frozen=True, slots=True)
class Violation:
    """Two fixtures whose scores move against the declared direction."""

    dimension: str
    key: str
    mono: str
    lower: Mapping[str, Any]
    higher: Mapping[str, Any]
    scores: tuple[int, int]

    def detail(self) -> str:
        low, high = self.lower["evidence"][self.key], self.higher["evidence"][self.key]
        return (f"`rules.dimensions.{self.dimension}` declares {self.key} {self.mono}, but the "
                f"bundle's own fixtures {self.lower.get('name')!r} → {self.higher.get('name')!r} "
                f"move {self.key} {low!r} → {high!r} and the score {self.scores[0]} → "
                f"{self.scores[1]}; fix the weight, the transform or the fixture")


def violation(bundle: Mapping[str, Any]) -> Violation | None:
    """The first declared monotonicity the fixtures break (None: every one holds)."""
    probes = [f for f in bundle["fixtures"] if f["class"] in _PROBES]
    for name, dimension in bundle["rules"]["dimensions"].items():
        scores = [point_score(bundle, name, f.get("evidence", {})) for f in probes]
        for term in dimension.get("terms", []):
            mono = term.get("monotonicity", "none")
            if mono != "none":
                found = _term(name, term["evidence"], mono, probes, scores)
                if found is not None:
                    return found
    return None


def _term(name: str, key: str, mono: str, probes: list[Mapping[str, Any]],
          scores: list[int | None]) -> Violation | None:
    groups: dict[Hashable, list[tuple[int, int, Mapping[str, Any]]]] = {}
    for fixture, score in zip(probes, scores, strict=True):
        evidence = fixture.get("evidence", {})
        if score is None or key not in evidence:
            continue  # a score exists only when the key holds an integer (or a bool)
        rest = _frozen({k: v for k, v in evidence.items() if k != key})
        groups.setdefault(rest, []).append((int(evidence[key]), score, fixture))
    sign = 1 if mono == "increases" else -1
    for members in groups.values():
        members.sort(key=lambda m: m[0])
        best: tuple[int, int, Mapping[str, Any]] | None = None  # among strictly smaller values
        start = 0
        while start < len(members):
            end = start
            while end < len(members) and members[end][0] == members[start][0]:
                end += 1
            level = members[start:end]
            if best is not None:
                for _, score, fixture in level:
                    if sign * score < sign * best[1]:
                        return Violation(name, key, mono, best[2], fixture, (best[1], score))
            for member in level:
                if best is None or sign * member[1] > sign * best[1]:
                    best = member
            start = end
    return None


def _frozen(value: Any) -> Hashable:
    """A hashable form equal exactly when the JSON values are equal under Python's `==`."""
    if isinstance(value, Mapping):
        return frozenset((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    scalar: Hashable = value  # Python already hashes 1, 1.0 and True alike
    return scalar


def point_score(bundle: Mapping[str, Any], dimension: str,
                values: Mapping[str, Any]) -> int | None:
    """A dimension's score when every term's key holds an integer (a bool counts 0/1);
    None otherwise. What a fixture probe compares."""
    total = 0
    for term in bundle["rules"]["dimensions"][dimension].get("terms", []):
        value = values.get(term["evidence"])
        if isinstance(value, bool):
            value = int(value)
        if term["evidence"] not in values or not isinstance(value, int):
            return None
        moved = _transform.apply(bundle["transforms"][term["transform"]], value)
        total += _transform.weighted(moved, term["weight_bp"])
    return total
