"""The decision kernel: the five golden receipts byte for byte, and the snapshot laws."""

from __future__ import annotations

from typing import Any

import pytest
from tests.decide._spec import CASES, bundle, golden, snapshot

from nika import codes
from nika.decide import evaluate, receipt_json, validate
from nika.errors import NikaError


def item(key: str, value: Any, **over: Any) -> dict[str, Any]:
    base = {"key": key, "value": value, "source": "ci", "digest": f"d-{key}",
            "integrity": "verified", "observed_at": "2026-07-14T20:00:00Z"}
    return {**base, **over}


def snap(*items: dict[str, Any]) -> dict[str, Any]:
    return {"t": "2026-07-14T20:00:00Z", "evidence": list(items)}


@pytest.mark.parametrize("case", CASES)
def test_golden_receipts_byte_for_byte(case: str) -> None:
    assert receipt_json(evaluate(bundle(), snapshot(case))) == golden(case)


def test_same_inputs_same_bytes_and_inputs_untouched() -> None:
    b, s = bundle(), snapshot("s4-conflict")
    first = receipt_json(evaluate(b, s))
    assert b == bundle() and s == snapshot("s4-conflict")
    assert receipt_json(evaluate(validate(b), s)) == first


def test_missing_required_key_is_abstention_not_refusal() -> None:
    receipt = evaluate(bundle(), snap(item("touches_release_workflow", True)))
    assert receipt["outcome"] == "defer"
    assert receipt["snapshot"]["missing"] == ["failed_required_checks"]
    term = receipt["dimensions"]["change_risk"]["contributions"][0]
    assert term["known"] is False and term["contribution"] == {"lo": 0, "hi": 10}


def test_integral_float_fits_integer_but_scores_as_unknown() -> None:
    # The reference's type fit admits 8.0 for `integer` (nika.syntax.typefit does not); its
    # scoring reads only ints, so the term is an interval, never a rounded 8.
    receipt = evaluate(bundle(), snap(item("failed_required_checks", 8.0),
                                      item("touches_release_workflow", False)))
    term = receipt["dimensions"]["change_risk"]["contributions"][0]
    assert term["known"] is False and term["contribution"] == {"lo": 0, "hi": 10}
    assert receipt["snapshot"]["missing"] == []


def test_duplicate_key_scores_by_its_last_item() -> None:
    receipt = evaluate(bundle(), snap(item("failed_required_checks", 2),
                                      item("failed_required_checks", 9, source="audit-bot"),
                                      item("touches_release_workflow", False)))
    assert receipt["dimensions"]["change_risk"]["contributions"][0]["contribution"]["lo"] == 9
    assert receipt["conflicts"] == []  # neither is authoritative: no Conflict


def test_straddle_defers_and_floor_clearing_recommends() -> None:
    b = bundle()
    b["governance"]["never_automatic"] = []
    b["evidence_schema"]["touches_release_workflow"]["required"] = False
    straddle = evaluate(b, snap(item("failed_required_checks", 9)))
    assert straddle["outcome"] == "defer"
    assert "straddles" in straddle["determination_provenance"][0]
    hot = evaluate(b, snap(item("failed_required_checks", 9),
                           item("touches_release_workflow", True)))
    assert hot["outcome"] == "recommend"
    assert hot["determination_provenance"] == [
        "dimension change_risk dominates the threshold (inf 5009 >= 5000 bp) — robust, not "
        "point-estimated"]


def test_conflict_on_optional_key_does_not_force_a_human() -> None:
    b = bundle()
    b["evidence_schema"]["relevant_coverage_bp"]["integrity"] = "authoritative"
    receipt = evaluate(b, snap(
        item("failed_required_checks", 0), item("touches_release_workflow", False),
        item("relevant_coverage_bp", 1, source="coverage-bot", integrity="authoritative"),
        item("relevant_coverage_bp", 2, source="coverage-bot", integrity="authoritative",
             digest="x")))
    assert receipt["outcome"] == "defer"
    assert receipt["conflicts"][0]["required"] is False
    assert len(receipt["conflicts"][0]["witness"]) == 2


@pytest.mark.parametrize(("evidence", "says"), [
    ([item("failed_required_checks", "eight")], "does not fit"),
    ([item("failed_required_checks", 1, source="random-blog")], "not authorised"),
    ([item("failed_required_checks", 1, integrity="observed")], "below the declared floor"),
    ([item("failed_required_checks", 1, integrity="gold")], "not in the lattice"),
    ([item("ghost", 1)], "not a declared evidence key"),
    ([item("failed_required_checks", 1), "x"], "must be a map"),
    ([item("failed_required_checks", 1, digest=1), item("touches_release_workflow", False)],
     "cannot be ordered"),
    ([item("failed_required_checks", float("nan"))], "finite JSON number"),
])
def test_snapshot_refusals_are_decide_002(evidence: list[Any], says: str) -> None:
    with pytest.raises(NikaError) as caught:
        evaluate(bundle(), snap(*evidence))
    assert caught.value.code == codes.DECIDE_002 and says in caught.value.detail


@pytest.mark.parametrize("bad", [[], "x", {"evidence": {}}])
def test_snapshot_of_wrong_shape_is_decide_002(bad: Any) -> None:
    with pytest.raises(NikaError) as caught:
        evaluate(bundle(), bad)
    assert caught.value.code == codes.DECIDE_002


def test_a_refused_bundle_wins_over_a_refused_snapshot() -> None:
    b = bundle()
    b["fixtures"] = [f for f in b["fixtures"] if f["class"] != "contradictory"]
    with pytest.raises(NikaError) as caught:
        evaluate(b, "not a snapshot")
    assert caught.value.code == codes.DECIDE_001
    assert caught.value.details["law"] == "contradictory-fixture"
