"""The static subtyping relation of spec 09."""

from __future__ import annotations

from typing import Any

import pytest

from nika.syntax.subtype import is_subtype
from nika.syntax.types import TypeExpr, parse_type


def t(raw: Any) -> TypeExpr:
    parsed = parse_type(raw, (), lambda *a: pytest.fail(str(a)))
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(
    ("a", "b", "holds"),
    [
        ("integer", "number", True),
        ("number", "integer", False),
        ("uri", "string", True),
        ({"enum": ["a"]}, "string", True),
        ({"enum": ["a"]}, {"enum": ["a", "b"]}, True),
        ({"enum": ["a", "c"]}, {"enum": ["a", "b"]}, False),
        ({"integer": {"min": 1, "max": 5}}, {"integer": {"min": 0}}, True),
        ({"integer": {"min": 0}}, {"integer": {"min": 1}}, False),
        ({"array": "integer"}, {"array": "number"}, True),
        ("string", {"union": ["string", None]}, True),
        ({"union": ["string", None]}, "string", False),
        ({"object": {"a": "string", "b": "integer"}}, {"object": {"a": "string"}}, False),
        (
            {"object": {"a": "string", "b": "integer"}},
            {"object": {"a": "string"}, "additional": True},
            True,
        ),
        ({"object": {"a": {"optional": "string"}}}, {"object": {"a": "string"}}, False),
        ({"object": {"a": "string"}}, {"object": {"a": {"optional": "string"}}}, True),
        ({"object": {"a": "string"}, "additional": True}, {"object": {"a": "string"}}, False),
        ({"string": {"pattern": "^a"}}, {"string": {"pattern": "^a"}}, True),
        ({"string": {"pattern": "^a"}}, {"string": {"pattern": "^b"}}, False),
    ],
)
def test_relation(a: Any, b: Any, holds: bool) -> None:
    assert is_subtype(t(a), t(b)) is holds
