"""Symbolic resource bounds: a polynomial over run-time quantities, exact until rendered.

A `for_each` over `${{ inputs.items }}` runs `|inputs.items|` times — a number the file
cannot know, but a bound all the same. Keeping such quantities as symbols (instead of
giving up, or guessing) lets the certificate multiply and sum them like numbers and print
`15 × |inputs.items|`. Coefficients are exact `Fraction`s, so a dollar figure is rounded
once, at rendering, and the same file always renders the same digits.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final

Monomial = tuple[str, ...]
"""The symbols of one term, sorted; `()` is the constant term."""

MONEY_PLACES: Final = 6
"""Decimal places of a rendered USD figure (fixed, so the JSON is byte-stable)."""


@dataclass(frozen=True, slots=True)
class Bound:
    """A non-negative polynomial `Σ coefficient × Π symbols`, terms sorted, no zero terms."""

    terms: tuple[tuple[Monomial, Fraction], ...] = ()

    @staticmethod
    def of(value: int | Fraction | Decimal) -> Bound:
        """A known number (1 and 0, by far the most frequent, are shared values)."""
        if value == 1:
            return _ONE
        if value == 0:
            return _ZERO
        return Bound._from({(): Fraction(value)})

    @staticmethod
    def symbol(name: str) -> Bound:
        """A quantity known only at run time, named as the author would read it."""
        return Bound((((name,), Fraction(1)),))

    @staticmethod
    def _from(terms: dict[Monomial, Fraction]) -> Bound:
        return Bound(tuple(sorted((m, c) for m, c in terms.items() if c != 0)))

    def __add__(self, other: Bound) -> Bound:
        out = dict(self.terms)
        for monomial, coefficient in other.terms:
            out[monomial] = out.get(monomial, Fraction(0)) + coefficient
        return Bound._from(out)

    def __mul__(self, other: Bound) -> Bound:
        if self.terms == _ONE.terms:
            return other  # the certificate multiplies by one iteration, one attempt, …
        if other.terms == _ONE.terms:
            return self
        out: dict[Monomial, Fraction] = {}
        for left, a in self.terms:
            for right, b in other.terms:
                monomial = tuple(sorted(left + right))
                out[monomial] = out.get(monomial, Fraction(0)) + a * b
        return Bound._from(out)

    def scale(self, factor: Fraction) -> Bound:
        """This bound times a known factor (a rate)."""
        return self * Bound.of(factor)

    @property
    def symbols(self) -> tuple[str, ...]:
        """Every symbol this bound mentions, sorted."""
        return tuple(sorted({s for monomial, _ in self.terms for s in monomial}))

    @property
    def is_zero(self) -> bool:
        return not self.terms

    @property
    def constant(self) -> Fraction | None:
        """The bound's value when it names no run-time symbol, else None."""
        if self.symbols:
            return None
        return self.terms[0][1] if self.terms else Fraction(0)

    def render(self, *, money: bool = False, floor: bool = False) -> int | float | str:
        """A JSON value: a number when the bound is known, else a readable formula.

        Counts render as integers; `money` figures as floats at `MONEY_PLACES`, rounded
        up — or down for a `floor` — so the printed figure stays on the claimed side.
        """
        if not self.symbols:
            value = self.terms[0][1] if self.terms else Fraction(0)
            return _number(value, money, floor)
        parts = []
        for monomial, coefficient in self.terms:
            factors = [*monomial]
            if coefficient != 1 or not factors:
                factors.insert(0, _text(_number(coefficient, money, floor)))
            parts.append(" × ".join(factors))
        return " + ".join(parts)


_ONE: Final = Bound((((), Fraction(1)),))
_ZERO: Final = Bound()


def total(bounds: Iterable[Bound]) -> Bound:
    """The sum of `bounds` (zero for none), accumulated once and sorted once: folding
    `+` would re-sort the running sum per bound, quadratic when symbols are many."""
    out: dict[Monomial, Fraction] = {}
    for bound in bounds:
        for monomial, coefficient in bound.terms:
            out[monomial] = out.get(monomial, Fraction(0)) + coefficient
    return Bound._from(out)


def _number(value: Fraction, money: bool, floor: bool) -> int | float:
    if money:
        scaled = value * 10**MONEY_PLACES
        return (math.floor(scaled) if floor else math.ceil(scaled)) / 10**MONEY_PLACES
    return value.numerator if value.denominator == 1 else float(value)


def _text(value: int | float) -> str:
    if isinstance(value, int):
        return str(value)
    return f"{value:.{MONEY_PLACES}f}".rstrip("0").rstrip(".")
