"""The v1 type grammar (spec 09): parse, refuse, and fit literal values."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.syntax.typefit import conforms
from nika.syntax.types import (
    ArrayOf,
    Bounded,
    EnumOf,
    Field,
    ObjectOf,
    Prim,
    TypeExpr,
    UnionOf,
    parse_type,
    render,
)


def parse(raw: Any) -> tuple[TypeExpr | None, list[str]]:
    found: list[str] = []
    t = parse_type(raw, ("t",), lambda code, detail, path: found.append(code))
    return t, found


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("string", Prim("string")),
        (None, Prim("null")),
        ({"array": "integer"}, ArrayOf(Prim("integer"))),
        ({"integer": {}}, Prim("integer")),
        ({"integer": {"min": 0, "max": 9}}, Bounded("integer", 0, 9)),
        ({"enum": ["a", "b"]}, EnumOf(("a", "b"))),
        ({"union": ["string", None]}, UnionOf((Prim("string"), Prim("null")))),
        (
            {"object": {"a": "string", "b": {"optional": "bool"}}, "additional": True},
            ObjectOf((Field("a", Prim("string")), Field("b", Prim("bool"), True)), True),
        ),
    ],
)
def test_parses(raw: Any, expected: TypeExpr) -> None:
    assert parse(raw) == (expected, [])


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("Summary", "NIKA-TYPE-001"),
        ("boolean", "NIKA-TYPE-001"),
        ("money", "NIKA-TYPE-001"),
        ("artifact<image/png>", "NIKA-TYPE-001"),
        ({"optional": "string"}, "NIKA-TYPE-001"),
        ({"array": {"optional": "string"}}, "NIKA-TYPE-001"),
        ({"union": ["string"]}, "NIKA-TYPE-001"),
        ({"enum": []}, "NIKA-TYPE-001"),
        ({"enum": ["a", "a"]}, "NIKA-TYPE-001"),
        ({"integer": {"min": 5, "max": 1}}, "NIKA-TYPE-001"),
        ({"integer": {"min": 0.5}}, "NIKA-TYPE-001"),
        ({"string": {"min_len": -1}}, "NIKA-TYPE-001"),
        ({"array": "string", "map": "string"}, "NIKA-TYPE-001"),
        ({"tuple": ["string"]}, "NIKA-TYPE-001"),
        (42, "NIKA-TYPE-001"),
        ({"string": {"pattern": "(a)\\1"}}, "NIKA-TYPE-006"),
        ({"string": {"pattern": "(?=x)"}}, "NIKA-TYPE-006"),
        ({"string": {"pattern": "a*?"}}, "NIKA-TYPE-006"),
        ({"string": {"pattern": "\\bword"}}, "NIKA-TYPE-006"),
        ({"string": {"pattern": "x" * 513}}, "NIKA-TYPE-006"),
    ],
)
def test_refuses(raw: Any, code: str) -> None:
    t, found = parse(raw)
    assert t is None and code in found


@pytest.mark.parametrize(
    ("value", "raw", "fits"),
    [
        (3, "integer", True),
        (True, "integer", False),
        (3, "number", True),
        ("3", "number", False),
        (None, "null", True),
        ("30s", "duration", True),
        ("30 s", "duration", False),
        ([1, 2], {"array": "integer"}, True),
        ([1, "2"], {"array": "integer"}, False),
        ({"a": "x"}, {"object": {"a": "string"}}, True),
        ({"a": "x", "b": 1}, {"object": {"a": "string"}}, False),
        ({"a": "x", "b": 1}, {"object": {"a": "string"}, "additional": True}, True),
        ({}, {"object": {"a": {"optional": "string"}}}, True),
        ({"a": None}, {"object": {"a": {"optional": "string"}}}, False),
        (5, {"integer": {"min": 0, "max": 4}}, False),
        ("abc", {"string": {"pattern": "^a", "max_len": 3}}, True),
        ("abcd", {"string": {"max_len": 3}}, False),
        (None, {"union": ["string", None]}, True),
        ("c", {"enum": ["a", "b"]}, False),
    ],
)
def test_conforms(value: Any, raw: Any, fits: bool) -> None:
    t, found = parse(raw)
    assert t is not None and not found
    assert conforms(value, t) is fits


def test_render_is_compact() -> None:
    t, _ = parse({"object": {"a": {"array": "string"}, "b": {"optional": "integer"}}})
    assert t is not None and render(t) == "{a: array<string>, b?: integer}"


_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
_raw = st.recursive(
    _leaf,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=8), kids, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_raw)
def test_parser_never_raises_and_refusals_are_type_codes(raw: Any) -> None:
    t, found = parse(raw)
    assert all(code in ("NIKA-TYPE-001", "NIKA-TYPE-006") for code in found)
    assert (t is None) == bool(found) or t is not None
    if t is not None:
        conforms(raw, t)
        render(t)
