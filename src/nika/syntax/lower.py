"""`lower(T)`: a v1 type expression as JSON Schema 2020-12 (spec 09 §Lowering, one direction).

The single projection every consumer uses: the structured-output contract an `infer:` with
`returns:` sends its provider and validates the reply against. Total on the v1 grammar; a
union lowers to `anyOf`, an object to a closed schema unless `additional: true`.
"""

from __future__ import annotations

from typing import Any, Final

from nika.syntax.durations import DURATION_PATTERN
from nika.syntax.types import (
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

_PRIMITIVES: Final[dict[str, dict[str, Any]]] = {
    "null": {"type": "null"},
    "bool": {"type": "boolean"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "string": {"type": "string"},
    "bytes": {"type": "string", "contentEncoding": "base64"},
    "uri": {"type": "string", "format": "uri"},
    "path": {"type": "string"},
    "duration": {"type": "string", "pattern": DURATION_PATTERN},
    "timestamp": {"type": "string", "format": "date-time"},
}


def lower(t: TypeExpr) -> dict[str, Any]:
    """The JSON Schema of `t` (a fresh dict: callers may keep or change it)."""
    if isinstance(t, Prim):
        return dict(_PRIMITIVES[t.name])
    if isinstance(t, ArrayOf):
        return {"type": "array", "items": lower(t.item)}
    if isinstance(t, MapOf):
        return {"type": "object", "additionalProperties": lower(t.value)}
    if isinstance(t, ObjectOf):
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {f.name: lower(f.type) for f in t.fields},
            "required": [f.name for f in t.fields if not f.optional],
        }
        if not t.additional:
            schema["additionalProperties"] = False
        return schema
    if isinstance(t, UnionOf):
        return {"anyOf": [lower(m) for m in t.members]}
    if isinstance(t, EnumOf):
        return {"type": "string", "enum": list(t.values)}
    if isinstance(t, Bounded):
        bounded: dict[str, Any] = {"type": t.base}
        if t.min is not None:
            bounded["minimum"] = t.min
        if t.max is not None:
            bounded["maximum"] = t.max
        return bounded
    assert isinstance(t, RefinedString)
    refined: dict[str, Any] = {"type": "string"}
    if t.pattern is not None:
        refined["pattern"] = t.pattern
    if t.min_len is not None:
        refined["minLength"] = t.min_len
    if t.max_len is not None:
        refined["maxLength"] = t.max_len
    return refined
