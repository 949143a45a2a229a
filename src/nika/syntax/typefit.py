"""Whether values inhabit a v1 type (spec 09): the static `default:`/`const` fit, and what an
exec decode can yield.

`NIKA-DEFAULT-001` rides on `conforms`: a declared default or typed constant that does not
conform to its own `type:` is refused at check, never discovered at run. `NIKA-TYPE-004`
rides on `decode_may_fit`: a `returns:` no decoded output could inhabit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from nika.syntax.durations import DURATION_PATTERN
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
    is_number,
)

_DURATION_RE: Final = re.compile(DURATION_PATTERN)


def conforms(value: Any, t: TypeExpr) -> bool:
    """Whether a literal YAML/JSON value inhabits `t` (the static default/const fit)."""
    if isinstance(t, Prim):
        return _fits_primitive(value, t.name)
    if isinstance(t, ArrayOf):
        return isinstance(value, list) and all(conforms(v, t.item) for v in value)
    if isinstance(t, MapOf):
        return isinstance(value, Mapping) and all(conforms(v, t.value) for v in value.values())
    if isinstance(t, ObjectOf):
        return _fits_object(value, t)
    if isinstance(t, UnionOf):
        return any(conforms(value, m) for m in t.members)
    if isinstance(t, EnumOf):
        return isinstance(value, str) and value in t.values
    if isinstance(t, Bounded):
        if not _fits_primitive(value, t.base):
            return False
        return (t.min is None or value >= t.min) and (t.max is None or value <= t.max)
    return _fits_refined(value, t)


def decode_may_fit(produced: str, t: TypeExpr) -> bool:
    """Whether some value an exec decode `produced` (`text` · `json` · `jsonl` · `bytes`, or
    `structured` capture) may inhabit `t` (spec 09 §decode): the static `returns:` reach."""
    if isinstance(t, UnionOf):
        return any(decode_may_fit(produced, m) for m in t.members)
    if produced == "json":
        return True
    if produced == "jsonl":
        return isinstance(t, ArrayOf)
    if produced == "structured":
        return isinstance(t, (ObjectOf, MapOf))
    if produced == "bytes":
        return t == Prim("bytes")
    return isinstance(t, (RefinedString, EnumOf)) or (
        isinstance(t, Prim) and (t.name == "string" or t.name in STRING_NEWTYPES)
    )


def _fits_object(value: Any, t: ObjectOf) -> bool:
    if not isinstance(value, Mapping):
        return False
    declared = {f.name for f in t.fields}
    if not t.additional and any(k not in declared for k in value):
        return False
    for f in t.fields:
        if f.name not in value:
            if not f.optional:
                return False
        elif not conforms(value[f.name], f.type):
            return False
    return True


def _fits_refined(value: Any, t: RefinedString) -> bool:
    if not isinstance(value, str):
        return False
    if t.min_len is not None and len(value) < t.min_len:
        return False
    if t.max_len is not None and len(value) > t.max_len:
        return False
    if t.pattern is None:
        return True
    try:
        return re.search(t.pattern, value) is not None
    except re.error:
        return False


def _fits_primitive(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "bool":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return is_number(value)
    if name == "duration":
        return isinstance(value, str) and _DURATION_RE.match(value) is not None
    if name == "bytes":
        return isinstance(value, (str, bytes))
    return isinstance(value, str)
