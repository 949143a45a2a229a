"""A failed run says why, in full, through the real CLI: each failed task's code and detail
and the workflow's own error at the end of stderr, nothing cut, and no outputs on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

NIKA = [sys.executable, "-m", "nika.cli"]

CONTRACT = """\
nika: contract
model: mock/echo
tasks:
  say:
    infer:
      prompt: "hello"
outputs:
  n:
    type: integer
    value: ${{ tasks.say.output }}
"""


def _run(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text(text, encoding="utf-8")
    return subprocess.run([*NIKA, "run", "flow.nika.yaml", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_a_failed_output_contract_says_why_and_prints_no_outputs(tmp_path: Path) -> None:
    for mode in ((), ("--output", "json"), ("--json",)):
        done = _run(tmp_path, CONTRACT, *mode)
        assert done.returncode == 1
        assert ("nika run: NIKA-VAR-009: output 'n' is declared integer but the run produced "
                "'mock(echo) · hello'; fix the producing task or the declared type") in done.stderr
        assert "output 'n' failed its contract, so no outputs were printed" in done.stderr
        if not mode or mode[0] == "--output":
            assert done.stdout == ""
        else:  # --json: the event stream only, never an outputs object
            assert all(line.startswith('{"') and '"kind"' in line
                       for line in done.stdout.splitlines())


def test_a_long_error_detail_reaches_the_terminal_whole(tmp_path: Path) -> None:
    message = " ".join(f"word{i:03d}" for i in range(75)) + " FIX-IT-HERE"
    assert len(message) > 600
    flow = (
        "nika: long-detail\n"
        "tasks:\n"
        "  gate:\n"
        "    invoke:\n"
        "      tool: nika:assert\n"
        "      args:\n"
        "        condition: false\n"
        f"        message: \"{message}\"\n"
    )
    done = _run(tmp_path, flow)
    assert done.returncode == 1
    [last] = [line for line in done.stderr.splitlines() if line.startswith("nika run: task")]
    assert last.endswith(f"{message} (the condition evaluated to false)")
    # the progress line wraps on a narrow terminal but keeps every word, the fix included
    progress = " ".join(done.stderr.split("nika run: task")[0].split())
    assert message in progress
