"""A literal bundle judged at check (spec 11): inline, through a const, or a readable JSON side
file; the same code and words as the run's refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.decide._spec import GOLDENS, bundle, snapshot

from nika.check import check
from nika.decide import evaluate
from nika.errors import NikaError


def workflow(bundle_arg: Any, evidence_arg: Any = "${{ inputs.s }}", **const: Any) -> str:
    doc: dict[str, Any] = {
        "nika": "d",
        "inputs": {"s": {"type": {"map": "string"}, "default": {}}},
        "permits": {"fs": {"read": ["*.json"]}},
        "tasks": {"d": {"invoke": {"tool": "nika:decide",
                                   "args": {"bundle": bundle_arg, "evidence": evidence_arg}}}},
    }
    if const:
        doc["const"] = const
    return json.dumps(doc)  # JSON is YAML: the loader reads it as the document


def codes_of(text: str, base: Path | None = None) -> list[tuple[str, Any]]:
    verdict = check(text, path=str(base / "w.nika.yaml") if base else None)
    return [(e.code, e.details.get("law")) for e in verdict.errors]


def broken() -> dict[str, Any]:
    b = bundle()
    b["rules"]["dimensions"]["change_risk"]["terms"][0]["evidence"] = "author_tenure_days"
    return b


def test_a_valid_literal_bundle_passes() -> None:
    assert codes_of(workflow(bundle())) == []
    assert codes_of(workflow("${{ const.b }}", b=bundle())) == []


def test_inline_bundle_breaking_a_law_is_refused_with_the_run_code() -> None:
    assert codes_of(workflow(broken())) == [("NIKA-DECIDE-001", "identity-invariance")]
    with pytest.raises(NikaError) as run:
        evaluate(broken(), snapshot("s1-dominant-risk"))
    verdict = check(workflow(broken()))
    assert run.value.detail in verdict.errors[0].detail  # the run's words, named by task
    assert verdict.errors[0].location is not None


def test_const_bundle_and_const_snapshot_are_literal() -> None:
    assert codes_of(workflow("${{ const.b }}", b=broken())) == [
        ("NIKA-DECIDE-001", "identity-invariance")]
    bad_snapshot = {"evidence": [{"key": "ghost", "value": 1}]}
    assert codes_of(workflow("${{ const.b }}", "${{ const.s }}", b=bundle(),
                             s=bad_snapshot)) == [("NIKA-DECIDE-002", None)]
    assert codes_of(workflow(bundle(), snapshot("s2-missing-required"))) == []  # defers


def test_readable_side_file_is_judged(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_bytes((GOLDENS / "pr-triage.bundle.json").read_bytes())
    (tmp_path / "bad.json").write_text(json.dumps(broken()))
    (tmp_path / "yaml.json").write_text("manifest: {}\n")
    assert codes_of(workflow("good.json"), tmp_path) == []
    assert codes_of(workflow("bad.json"), tmp_path) == [("NIKA-DECIDE-001", "identity-invariance")]
    assert codes_of(workflow("yaml.json"), tmp_path) == [("NIKA-DECIDE-001", "structure")]
    assert codes_of(workflow("${{ const.p }}", p="bad.json"), tmp_path) == [
        ("NIKA-DECIDE-001", "identity-invariance")]


def test_what_only_the_run_knows_is_left_to_it(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    assert codes_of(workflow("absent.json"), tmp_path) == []  # a task may write it first
    assert codes_of(workflow("dir.json"), tmp_path) == []
    assert codes_of(workflow("${{ inputs.s }}")) == []
    partly = bundle()
    partly["manifest"]["owner"] = "${{ inputs.s }}"
    assert codes_of(workflow(partly)) == []


def test_a_const_path_is_the_declared_fs_read_and_an_inline_bundle_none() -> None:
    from nika.check import check_workflow
    from nika.check.effects import infer_effects

    def effects(text: str) -> list[tuple[str, str, bool]]:
        wf = check_workflow(text).workflow
        assert wf is not None
        return [(e.kind, e.target, e.dynamic) for e in infer_effects(wf)
                if e.kind.startswith("fs")]

    assert effects(workflow("${{ const.p }}", p="rubrics/b.json")) == [
        ("fs.read", "rubrics/b.json", False)]
    assert effects(workflow("rubrics/b.json")) == [("fs.read", "rubrics/b.json", False)]
    assert effects(workflow("${{ const.b }}", b=bundle())) == []
    assert effects(workflow(bundle())) == []
    assert effects(workflow("${{ inputs.s }}")) == []  # the run judges what it resolves to
    ungranted = json.loads(workflow("${{ const.p }}", p="rubrics/b.json"))
    ungranted["permits"] = {"tools": ["nika:decide"]}
    assert codes_of(json.dumps(ungranted)) == [("NIKA-SEC-004", None)]
