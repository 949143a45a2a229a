"""`nika run` end to end: refusal before start, the report file, --json, SIGINT → 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nika.cli import main

NIKA = [sys.executable, "-m", "nika.cli"]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "flow.nika.yaml"
    path.write_text(text)
    return path


def test_refused_workflow_never_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    flow = _write(tmp_path, "nika: bad\ntasks:\n  a:\n    after: { ghost: success }\n"
                            "    infer: { prompt: x }\n")
    report = tmp_path / "report.json"
    assert main(["run", str(flow), "--report", str(report)]) == 1
    data = json.loads(report.read_text())
    assert data["workflow_state"] == "failure" and data["tasks"] == {}
    assert data["refused"][0]["code"].startswith("NIKA-DAG")
    assert not (tmp_path / ".nika").exists()  # zero events: no journal


def test_run_writes_report_and_streams_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    flow = _write(tmp_path, "nika: ok\nmodel: mock/echo\ninputs: { who: { type: string } }\n"
                            "tasks:\n  hi:\n    infer: { prompt: \"hi ${{ inputs.who }}\" }\n"
                            "outputs:\n  said: ${{ tasks.hi.output }}\n")
    report = tmp_path / "report.json"
    code = main(["run", "--json", "--report", str(report), str(flow), "--var", "who=ann"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(report.read_text())
    assert data["tasks"]["hi"]["output"] == "mock(echo) · hi ann"
    assert data["outputs"] == {"said": "mock(echo) · hi ann"}
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["kind"] == "workflow_started"
    assert events[-1]["kind"] == "workflow_completed"


def test_a_child_runs_under_its_permits_intersected_with_its_callers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the child alone may run anything; its caller only echo: what runs is the meet
    monkeypatch.chdir(tmp_path)
    (tmp_path / "child.nika.yaml").write_text(
        "nika: child\npermits: { exec: true }\ninputs: { prog: { type: string } }\n"
        "tasks:\n  go:\n    exec: { command: [\"${{ inputs.prog }}\", \"hi\"] }\n"
        "outputs:\n  said: ${{ tasks.go.output }}\n")
    flow = _write(tmp_path, "nika: parent\npermits: { exec: [\"echo\"] }\n"
                            "inputs: { prog: { type: string } }\ntasks:\n  call:\n"
                            "    invoke: { workflow: ./child.nika.yaml, args: "
                            "{ prog: \"${{ inputs.prog }}\" } }\n")
    report = tmp_path / "report.json"
    assert main(["run", str(flow), "--report", str(report), "--var", "prog=echo"]) == 0
    assert json.loads(report.read_text())["tasks"]["call"]["output"] == {"said": "hi"}
    assert main(["run", str(flow), "--report", str(report), "--var", "prog=printf"]) == 1
    error = json.loads(report.read_text())["tasks"]["call"]["error"]
    assert error["code"] == "NIKA-SEC-004"
    assert "printf" in error["message"] and "calling workflow's permits" in error["message"]


def test_unknown_var_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    flow = _write(tmp_path, "nika: ok\nmodel: mock/echo\ntasks:\n  hi:\n    infer: { prompt: x }\n")
    assert main(["run", str(flow), "--var", "nope=1"]) == 2
    assert "NIKA-INPUT-002" in capsys.readouterr().err


def test_sigint_cancels_the_run_and_exits_130(tmp_path: Path) -> None:
    flow = _write(tmp_path, "nika: slow\npermits: { exec: [sleep] }\ntasks:\n"
                            "  nap:\n    exec: { command: [sleep, \"60\"] }\n")
    report = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    with subprocess.Popen([*NIKA, "run", "--json", "--report", str(report), str(flow)],
                          cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:  # wait until the sleep is really running
            if '"task_started"' in line:
                break
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 130
    data = json.loads(report.read_text())
    assert data["workflow_state"] == "cancelled"
    assert data["tasks"]["nap"]["status"] == "cancelled"
    journals = list((tmp_path / ".nika" / "traces").glob("*.ndjson"))
    assert len(journals) == 1
    last = json.loads(journals[0].read_text().splitlines()[-1])
    assert last["kind"] in ("workflow_cancelled", "run_sealed")
