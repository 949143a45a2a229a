"""The v1 type expression language (spec 09-types): parse, normalize-lite, and value fit.

A `TypeExpr` is written inline where it is used (`returns:`, an `inputs:` or
`outputs:` `type:`, a typed `const:`). `parse_type` turns the raw YAML value into
the frozen ADT below and reports every refusal it finds (`NIKA-TYPE-001` for a form
outside the grammar, `NIKA-TYPE-006` for a pattern outside the locked regex
dialect); `nika.syntax.typefit.conforms` judges a literal value against a parsed type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from nika import codes
from nika.syntax.keypath import KeyPath as KeyPath  # re-exported: the type language's paths
from nika.syntax.regex_dialect import dialect_violation

PRIMITIVES: Final = frozenset(
    {"null", "bool", "integer", "number", "string", "bytes", "uri", "path", "duration", "timestamp"}
)
STRING_NEWTYPES: Final = frozenset({"uri", "path", "duration", "timestamp"})
"""The primitives that are strings under another name (each a subtype of `string`)."""
_CONSTRUCTORS: Final = frozenset(
    {"array", "map", "object", "union", "optional", "enum", "integer", "number", "string"}
)
_DEAD_NAMES: Final = {
    "boolean": "`bool` is the one boolean spelling",
    "object": "write `{ object: { field: T } }` (a closed record) or `{ map: T }`",
    "array": "write `{ array: T }` with the element type",
    "any": "there is no authorable top type; leave `returns:` out for an Unknown output",
    "float": "write `number`",
    "int": "write `integer`",
    "str": "write `string`",
}
_MAX_PATTERN: Final = 512


@dataclass(frozen=True, slots=True)
class Prim:
    """One of the ten primitives."""

    name: str


@dataclass(frozen=True, slots=True)
class ArrayOf:
    """`{ array: T }`."""

    item: TypeExpr


@dataclass(frozen=True, slots=True)
class MapOf:
    """`{ map: T }` — string keys, homogeneous values."""

    value: TypeExpr


@dataclass(frozen=True, slots=True)
class Field:
    """One `{ object: … }` slot; `optional` is presence, never nullability."""

    name: str
    type: TypeExpr
    optional: bool = False


@dataclass(frozen=True, slots=True)
class ObjectOf:
    """`{ object: {…} }`, closed unless `additional: true`."""

    fields: tuple[Field, ...]
    additional: bool = False


@dataclass(frozen=True, slots=True)
class UnionOf:
    """`{ union: [T, …] }` (two or more members)."""

    members: tuple[TypeExpr, ...]


@dataclass(frozen=True, slots=True)
class EnumOf:
    """`{ enum: [...] }` — a closed set of strings."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Bounded:
    """`{ integer: {min, max} }` or `{ number: {min, max} }`."""

    base: str
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True, slots=True)
class RefinedString:
    """`{ string: {pattern, min_len, max_len} }`."""

    pattern: str | None = None
    min_len: int | None = None
    max_len: int | None = None


TypeExpr = Prim | ArrayOf | MapOf | ObjectOf | UnionOf | EnumOf | Bounded | RefinedString

Report = Callable[[str, str, KeyPath], None]
"""How the parser reports a refusal: `(code, detail, key_path)`."""


def parse_type(raw: Any, path: KeyPath, report: Report) -> TypeExpr | None:
    """Parse a raw YAML type expression; refusals go to `report`, `None` means unusable."""
    return _parse(raw, path, report, field_position=False)


