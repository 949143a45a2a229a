"""The kernel against the spec's reference evaluator (`conformance/decision_core.py`), run as an
independent second implementation: hypothesis draws bundles (valid, or with one law broken)
and snapshots, and both evaluators must give byte-identical receipts or the same refusal
class (`BundleError` and type_core's `TypeError_` are NIKA-DECIDE-001, `SnapshotError` is
NIKA-DECIDE-002). Draws stay inside the reference's total domain (each region the JSON kind
the format names); the inputs it crashes on instead of refusing are counted apart, and the
kernel must refuse them.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections import Counter
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.decide._spec import CONFORMANCE, bundle, snapshot

from nika import codes
from nika.decide import evaluate, receipt_json, validate
from nika.decide.verify import fixture_snapshot
from nika.errors import NikaError


def _reference() -> ModuleType:
    sys.path.insert(0, str(CONFORMANCE))  # decision_core imports type_core beside it
    try:
        spec = importlib.util.spec_from_file_location("decision_core",
                                                      CONFORMANCE / "decision_core.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(CONFORMANCE))


REF = _reference()
TYPE_ERROR = sys.modules["type_core"].TypeError_


def reference(b: Any, s: Any) -> tuple[str, str]:
    """The reference's answer: ("receipt", bytes), a refusal class, or ("crash", exception)."""
    try:
        return "receipt", REF.canonical(REF.evaluate(b, s))
    except (REF.BundleError, TYPE_ERROR):
        return codes.DECIDE_001, ""
    except REF.SnapshotError:
        return codes.DECIDE_002, ""
    except Exception as exc:  # its crash cases: what the kernel must refuse itself
        return "crash", type(exc).__name__


def ours(b: Any, s: Any) -> tuple[str, str]:
    try:
        return "receipt", receipt_json(evaluate(b, s))
    except NikaError as err:
        assert err.code in (codes.DECIDE_001, codes.DECIDE_002), err
        return err.code, ""


# ── the draws ─────────────────────────────────────────────────────────────────────────────

_INTS = st.integers(-3, 15)
TYPED: list[tuple[Any, st.SearchStrategy[Any]]] = [
    ("integer", _INTS | st.just(8.0)),
    ("number", _INTS | st.sampled_from([2.5, -1.0])),
    ("bool", st.booleans()),
    ("string", st.text(max_size=3)),
    ("duration", st.sampled_from(["5s", "soon"])),
    ({"integer": {"min": 0, "max": 10}}, _INTS),
    ({"integer": {"min": 0.5}}, _INTS),
    ({"number": {"max": 5}}, _INTS),
    ({"integer": {}}, _INTS),
    ({"enum": ["x", "y", "x"]}, st.sampled_from(["x", "y", "z"])),
    ({"union": ["integer", None]}, _INTS | st.none()),
    ({"array": "integer"}, st.lists(_INTS, max_size=2)),
    ({"map": "integer"}, st.dictionaries(st.sampled_from("pq"), _INTS, max_size=2)),
    ({"object": {"v": "integer", "w": {"optional": "string"}}},
     st.fixed_dictionaries({"v": _INTS}, optional={"w": st.text(max_size=2), "z": _INTS})),
    ({"object": {"v": "integer"}, "additional": True},
     st.fixed_dictionaries({"v": _INTS}, optional={"z": _INTS})),
    ({"array": "integer", "additional": 1}, st.lists(_INTS, max_size=2)),
    ({"string": {"max_len": 2, "pattern": "^[a-z]+$"}}, st.text("ab1", max_size=3)),
]
BAD_TYPES: list[Any] = [
    "Integer", "int", 5, {"integer": {"min": None}}, {"enum": []}, {"union": ["integer"]},
    {"optional": "integer"}, {"string": {"pattern": "(?=a)"}}, {"integer": {"min": 2, "max": 1}},
    {"array": "integer", "map": "integer"}, {"string": {"min_len": True}}, None,
]
INTEGRITY = ["untrusted", "observed", "verified", "authoritative"]
OUTCOMES = ["recommend", "defer", "human_required", "opted_out", "overridden"]
CLASSES = ["positive", "negative", "ambiguous", "contradictory", "adversarial"]
SOURCES = ["ci", "bot", "hr"]
ANY_VALUE = st.none() | st.booleans() | _INTS | st.text(max_size=2) | st.just([1])


