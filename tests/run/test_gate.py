"""The durable human gate (ADR-099 rider): a prompt nobody can answer pauses the run, and
`--resume --answer` binds the answer later — through the real CLI, without a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.journal.test_resume import Project, frames, hits

from nika.journal.verify import verify
from nika.run.pause import EXIT_PAUSED

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


CHILD_GATE = """\
nika: child-gate
permits:
  exec: ["sh"]
tasks:
  build:
    exec: { command: ["sh", "-c", "echo build >> log.txt; echo v2"] }
  approve:
    with: { version: "${{ tasks.build.output }}" }
    invoke:
      tool: "nika:prompt"
      args: { message: "Ship ${{ with.version }}?" }
  ship:
    with: { ok: "${{ tasks.approve.output }}" }
    when: "${{ with.ok == true }}"
    exec: { command: ["sh", "-c", "echo ship >> log.txt; echo shipped"] }
outputs:
  shipped: ${{ tasks.ship.status }}
"""

PARENT_GATE = """\
nika: parent-gate
permits:
  exec: ["sh"]
tasks:
  side:
    exec: { command: ["sh", "-c", "echo side >> log.txt; echo docs"] }
  release:
    invoke: { workflow: ./child.nika.yaml }
  announce:
    with: { shipped: "${{ tasks.release.output.shipped }}" }
    exec: { command: ["sh", "-c", "echo announce >> log.txt"] }
outputs:
  shipped: ${{ tasks.release.output.shipped }}
"""


@pytest.fixture
def nested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Project:
    (tmp_path / "child.nika.yaml").write_text(CHILD_GATE, encoding="utf-8")
    return Project(tmp_path, monkeypatch, capsys, PARENT_GATE)


def test_a_prompt_inside_a_child_pauses_the_parent_and_resume_answers_it(
        nested: Project) -> None:
    code, err = nested.run("--report", "report.json")
    assert code == EXIT_PAUSED, err
    assert "paused at 'release/approve'" in err and "--answer release/approve=VALUE" in err
    paused = nested.latest()
    assert verify(paused.read_bytes()).status == "clean"
    [end] = frames(paused, "workflow_paused")
    assert (end["task_id"], end["paused"], end["message"]) == (
        "release/approve", ["release/approve"], "Ship v2?")
    report = json.loads((nested.root / "report.json").read_text())
    assert report["workflow_state"] == "paused" and list(report["paused"]) == ["release/approve"]
    assert "release" not in report["tasks"] and "announce" not in report["tasks"]
    assert sorted(nested.log()) == ["build", "side"]

    code, err = nested.run("--resume", str(paused), "--answer", "release/approve=yes",
                           "--report", "report.json")
    assert code == 0, err
    resumed = nested.latest()
    # the parent's settled task and the child's are served; the answer binds; nothing re-ran
    assert hits(resumed) == ["release/build", "side"]
    assert sorted(nested.log()) == ["announce", "build", "ship", "side"]
    [answered] = [f for f in frames(resumed, "tool_invoked") if f["task"] == "release/approve"]
    assert answered["answered"].startswith("supplied non-interactively")
    report = json.loads((nested.root / "report.json").read_text())
    assert report["workflow_state"] == "success" and report["outputs"] == {"shipped": "success"}
    assert verify(resumed.read_bytes()).status == "clean"


def test_a_childs_prompt_resumed_without_its_answer_pauses_again(nested: Project) -> None:
    assert nested.run()[0] == EXIT_PAUSED
    first = nested.latest()
    code, err = nested.run("--resume", str(first))
    assert code == EXIT_PAUSED and "--answer release/approve=VALUE" in err
    assert hits(nested.latest()) == ["release/build", "side"]
    assert sorted(nested.log()) == ["build", "side"]


@pytest.mark.parametrize("answer", ["release/nope=yes", "side/approve=yes", "release=yes",
                                    "release[0]/approve=yes", "approve=yes"])
def test_an_answer_naming_no_prompt_is_a_usage_error(nested: Project, answer: str) -> None:
    code, err = nested.run("--answer", answer)
    assert code == 2 and "NIKA-RESUME-004" in err
    assert "release/approve" in err  # the prompts it could have named
    assert nested.log() == []


FAN_GATE = """\
nika: fan-gate
permits:
  exec: ["sh"]
