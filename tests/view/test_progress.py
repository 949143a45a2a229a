"""`nika run --progress`: one stderr line per agent turn, through the real CLI in a real
process (mock/echo's agent keeps calling nika:compose: nudged at turn 3, stalled at turn 5),
and none when not asked for on a pipe. A declared secret reaches no line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import nika

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