def _parse(raw: Any, path: KeyPath, report: Report, *, field_position: bool) -> TypeExpr | None:
    if raw is None:
        return Prim("null")
    if isinstance(raw, str):
        return _parse_name(raw, path, report)
    if not isinstance(raw, Mapping):
        report(
            codes.TYPE_001,
            f"type expression {_show(raw)} is neither a primitive name nor a constructor map; "
            "write e.g. `string` or `{ array: string }`",
            path,
        )
        return None
    keys = set(raw)
    if "object" in keys:
        return _parse_object(raw, path, report)
    if len(keys) != 1:
        report(
            codes.TYPE_001,
            f"type expression has keys {sorted(map(str, keys))}; a constructor map holds "
            "exactly one of "
            f"{sorted(_CONSTRUCTORS)} (only `object` admits a sibling `additional`)",
            path,
        )
        return None
    (ctor,) = keys
    arg = raw[ctor]
    at = (*path, ctor)
    if ctor == "optional":
        if not field_position:
            report(
                codes.TYPE_001,
                "`optional:` is a field-presence modifier, legal only on a field inside "
                "`{ object: … }`; for a nullable value write `{ union: [T, null] }`",
                path,
            )
        return None
    if ctor == "array":
        item = _parse(arg, at, report, field_position=False)
        return ArrayOf(item) if item is not None else None
    if ctor == "map":
        value = _parse(arg, at, report, field_position=False)
        return MapOf(value) if value is not None else None
    if ctor == "union":
        return _parse_union(arg, at, report)
    if ctor == "enum":
        return _parse_enum(arg, at, report)
    if ctor in ("integer", "number"):
        return _parse_bounded(ctor, arg, at, report)
    if ctor == "string":
        return _parse_refined(arg, at, report)
    report(
        codes.TYPE_001,
        f"unknown type constructor `{ctor}`; use one of {sorted(_CONSTRUCTORS)}",
        path,
    )
    return None


def _parse_name(name: str, path: KeyPath, report: Report) -> TypeExpr | None:
    if name in PRIMITIVES:
        return Prim(name)
    if "<" in name:
        head = name.split("<", 1)[0]
        report(
            codes.TYPE_001,
            f"type `{name}` is not in the v1 grammar: `{head}<…>` is reserved or withdrawn "
            "(artifact<mime> is reserved-not-implemented; result/secret/money are withdrawn); "
            "write an inline type expression",
            path,
        )
        return None
    hint = _DEAD_NAMES.get(name)
    if hint is None and name[:1].isupper():
        hint = (
            "named types are retired with the `types:` block; write the type inline at "
            "this position"
        )
    report(
        codes.TYPE_001,
        f"unknown type name `{name}`; "
        + (hint or f"use one of {sorted(PRIMITIVES)} or a constructor map"),
        path,
    )
    return None


def _parse_object(raw: Mapping[str, Any], path: KeyPath, report: Report) -> TypeExpr | None:
    extra = sorted(str(k) for k in raw if k not in ("object", "additional"))
    if extra:
        report(
            codes.TYPE_001,
            f"`object` type carries unknown keys {extra}; only `additional` may sit beside it",
            path,
        )
        return None
    additional = raw.get("additional", False)
    if not isinstance(additional, bool):
        report(
            codes.TYPE_001,
            f"`additional:` must be true or false, got {_show(additional)}",
            (*path, "additional"),
        )
        return None
    body = raw["object"]
    at = (*path, "object")
    if not isinstance(body, Mapping):
        report(codes.TYPE_001, f"`object:` maps field names to types, got {_show(body)}", at)
        return None
    fields: list[Field] = []
    ok = True
    for name, spec in body.items():
        optional = isinstance(spec, Mapping) and set(spec) == {"optional"}
        inner = spec["optional"] if optional else spec
        where = (*at, name, "optional") if optional else (*at, name)
        parsed = _parse(inner, where, report, field_position=False)
        if parsed is None:
            ok = False
            continue
        fields.append(Field(str(name), parsed, optional))
    return ObjectOf(tuple(fields), additional) if ok else None


def _parse_union(arg: Any, path: KeyPath, report: Report) -> TypeExpr | None:
    if not isinstance(arg, list) or len(arg) < 2:
        report(
            codes.TYPE_001, f"`union:` takes a list of two or more types, got {_show(arg)}", path
        )
        return None
    members = [_parse(m, (*path, i), report, field_position=False) for i, m in enumerate(arg)]
    if any(m is None for m in members):
        return None
    return UnionOf(tuple(m for m in members if m is not None))