@st.composite
def _transform(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["clamp", "linear", "bucket"]))
    low = draw(st.integers(-5, 10))
    out: dict[str, Any] = {"kind": kind, "min": low, "max": low + draw(st.integers(0, 15))}
    if kind == "linear":
        out["scale_bp"] = draw(st.integers(-20000, 20000))
        out["offset"] = draw(st.integers(-100, 10000))
    if kind == "bucket":
        edges = sorted(draw(st.lists(st.integers(-5, 25), max_size=3)))
        out["edges"] = edges
        out["values"] = draw(st.lists(st.integers(-10000, 10000), min_size=len(edges) + 1,
                                      max_size=len(edges) + 1))
    return out


@st.composite
def valid_bundle(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, int]]:
    """A bundle holding every law but (sometimes) monotonicity, and each key's TYPED index."""
    keys = draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=4, unique=True))
    typed = {k: draw(st.integers(0, len(TYPED) - 1)) for k in keys}
    schema: dict[str, Any] = {}
    for k in keys:
        decl: dict[str, Any] = {"type": TYPED[typed[k]][0]}
        required = draw(st.sampled_from([True, False, None, "yes", 0]))
        if required is not None:
            decl["required"] = required
        sources = draw(st.none() | st.lists(st.sampled_from(SOURCES), max_size=2, unique=True))
        if sources is not None:
            decl["sources"] = sources
        floor = draw(st.none() | st.sampled_from(INTEGRITY))
        if floor is not None:
            decl["integrity"] = floor
        schema[k] = decl
    names = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    transforms = {n: draw(_transform()) for n in names}
    dims: dict[str, Any] = {}
    for d in range(draw(st.integers(1, 3))):
        terms = [{"evidence": draw(st.sampled_from(keys)),
                  "transform": draw(st.sampled_from(names)),
                  "weight_bp": draw(st.integers(-10000, 20000)),
                  "monotonicity": draw(st.sampled_from(["increases", "decreases", "none"]))}
                 for _ in range(draw(st.integers(0, 3)))]
        dims[f"d{d}"] = {"terms": terms}
    thresholds = [{"dimension": draw(st.sampled_from(sorted(dims))),
                   "recommend_gte_bp": draw(st.integers(-5000, 30000))}
                  for _ in range(draw(st.integers(0, 2)))]
    value = st.integers(-3, 15) | st.booleans()
    fixtures = [{"name": f"f{i}", "class": draw(st.sampled_from(CLASSES)),
                 "evidence": draw(st.dictionaries(st.sampled_from(keys), value, max_size=4))}
                for i in range(draw(st.integers(0, 4)))]
    fixtures.append({"name": "clash", "class": "contradictory", "evidence": {}})
    if draw(st.booleans()):  # a pair differing on one key: probes the declared monotonicity
        base = draw(st.dictionaries(st.sampled_from(keys), value, min_size=len(keys),
                                    max_size=len(keys)))
        moved = {**base, keys[0]: draw(st.integers(-3, 15))}
        fixtures += [{"name": "p", "class": "positive", "evidence": base},
                     {"name": "q", "class": "ambiguous", "evidence": moved}]
    b = {
        "decision_bundle_format": 1,
        "manifest": {"id": "gen", "version": "1.0.0", "owner": "o", "license": "Apache-2.0",
                     **({"digest": "b3:x"} if draw(st.booleans()) else {})},
        "evidence_schema": schema,
        "transforms": transforms,
        "rules": {"dimensions": dims, "thresholds": thresholds},
        "governance": {"never_automatic": draw(st.lists(st.sampled_from(OUTCOMES), max_size=2))},
        "fixtures": draw(st.permutations(fixtures)),
    }
    return b, typed


def _first_term(b: dict[str, Any]) -> dict[str, Any] | None:
    for dim in b["rules"]["dimensions"].values():
        if dim["terms"]:
            term: dict[str, Any] = dim["terms"][0]
            return term
    return None


