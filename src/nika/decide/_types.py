"""Evidence types inside the decision kernel: the spec-09 grammar, parsed and fitted the way
the spec's reference evaluator does (`conformance/type_core.py`, which `decision_core.py` uses).

Spec 11 requires byte-equal receipts between evaluators, so where the reference's reading of a
type differs from `nika.syntax.types` / `typefit` (the workflow's own type language), the
kernel follows the reference:

- an integral float fits `integer` (`8.0`); `duration` and a refined string's `pattern` are
  judged by family and length only (formats and patterns are static contracts there);
- a map's keys must be strings; a number may be any int or float, never a bool;
- an `additional:` key beside any constructor is ignored unless it is `true` on `object`;
  `enum` members may repeat; numeric bounds may be any number, and a `min:`/`max:` present
  with a non-number (null included) is refused.

The parsed form is `nika.syntax.types`'s ADT; a refusal is a `TypeRefusal` carrying the
detail, which the bundle's validation reports as `NIKA-DECIDE-001`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika.syntax.regex_dialect import dialect_violation
from nika.syntax.types import (
    PRIMITIVES,
    ArrayOf,
    Bounded,
    EnumOf,
    Field,
    MapOf,
    ObjectOf,
    Prim,
    RefinedString,
    TypeExpr,
    UnionOf,
)

_CONSTRUCTORS: Final = frozenset(
    {"array", "map", "object", "union", "optional", "enum", "integer", "number", "string"}
)
_MAX_PATTERN: Final = 512


class TypeRefusal(Exception):
    """A type expression outside the v1 grammar; `str(self)` is the prescriptive detail."""


def parse(raw: Any, where: str) -> TypeExpr:
    """The type `raw` spells (`None` is the null type); `TypeRefusal` when it spells none."""
    if raw is None:
        return Prim("null")
    if isinstance(raw, str):
        if raw in PRIMITIVES:
            return Prim(raw)
        raise TypeRefusal(f"{where}: {raw!r} is not a v1 type; write one of "
                          f"{', '.join(sorted(PRIMITIVES))} or a constructor map")
    if not isinstance(raw, Mapping):
        raise TypeRefusal(f"{where}: {raw!r:.60} is not a type expression; write e.g. "
                          "`integer` or `{array: string}`")
    keys = set(raw) - {"additional"}
    if keys == {"optional"}:
        raise TypeRefusal(f"{where}: `optional:` marks an object field's presence; for a "
                          "nullable value write `{union: [T, null]}`")
    if len(keys) != 1 or not keys <= _CONSTRUCTORS:
        raise TypeRefusal(f"{where}: {sorted(map(str, raw))} is not one v1 type constructor; "
                          f"use exactly one of {', '.join(sorted(_CONSTRUCTORS - {'optional'}))}")
    (ctor,) = keys
    arg = raw[ctor]
    at = f"{where}.{ctor}"
    if ctor == "array":
        return ArrayOf(parse(arg, at))
    if ctor == "map":
        return MapOf(parse(arg, at))
    if ctor == "object":
        return _object(arg, raw.get("additional") is True, at)
    if ctor == "union":
        if not isinstance(arg, list) or len(arg) < 2:
            raise TypeRefusal(f"{at}: a union lists two or more types")
        return UnionOf(tuple(parse(m, at) for m in arg))
    if ctor == "enum":
        if not isinstance(arg, list) or not arg or not all(isinstance(v, str) for v in arg):
            raise TypeRefusal(f"{at}: an enum is a non-empty list of strings")
        return EnumOf(tuple(sorted(set(arg))))
    if not isinstance(arg, Mapping):
        raise TypeRefusal(f"{at}: a refinement is a map, got {arg!r:.60}")
    return _refined(arg, at) if ctor == "string" else _bounded(ctor, arg, at)


def _object(body: Any, additional: bool, at: str) -> TypeExpr:
    if not isinstance(body, Mapping):
        raise TypeRefusal(f"{at}: an object maps field names to types")
    fields = []
    for name, spec in body.items():
        optional = isinstance(spec, Mapping) and set(spec) == {"optional"}
        inner = spec["optional"] if optional else spec
        fields.append(Field(str(name), parse(inner, f"{at}.{name}"), optional))
    return ObjectOf(tuple(fields), additional)


def _bounded(base: str, arg: Mapping[str, Any], at: str) -> TypeExpr:
    extra = sorted(map(str, set(arg) - {"min", "max"}))
    if extra:
        raise TypeRefusal(f"{at}: {extra} are not refinements; a number takes min and max")
    for key in ("min", "max"):
        if key in arg and (isinstance(arg[key], bool) or not isinstance(arg[key], int | float)):
            raise TypeRefusal(f"{at}.{key}: {arg[key]!r:.40} is not a number")
    if "min" in arg and "max" in arg and arg["min"] > arg["max"]:
        raise TypeRefusal(f"{at}: min {arg['min']} > max {arg['max']} admits no value")
    if not arg:
        return Prim(base)
    return Bounded(base, arg.get("min"), arg.get("max"))


def _refined(arg: Mapping[str, Any], at: str) -> TypeExpr:
    extra = sorted(map(str, set(arg) - {"pattern", "min_len", "max_len"}))
    if extra:
        raise TypeRefusal(f"{at}: {extra} are not refinements; a string takes pattern, "
                          "min_len and max_len")
    pattern = arg.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise TypeRefusal(f"{at}.pattern: {pattern!r:.40} is not a string")
        problem = (f"longer than {_MAX_PATTERN} characters" if len(pattern) > _MAX_PATTERN
                   else dialect_violation(pattern))
        if problem is not None:
            raise TypeRefusal(f"{at}.pattern: {pattern!r:.60} is outside the regex dialect: "
                              f"{problem}")
    lo, hi = arg.get("min_len"), arg.get("max_len")
    for key, bound in (("min_len", lo), ("max_len", hi)):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)
                                  or bound < 0):
            raise TypeRefusal(f"{at}.{key}: {bound!r:.40} is not a non-negative integer")
    if lo is not None and hi is not None and lo > hi:
        raise TypeRefusal(f"{at}: min_len {lo} > max_len {hi} admits no string")
    if not arg:
        return Prim("string")
    return RefinedString(pattern, lo, hi)


def fits(value: Any, t: TypeExpr) -> bool:
    """Whether the JSON `value` inhabits `t`, as the reference judges it (module docstring)."""
    if isinstance(t, Prim):
        return _primitive(value, t.name)
    if isinstance(t, UnionOf):
        return any(fits(value, m) for m in t.members)
    if isinstance(t, EnumOf):
        return isinstance(value, str) and value in t.values
    if isinstance(t, Bounded):
        if not _primitive(value, t.base):
            return False
        return (t.min is None or value >= t.min) and (t.max is None or value <= t.max)
    if isinstance(t, RefinedString):
        return isinstance(value, str) and (t.min_len is None or len(value) >= t.min_len) and (
            t.max_len is None or len(value) <= t.max_len)
    if isinstance(t, ArrayOf):
        return isinstance(value, list) and all(fits(v, t.item) for v in value)
    if isinstance(t, MapOf):
        return isinstance(value, Mapping) and all(
            isinstance(k, str) and fits(v, t.value) for k, v in value.items())
    return _object_fits(value, t)


def _object_fits(value: Any, t: ObjectOf) -> bool:
    if not isinstance(value, Mapping):
        return False
    names = {f.name for f in t.fields}
    for f in t.fields:
        if f.name in value:
            if not fits(value[f.name], f.type):
                return False
        elif not f.optional:
            return False
    return t.additional or all(k in names for k in value)


def _primitive(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, int | float)
    return isinstance(value, str)  # string, bytes, uri, path, duration, timestamp: the family

