"""`scripts/conformance.py`, the runner behind `make conformance` (issue 35): it judges a
suite's static fixtures by the runner protocol's matching rule, prints per-tier results, and
prints the spec-07 claim line only for a whole passing suite at a named spec commit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VALID = "nika: ok\nmodel: mock/echo\ntasks:\n  a:\n    infer: { prompt: hi }\n"
CYCLE = ("nika: cyc\nmodel: mock/echo\ntasks:\n  a:\n    after: { b: success }\n"
         "    infer: { prompt: a }\n  b:\n    after: { a: success }\n    infer: { prompt: b }\n")


def _fixture(suite: Path, rel: str, source: str, expected: dict) -> None:
    where = suite / rel
    where.mkdir(parents=True)
    (where / "input.yaml").write_text(source)
    (where / "expected.json").write_text(json.dumps(expected))


def _run(suite: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "conformance.py"), str(suite),
                           *argv], capture_output=True, text=True, timeout=120, check=False)


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "tests"
    _fixture(suite, "core/envelope/001-valid", VALID, {"valid": True})
    _fixture(suite, "core/dag/002-cycle", CYCLE,
             {"valid": False, "errors": [{"namespace": "NIKA-DAG"}]})
    _fixture(suite, "stdlib/003-unknown-builtin",
             'nika: s\ntasks:\n  a:\n    invoke: { tool: "nika:nope" }\n',
             {"valid": False, "errors": [{"category": "validation_error"}]})
    return suite


def test_a_passing_suite_prints_tiers_and_the_claim_at_a_named_commit(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    done = _run(suite, "--spec-commit", "0123abc")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "core     2/2", "stdlib   1/1", "conformance: 3/3 passed",
        "Nika v1 Conformant — Stdlib v0.1 (spec 0123abc)"]
    unnamed = _run(suite)  # no commit named and not a git checkout: no claim
    assert unnamed.returncode == 0 and "Conformant" not in unnamed.stdout


def test_a_failing_fixture_is_named_and_forbids_the_claim(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    _fixture(suite, "core/dag/004-wrong", VALID,
             {"valid": False, "errors": [{"code": "NIKA-DAG-001"}]})
    done = _run(suite, "--spec-commit", "0123abc")
    assert done.returncode == 1
    assert "FAIL core/dag/004-wrong: expected refused, got valid" in done.stdout
    assert "core     2/3" in done.stdout and "conformance: 3/4 passed" in done.stdout
    assert "Conformant" not in done.stdout


def test_no_suite_is_a_usage_error(tmp_path: Path) -> None:
    assert _run(tmp_path / "missing").returncode == 2
    assert _run(tmp_path).returncode == 2  # a directory without fixtures
