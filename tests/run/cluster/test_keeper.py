"""An exec body under a Ray worker's keeper: the same outcome as a direct exec, and nothing it
started — setsid descendants included — outlives the exec, the keeper or the keeper's parent.

Without Ray: the keeper's contract is with the process that spawned it (a Ray worker in
production, this test's processes here). Linux, as CI is: the keeper reads /proc."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import pytest
from tests.run._harness import no_sleep, services, workflow
from tests.run.cluster._procs import Proc, running, stat, tree, wait_gone

from nika.journal.records import RunResult
from nika.run.cluster.keeper import keeper_argv
from nika.run.runner import Runner

OUTCOMES: Final = """\
nika: outcomes
permits:
  exec: ["sh"]
tasks:
  status:
    exec:
      command: ["sh", "-c", "echo out; echo err >&2; exit 3"]
      capture: structured
  signalled:
    exec:
      command: ["sh", "-c", "kill -9 $$"]
      capture: structured
  stdin:
    exec:
      command: ["sh", "-c", "tr a-z A-Z"]
      stdin: "fed"
  pipe:
    exec:
      command: ["sh", "-c", "yes | head -n 1"]
      capture: structured
"""
MISSING: Final = """\
nika: missing
permits:
  exec: ["no-such-program-nika"]
tasks:
  missing:
    exec:
      command: ["no-such-program-nika"]
"""


def _run(text: str, tmp: Path, *, keeper: bool) -> RunResult:
    svc, _ = services(workflow(text), base_dir=tmp)
    if keeper:
        svc = dataclasses.replace(svc, exec_keeper=keeper_argv())

    async def go() -> RunResult:
        return await Runner(svc, inputs={}, sleep=no_sleep, rng=random.Random(0)).run()

    return asyncio.run(go())


def _outcome(result: RunResult) -> dict[str, Any]:
    return {name: (record.status, record.output,
                   None if record.error is None else (record.error.code, record.error.detail))
            for name, record in result.records.items()}


NO_CWD: Final = """\
nika: no-cwd
permits:
  exec: ["true"]
tasks:
  nowhere:
    exec:
      command: ["true"]
      cwd: ./no-such-dir
"""


def test_a_kept_exec_that_cannot_start_leaks_no_descriptor(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        result = _run(NO_CWD, tmp_path, keeper=True)
        error = result.records["nowhere"].error
        assert error is not None and error.code == "NIKA-EXEC-002"
    assert len(os.listdir("/proc/self/fd")) <= before  # not one pipe end left per refusal


def test_a_kept_exec_has_the_outcome_of_a_direct_one(tmp_path: Path) -> None:
    direct = _outcome(_run(OUTCOMES, tmp_path, keeper=False)) | _outcome(
        _run(MISSING, tmp_path, keeper=False))
    kept = _outcome(_run(OUTCOMES, tmp_path, keeper=True)) | _outcome(
        _run(MISSING, tmp_path, keeper=True))
    assert kept == direct
    assert kept["status"][1] == {"stdout": "out", "stderr": "err", "exit_code": 3}
    assert kept["signalled"][1]["exit_code"] == -9
    assert kept["stdin"][1] == "FED"
    # `yes` ends by SIGPIPE, silently, as under a direct exec (not "write error" on stderr).
    assert kept["pipe"][1] == {"stdout": "y", "stderr": "", "exit_code": 0}
    code, detail = kept["missing"][2]
    assert code == "NIKA-EXEC-002" and "'no-such-program-nika'" in detail


BACKGROUND: Final = """\
nika: background
permits:
  exec: ["sh"]
tasks:
  start:
    exec:
      command: ["sh", "-c", "setsid sleep 60 > /dev/null 2>&1 & echo $!"]
"""


def test_a_kept_execs_setsid_grandchild_ends_with_the_exec(tmp_path: Path) -> None:
    result = _run(BACKGROUND, tmp_path, keeper=True)
    pid = int(result.records["start"].output)
    found = stat(pid)
    left, _ = wait_gone({(pid, found[2])} if found else set(), 5)
    assert not left


HOLDER: Final = """
import os, subprocess, sys, time
from nika.run.cluster.keeper import keeper_argv
r, w = os.pipe()
subprocess.Popen([*keeper_argv(), str(w), "--", "sh", "-c",
                  "setsid sh -c 'echo $$ > held; sleep 60' > /dev/null 2>&1 & wait"],
                 pass_fds=(w,), start_new_session=True, cwd=sys.argv[1])
time.sleep(120)
"""
"""A stand-in for a Ray worker: spawns a keeper, then waits to be killed."""


def _held(tmp: Path) -> set[Proc]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = (tmp / "held").read_text().strip() if (tmp / "held").exists() else ""
        if text:
            return tree(int(text))
        time.sleep(0.02)
    pytest.fail("the kept command never started")


@pytest.mark.parametrize("end", ["the worker is SIGKILLed", "the keeper is SIGKILLed"])
def test_a_setsid_descendant_dies_when_its_worker_or_keeper_does(tmp_path: Path,
                                                                 end: str) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)])
    everything: set[Proc] = set()
    try:
        held = _held(tmp_path)
        everything = tree(holder.pid)
        assert held <= everything
        [keeper] = [pid for pid, _ in everything if (found := stat(pid)) is not None
                    and found[1] == holder.pid]
        # The keeper's own death is what a timeout's kill of the exec's group comes to.
        os.kill(holder.pid if end.startswith("the worker") else keeper, signal.SIGKILL)
        left, seconds = wait_gone({proc for proc in everything if proc[0] != holder.pid}, 10)
        assert not left, left
        print(f"\n{end}: the exec's descendants gone in {seconds:.2f} s")
    finally:
        holder.kill()
        holder.wait(timeout=30)
        for pid, _ in running(everything):
            os.kill(pid, signal.SIGKILL)
