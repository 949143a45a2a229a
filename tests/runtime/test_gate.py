"""The durable human gate (ADR-099 rider): a prompt nobody can answer pauses the run, and
`--resume --answer` binds the answer later — through the real CLI, without a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.runtime.test_resume import Project, frames, hits

from nika.runtime.pause import EXIT_PAUSED
from nika.runtime.trace import verify

GATED = """\
nika: gate-demo
permits:
  exec: ["sh"]
secrets:
  stage: { source: env, key: GATE_STAGE, egress: [{ to: "nika:prompt" }, { to: exec }] }
tasks:
  build:
    exec: { command: ["sh", "-c", "echo build >> log.txt; echo v1"] }
  side:
    exec: { command: ["sh", "-c", "echo side >> log.txt; echo docs"] }
  approve:
    with: { version: "${{ tasks.build.output }}" }
    invoke:
      tool: "nika:prompt"
      args: { message: "Deploy ${{ with.version }} to ${{ secrets.stage }}?" }
  deploy:
    with: { ok: "${{ tasks.approve.output }}" }
    when: "${{ with.ok == true }}"
    exec: { command: ["sh", "-c", "echo deploy >> log.txt"] }
"""


@pytest.fixture
def gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Project:
    monkeypatch.setenv("GATE_STAGE", "prod-secret-stage")
    return Project(tmp_path, monkeypatch, capsys, GATED)


def test_paused_then_resumed_with_an_answer_succeeds(gated: Project) -> None:
    code, err = gated.run("--report", "report.json")
    assert code == EXIT_PAUSED, err
    assert "paused at 'approve'" in err and "--answer approve=VALUE" in err
    paused = gated.latest()
    assert verify(paused.read_bytes()).status == "clean"  # a pause is a lifecycle end
    [end] = frames(paused, "workflow_paused")
    assert (end["state"], end["task_id"], end["mode"]) == ("paused", "approve", "confirm")
    assert end["message"] == "Deploy v1 to ••••••?"  # masked like every journal surface
    assert b"prod-secret-stage" not in paused.read_bytes()
    assert not [f for f in frames(paused) if f.get("task") in ("approve", "deploy")
                and f["kind"].startswith("task_") and f["kind"] != "task_scheduled"
                and f["kind"] != "task_started"]  # neither settled: they did not end
    report = json.loads((gated.root / "report.json").read_text())
    assert report["workflow_state"] == "paused" and "approve" in report["paused"]
    assert sorted(gated.log()) == ["build", "side"]  # the independent branch finished

    code, err = gated.run("--resume", str(paused), "--answer", "approve=yes")
    assert code == 0, err
    resumed = gated.latest()
    assert hits(resumed) == ["build", "side"] and sorted(gated.log()) == [
        "build", "deploy", "side"]
    kinds = [(f["kind"], f.get("task")) for f in frames(resumed)]
    assert ("tool_invoked", "approve") in kinds
    [answered] = [f for f in frames(resumed, "task_completed") if f["task"] == "approve"]
    assert json.loads(answered["output"]) is True
    assert frames(resumed, "workflow_completed")
    assert verify(resumed.read_bytes()).status == "clean"


def test_a_resume_without_an_answer_pauses_again(gated: Project) -> None:
    assert gated.run()[0] == EXIT_PAUSED
    first = gated.latest()
    assert gated.run("--resume", str(first))[0] == EXIT_PAUSED
    again = gated.latest()
    assert hits(again) == ["build", "side"] and frames(again, "workflow_paused")
    assert gated.run("--resume", str(again), "--answer", "approve=no")[0] == 0
    assert "deploy" not in gated.log()  # a refusal is a value: the gated task is skipped
    [skipped] = frames(gated.latest(), "task_skipped")
    assert skipped["task"] == "deploy"


def test_an_answer_that_fits_nothing_fails_the_prompt_task(gated: Project) -> None:
    assert gated.run()[0] == EXIT_PAUSED
    code, _ = gated.run("--resume", str(gated.latest()), "--answer", "approve=maybe")
    assert code == 1
    [failed] = frames(gated.latest(), "task_failed")
    assert failed["task"] == "approve" and failed["error"]["code"] == "NIKA-BUILTIN-PROMPT-003"


def test_an_answer_must_name_a_prompt_task(gated: Project) -> None:
    code, err = gated.run("--answer", "build=yes")
    assert code == 2 and "NIKA-RESUME-004" in err and "approve" in err
    code, err = gated.run("--answer", "approve")
    assert code == 2 and "TASK=VALUE" in err


def test_a_prompt_with_a_default_answers_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = GATED.replace('args: { message: "Deploy ${{ with.version }} to ${{ secrets.stage }}?" }',
                         'args: { message: "Deploy?", default: false }')
    monkeypatch.setenv("GATE_STAGE", "x")
    project = Project(tmp_path, monkeypatch, capsys, text)
    assert project.run()[0] == 0
    assert "deploy" not in project.log() and frames(project.latest(), "workflow_completed")


def test_outputs_reading_a_gated_task_wait_for_the_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # outputs read a world still waiting for its human: a pause, never an unresolved read
    monkeypatch.setenv("GATE_STAGE", "prod-secret-stage")
    flow = GATED + ("outputs:\n  shipped: ${{ tasks.deploy.status }}\n"
                    "  built: ${{ tasks.build.output }}\n")
    project = Project(tmp_path, monkeypatch, capsys, flow)
    code, err = project.run("--report", "report.json")
    assert code == EXIT_PAUSED, err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["workflow_state"] == "paused" and "error" not in report
    [end] = frames(project.latest(), "workflow_paused")
    assert "error" not in end and "outputs" not in end
    code, err = project.run("--resume", str(project.latest()), "--answer", "approve=no",
                            "--report", "report.json")
    assert code == 0, err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["outputs"] == {"shipped": "skipped", "built": "v1"}
