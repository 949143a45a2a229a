"""Builders for the argument schemas the declarations write: plain JSON Schema dicts, so a
declaration reads as the schema a model is handed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final


def obj(properties: Mapping[str, Any], required: tuple[str, ...] = (), *,
        closed: bool = True, **extra: Any) -> dict[str, Any]:
    """An object schema; `closed` refuses an arg it does not list (an open one leaves its
    argument list the stdlib's to grow)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if closed:
        schema["additionalProperties"] = False
    if required:
        schema["required"] = list(required)
    schema.update(extra)
    return schema


def choice(*values: str, **extra: Any) -> dict[str, Any]:
    """A string from a closed set."""
    return {"type": "string", "enum": list(values), **extra}


def text(**extra: Any) -> dict[str, Any]:
    """A string."""
    return {"type": "string", **extra}


def integer(low: int | None = None, high: int | None = None, **extra: Any) -> dict[str, Any]:
    """An integer within the bounds given."""
    bounds = {k: v for k, v in (("minimum", low), ("maximum", high)) if v is not None}
    return {"type": "integer", **bounds, **extra}


def anything(description: str) -> dict[str, Any]:
    """Any JSON value, described for the model."""
    return {"description": description}


BOOLEAN: Final = {"type": "boolean"}
OBJECT: Final = {"type": "object"}
ARRAY: Final = {"type": "array"}
