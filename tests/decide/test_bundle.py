"""Bundle validation: each law refused with NIKA-DECIDE-001, naming the law."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.decide._spec import bundle

from nika import codes
from nika.decide import validate
from nika.decide._types import TypeRefusal, fits, parse
from nika.errors import NikaError

Mutation = Callable[[dict[str, Any]], None]


def _term(b: dict[str, Any]) -> dict[str, Any]:
    term: dict[str, Any] = b["rules"]["dimensions"]["change_risk"]["terms"][0]
    return term


LAWS: list[tuple[str, Mutation]] = [
    ("regions", lambda b: b.pop("governance")),
    ("manifest", lambda b: b["manifest"].__setitem__("owner", "")),
    ("structure", lambda b: b.__setitem__("manifest", [])),
    ("evidence-schema", lambda b: b.__setitem__("evidence_schema", {})),
    ("evidence-schema", lambda b: b["evidence_schema"]["failed_required_checks"].pop("type")),
    ("evidence-type", lambda b: b["evidence_schema"]["failed_required_checks"]
     .__setitem__("type", "Integer")),
    ("integrity-lattice", lambda b: b["evidence_schema"]["failed_required_checks"]
     .__setitem__("integrity", "gold")),
    ("structure", lambda b: b["evidence_schema"].__setitem__("k", "integer")),
    ("transform", lambda b: b["transforms"]["checks_0_10"].__setitem__("kind", "log")),
    ("transform", lambda b: b["transforms"]["checks_0_10"].pop("min")),
    ("transform", lambda b: b["transforms"]["checks_0_10"].__setitem__("min", 11)),
    ("fixed-point", lambda b: b["transforms"]["checks_0_10"].__setitem__("max", 10.0)),
    ("transform", lambda b: b["transforms"]["release_step"].__setitem__("edges", [1, 0])),
    ("transform", lambda b: b["transforms"]["release_step"].__setitem__("values", [0])),
    ("fixed-point", lambda b: _term(b).__setitem__("weight_bp", 0.5)),
    ("fixed-point", lambda b: _term(b).__setitem__("weight_bp", True)),
    ("closed-rules", lambda b: _term(b).__setitem__("evidence", "ghost_key")),
    ("identity-invariance", lambda b: _term(b).__setitem__("evidence", "author_tenure_days")),
    ("rules", lambda b: _term(b).__setitem__("transform", "nope")),
    ("rules", lambda b: _term(b).__setitem__("monotonicity", "up")),
    ("rules", lambda b: b["rules"].__setitem__("dimensions", {})),
    ("threshold", lambda b: b["rules"]["thresholds"][0].__setitem__("dimension", "ghost")),
    ("fixed-point", lambda b: b["rules"]["thresholds"][0].__setitem__("recommend_gte_bp", "5")),
    ("governance", lambda b: b["governance"].__setitem__("never_automatic", ["ship"])),
    ("fixtures", lambda b: b["fixtures"][0].__setitem__("class", "golden")),
    ("contradictory-fixture", lambda b: b.__setitem__(
        "fixtures", [f for f in b["fixtures"] if f["class"] != "contradictory"])),
    ("monotonicity", lambda b: _term(b).__setitem__("monotonicity", "decreases")),
    ("structure", lambda b: b["fixtures"].append({"class": "positive", "evidence": []})),
    ("structure", lambda b: b["manifest"].__setitem__("digest", float("inf"))),
]


@pytest.mark.parametrize(("law", "mutate"), LAWS)
def test_each_law_refused_and_named(law: str, mutate: Mutation) -> None:
    b = bundle()
    mutate(b)
    with pytest.raises(NikaError) as caught:
        validate(b)
    assert caught.value.code == codes.DECIDE_001
    assert caught.value.details["law"] == law
    assert f"`{law}`" in caught.value.detail


@pytest.mark.parametrize("bad", [[], "bundle.json", None])
def test_a_bundle_is_one_object(bad: Any) -> None:
    with pytest.raises(NikaError) as caught:
        validate(bad)
    assert caught.value.details["law"] == "structure"


def test_the_golden_bundle_holds_and_its_format_key_is_optional() -> None:
    b = bundle()
    assert validate(b).raw is b
    del b["decision_bundle_format"]
    validate(b)


def test_monotonicity_holds_when_the_score_does_not_move() -> None:
    b = bundle()
    # `mid` and `mid-higher-coverage` differ on coverage only; flipping its declared
    # direction breaks the law, declaring `none` silences it
    b["rules"]["dimensions"]["evidence_quality"]["terms"][0]["monotonicity"] = "increases"
    with pytest.raises(NikaError):
        validate(b)
    b["rules"]["dimensions"]["evidence_quality"]["terms"][0]["monotonicity"] = "none"
    validate(b)


@pytest.mark.parametrize(("raw", "value", "fit"), [
    ("integer", 8.0, True), ("integer", 8.5, False), ("integer", True, False),
    ("number", 3, True), ("bool", 0, False), ("duration", "soon", True),
    ({"integer": {"min": 0.5}}, 1, True), ({"enum": ["a", "a", "b"]}, "a", True),
    ({"map": "integer"}, {"a": 1}, True), ({"array": "string"}, ["x", 1], False),
    ({"object": {"a": "integer", "b": {"optional": "string"}}}, {"a": 1}, True),
    ({"object": {"a": "integer"}}, {"a": 1, "c": 2}, False),
    ({"object": {"a": "integer"}, "additional": True}, {"a": 1, "c": 2}, True),
    ({"array": "integer", "additional": "yes"}, [1], True),
    ({"union": ["integer", None]}, None, True), ({"string": {"max_len": 2}}, "abc", False),
])
def test_type_fit_follows_the_reference(raw: Any, value: Any, fit: bool) -> None:
    assert fits(value, parse(raw, "t")) is fit


@pytest.mark.parametrize("raw", [
    "Integer", "int", 5, [], {"optional": "integer"}, {"array": "x"}, {"union": ["integer"]},
    {"enum": []}, {"integer": {"min": None}}, {"integer": {"min": 2, "max": 1}},
    {"string": {"min_len": -1}}, {"string": {"pattern": "(?=x)"}}, {"integer": 3},
    {"array": "integer", "map": "integer"},
])
def test_type_refusals(raw: Any) -> None:
    with pytest.raises(TypeRefusal):
        parse(raw, "t")


def test_a_type_nested_past_reading_is_refused_not_a_crash() -> None:
    b = bundle()
    deep: Any = "integer"
    for _ in range(5000):
        deep = {"array": deep}
    b["evidence_schema"]["failed_required_checks"]["type"] = deep
    with pytest.raises(NikaError) as caught:
        validate(b)
    assert caught.value.details["law"] == "evidence-type"
