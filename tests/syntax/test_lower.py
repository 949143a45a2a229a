"""`lower(T)`: the v1 type → JSON Schema table of spec 09, and it agrees with `conforms`."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from nika.syntax.lower import lower
from nika.syntax.typefit import conforms, decode_may_fit
from nika.syntax.types import TypeExpr, parse_type


def typed(raw: Any) -> TypeExpr:
    problems: list[str] = []
    t = parse_type(raw, (), lambda code, detail, at: problems.append(detail))
    assert t is not None and not problems, problems
    return t


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("bool", {"type": "boolean"}),
        ("bytes", {"type": "string", "contentEncoding": "base64"}),
        ("timestamp", {"type": "string", "format": "date-time"}),
        ({"enum": ["a", "b"]}, {"type": "string", "enum": ["a", "b"]}),
        ({"integer": {"min": 1}}, {"type": "integer", "minimum": 1}),
        ({"string": {"max_len": 3}}, {"type": "string", "maxLength": 3}),
        ({"map": "integer"}, {"type": "object", "additionalProperties": {"type": "integer"}}),
        ({"union": ["string", "null"]}, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
        (
            {"object": {"a": "string", "b": {"optional": "integer"}}},
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a"],
                "additionalProperties": False,
            },
        ),
        (
            {"object": {"a": "string"}, "additional": True},
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        ),
    ],
)
def test_the_lowering_table(raw: Any, schema: dict[str, Any]) -> None:
    assert lower(typed(raw)) == schema


ENTITIES = {"object": {"entities": {"array": {"object": {"name": "string", "kind": "string"}}}}}


@pytest.mark.parametrize(
    "value",
    [
        {"entities": []},
        {"entities": [{"name": "Ada", "kind": "person"}]},
        {"entities": [{"name": "Ada"}]},
        {"entities": [{"name": "Ada", "kind": "person", "x": 1}]},
        {"entities": "none"},
        [],
    ],
)
def test_a_value_fits_the_lowered_schema_exactly_when_it_conforms(value: Any) -> None:
    t = typed(ENTITIES)
    valid = jsonschema.Draft202012Validator(lower(t)).is_valid(value)
    assert valid == conforms(value, t)


@pytest.mark.parametrize(
    ("produced", "raw", "fits"),
    [
        ("json", {"object": {"n": "integer"}}, True),
        ("jsonl", {"array": "string"}, True),
        ("jsonl", {"map": "string"}, False),
        ("structured", {"object": {"exit_code": "integer"}}, True),
        ("structured", "string", False),
        ("bytes", "bytes", True),
        ("bytes", "string", False),
        ("text", "string", True),
        ("text", "timestamp", True),
        ("text", {"enum": ["a", "b"]}, True),
        ("text", "integer", False),
        ("text", {"union": ["integer", "path"]}, True),
        ("jsonl", {"union": ["string", {"array": "integer"}]}, True),
    ],
)
def test_decode_may_fit_is_the_static_reach_of_an_exec_decode(
    produced: str, raw: Any, fits: bool
) -> None:
    assert decode_may_fit(produced, typed(raw)) is fits
