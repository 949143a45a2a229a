"""`nika trace verify` / `nika trace show` through the real CLI on real journals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.journal._journals import chained_journal
from tests.run._harness import RESEARCH_AGENT

from nika.canonical import canonical_json
from nika.cli import main
from nika.journal.writer import line_hash
from nika.masking import MASK
from nika.prices import table_pin

AGENT_FLOW = "nika: show-demo\n" + RESEARCH_AGENT


@pytest.fixture
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(AGENT_FLOW, encoding="utf-8")
    assert main(["run", "flow.nika.yaml"]) == 0
    capsys.readouterr()
    [path] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    return path


def test_verify_clean_exits_0_and_prints_the_head(journal: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    head = line_hash(journal.read_bytes().rstrip(b"\n").split(b"\n")[-1])
    assert main(["trace", "verify", str(journal)]) == 0
    assert capsys.readouterr().out.strip().startswith("CLEAN · ")
    assert main(["trace", "verify", str(journal), "--head", head]) == 0
    assert head in capsys.readouterr().out


def test_verify_forged_exits_2_and_incomplete_exits_0(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = journal.read_bytes().rstrip(b"\n").split(b"\n")
    edited = tmp_path / "edited.ndjson"
    edited.write_bytes(b"\n".join([lines[0], lines[1].replace(b"research", b"r3search"),
                                   *lines[2:]]) + b"\n")
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(b"\n".join(lines[:-1]) + b"\n")
    assert main(["trace", "verify", str(edited)]) == 2
    assert capsys.readouterr().out.startswith("FORGED at line 3 · ")
    assert main(["trace", "verify", str(cut)]) == 0  # the journal is honestly what it is
    assert capsys.readouterr().out.startswith(f"INCOMPLETE · {len(lines) - 1} frames")


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "verify", str(tmp_path / "missing.ndjson")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["trace"]) == 2
    assert main(["trace", "frobnicate", "x"]) == 2


def test_show_renders_the_agent_turns(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "show", str(journal)]) == 0
    out = capsys.readouterr().out
    for text in ("CLEAN · ", "▶ show-demo", "research agent · mock/echo · universe 1", "turn 1",
                 "offered 1 of 1 (passthrough)", "tool nika:done", "budget turns 1/3",
                 "· 1 turn · ", "■ success", "■ workflow success"):
        assert text in out, text


def test_show_escapes_control_sequences_and_marks_what_is_unrecorded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = chained_journal(tmp_path / "j.ndjson", [
        ("workflow_started", {"workflow": "evil\x1b]0;pwned\x07"}),
        ("agent_stalled", {"task": "t\x1b[2J", "agent_event": "stalled", "turn": 2,
                           "period": 1}),
    ])
    assert main(["trace", "show", str(path)]) == 0  # incomplete: the chain still walks
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out
    assert "stalled period 1 · ×unrecorded" in out
    assert "INCOMPLETE" in out


def test_show_reports_a_tool_error_and_a_nudge(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = chained_journal(tmp_path / "j.ndjson", [
        ("workflow_started", {"workflow": "w", "tasks": 1}),
        ("tool_invoked", {"task": "a", "agent_event": "tool_completed", "turn": 1,
                          "call_id": "c1", "name": "nika:fetch", "source": "builtin",
                          "is_error": True, "duration_ms": 2.5, "result_bytes": 9,
                          "error_code": "NIKA-FETCH-001"}),
        ("agent_nudge", {"task": "a", "agent_event": "nudged", "turn": 2, "reason": "cycle",
                         "period": 1, "repeats": 3}),
        ("agent_compose_checked", {"task": "a", "agent_event": "compose_checked", "turn": 2,
                                   "valid": False, "error_codes": ["NIKA-PARSE-019"],
                                   "draft_bytes": 120, "escapes": 0}),
        ("task_failed", {"task": "a", "duration_ms": 40, "turns": 2, "tokens": 30,
                         "error": {"code": "NIKA-AGENT-006", "detail": "stalled"}}),
        ("workflow_failed", {"state": "failure"}),
    ])
    assert main(["trace", "show", str(path)]) == 0
    out = capsys.readouterr().out
    for text in ("tool nika:fetch c1 · 2.5 ms · error NIKA-FETCH-001",
                 "nudge cycle · period 1 · ×3",
                 "compose invalid NIKA-PARSE-019 · 120 B draft", "■ failure · 40.0 ms · 2 turns",
                 "NIKA-AGENT-006", "■ workflow failure"):
        assert text in out, text
    assert json.loads(path.read_bytes().split(b"\n")[0])["kind"] == "workflow_started"


FAN_OUT_AGENT = """\
nika: fan-demo
model: mock/echo
permits:
  tools: ["nika:done"]
tasks:
  research:
    for_each:
      items: ["alpha", "beta", "gamma"]
    agent:
      tools: ["nika:done"]
      max_turns: 3
      prompt: "Research ${{ item }}"
