"""JSON value helpers shared by the data builtins: strict JSON-ness and JSON equality."""

from __future__ import annotations

from typing import Any

from nika.agent.seams import non_json


def is_json(value: Any) -> bool:
    """Is `value` plain JSON data (string keys, finite numbers, no bytes or other objects)?"""
    return non_json(value) is None


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: `true` is not `1`, but `1` is `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
