"""The run receipt (15 §the one receipt · §the verifier is a fortress): built from a real run,
read field by field, proven by recomputation, refused past its bounds."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from nika.canonical import canonical_bytes
from nika.cli import main
from nika.journal.receipt import MAX_ARTIFACT, ReceiptRefused, decode, digest_of
from nika.journal.receipt_schema import explain, unprojected

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "tests" / "runtime"

FLOW = """\
nika: receipt-demo
model: mock/echo
permits:
  exec: ["echo"]
tasks:
  think:
    infer: { prompt: "one infer", max_tokens: 50 }
  stamp:
    after: { think: success }
    exec: { command: ["echo", "sealed"] }
"""


def _fixtures() -> list[Path]:
    return sorted(p.parent for p in CORPUS.glob("receipt/*/expected-explain.json"))


@pytest.mark.parametrize("fixture", _fixtures(), ids=lambda p: p.name)
def test_every_reference_receipt_reads_as_expected_and_a_mutation_is_named(
        fixture: Path) -> None:
    expected = json.loads((fixture / "expected-explain.json").read_text(encoding="utf-8"))
    doc = decode((fixture / "receipt.json").read_bytes())
    assert unprojected(doc) == sorted(expected["unprojected"])
    doc["zz_probe"] = 1
    assert unprojected(doc) == sorted([*expected["unprojected"], "zz_probe"])


def test_an_unknown_nested_field_is_named_by_its_path_and_a_leaf_covers_its_subtree() -> None:
    doc: dict[str, Any] = {
        "certificate": {"effects": {"needed": {"exec": ["git"], "fs": {"read": ["./x"]}},
                                    "mystery": 1},
                        "derivation": [{"task": "a", "surprise": True}]},
        "trace_verdict": {"head": "ab", "oddity": 0},
    }
    assert unprojected(doc) == ["certificate.derivation.surprise",
                                "certificate.effects.mystery", "trace_verdict.oddity"]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    assert main(["run", "flow.nika.yaml"]) == 0
    capsys.readouterr()
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    return journal


def _built(run: Path, out: Path) -> dict[str, Any]:
    """`nika trace receipt build` of the run's journal, into `out`, parsed."""
    assert main(["trace", "receipt", "build", str(run), "--workflow", "flow.nika.yaml",
                 "--output", str(out)]) == 0
    doc: dict[str, Any] = json.loads(out.read_text())
    return doc