def _break(b: dict[str, Any], law: str, draw: st.DrawFn) -> None:
    """Break one law of `b` (in place); a law with nothing to break leaves it valid."""
    term, key = _first_term(b), next(iter(b["evidence_schema"]))
    transform = next(iter(b["transforms"].values()))
    if law == "region":
        del b[draw(st.sampled_from(["manifest", "evidence_schema", "transforms", "rules",
                                    "governance", "fixtures"]))]
    elif law == "manifest":
        b["manifest"][draw(st.sampled_from(["id", "version", "owner", "license"]))] = (
            draw(st.sampled_from(["", 1, None])))
    elif law == "empty-schema":
        b["evidence_schema"] = {}
    elif law == "type":
        b["evidence_schema"][key]["type"] = draw(st.sampled_from(BAD_TYPES))
    elif law == "floor":
        b["evidence_schema"][key]["integrity"] = "gold"
    elif law == "kind":
        transform["kind"] = "log"
    elif law == "float-bound":
        transform[draw(st.sampled_from(["min", "max"]))] = 1.0
    elif law == "empty-range":
        transform["min"] = transform["max"] + 1
    elif law == "unsorted" and transform["kind"] == "bucket" and len(transform["edges"]) > 1:
        transform["edges"] = sorted(transform["edges"], reverse=True)
        if transform["edges"] == sorted(transform["edges"]):
            transform["edges"][0] += 1
    elif law == "bucket-shape" and transform["kind"] == "bucket":
        transform["values"].append(0)
    elif law == "float-weight" and term is not None:
        term["weight_bp"] = draw(st.sampled_from([0.5, 100.0, True, None]))
    elif law == "undeclared" and term is not None:
        term["evidence"] = "ghost"
    elif law == "identity" and term is not None:
        b["evidence_schema"][term["evidence"]]["identity"] = True
    elif law == "unknown-transform" and term is not None:
        term["transform"] = "nope"
    elif law == "mono-word" and term is not None:
        term["monotonicity"] = "up"
    elif law == "threshold":
        b["rules"]["thresholds"].append({"dimension": "ghost", "recommend_gte_bp": 1})
    elif law == "float-gate":
        b["rules"]["thresholds"].append({"dimension": next(iter(b["rules"]["dimensions"])),
                                         "recommend_gte_bp": 5000.0})
    elif law == "outcome":
        b["governance"]["never_automatic"].append("ship")
    elif law == "class":
        b["fixtures"][0]["class"] = "golden"
    elif law == "no-contradictory":
        b["fixtures"] = [f for f in b["fixtures"] if f["class"] != "contradictory"]
    # structural breaks: outside the reference's total domain (it crashes on them)
    elif law == "no-min":
        del transform["min"]
    elif law == "decl-string":
        b["evidence_schema"][key] = "integer"
    elif law == "term-string":
        next(iter(b["rules"]["dimensions"].values()))["terms"].append("x")


LAWS = ["region", "manifest", "empty-schema", "type", "floor", "kind", "float-bound",
        "empty-range", "unsorted", "bucket-shape", "float-weight", "undeclared", "identity",
        "unknown-transform", "mono-word", "threshold", "float-gate", "outcome", "class",
        "no-contradictory", "no-min", "decl-string", "term-string"]


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    b, typed = draw(valid_bundle())
    keys = list(b["evidence_schema"])
    items = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.sampled_from(keys) | st.just("ghost")) if draw(
            st.integers(0, 15)) == 0 else draw(st.sampled_from(keys))
        fitting = TYPED[typed[key]][1] if key in typed else ANY_VALUE
        item: dict[str, Any] = {"key": key,
                                "value": draw(fitting if draw(st.integers(0, 7)) else ANY_VALUE)}
        source = draw(st.sampled_from([*SOURCES, None]))
        if source is not None:
            item["source"] = source
        integrity = draw(st.sampled_from(["authoritative"] * 3 + ["verified", "observed",
                                                                  "untrusted", "gold", None]))
        if integrity is not None:
            item["integrity"] = integrity
        digest = draw(st.sampled_from(["d1", "d2", "d3", "", None, 7]))
        if digest is not None:
            item["digest"] = digest
        items.append(item)
    s: dict[str, Any] = {"evidence": items}
    t = draw(st.sampled_from(["2026-07-14T20:00:00Z", None, 5]))
    if t is not None:
        s["t"] = t
    if draw(st.integers(0, 2)) == 0:
        _break(b, draw(st.sampled_from(LAWS)), draw)
    return b, s


