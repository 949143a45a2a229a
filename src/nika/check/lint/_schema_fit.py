"""Does a JSON Schema say nothing the v1 type grammar cannot? (for one-obvious-way/011)

`lower(T)` (spec 09 §Lowering) maps every type expression to a JSON Schema 2020-12
document. A `schema:` that is such a document — up to annotations (`description`,
`title`, …), which a type drops without changing what it admits — could have been a
`returns:` type. Anything outside that image (`oneOf`, `$ref`, `minItems`, a format
other than `uri`/`date-time`, a non-string enum, `const`, …) is an out-of-core shape,
and the `schema:` hatch is the right tool for it. The judgment is conservative: an
unknown keyword means « does not fit ».
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_ANNOTATIONS: Final = frozenset(
    {"description", "title", "examples", "default", "$comment", "$schema", "deprecated"}
)
_PRIMITIVES: Final = frozenset({"null", "boolean", "integer", "number", "string"})
_NUMERIC: Final = frozenset({"minimum", "maximum"})
_STRING: Final = frozenset({"pattern", "minLength", "maxLength", "format", "contentEncoding"})
_FORMATS: Final = frozenset({"uri", "date-time"})


def fits_type_grammar(schema: Any) -> bool:
    """True when `schema` is (up to annotations) the lowering of some v1 type."""
    if not isinstance(schema, Mapping):
        return False
    keys = set(schema) - _ANNOTATIONS
    if "anyOf" in keys:
        members = schema["anyOf"]
        return (
            keys == {"anyOf"}
            and isinstance(members, list)
            and len(members) >= 2
            and all(fits_type_grammar(m) for m in members)
        )
    kind = schema.get("type")
    if isinstance(kind, list):  # `type: [string, null]` is the union of its members
        return (
            keys == {"type"}
            and len(kind) >= 2
            and all(isinstance(k, str) and k in _PRIMITIVES for k in kind)
            and len(set(kind)) == len(kind)
        )
    if kind in _PRIMITIVES:
        return _primitive(kind, schema, keys - {"type"})
    if kind == "array":
        return keys == {"type", "items"} and fits_type_grammar(schema["items"])
    if kind == "object":
        return _object(schema, keys - {"type"})
    return False


def _primitive(kind: str, schema: Mapping[str, Any], rest: set[str]) -> bool:
    if kind in ("integer", "number"):
        return rest <= _NUMERIC and all(_number(schema[k]) for k in rest)
    if kind != "string":
        return not rest
    if "enum" in rest:
        values = schema["enum"]
        return (
            rest == {"enum"}
            and isinstance(values, list)
            and bool(values)
            and all(isinstance(v, str) for v in values)
            and len(set(values)) == len(values)
        )
    if not rest <= _STRING:
        return False
    if "format" in rest and (schema["format"] not in _FORMATS or rest != {"format"}):
        return False
    if "contentEncoding" in rest and (
        schema["contentEncoding"] != "base64" or rest != {"contentEncoding"}
    ):
        return False
    return all(_count(schema[k]) for k in rest & {"minLength", "maxLength"}) and (
        "pattern" not in rest or isinstance(schema["pattern"], str)
    )


def _object(schema: Mapping[str, Any], rest: set[str]) -> bool:
    extra = schema.get("additionalProperties", True)
    if not rest <= {"properties", "required", "additionalProperties"}:
        return False
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        return False
    if isinstance(extra, Mapping):  # a map: no declared fields beside it
        return rest == {"additionalProperties"} and fits_type_grammar(extra)
    if not isinstance(extra, bool):
        return False
    required = schema.get("required", [])
    return (
        isinstance(required, list)
        and all(isinstance(r, str) and r in props for r in required)
        and all(isinstance(k, str) and fits_type_grammar(v) for k, v in props.items())
    )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
