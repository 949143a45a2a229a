"""Evidence types inside the kernel against the reference's type core (`type_core.py`, which
`decision_core.py` judges snapshots with): the same expressions refused, the same values fit."""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.decide.test_differential import TYPE_ERROR

from nika.decide._types import TypeRefusal, fits, parse

TYPE_CORE = sys.modules["type_core"]  # the reference's type core, loaded with the differential

LEAVES = st.sampled_from(["integer", "number", "bool", "string", "null", "bytes", "uri",
                          "path", "duration", "timestamp", "Integer", "int", None, 3])
BOUNDS = st.fixed_dictionaries({}, optional={
    "min": st.integers(-2, 2) | st.sampled_from([0.5, None, True]),
    "max": st.integers(-2, 2) | st.sampled_from([1.5, "x"])})
TYPES = st.recursive(
    LEAVES
    | st.builds(lambda b: {"integer": b}, BOUNDS) | st.builds(lambda b: {"number": b}, BOUNDS)
    | st.builds(lambda v: {"enum": v}, st.lists(st.sampled_from(["a", "b", 1]), max_size=3))
    | st.builds(lambda b: {"string": b}, st.fixed_dictionaries({}, optional={
        "min_len": st.integers(-1, 3) | st.just(True), "max_len": st.integers(0, 3),
        "pattern": st.sampled_from(["^[a-z]+$", "a|b", "(?=x)", 5])})),
    lambda inner: st.builds(lambda t: {"array": t}, inner)
    | st.builds(lambda t: {"map": t}, inner)
    | st.builds(lambda ts: {"union": ts}, st.lists(inner, max_size=3))
    | st.builds(lambda t: {"optional": t}, inner)
    | st.builds(lambda fs, add: {"object": fs, **add},
                st.dictionaries(st.sampled_from("vw"),
                                inner | st.builds(lambda t: {"optional": t}, inner), max_size=2),
                st.sampled_from([{}, {"additional": True}, {"additional": "yes"}]))
    | st.builds(lambda t: {**t, "additional": 1} if isinstance(t, dict) else t, inner),
    max_leaves=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([8.0, 0.5, -1.0])
    | st.text("ab", max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("vwz"), inner,
                                                                max_size=2),
    max_leaves=5)


def _theirs(raw: Any) -> Any:
    try:
        return TYPE_CORE.parse_type(raw, set(), "t")
    except TYPE_ERROR:
        return None


@settings(max_examples=800, deadline=None, derandomize=True)
@given(raw=TYPES, values=st.lists(VALUES, min_size=1, max_size=4))
def test_parse_and_fit_agree_with_the_reference(raw: Any, values: list[Any]) -> None:
    theirs = _theirs(raw)
    try:
        mine = parse(raw, "t")
    except TypeRefusal:
        assert theirs is None, raw
        return
    assert theirs is not None, raw
    for value in values:
        assert fits(value, mine) == TYPE_CORE.fits(value, theirs, {}), (raw, value)


def test_an_integral_float_fits_integer_in_both() -> None:
    assert fits(8.0, parse("integer", "t")) and TYPE_CORE.fits(8.0, {"prim": "integer"}, {})
