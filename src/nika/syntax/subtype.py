"""The static subtyping relation `A ⊑ B` of spec 09 (over known types).

Used where two declared types meet — a child workflow's typed `outputs:` against
the parent's `returns:` (spec 14 law 2). Regex inclusion is never decided: two
refined strings relate only when their patterns are syntactically equal.
"""

from __future__ import annotations

from nika.syntax.types import (
    STRING_NEWTYPES,
    ArrayOf,
    Bounded,
    EnumOf,
    MapOf,
    ObjectOf,
    Prim,
    RefinedString,
    TypeExpr,
    UnionOf,
)


def is_subtype(a: TypeExpr, b: TypeExpr) -> bool:
    """Whether every value of `a` is a value of `b`."""
    if isinstance(a, UnionOf):
        return all(is_subtype(m, b) for m in a.members)
    if isinstance(b, UnionOf):
        return any(is_subtype(a, m) for m in b.members)
    if a == b:
        return True
    if isinstance(b, Prim):
        return _below_primitive(a, b.name)
    if isinstance(b, Bounded):
        return _below_bounded(a, b)
    if isinstance(b, EnumOf):
        return isinstance(a, EnumOf) and set(a.values) <= set(b.values)
    if isinstance(b, RefinedString):
        return isinstance(a, RefinedString) and _refines(a, b)
    if isinstance(b, ArrayOf):
        return isinstance(a, ArrayOf) and is_subtype(a.item, b.item)
    if isinstance(b, MapOf):
        return isinstance(a, MapOf) and is_subtype(a.value, b.value)
    return isinstance(a, ObjectOf) and _object_below(a, b)


def _below_primitive(a: TypeExpr, name: str) -> bool:
    if isinstance(a, Prim):
        return (a.name == "integer" and name == "number") or (
            a.name in STRING_NEWTYPES and name == "string"
        )
    if isinstance(a, Bounded):
        return a.base == name or (a.base == "integer" and name == "number")
    return name == "string" and isinstance(a, (EnumOf, RefinedString))


def _below_bounded(a: TypeExpr, b: Bounded) -> bool:
    if not isinstance(a, Bounded) or not (
        a.base == b.base or (a.base == "integer" and b.base == "number")
    ):
        return False
    low_ok = b.min is None or (a.min is not None and a.min >= b.min)
    high_ok = b.max is None or (a.max is not None and a.max <= b.max)
    return low_ok and high_ok


def _refines(a: RefinedString, b: RefinedString) -> bool:
    if b.pattern is not None and a.pattern != b.pattern:
        return False
    low_ok = b.min_len is None or (a.min_len is not None and a.min_len >= b.min_len)
    high_ok = b.max_len is None or (a.max_len is not None and a.max_len <= b.max_len)
    return low_ok and high_ok


def _object_below(a: ObjectOf, b: ObjectOf) -> bool:
    fa = {f.name: f for f in a.fields}
    fb = {f.name: f for f in b.fields}
    for name, want in fb.items():
        have = fa.get(name)
        if have is None:
            if not want.optional:
                return False
            continue
        if (have.optional and not want.optional) or not is_subtype(have.type, want.type):
            return False
    if a.additional:
        return b.additional and set(fb) <= set(fa)
    return b.additional or set(fa) <= set(fb)
