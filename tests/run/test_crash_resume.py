"""Crash, then resume, through the real CLI: `nika run` is SIGKILLed mid-run (no handler can
run, nothing is flushed on the way out) and `nika run --resume` finishes the work without
re-running a settled task or re-spending a token."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

NIKA = [sys.executable, "-m", "nika.cli"]

FLOW = """\
nika: crash-resume
model: mock/scripted
permits:
  exec: ["sh"]
  tools: ["nika:done"]
inputs:
  hold: { type: string, default: "120s" }
tasks:
  research:
    agent:
      prompt: "Find the release codename."
      tools: ["nika:done"]
      max_turns: 3
  t1:
    after: { research: success }
    exec: { command: ["sh", "-c", "echo one >> lines.txt"] }
  t2:
    after: { t1: success }
    exec: { command: ["sh", "-c", "echo two >> lines.txt"] }
  t3:
    after: { t2: success }
    exec: { command: ["sh", "-c", "echo three >> lines.txt"] }
  hold:
    after: { t3: success }
    invoke: { tool: "nika:wait", args: { duration: "${{ inputs.hold }}" } }
  t4:
    after: { hold: success }
    exec: { command: ["sh", "-c", "echo four >> lines.txt"] }
  t5:
    after: { t4: success }
    with: { codename: "${{ tasks.research.output }}" }
    exec: { command: ["sh", "-c", "echo five ${{ with.codename }} >> lines.txt"] }
"""

SCRIPT = {"replies": [
    {"text": "looking it up", "tool_calls": [{"name": "nika:done",
                                              "args": {"result": "aurora"}}]},
]}


def _frames(journal: Path) -> list[dict[str, object]]:
    out = []
    for line in journal.read_bytes().splitlines():
        try:
            frame = json.loads(line)
        except ValueError:
            continue  # a torn last line
        out.append({"kind": frame["kind"], **{p["key"]: p["value"] for p in frame["fields"]}})
    return out


def _journals(root: Path) -> list[Path]:
    return sorted((root / ".nika" / "traces").glob("*.ndjson"))


def test_sigkill_after_task_3_then_resume_runs_each_task_once(tmp_path: Path) -> None:
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    calls = tmp_path / "calls.log"
    env = {**os.environ, "NIKA_MOCK_SCRIPT": str(tmp_path / "script.json"),
           "NIKA_MOCK_CALL_LOG": str(calls)}
    proc = subprocess.Popen([*NIKA, "run", "flow.nika.yaml"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for task 3's terminal frame, then kill the engine by its PID
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "task t3 never completed"
            journals = _journals(tmp_path)
            if journals and any(f["kind"] == "task_completed" and f.get("task") == "t3"
                                for f in _frames(journals[0])):
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    [crashed] = _journals(tmp_path)
    assert (tmp_path / "lines.txt").read_text().splitlines() == ["one", "two", "three"]
    assert len(calls.read_text().splitlines()) == 1  # the agent's one turn, before the kill
    verify = subprocess.run([*NIKA, "trace", "verify", str(crashed)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stdout.startswith("INCOMPLETE"), verify.stdout

    calls.write_text("")
    resumed = subprocess.run([*NIKA, "run", "flow.nika.yaml", "--resume", str(crashed),
                              "--var", "hold=1ms"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "lines.txt").read_text().splitlines() == [
        "one", "two", "three", "four", "five aurora"]  # exactly five: nothing ran twice
    assert calls.read_text() == ""  # the agent's model was called 0 times on resume
    new = next(p for p in _journals(tmp_path) if p != crashed)
    served = sorted(str(f["task"]) for f in _frames(new) if f["kind"] == "task_cache_hit")
    assert served == ["research", "t1", "t2", "t3"]
    for journal in (crashed, new):
        result = subprocess.run([*NIKA, "trace", "verify", str(journal)], cwd=tmp_path,
                                env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout
    result = subprocess.run([*NIKA, "trace", "verify", str(new)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.stdout.startswith("CLEAN ")
