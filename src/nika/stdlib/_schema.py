"""The JSON Schema subset a builtin's argument schema is written in, and its one judge.

A declaration's `schema` is standard JSON Schema (the model reads it as the tool's
parameters) restricted to `KEYWORDS`, so one small walk judges it the same way for the check
(literal args, `${{ }}` values left to the run) and for the executor (resolved args). Two
choices differ from a general validator, on purpose: an `integer` is an `int` (a YAML `2.0`
is a float, and the builtins are Python), and a value that fails its `type` is reported
once, by its type, not again by each keyword that then cannot hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from nika.errors import NikaError

KEYWORDS: Final = frozenset({
    "type", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum", "minItems",
    "maxItems", "items", "properties", "required", "additionalProperties", "oneOf",
    "description", "default",
})  # fmt: skip
"""Every keyword a declared schema may use (the rest of JSON Schema is not judged here)."""

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Misfit:
    """One place where args fail their schema: the value's `path`, the failing `keyword`
    and its subschema, the value there, and for `required` / `additionalProperties` the
    `key` missing or unknown."""

    path: Path
    keyword: str
    schema: Mapping[str, Any]
    value: Any
    key: str | None = None


_NAMED: Final[Mapping[type, str]] = {
    type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string",
    dict: "object", list: "array", tuple: "array",
}  # fmt: skip
"""The exact types args are made of, named at one lookup (the check walks every arg)."""


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (`bytes` and other non-JSON types by name)."""
    named = _NAMED.get(type(value))
    if named is not None:
        return named
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def fits_type(value: Any, wanted: str | list[str]) -> bool:
    """Does `value` have one of the `wanted` JSON types (an integer is also a number)?"""
    got = json_type(value)
    names = [wanted] if isinstance(wanted, str) else wanted
    return got in names or (got == "integer" and "number" in names)


def templated(value: Any) -> bool:
    """Does `value` hold a `${{ }}` island anywhere (only the run knows what it becomes)?"""
    if isinstance(value, str):
        return "${{" in value
    if isinstance(value, Mapping):
        return any(templated(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(templated(v) for v in value)
    return False


def _whole_island(text: str) -> bool:
    from nika.syntax.template import is_whole_island

    try:
        return is_whole_island(text.strip())
    except NikaError:
        return True  # malformed: the variables rung names it; its type is unknowable here


def misfits(schema: Mapping[str, Any], value: Any, *, static: bool, path: Path = ()
            ) -> Iterator[Misfit]:
    """Every misfit of `value` against `schema`, in document order. `static`: `value` is as
    written, so a `${{ }}` island is judged only as far as its shape is known (one whole
    island may become anything; text around an island is still text)."""
    if static and isinstance(value, str) and "${{" in value:
        if not _whole_island(value) and "type" in schema and not fits_type(value, schema["type"]):
            yield Misfit(path, "type", schema, value)
        return
    if "type" in schema and not fits_type(value, schema["type"]):
        yield Misfit(path, "type", schema, value)
        return
    if "enum" in schema and not (static and templated(value)) \
            and not any(_same(value, e) for e in schema["enum"]):
        yield Misfit(path, "enum", schema, value)
    if isinstance(value, str):
        yield from _text(schema, value, path)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield from _number(schema, value, path)
    elif isinstance(value, list | tuple):
        yield from _items(schema, value, static, path)
    elif isinstance(value, Mapping):
        yield from _object(schema, value, static, path)
    if "oneOf" in schema and not (static and templated(value)):
        held = sum(not any(misfits(s, value, static=static, path=path)) for s in schema["oneOf"])
        if held != 1:
            yield Misfit(path, "oneOf", schema, value)


def _same(value: Any, member: Any) -> bool:
    """JSON equality: `true` is not `1`, and `1` is `1.0`."""
    if isinstance(value, bool) or isinstance(member, bool):
        return type(value) is type(member) and value == member
    return bool(value == member)


def _text(schema: Mapping[str, Any], value: str, path: Path) -> Iterator[Misfit]:
    if "minLength" in schema and len(value) < schema["minLength"]:
        yield Misfit(path, "minLength", schema, value)
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        yield Misfit(path, "maxLength", schema, value)
    if "pattern" in schema and not _pattern(schema["pattern"]).search(value):
        yield Misfit(path, "pattern", schema, value)


@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _number(schema: Mapping[str, Any], value: float, path: Path) -> Iterator[Misfit]:
    if "minimum" in schema and value < schema["minimum"]:
        yield Misfit(path, "minimum", schema, value)
    elif "maximum" in schema and value > schema["maximum"]:
        yield Misfit(path, "maximum", schema, value)


def _items(schema: Mapping[str, Any], value: list[Any] | tuple[Any, ...], static: bool,
           path: Path) -> Iterator[Misfit]:
    if "minItems" in schema and len(value) < schema["minItems"]:
        yield Misfit(path, "minItems", schema, value)
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        yield Misfit(path, "maxItems", schema, value)
    if "items" in schema:
        for i, item in enumerate(value):
            yield from misfits(schema["items"], item, static=static, path=(*path, i))


def _object(schema: Mapping[str, Any], value: Mapping[str, Any], static: bool,
            path: Path) -> Iterator[Misfit]:
    for name in schema.get("required", ()):
        if name not in value:
            yield Misfit(path, "required", schema, value, key=name)
    props: Mapping[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in props:
            yield from misfits(props[key], item, static=static, path=(*path, key))
        elif extra is False:
            yield Misfit(path, "additionalProperties", schema, value, key=str(key))
        elif isinstance(extra, Mapping):
            yield from misfits(extra, item, static=static, path=(*path, key))