def test_a_run_s_receipt_builds_reads_in_full_and_verifies(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "receipt.json"
    receipt = _built(run, out)
    assert receipt["receipt_format"] == 1 and receipt["assertions"] == []
    assert receipt["trace_verdict"]["verdict"] == "clean"
    assert receipt["trace_verdict"]["outcome"] == "completed"
    assert receipt["lock_digest"].startswith("unrecorded")
    prologue = {p["key"]: p["value"]
                for p in json.loads(run.read_bytes().split(b"\n")[0])["fields"]}
    assert receipt["proves"] == prologue["semantic_hash"]
    assert receipt["digest"] == digest_of(receipt)
    assert unprojected(receipt) == []  # every field this engine writes has its projection
    lines = explain(receipt)
    assert lines[1].startswith("  a READING, never a proof") and lines[-1] == "unprojected: none"
    capsys.readouterr()
    assert main(["trace", "receipt", "verify", str(out), "--journal", str(run),
                 "--workflow", "flow.nika.yaml"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("VERIFIED · 12 of 12") and "unchecked" not in shown


def test_a_doctored_receipt_reads_the_same_but_never_verifies(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "receipt.json"
    doc = _built(run, out)
    doc["trace_verdict"]["outcome"] = "failed"
    out.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["trace", "receipt", "explain", str(out)]) == 0  # a reading judges nothing
    assert "failed" in capsys.readouterr().out
    assert main(["trace", "receipt", "verify", str(out), "--journal", str(run)]) == 2
    shown = capsys.readouterr().out
    assert shown.startswith("FORGED") and "digest: BROKEN" in shown and "outcome" in shown


def test_a_receipt_for_another_workflow_is_refused(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.nika.yaml"
    other.write_text(FLOW.replace("one infer", "another infer"))
    assert main(["trace", "receipt", "build", str(run), "--workflow", str(other)]) == 2
    assert "did not run" in capsys.readouterr().err


@pytest.mark.parametrize(("data", "kind"), [
    (b"{" + b" " * MAX_ARTIFACT + b"}", "Oversized"),
    (b"[" * 33 + b"]" * 33, "TooDeep"),
    (b'{"digest": "a", "digest": "b"}', "Malformed"),
    (b'{"a": 1} trailing', "Malformed"),
    (json.dumps({"assertions": [{"assert": "x"}] * 65}).encode(), "ProofFlood"),
    (json.dumps({"proves": "p" * 300}).encode(), "IdOverflow"),
    # admitted by the decode step (as the reference decoder admits them), not receipts
    (json.dumps({"a": "[" * 40}).encode(), "Malformed"),  # brackets inside a string are text
    (json.dumps({"k" * 257: 1}).encode(), "Malformed"),  # a long key is no identifier field
    (b"[1, 2]", "Malformed"),
    (b'{"a": NaN}', "Malformed"),
    (b'{"a": 1e999}', "Malformed"),
    (b'{"a": 9007199254740993}', "Malformed"),  # RFC 8785 cannot spell it exactly
    (b'{"a": "\\ud800"}', "Malformed"),  # a lone surrogate escape
])
def test_a_receipt_past_a_bound_is_refused_with_its_typed_class(
        data: bytes, kind: str) -> None:
    with pytest.raises(ReceiptRefused) as refused:
        decode(data)
    assert refused.value.kind == kind


def test_size_is_judged_before_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep_and_big = b"[" * 40 + b" " * MAX_ARTIFACT + b"]" * 40
    with pytest.raises(ReceiptRefused) as refused:
        decode(deep_and_big)
    assert refused.value.kind == "Oversized"
    path = tmp_path / "big.json"
    path.write_bytes(deep_and_big)
    assert main(["trace", "receipt", "explain", str(path)]) == 2
    assert capsys.readouterr().out.startswith("REFUSED · Oversized")


def test_a_receipt_proves_its_workflow_to_the_timeout(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A workflow that differs only in a task's `timeout:` is another workflow."""
    out = tmp_path / "receipt.json"
    _built(run, out)
    other = tmp_path / "slow.nika.yaml"
    other.write_text(FLOW.replace('exec: { command: ["echo", "sealed"] }',
                                  'exec: { command: ["echo", "sealed"] }\n    timeout: "5m"'))
    capsys.readouterr()
    assert main(["trace", "receipt", "verify", str(out), "--workflow", str(other)]) == 2
    shown = capsys.readouterr().out
    assert shown.startswith("FORGED") and "proves: BROKEN" in shown


def test_a_receipt_of_the_older_format_is_named_never_forged(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "receipt.json"
    doc = _built(run, out)
    doc["proves"] = hashlib.sha256(b"an older semantic hash").hexdigest()
    body = {k: v for k, v in doc.items() if k != "digest"}
    doc["digest"] = hashlib.sha256(b"nika-py/receipt/1\x00" + canonical_bytes(body)).hexdigest()
    out.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["trace", "receipt", "verify", str(out), "--journal", str(run),
                 "--workflow", "flow.nika.yaml"]) == 2
    shown = capsys.readouterr().out
    assert shown.startswith("OLDER FORMAT") and "FORGED" not in shown
    assert "rebuild it with `nika trace receipt build" in shown
    doc["digest"] = "sha512:receipt:1:" + "0" * 64
    out.write_text(json.dumps(doc))
    assert main(["trace", "receipt", "verify", str(out)]) == 2
    assert capsys.readouterr().out.startswith("OLDER FORMAT")


def test_the_receipt_spells_its_hashes_with_algorithm_domain_and_version(
        run: Path, tmp_path: Path) -> None:
    doc = _built(run, tmp_path / "receipt.json")
    assert doc["digest"].startswith("blake3:receipt:1:")
    assert doc["proves"].startswith("blake3:semantic:1:")


def test_another_engine_s_receipt_is_an_older_format_never_forged(
        capsys: pytest.CaptureFixture[str]) -> None:
    kit = next(p / "shared" / "conformance" for p in Path(__file__).resolve().parents
               if (p / "shared" / "conformance" / "tests").is_dir())
    [receipt] = kit.glob("tests/runtime/receipt/001-*/receipt.json")
    assert main(["trace", "receipt", "verify", str(receipt)]) == 2
    shown = capsys.readouterr().out
    assert shown.startswith("OLDER FORMAT") and "FORGED" not in shown