def test_differential_against_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    counts: Counter[str] = Counter()

    @settings(max_examples=600, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(case=cases())
    def agree(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
        b, s = case
        theirs = reference(copy.deepcopy(b), copy.deepcopy(s))
        mine = ours(b, s)
        if theirs[0] == "crash":
            counts[f"crash:{theirs[1]}"] += 1
            assert mine[0] in (codes.DECIDE_001, codes.DECIDE_002), (theirs, mine)
            return
        counts[theirs[0]] += 1
        assert mine == theirs
        if mine[0] == "receipt":
            counts[f"outcome:{json.loads(mine[1])['outcome']}"] += 1
            # spec 11's conformance law: every bundle fixture, byte-equal in both evaluators
            for fixture in b["fixtures"]:
                snap = fixture_snapshot(validate(b), fixture)
                assert ours(b, snap) == reference(copy.deepcopy(b), copy.deepcopy(snap))
                counts["fixture"] += 1

    agree()
    with capsys.disabled():
        print(f"\ndecide differential: {dict(sorted(counts.items()))}")
    assert counts["receipt"] >= 40 and sum(v for k, v in counts.items() if "crash" in k) >= 3
    assert counts[codes.DECIDE_001] >= 50 and counts[codes.DECIDE_002] >= 50


# ── the reference's crash cases, refused by the kernel ─────────────────────────────────────

def _golden_with(mutate: Any) -> dict[str, Any]:
    b = bundle()
    mutate(b)
    return b


CRASHES: list[tuple[str, dict[str, Any], Any, str]] = [
    ("clamp without min", _golden_with(lambda b: b["transforms"]["checks_0_10"].pop("min")),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("schema entry not a map", _golden_with(
        lambda b: b["evidence_schema"].__setitem__("extra", "integer")),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("manifest a list", _golden_with(lambda b: b.__setitem__("manifest", [])),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("term a string", _golden_with(
        lambda b: b["rules"]["dimensions"]["change_risk"]["terms"].append("x")),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("transform kind a list", _golden_with(
        lambda b: b["transforms"]["checks_0_10"].__setitem__("kind", ["clamp"])),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("fixture not a map", _golden_with(lambda b: b["fixtures"].append(3)),
     snapshot("s1-dominant-risk"), codes.DECIDE_001),
    ("snapshot item not a map", bundle(), {"evidence": ["x"]}, codes.DECIDE_002),
    ("snapshot a list", bundle(), [], codes.DECIDE_002),
    ("digests of mixed kinds", bundle(),
     {"evidence": [{**e, "digest": d} for e, d in
                   zip(snapshot("s3-straddle")["evidence"], ["d1", 2], strict=True)]},
     codes.DECIDE_002),
]


@pytest.mark.parametrize(("name", "b", "s", "code"), CRASHES, ids=[c[0] for c in CRASHES])
def test_reference_crash_cases_are_refused(name: str, b: Any, s: Any, code: str) -> None:
    theirs = reference(copy.deepcopy(b), copy.deepcopy(s))
    assert theirs[0] == "crash", f"{name}: the reference no longer crashes ({theirs[0]})"
    assert ours(b, s)[0] == code


@st.composite
def monotone_cases(draw: st.DrawFn) -> dict[str, Any]:
    """The golden bundle with many probe fixtures over small value sets (so many of them
    differ on one key only) and drawn declared directions."""
    b = bundle()
    for dim in b["rules"]["dimensions"].values():
        for term in dim["terms"]:
            term["monotonicity"] = draw(st.sampled_from(["increases", "decreases", "none"]))
            term["weight_bp"] = draw(st.sampled_from([-5000, 0, 3000, 10000]))
    required = {"failed_required_checks": st.sampled_from([0, 3, True]),
                "touches_release_workflow": st.booleans() | st.just(1)}
    optional = {"relevant_coverage_bp": st.sampled_from([0, 5000, 5000.0, "x"])}
    b["fixtures"] = [
        {"name": f"f{i}", "class": draw(st.sampled_from(CLASSES)),
         "evidence": draw(st.fixed_dictionaries(required, optional=optional))}
        for i in range(draw(st.integers(2, 16)))] + [
        {"name": "clash", "class": "contradictory", "evidence": {}}]
    return b


def test_monotonicity_agrees_with_the_reference() -> None:
    counts: Counter[str] = Counter()

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(b=monotone_cases())
    def agree(b: dict[str, Any]) -> None:
        try:
            REF.validate_bundle(copy.deepcopy(b))
            theirs = "ok"
        except REF.BundleError:
            theirs = codes.DECIDE_001
        try:
            validate(b)
            mine = "ok"
        except NikaError as err:
            mine = err.code
            assert err.details["law"] == "monotonicity"
        assert mine == theirs
        counts[theirs] += 1

    agree()
    assert counts["ok"] >= 50 and counts[codes.DECIDE_001] >= 50, counts
