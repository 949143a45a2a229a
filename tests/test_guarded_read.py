"""Every file the command line names is judged before it is read, and read with a bound.

Before issue 28, `nika check /dev/zero` and `nika run /dev/zero` read until memory ran out, and
a FIFO as FILE, as `--resume JOURNAL` or as a trace blocked forever. Each case runs the real
CLI in a subprocess under a short timeout: a hang fails the test instead of wedging it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nika.guarded_read import Unreadable, read_capped, read_stream

NIKA = [sys.executable, "-m", "nika.cli"]
OK = "nika: ok\nmodel: mock/echo\ntasks:\n  hi:\n    infer: { prompt: hi }\n"


def nika(*argv: str, cwd: Path, stdin: int | None = subprocess.DEVNULL,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run([*NIKA, *argv], capture_output=True, text=True, timeout=30, cwd=cwd,
                          stdin=stdin, env=env, check=False)
    assert time.monotonic() - started < 20, argv  # quickly, not at the timeout's edge
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.nika.yaml"
    os.mkfifo(path)  # nobody ever writes: a blocking open or read never returns
    return path


@pytest.mark.parametrize("verb", ["check", "run"])
@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "directory"])
def test_a_workflow_that_is_no_regular_file_is_refused_before_a_byte_is_read(
    tmp_path: Path, fifo: Path, verb: str, target: str
) -> None:
    name = {"fifo": str(fifo), "directory": str(tmp_path)}.get(target, target)
    done = nika(verb, name, cwd=tmp_path)
    assert done.returncode == 2  # the FILE class: a usage error, nothing ran
    kind = {"fifo": "a named pipe (FIFO)", "directory": "a directory"}.get(
        target, "a character device")
    assert f"NIKA-CLI-002: cannot read the workflow {name!r}: it is {kind}" in done.stderr
    assert "pass the path of a regular file" in done.stderr
    assert not (tmp_path / ".nika").exists()


def test_a_resume_journal_or_a_trace_that_is_a_fifo_is_refused(tmp_path: Path,
                                                               fifo: Path) -> None:
    flow = tmp_path / "ok.nika.yaml"
    flow.write_text(OK)
    resumed = nika("run", str(flow), "--resume", str(fifo), cwd=tmp_path)
    assert resumed.returncode == 2
    assert "NIKA-RESUME-003: cannot read the --resume journal" in resumed.stderr
    assert "a named pipe (FIFO)" in resumed.stderr
    for argv in (("trace", "verify", str(fifo)), ("trace", "show", str(fifo)),
                 ("trace", "verify", "/dev/zero")):
        traced = nika(*argv, cwd=tmp_path)
        assert traced.returncode == 2
        assert "NIKA-CLI-002: cannot read the journal" in traced.stderr
    receipt = nika("trace", "receipt", "verify", str(fifo), cwd=tmp_path)
    assert receipt.returncode == 2 and "cannot read the receipt" in receipt.stderr
    built = nika("trace", "receipt", "build", str(fifo), "--workflow", str(flow), cwd=tmp_path)
    assert built.returncode == 2 and "cannot read the journal" in built.stderr


def test_a_fifo_registry_or_report_target_is_refused_before_the_run(tmp_path: Path,
                                                                   fifo: Path) -> None:
    flow = tmp_path / "ok.nika.yaml"
    flow.write_text(OK)
    registry = nika("run", str(flow), "--mcp-config", str(fifo), cwd=tmp_path)
    assert registry.returncode == 2 and "NIKA-MCP-001" in registry.stderr
    report = nika("run", str(flow), "--report", str(fifo), cwd=tmp_path)
    assert report.returncode == 2 and "NIKA-CLI-001" in report.stderr
    assert "a named pipe (FIFO)" in report.stderr


def test_stdin_is_read_with_a_bound_and_a_deadline(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:  # endless: cut one byte past the 1 MiB cap
        done = nika("check", "-", cwd=tmp_path, stdin=zero.fileno())
    assert done.returncode == 1
    assert "NIKA-YAML-010" in done.stdout and "more than 1048576 bytes" in done.stdout
    reader, writer = os.pipe()  # a writer that never closes: the deadline ends the read
    try:
        env = {**os.environ, "NIKA_STDIN_TIMEOUT": "1"}
        stalled = nika("check", "-", cwd=tmp_path, stdin=reader, env=env)
    finally:
        os.close(reader)
        os.close(writer)
    assert stalled.returncode == 2
    assert "NIKA-CLI-002: cannot read the workflow on standard input" in stalled.stderr
    assert "did not reach its end within 1 s" in stalled.stderr


def test_nika_run_reads_the_workflow_from_stdin_like_check(tmp_path: Path) -> None:
    flow = tmp_path / "ok.nika.yaml"
    flow.write_text(OK)
    with flow.open("rb") as source:
        done = nika("run", "-", "--output", "json", cwd=tmp_path, stdin=source.fileno())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}  # no outputs declared; the task ran
    assert "hi" in done.stderr


def test_a_regular_workflow_past_the_cap_is_the_profiles_finding_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.nika.yaml"
    with big.open("wb") as handle:
        handle.truncate(3 << 30)  # a 3 GiB sparse file: refused by its size, never read
    for verb in ("check", "run"):
        done = nika(verb, str(big), cwd=tmp_path)
        assert done.returncode == 1
        assert "NIKA-YAML-010" in done.stdout + done.stderr
        assert f"the document is {3 << 30} bytes" in done.stdout + done.stderr


def test_read_stream_bounds_a_pipe_by_size_and_by_time() -> None:
    reader, writer = os.pipe()
    try:
        os.write(writer, b"x" * 10)
        assert read_stream(reader, 6, 5.0) == b"x" * 6  # the limit, never more
        assert read_stream(reader, 100, 0.2) == Unreadable(  # 4 left, then no end: stalled
            "stalled", "did not reach its end within 0.2 s")
        started = time.monotonic()
        assert read_stream(reader, 100, 0.2).reason == "stalled"  # type: ignore[union-attr]
        assert time.monotonic() - started < 2
        os.close(writer)
        writer = -1
        assert read_stream(reader, 100, 5.0) == b""
    finally:
        os.close(reader)
        if writer >= 0:
            os.close(writer)


def test_head_reads_an_oversized_file_up_to_one_byte_past_the_cap(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"y" * 100)
    assert read_capped(big, 10, head=True) == b"y" * 11
    refused = read_capped(big, 10)
    assert isinstance(refused, Unreadable) and refused.size == 100
