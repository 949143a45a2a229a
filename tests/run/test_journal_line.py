"""`journal PATH · head HEX` on stderr on every way a started run ends: settled, stopped by
SIGINT or SIGTERM (a real `nika run` process), and crashed after the run (a view that raises,
in process). The forced exit (a second signal) is covered beside the signal tests
(`test_signals.py`), which own the stubborn server it needs."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from nika.errors import NikaError
from nika.journal.bus import EventSink, SinkFailure
from nika.journal.records import RunResult
from nika.masking import Masker
from nika.run.launch import RunOptions, Streams, run_command
from nika.view.console import Console

LINE = re.compile(r"^journal (\S+\.ndjson) · head ([0-9a-f]{64})$", re.MULTILINE)

SLEEPER = """\
nika: sleeper
permits: { exec: true }
tasks:
  nap:
    exec: { shell: "echo up > up.txt; sleep 300" }
"""


QUICK = "nika: quick\nmodel: mock/echo\ntasks:\n  a:\n    infer: { prompt: hi }\n"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stopped_run_names_its_journal(tmp_path: Path, signum: int, code: int) -> None:
    (tmp_path / "flow.nika.yaml").write_text(SLEEPER)
    proc = subprocess.Popen([sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "up.txt").exists():
            assert time.monotonic() < deadline, "the exec child never started"
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code
    [(path, head)] = LINE.findall(err.decode())
    journal = tmp_path / path
    assert journal.is_file() and b"workflow_cancelled" in journal.read_bytes().splitlines()[-1]


class _CrashingViews:
    """A `RunViews` whose end-of-run report fails: the crash after the run."""

    def sinks(self) -> Sequence[EventSink]:
        return ()

    def refused(self, errors: Sequence[NikaError]) -> None:
        raise AssertionError("the run was expected to start")

    def finished(self, result: RunResult, mask: Masker, failures: Sequence[SinkFailure]) -> None:
        raise RuntimeError("the report view broke")


def test_a_crash_after_the_run_still_names_its_journal_once(tmp_path: Path) -> None:
    source = tmp_path / "flow.nika.yaml"
    source.write_text(QUICK)
    err = io.StringIO()
    with pytest.raises(RuntimeError, match="the report view broke"):
        run_command(RunOptions(file=source, trace_dir=tmp_path / "traces"),
                    Streams(io.StringIO(), err), _CrashingViews(), environ={})
    [(path, _)] = LINE.findall(err.getvalue())
    [journal] = (tmp_path / "traces").glob("*.ndjson")
    assert Path(path).resolve() == journal.resolve()


def test_a_settled_run_names_its_journal_once(tmp_path: Path) -> None:
    source = tmp_path / "flow.nika.yaml"
    source.write_text(QUICK)
    err = io.StringIO()
    assert run_command(RunOptions(file=source, trace_dir=tmp_path / "traces"),
                       Streams(io.StringIO(), err), Console(out=io.StringIO()),
                       environ={}) == 0
    assert len(LINE.findall(err.getvalue())) == 1
