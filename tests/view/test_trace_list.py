"""`nika trace ls`, `rm`, `show|verify --last` and the collection at `nika run` start, through
the real CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

NIKA = [sys.executable, "-m", "nika.cli"]
FLOW = "nika: listed\nmodel: mock/echo\ntasks:\n  say:\n    infer: {prompt: hi}\n"
PAUSED = (
    "nika: gated\npermits:\n  tools: [\"nika:prompt\"]\ntasks:\n  approve:\n    invoke:\n"
    "      tool: nika:prompt\n      args: {message: \"ship it?\", mode: confirm}\n"
)


def _nika(cwd: Path, *args: str, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NIKA, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_ls_lists_runs_newest_first_and_last_opens_the_newest(tmp_path: Path) -> None:
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    for _ in range(2):
        assert _nika(tmp_path, "run", "flow.nika.yaml", "--no-gc").returncode == 0
    listing = _nika(tmp_path, "trace", "ls")
    assert listing.returncode == 0
    header, *rows = listing.stdout.splitlines()
    assert len(rows) == 2 and all(" listed " in r and " success " in r for r in rows)
    assert "tokens" in header  # mock/echo reports its usage: each row counts it
    assert all(re.search(r" [1-9][0-9]*→[1-9][0-9]* +unpriced ", r) for r in rows)
    assert rows[0].startswith("*") and not rows[1].startswith("*")  # the resume candidate
    newest = rows[0].split()[-1]
    shown = _nika(tmp_path, "trace", "show", "--last")
    assert shown.returncode == 0 and "listed" in shown.stdout
    verified = _nika(tmp_path, "trace", "verify", "--last", "--head",
                     _head(tmp_path / newest)[:12])
    assert verified.returncode == 0 and verified.stdout.startswith("CLEAN")


def _head(journal: Path) -> str:
    import hashlib

    return hashlib.sha256(journal.read_bytes().rstrip(b"\n").split(b"\n")[-1]).hexdigest()


def test_a_run_collects_old_journals_in_one_line_and_spares_a_paused_one(tmp_path: Path) -> None:
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    (tmp_path / "gate.nika.yaml").write_text(PAUSED, encoding="utf-8")
    paused = _nika(tmp_path, "run", "gate.nika.yaml")
    assert paused.returncode == 75, paused.stderr
    for _ in range(3):
        assert _nika(tmp_path, "run", "flow.nika.yaml", "--no-gc").returncode == 0
    run = _nika(tmp_path, "run", "flow.nika.yaml", env={"NIKA_TRACE_KEEP": "2"})
    gc = [line for line in run.stderr.splitlines() if line.startswith("trace gc")]
    # the oldest of three `listed` runs goes; the paused run and the newest two stay
    assert len(gc) == 1 and gc[0].startswith("trace gc · removed 1 (1 count) · kept 3 ·"), gc
    outcomes = {"paused", "success", "failure", "cancelled", "incomplete"}
    states = [word for row in _nika(tmp_path, "trace", "ls").stdout.splitlines()[1:]
              for word in row.split() if word in outcomes]
    assert sorted(states) == ["paused", "success", "success", "success"]  # this run's too
    quiet = _nika(tmp_path, "run", "flow.nika.yaml", "--no-gc", env={"NIKA_TRACE_KEEP": "1"})
    assert "trace gc" not in quiet.stderr


def test_rm_refuses_a_paused_runs_journal_without_force(tmp_path: Path) -> None:
    (tmp_path / "gate.nika.yaml").write_text(PAUSED, encoding="utf-8")
    assert _nika(tmp_path, "run", "gate.nika.yaml").returncode == 75
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    kept = _nika(tmp_path, "trace", "rm", "--all")
    assert kept.returncode == 1 and journal.exists()
    assert "carries an unanswered prompt for task 'approve'" in kept.stderr
    forced = _nika(tmp_path, "trace", "rm", "--all", "--force")
    assert forced.returncode == 0 and not journal.exists()
    assert _nika(tmp_path, "trace", "rm").returncode == 2
    assert _nika(tmp_path, "trace", "show", "--last").returncode == 2
