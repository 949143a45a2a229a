"""`nika decide verify`: every law, then each fixture's class and outcome; exit 1 when refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.decide._spec import GOLDENS, bundle

from nika.cli import main
from nika.decide import validate
from nika.decide.verify import fixture_snapshot, verify


def test_fixture_snapshot_is_one_item_per_key_at_the_floor() -> None:
    b = validate(bundle())
    snap = fixture_snapshot(b, {"name": "x", "evidence": {"failed_required_checks": 3,
                                                           "relevant_coverage_bp": 1}})
    assert snap == {"evidence": [
        {"key": "failed_required_checks", "value": 3, "source": "ci", "integrity": "verified",
         "digest": "fixture:x:failed_required_checks"},
        {"key": "relevant_coverage_bp", "value": 1, "source": "coverage-bot",
         "integrity": "observed", "digest": "fixture:x:relevant_coverage_bp"}]}


def test_every_fixture_is_evaluated() -> None:
    result = verify(bundle())
    assert result.ok and result.label == "pr-triage 1.0.0"
    assert [(f.name, f.kind, f.outcome) for f in result.fixtures][:4] == [
        ("hot", "positive", "human_required"), ("cold", "negative", "defer"),
        ("mid", "ambiguous", "defer"), ("two-authorities", "contradictory", "defer")]


def test_a_fixture_the_schema_refuses_fails_the_verification() -> None:
    b = bundle()
    b["fixtures"].append({"name": "odd", "class": "adversarial",
                          "evidence": {"failed_required_checks": "many"}})
    result = verify(b)
    assert not result.ok and result.refusal is None
    assert result.fixtures[-1].refusal is not None
    assert result.fixtures[-1].refusal.code == "NIKA-DECIDE-002"


def test_cli_prints_class_and_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "b.json"
    path.write_bytes((GOLDENS / "pr-triage.bundle.json").read_bytes())
    assert main(["decide", "verify", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok ") and "7 fixtures evaluated" in out[0]
    assert out[1].split() == ["positive", "hot", "human_required"]


@pytest.mark.parametrize(("text", "law"), [
    ("not json", "structure"),
    (json.dumps({**bundle(), "fixtures": []}), "contradictory-fixture"),
])
def test_cli_exits_1_when_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  text: str, law: str):
    path = tmp_path / "b.json"
    path.write_text(text)
    assert main(["decide", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("refused ") and "NIKA-DECIDE-001" in out and f"`{law}`" in out


def test_cli_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "verify", str(tmp_path / "absent.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["decide"]) == 2


def test_document_text_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    b = bundle()
    b["fixtures"][0]["name"] = "evil\x1b[31m"
    path = tmp_path / "b.json"
    path.write_text(json.dumps(b))
    assert main(["decide", "verify", str(path)]) == 0
    assert "\x1b" not in capsys.readouterr().out
