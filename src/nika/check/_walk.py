"""The static path walk into a producer's declared output (spec 04 §Static binding
validation · 09 §Closed objects): is `tasks.X.output.<steps>` provably invalid?

Two declarations are walked. A `returns:` type is walked with full precision (every
level is closed unless `additional: true`). A raw JSON `schema:` is walked over the
v0.1 subset only — `properties` · `items` · `type` · `additionalProperties` — and any
other construct (or a missing `type`) opens the level: the walk stops, never guesses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from nika.syntax.types import ArrayOf, MapOf, ObjectOf, TypeExpr, UnionOf, render

Step = str | int

_OPENING: Final = frozenset(
    {
        "$ref",
        "$dynamicRef",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "prefixItems",
        "additionalItems",
    }
)
"""Schema constructs outside the walkable subset: their level is open."""


@dataclass(frozen=True, slots=True)
class Invalid:
    """The first provably invalid step: its index in the path, and why."""

    at: int
    reason: str


def _describe(step: Step) -> str:
    return f"[{step}]" if isinstance(step, int) else f"`.{step}`"


def walk_type(t: TypeExpr, steps: Sequence[Step]) -> Invalid | None:
    """Walk `steps` into a `returns:` type; None when every step may exist."""
    current: TypeExpr = t
    for i, step in enumerate(steps):
        nxt = _type_step(current, step)
        if isinstance(nxt, str):
            return Invalid(i, nxt)
        if nxt is None:
            return None
        current = nxt
    return None


def _type_step(t: TypeExpr, step: Step) -> TypeExpr | str | None:
    """The type beneath `step`, None when the level is open, or why the step is invalid."""
    if isinstance(t, UnionOf):
        outcomes = [_type_step(m, step) for m in t.members]
        if all(isinstance(o, str) for o in outcomes):
            return f"no member of {render(t)} has {_describe(step)}"
        return None
    if isinstance(step, int):
        if isinstance(t, ArrayOf):
            return t.item
        return f"{render(t)} is not an array, so it cannot be indexed"
    if isinstance(t, ObjectOf):
        for f in t.fields:
            if f.name == step:
                return f.type
        if t.additional:
            return None
        declared = ", ".join(f.name for f in t.fields) or "none"
        return f"the object declares no member `{step}` (declared: {declared})"
    if isinstance(t, MapOf):
        return t.value
    return f"{render(t)} has no members"


def _types(level: Mapping[str, Any]) -> frozenset[str] | None:
    declared = level.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list) and all(isinstance(x, str) for x in declared):
        return frozenset(declared)
    return None


def walk_schema(schema: Mapping[str, Any], steps: Sequence[Step]) -> Invalid | None:
    """Walk `steps` into a raw JSON Schema over the v0.1 subset; None unless provably invalid."""
    level: Any = schema
    for i, step in enumerate(steps):
        if not isinstance(level, Mapping) or _OPENING & level.keys():
            return None
        types = _types(level)
        if types is None:
            return None
        if isinstance(step, int):
            if "array" not in types:
                return Invalid(i, f"the schema level is `type: {sorted(types)}`, not an array")
            level = level.get("items")
            continue
        if "object" not in types:
            return Invalid(i, f"the schema level is `type: {sorted(types)}`, not an object")
        properties = level.get("properties")
        extra = level.get("additionalProperties")
        if isinstance(properties, Mapping):
            if step in properties:
                level = properties[step]
                continue
            if extra is True or isinstance(extra, Mapping):
                return None
            declared = ", ".join(sorted(str(k) for k in properties)) or "none"
            return Invalid(i, f"the schema declares no property `{step}` (declared: {declared})")
        if extra is False:
            return Invalid(i, "the schema level declares no properties and closes extras")
        return None
    return None