def _parse_enum(arg: Any, path: KeyPath, report: Report) -> TypeExpr | None:
    if not isinstance(arg, list) or not arg or not all(isinstance(v, str) for v in arg):
        report(
            codes.TYPE_001, f"`enum:` takes a non-empty list of strings, got {_show(arg)}", path
        )
        return None
    if len(set(arg)) != len(arg):
        report(codes.TYPE_001, f"`enum:` members must be unique, got {_show(arg)}", path)
        return None
    return EnumOf(tuple(arg))


def _parse_bounded(base: str, arg: Any, path: KeyPath, report: Report) -> TypeExpr | None:
    if not isinstance(arg, Mapping) or set(arg) - {"min", "max"}:
        report(
            codes.TYPE_001, f"`{base}:` refinement takes only `min`/`max`, got {_show(arg)}", path
        )
        return None
    lo, hi = arg.get("min"), arg.get("max")
    for bound in (lo, hi):
        if bound is not None and (
            not is_number(bound) or (base == "integer" and not isinstance(bound, int))
        ):
            report(
                codes.TYPE_001,
                f"`{base}` bound {_show(bound)} is not "
                f"{'an integer' if base == 'integer' else 'a number'}",
                path,
            )
            return None
    if lo is not None and hi is not None and lo > hi:
        report(
            codes.TYPE_001,
            f"`{base}` range min {lo} > max {hi} admits no value; swap or widen the bounds",
            path,
        )
        return None
    if lo is None and hi is None:
        return Prim(base)
    return Bounded(base, lo, hi)


def _parse_refined(arg: Any, path: KeyPath, report: Report) -> TypeExpr | None:
    if not isinstance(arg, Mapping) or set(arg) - {"pattern", "min_len", "max_len"}:
        report(
            codes.TYPE_001,
            f"`string:` refinement takes only `pattern`/`min_len`/`max_len`, got {_show(arg)}",
            path,
        )
        return None
    pattern, lo, hi = arg.get("pattern"), arg.get("min_len"), arg.get("max_len")
    for name, bound in (("min_len", lo), ("max_len", hi)):
        if bound is not None and (
            not isinstance(bound, int) or isinstance(bound, bool) or bound < 0
        ):
            report(
                codes.TYPE_001,
                f"`{name}` must be a non-negative integer, got {_show(bound)}",
                (*path, name),
            )
            return None
    if lo is not None and hi is not None and lo > hi:
        report(
            codes.TYPE_001,
            f"`string` length range {lo}..{hi} admits no value; fix min_len/max_len",
            path,
        )
        return None
    if pattern is not None:
        if not isinstance(pattern, str):
            report(
                codes.TYPE_001,
                f"`pattern` must be a string, got {_show(pattern)}",
                (*path, "pattern"),
            )
            return None
        problem = (
            "longer than 512 characters"
            if len(pattern) > _MAX_PATTERN
            else dialect_violation(pattern)
        )
        if problem is not None:
            report(
                codes.TYPE_006,
                f"pattern {pattern!r} is outside the locked regex dialect: {problem}",
                (*path, "pattern"),
            )
            return None
    if pattern is None and lo is None and hi is None:
        return Prim("string")
    return RefinedString(pattern, lo, hi)


def is_number(value: Any) -> bool:
    """True for a finite int or float (never a bool)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def render(t: TypeExpr) -> str:
    """A compact one-line rendering for diagnostics."""
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, ArrayOf):
        return f"array<{render(t.item)}>"
    if isinstance(t, MapOf):
        return f"map<{render(t.value)}>"
    if isinstance(t, ObjectOf):
        inner = ", ".join(
            f"{f.name}{'?' if f.optional else ''}: {render(f.type)}" for f in t.fields
        )
        return "{" + inner + (", …" if t.additional else "") + "}"
    if isinstance(t, UnionOf):
        return " | ".join(render(m) for m in t.members)
    if isinstance(t, EnumOf):
        return "enum[" + ", ".join(t.values) + "]"
    if isinstance(t, Bounded):
        return f"{t.base}[{'' if t.min is None else t.min}..{'' if t.max is None else t.max}]"
    return "string(refined)"


def _show(value: Any) -> str:
    text = (
        repr(value)
        if not isinstance(value, Sequence) or isinstance(value, str)
        else repr(list(value))
    )
    return text if len(text) <= 60 else text[:57] + "..."
