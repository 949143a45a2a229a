"""`nika run --progress`: one stderr line per agent turn, through the real CLI in a real
process (mock/echo's agent keeps calling nika:compose: nudged at turn 3, stalled at turn 5),
and none when not asked for on a pipe. A declared secret reaches no line."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

from rich.console import Console

import nika
from nika.agent.observe import BudgetCheckpoint, Nudged, ToolCompleted, TurnStarted
from nika.journal.bus import RunEvent
from nika.journal.frames import AgentStep, TaskEnded, UnitAttempt
from nika.view._turns import TurnLines

SECRET: Final = "s3cr3t-tok-42"
FLOW: Final = """\
nika: progress-demo
model: mock/echo
secrets: { token: { source: env, key: TOKEN, egress: [{ to: agent }, { to: infer }] } }
permits:
  tools: ["nika:*"]
tasks:
  hello:
    infer: { prompt: "Say ${{ secrets.token }}." }
  draft:
    agent:
      prompt: "Draft a workflow that hashes ${{ secrets.token }}; check it with nika:compose."
      tools: ["nika:compose", "nika:[!c]*"]
      max_turns: 8
    on_error:
      recover: "stalled"
  wrapup:
    after: { draft: success }
    agent:
      prompt: "Finish."
      tools: ["nika:done"]
      max_turns: 3
"""


def _run(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    # The engine under test, whatever the working directory: never an installed copy.
    env = {**os.environ, "TOKEN": SECRET, "PYTHONPATH": str(Path(nika.__file__).parents[1])}
    return subprocess.run([sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", *flags],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def test_progress_says_one_line_per_turn_with_nudge_and_stall(tmp_path: Path) -> None:
    done = _run(tmp_path, "--progress")
    assert done.returncode == 0, done.stderr
    turns = [line.strip() for line in done.stderr.splitlines() if "↳" in line]
    draft = [t for t in turns if t.startswith("↳ draft ")]
    assert [re.match(r"↳ draft · turn (\d)/8 · nika:compose · tokens [\d,]+/∞", t) is not None
            for t in draft] == [True] * 5
    assert [int(re.findall(r"turn (\d)/", t)[0]) for t in draft] == [1, 2, 3, 4, 5]
    assert draft[2].endswith(" · nudge: the same 1-turn block repeated 3 times")
    assert draft[4].endswith(" · stall: the same 1-turn block repeated 5 times; stopped")
    assert not any("nudge" in t or "stall" in t for t in (draft[0], draft[1], draft[3]))
    tokens = [int(re.findall(r"tokens ([\d,]+)/", t)[0].replace(",", "")) for t in draft]
    assert tokens == sorted(tokens) and tokens[0] > 0  # used so far: it only grows
    lines = done.stderr.splitlines()
    said = next(n for n, line in enumerate(lines) if "↳ wrapup · turn 1/3 · nika:done" in line)
    ended = next(n for n, line in enumerate(lines) if re.search(r"✓ wrapup\s+done", line))
    assert said < ended  # a task's last turn is said before the task's own line
    assert not any("↳ hello" in line for line in lines)  # an infer task has no turns
    assert SECRET not in done.stderr and SECRET not in done.stdout


def test_no_turn_lines_on_a_pipe_unless_asked(tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "✓ draft" in done.stderr and "↳" not in done.stderr


def test_turn_lines_name_the_item_and_attempt_and_an_error_streak() -> None:
    out = io.StringIO()
    lines = TurnLines(Console(file=out, width=40, highlight=False))
    item = UnitAttempt("scan", iteration=2, attempt=2)
    other = UnitAttempt("scan", iteration=3)
    events = [
        (item, TurnStarted(seq=1, turn=1)),
        (other, TurnStarted(seq=2, turn=1)),
        (item, BudgetCheckpoint(seq=3, turn=1, turns_used=1, max_turns=4,
                                tokens_used=12_345, max_tokens_total=50_000)),
        *[(item, ToolCompleted(seq=4 + n, turn=1, call_id=f"c{n}", name="nika:read",
                               source="builtin", is_error=True, duration_ms=1.0,
                               result_bytes=0)) for n in range(2)],
        (item, Nudged(seq=6, turn=1, reason="error_streak", period=1, repeats=3)),
    ]
    for n, (unit, event) in enumerate(events):
        lines.emit(RunEvent(n, AgentStep(task="scan", unit=unit, event=event), n))
    lines.emit(RunEvent(9, TaskEnded(task="scan", status="success", duration_ms=1,
                                     attempts=1, outcome="{}"), 9))
    lines.close()
    said = [line.strip() for line in out.getvalue().splitlines()]
    assert said == [
        "↳ scan[2] (attempt 2) · turn 1/4 · nika:read ✗ ×2 · tokens 12,345/50,000 · "
        "nudge: every tool call failed, 3 turns in a row",
        "↳ scan[3] · turn 1/? · no tool call · tokens ?/∞",  # the task ended mid-turn
    ]
