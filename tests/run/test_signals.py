"""`nika run` stopped from outside: SIGTERM/SIGHUP/SIGINT end it cleanly (children reaped,
report and terminal frame written, exit 128+N); a second signal forces the exit; and even a
SIGKILLed engine leaves no child behind. Real processes throughout: the CLI, an `exec` child,
a stdio MCP server."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.tools._mcp_helpers import FAULT_SERVER, alive

from nika.cli import main

WORKFLOW = """\
nika: stoppable
permits: { exec: true, tools: ["mcp:fault/*"] }
tasks:
  nap:
    exec: { shell: "sleep 300 & echo $! > child.pid; wait" }
  serve:
    invoke: { tool: "mcp:fault/slow", args: { seconds: 300 } }
"""

STUBBORN = f"""\
import runpy, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a server that will not stop politely
sys.argv = [{str(FAULT_SERVER)!r}]
try:
    runpy.run_path({str(FAULT_SERVER)!r}, run_name="__main__")
finally:
    time.sleep(600)
"""


def _wait(condition: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _server_pid(script: Path) -> int | None:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(script).encode() in cmdline and alive(int(entry.name)):
                return int(entry.name)
    return None


class Run:
    """One `nika run` process over WORKFLOW, with its exec child and MCP server up."""

    def __init__(self, tmp_path: Path, server: str) -> None:
        self.dir = tmp_path
        script = tmp_path / "server_entry.py"
        script.write_text(server)
        (tmp_path / "mcp.json").write_text(json.dumps(
            {"mcpServers": {"fault": {"command": sys.executable, "args": [str(script)]}}}))
        (tmp_path / "flow.nika.yaml").write_text(WORKFLOW)
        with (tmp_path / "stderr.txt").open("wb") as err:  # read it when a test fails
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", "--mcp-config",
                 "mcp.json", "--report", "report.json"],
                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err,
            )
        pid_file = tmp_path / "child.pid"
        _wait(lambda: pid_file.exists() and pid_file.read_text().strip(), "the exec child")
        _wait(lambda: _server_pid(script) is not None, "the MCP server")
        self.child = int(pid_file.read_text())
        server_pid = _server_pid(script)
        assert server_pid is not None
        self.server = server_pid
        time.sleep(0.5)  # let the MCP call reach the server

    def children_gone(self) -> bool:
        return not alive(self.child) and not alive(self.server)

    def journal(self) -> Path:
        [path] = (self.dir / ".nika" / "traces").glob("*.ndjson")
        return path

    def kill(self) -> None:
        """Teardown for a failed test: nothing this test started may outlive it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pid in (self.child, self.server):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Run]:
    started = Run(tmp_path, f"import runpy; runpy.run_path({str(FAULT_SERVER)!r}, "
                            "run_name='__main__')\n")
    yield started
    started.kill()


def _verify(journal: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    main(["trace", "verify", str(journal)])
    return capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize(
    ("signum", "code"),
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
)
def test_a_signal_stops_the_run_cleanly_and_reaps_every_child(
    run: Run, capsys: pytest.CaptureFixture[str], signum: int, code: int
) -> None:
    run.proc.send_signal(signum)
    assert run.proc.wait(timeout=60) == code
    assert run.children_gone()  # the exec child's background sleep and the MCP server
    report = json.loads((run.dir / "report.json").read_text())
    assert report["workflow_state"] == "cancelled"
    assert {t["status"] for t in report["tasks"].values()} == {"cancelled"}
    verdict = _verify(run.journal(), capsys)
    assert verdict.startswith("CLEAN") and "ended workflow_cancelled" in verdict


def test_a_sigkilled_engine_still_takes_its_children_down(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    run.proc.send_signal(signal.SIGKILL)
    assert run.proc.wait(timeout=60) == -signal.SIGKILL
    _wait(run.children_gone, "the children to die with the engine", timeout=30)
    # No process can attest its own SIGKILL: the reader names the journal incomplete (17).
    assert _verify(run.journal(), capsys).startswith("INCOMPLETE")


def test_a_second_signal_forces_the_exit_without_waiting_for_teardown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = Run(tmp_path, STUBBORN)
    try:
        started.proc.send_signal(signal.SIGTERM)
        # The first signal cancelled the run; its teardown now waits on the stubborn server.
        _wait(lambda: b"cancelled" in started.journal().read_bytes().splitlines()[-1],
              "the terminal frame")
        started.proc.send_signal(signal.SIGTERM)
        assert started.proc.wait(timeout=60) == 143
        assert not (tmp_path / "report.json").exists()  # forced: it did not wait to write it
        said = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
        named = re.search(r"^journal (\S+\.ndjson) · head [0-9a-f]{64}$", said, re.MULTILINE)
        assert named is not None and tmp_path / named[1] == started.journal()  # still said
        _wait(started.children_gone, "the watchdog to take the stubborn server down",
              timeout=30)
        verdict = _verify(started.journal(), capsys)
        assert verdict.startswith("CLEAN") and "ended workflow_cancelled" in verdict
    finally:
        started.kill()
