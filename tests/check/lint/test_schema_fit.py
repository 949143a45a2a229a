"""`fits_type_grammar`: the image of spec 09's lowering table, and nothing beyond it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.check.lint._schema_fit import fits_type_grammar

_PRIMS: list[dict[str, Any]] = [
    {"type": "null"},
    {"type": "boolean"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "string"},
    {"type": "string", "contentEncoding": "base64"},  # bytes
    {"type": "string", "format": "uri"},  # uri
    {"type": "string", "format": "date-time"},  # timestamp
]
_names = st.text("abcdefgh_", min_size=1, max_size=6)
_leaf = st.one_of(
    st.sampled_from(_PRIMS),
    st.lists(_names, min_size=1, max_size=4, unique=True).map(
        lambda e: {"type": "string", "enum": e}
    ),
    st.builds(
        lambda kind, lo, hi: {"type": kind, "minimum": min(lo, hi), "maximum": max(lo, hi)},
        st.sampled_from(["integer", "number"]),
        st.integers(-5, 5),
        st.integers(-5, 5),
    ),
    st.integers(0, 9).map(lambda n: {"type": "string", "pattern": "^[a-z]+$", "minLength": n}),
)


def _object(fields: dict[str, Any], required: list[bool], closed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": fields}
    out["required"] = [k for k, req in zip(fields, required, strict=False) if req]
    if closed:
        out["additionalProperties"] = False
    return out


lowered = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        inner.map(lambda t: {"type": "array", "items": t}),
        inner.map(lambda t: {"type": "object", "additionalProperties": t}),
        st.lists(inner, min_size=2, max_size=3).map(lambda ts: {"anyOf": ts}),
        st.builds(
            _object,
            st.dictionaries(_names, inner, max_size=3),
            st.lists(st.booleans(), min_size=3, max_size=3),
            st.booleans(),
        ),
    ),
    max_leaves=8,
)


@given(lowered)
def test_every_lowered_type_fits(schema: dict[str, Any]) -> None:
    assert fits_type_grammar(schema)


@given(lowered, st.sampled_from(["minItems", "const", "oneOf", "$ref", "not", "if"]))
def test_an_out_of_core_keyword_never_fits(schema: dict[str, Any], keyword: str) -> None:
    assert not fits_type_grammar({**schema, keyword: 1})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},  # an array of anything: the grammar has no Any
        {"type": "string", "enum": ["a", 1]},  # enums are strings
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
        {"type": "string", "format": "email"},
        {"anyOf": [{"type": "string"}]},  # a union has at least two members
        "string",
    ],
)
def test_shapes_outside_the_grammar(schema: Any) -> None:
    assert not fits_type_grammar(schema)