tasks:
  release:
    for_each: { items: ["eu", "us"] }
    invoke: { workflow: ./child.nika.yaml }
outputs:
  shipped: ${{ tasks.release.output }}
"""


def test_each_iterations_child_prompt_is_answered_by_its_own_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "child.nika.yaml").write_text(CHILD_GATE, encoding="utf-8")
    project = Project(tmp_path, monkeypatch, capsys, FAN_GATE)
    code, err = project.run()
    assert code == EXIT_PAUSED, err
    [end] = frames(project.latest(), "workflow_paused")
    assert end["paused"] == ["release[0]/approve", "release[1]/approve"]
    code, err = project.run("--resume", str(project.latest()), "--answer",
                            "release[0]/approve=yes", "--answer", "release[1]/approve=no",
                            "--report", "report.json")
    assert code == 0, err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["outputs"] == {"shipped": [{"shipped": "success"}, {"shipped": "skipped"}]}
    assert sorted(project.log()) == ["build", "build", "ship"]  # each build ran once


MIDDLE_GATE = """\
nika: middle-gate
permits:
  exec: ["sh"]
tasks:
  inner:
    invoke: { workflow: ./child.nika.yaml }
outputs:
  shipped: ${{ tasks.inner.output.shipped }}
"""


def test_a_grandchilds_prompt_is_named_by_both_invoking_tasks(nested: Project) -> None:
    (nested.root / "middle.nika.yaml").write_text(MIDDLE_GATE, encoding="utf-8")
    nested.flow.write_text(PARENT_GATE.replace("./child.nika.yaml", "./middle.nika.yaml"),
                           encoding="utf-8")
    code, err = nested.run("--answer", "release/approve=yes")
    assert code == 2 and "release/inner/approve" in err  # one level is not the name
    code, err = nested.run()
    assert code == EXIT_PAUSED and "--answer release/inner/approve=VALUE" in err
    [end] = frames(nested.latest(), "workflow_paused")
    assert (end["task_id"], end["paused"]) == ("release/inner/approve", ["release/inner/approve"])
    code, err = nested.run("--resume", str(nested.latest()), "--answer",
                           "release/inner/approve=yes")
    assert code == 0, err
    assert hits(nested.latest()) == ["release/inner/build", "side"]
    assert sorted(nested.log()) == ["announce", "build", "ship", "side"]


def test_from_the_invoking_task_runs_its_child_whole_again(nested: Project) -> None:
    assert nested.run()[0] == EXIT_PAUSED
    code, err = nested.run("--resume", str(nested.latest()), "--from", "release",
                           "--answer", "release/approve=yes")
    assert code == 0, err
    assert hits(nested.latest()) == ["side"]  # nothing of the forced child is served
    assert sorted(nested.log()) == ["announce", "build", "build", "ship", "side"]


def test_a_childs_settled_tasks_rerun_when_their_inputs_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The child's records are served under the same two-hash rule as the parent's: an arg
    # the child's task reads changes its resolved-input hash, so it runs again.
    declared = "inputs:\n  tag: { type: string }\ntasks:\n"
    child = CHILD_GATE.replace("tasks:\n", declared, 1).replace("echo v2", "echo ${{ inputs.tag }}")
    (tmp_path / "child.nika.yaml").write_text(child, encoding="utf-8")
    parent = PARENT_GATE.replace("tasks:\n", declared, 1).replace(
        "./child.nika.yaml }", './child.nika.yaml, args: { tag: "${{ inputs.tag }}" } }')
    project = Project(tmp_path, monkeypatch, capsys, parent)
    assert project.run("--var", "tag=v1")[0] == EXIT_PAUSED
    code, err = project.run("--resume", str(project.latest()), "--var", "tag=v2",
                            "--answer", "release/approve=yes", "--report", "report.json")
    assert code == 0, err
    assert hits(project.latest()) == ["side"]
    assert sorted(project.log()) == ["announce", "build", "build", "ship", "side"]
    [asked] = [f for f in frames(project.latest(), "task_completed")
               if f["task"] == "release/build"]
    assert json.loads(asked["output"]) == "v2"
