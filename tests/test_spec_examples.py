"""Every numbered spec example either runs to success with `--model mock/echo` (given its
inputs), or is refused by `nika check` with the code `nika run` then gives — or, valid Nika
calling a builtin this engine does not implement, is refused by the run's pre-flight with the
one capability code before any task starts (issue 14: check and run agree).

The examples are copied beside a scratch working directory so their relative reads
(`examples/fixtures/…`) and writes (`out/…`) stay inside the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from nika.check import check
from nika.cli import main

SPEC = Path(__file__).resolve().parents[2] / "shared" / "nika-spec"
NUMBERED = sorted(p.name for p in (SPEC / "examples").glob("[0-9][0-9]-*.nika.yaml"))

VARS: dict[str, list[str]] = {}
"""`--var` per example, where its declared inputs have no default."""

REFUSED = {"12-failure-routing.nika.yaml": "NIKA-VAR-021"}
"""What `nika check` refuses, with the code (the spec example disagrees with spec 03)."""

UNSERVED: dict[str, str] = {"14-decide-publish.nika.yaml": "nika:decide"}
"""Valid Nika calling a builtin this engine does not implement."""


def test_the_walk_sees_the_whole_path() -> None:
    assert len(NUMBERED) == 18


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(SPEC / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", NUMBERED)
def test_each_example_runs_or_is_refused_with_the_runs_code(
    name: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = workdir / "examples" / name
    verdict = check(flow.read_bytes(), path=str(flow))
    report = workdir / "report.json"
    argv = ["run", str(flow), "--model", "mock/echo", "--report", str(report), *VARS.get(name, [])]
    code = main(argv)
    err = capsys.readouterr().err
    ran = json.loads(report.read_text())
    if name in REFUSED:
        assert [e.code for e in verdict.errors] == [REFUSED[name]]
        assert code == 1 and [r["code"] for r in ran["refused"]] == [REFUSED[name]]
        return
    assert verdict.valid, [(e.code, e.detail) for e in verdict.errors]
    capability = [h for h in verdict.hints if h.code == "NIKA-IMPL-002"]
    if name in UNSERVED:
        assert [h.details["tool"] for h in capability if h.details] == [UNSERVED[name]]
        assert code == 1 and [r["code"] for r in ran["refused"]] == ["NIKA-IMPL-002"]
        assert ran["tasks"] == {} and not (workdir / ".nika").exists()
        return
    assert capability == []
    assert code == 0, err
    assert ran["workflow_state"] == "success"
    assert all(t["status"] in ("success", "skipped", "cancelled") for t in ran["tasks"].values())
