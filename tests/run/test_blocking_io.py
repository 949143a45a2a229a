"""Through the real CLI: a FIFO or a 1 GiB (sparse) file handed to `nika:read` under
`timeout: "5s"` fails at once with a coded error — the run neither freezes nor reads a
gigabyte — while the other tasks carry on; and a command flooding stdout is stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.run._harness import journal_verdict

FLOW = """\
nika: io
permits: {{ fs: {{ read: ["**"] }}, exec: ["head", "echo"], tools: ["nika:read"] }}
tasks:
  slurp:
    timeout: "5s"
    invoke: {{ tool: "nika:read", args: {{ path: "{target}" }} }}
  sibling:
    exec: {{ command: ["echo", "still here"] }}
"""


def _run(tmp_path: Path, text: str) -> dict[str, dict[str, object]]:
    (tmp_path / "flow.nika.yaml").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", "--report", "r.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,  # a hang fails, not stalls
    )
    assert done.returncode == 1, done.stderr
    verdict = journal_verdict(tmp_path)
    assert (verdict.status, verdict.terminal) == ("clean", "workflow_failed")
    tasks: dict[str, dict[str, object]] = json.loads((tmp_path / "r.json").read_text())["tasks"]
    return tasks


@pytest.mark.parametrize("kind", ["fifo", "sparse"])
def test_read_of_a_fifo_or_a_huge_file_is_refused_and_the_run_goes_on(
    tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "input.dat"
    if kind == "fifo":
        os.mkfifo(target)  # nobody will ever write to it
    else:
        with target.open("wb") as handle:
            handle.truncate(1 << 30)
    tasks = _run(tmp_path, FLOW.format(target="input.dat"))
    error = tasks["slurp"]["error"]
    assert isinstance(error, dict)
    assert error["code"] == "NIKA-BUILTIN-READ-002"  # not NIKA-TIMEOUT-001: refused up front
    assert error["details"]["reason"] == ("not_regular" if kind == "fifo" else "too_large")
    assert tasks["sibling"]["status"] == "success" and tasks["sibling"]["output"] == "still here"


def test_a_command_flooding_stdout_is_stopped_at_the_capture_cap(tmp_path: Path) -> None:
    tasks = _run(tmp_path, FLOW.format(target="none").replace(
        '    invoke: { tool: "nika:read", args: { path: "none" } }',
        '    exec: { command: ["head", "-c", "40000000", "/dev/zero"] }'))
    error = tasks["slurp"]["error"]
    assert isinstance(error, dict) and error["code"] == "NIKA-EXEC-003"
    assert error["details"] == {"task": "slurp", "stream": "stdout", "cap_bytes": 32 << 20}