"""


def _run_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
              capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[dict[str, Any]]]:
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["run", "flow.nika.yaml"]) == 0
    capsys.readouterr()
    [path] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    frames = [json.loads(line) for line in path.read_bytes().splitlines()]
    return path, [{"kind": f["kind"], **{p["key"]: p["value"] for p in f["fields"]}}
                  for f in frames]


def test_show_renders_each_fan_out_agent_run_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path, frames = _run_flow(tmp_path, monkeypatch, {"flow.nika.yaml": FAN_OUT_AGENT}, capsys)
    agent = [f for f in frames if "agent_event" in f]
    assert {(f["iteration"], f["attempt"]) for f in agent} == {(0, 1), (1, 1), (2, 1)}
    assert main(["trace", "verify", str(path)]) == 0
    capsys.readouterr()
    assert main(["trace", "show", str(path)]) == 0
    out = capsys.readouterr().out
    runs = [out.index(f"run item {i} · attempt 1") for i in range(3)]
    assert runs == sorted(runs)
    assert out.count("turn 1") == 3 and out.count("tool nika:done") == 3
    # each run's own turn sits between its header and the next run's
    assert all(runs[i] < out.index("turn 1", runs[i]) < runs[i + 1] for i in range(2))


def test_show_orders_interleaved_runs_by_iteration_then_attempt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = chained_journal(tmp_path / "j.ndjson", [
        ("workflow_started", {"workflow": "w", "tasks": 1}),
        *[("cost_incurred", {"task": "a", "agent_event": "model_called", "turn": 1,
                             "model": model, "iteration": iteration, "attempt": attempt})
          for iteration, attempt, model in ((1, 2, "m-1b"), (0, 1, "m-0"), (1, 1, "m-1a"))],
        ("task_retrying", {"task": "a", "attempt": 1, "code": "NIKA-PROVIDER-003",
                           "iteration": 1}),
        ("task_completed", {"task": "a", "duration_ms": 9}),
        ("workflow_completed", {"state": "success"}),
    ])
    assert main(["trace", "show", str(path)]) == 0
    out = capsys.readouterr().out
    order = [out.index(text) for text in ("run item 0 · attempt 1", "model m-0",
                                          "run item 1 · attempt 1", "model m-1a",
                                          "run item 1 · attempt 2", "model m-1b",
                                          "retry item 1 attempt 1 · NIKA-PROVIDER-003",
                                          "■ success")]
    assert order == sorted(order)


CHILD = """\
nika: child-demo
inputs: { token: { type: string } }
tasks:
  first:
    invoke: { tool: "nika:jq", args: { input: { t: "${{ inputs.token }}" }, expression: ".t" } }
  second:
    after: { first: success }
    invoke: { tool: "nika:log", args: { message: "world" } }
"""

PARENT = """\
nika: parent-demo
secrets:
  token: { source: env, key: NIKA_TEST_TOKEN, egress: [{ to: "workflow:./child.nika.yaml" }] }
tasks:
  call:
    invoke: { workflow: ./child.nika.yaml, args: { token: "${{ secrets.token }}" } }
  after_call:
    after: { call: success }
    invoke: { tool: "nika:log", args: { message: "done" } }
"""


def test_a_child_workflow_is_journalled_nested_under_its_invoker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    secret = "child-s3cr3t-77"
    monkeypatch.setenv("NIKA_TEST_TOKEN", secret)
    path, frames = _run_flow(tmp_path, monkeypatch,
                             {"flow.nika.yaml": PARENT, "child.nika.yaml": CHILD}, capsys)
    assert secret not in path.read_text(encoding="utf-8")
    [first] = [f for f in frames if f.get("task") == "call/first"
               and f["kind"] == "task_completed"]
    assert json.loads(first["output"]) == MASK  # the value a frame carries is JSON text
    ends = [(f["task"], f.get("parent"), f.get("depth")) for f in frames
            if f["kind"] == "task_completed"]
    assert ends == [("call/first", "call", 1), ("call/second", "call", 1), ("call", None, None),
                    ("after_call", None, None)]
    # the child's own lifecycle never poses as the parent's prologue or end
    assert [f["kind"] for f in frames if f["kind"].startswith("workflow_")] == \
        ["workflow_started", "workflow_completed"]
    assert main(["trace", "verify", str(path)]) == 0
    capsys.readouterr()
    assert main(["trace", "show", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    nested = [line for line in lines if "call/" in line]
    assert len(nested) == 2 and all(line.startswith("├── call/") for line in nested)
    assert any(line.startswith("call ") for line in lines)
    assert any(line.startswith("after_call ") for line in lines)


@pytest.mark.parametrize("absurd", [1e300, 1e25])
def test_an_absurd_reported_spend_crashes_no_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        absurd: float) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at the terminal's width
    (tmp_path / ".nika" / "traces").mkdir(parents=True)
    path = chained_journal(tmp_path / ".nika" / "traces" / "j.ndjson", [
        ("workflow_started", {"workflow": "w", "tasks": 1,
                              "pricing": canonical_json(table_pin().to_dict())}),
        ("cost_incurred", {"task": "a", "model": "nika:image_generate", "cost_usd": absurd}),
        ("cost_incurred", {"task": "a", "model": "nika:image_generate", "cost_usd": 0.07}),
        ("task_completed", {"task": "a", "duration_ms": 4, "cost_usd": absurd}),
        ("workflow_completed", {"state": "success", "total_cost_usd": absurd}),
    ])
    assert main(["trace", "verify", str(path)]) == 0
    out = capsys.readouterr().out
    # the absurd bill is not counted: the replay holds only the real one, and diverges
    assert "$0.07 over 1 priced call(s)" in out
    assert f"DIVERGES from the journaled total ${absurd:g}" in out
    assert main(["trace", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"${absurd:g} (reported by the tool, not counted: no real bill)" in out
    assert "$0.07 (reported by the tool)" in out
    page = tmp_path / "page.html"
    assert main(["trace", "show", str(path), "--html", str(page)]) == 0
    assert "not counted: no real bill" in page.read_text(encoding="utf-8")
    assert main(["trace", "ls"]) == 0
    assert f"${absurd:g}" in capsys.readouterr().out
