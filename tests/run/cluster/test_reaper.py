"""No process a `--executor ray` run starts outlives its driver, whatever way the driver ends.

Through the real CLI (`nika run --executor ray`) and a real Ray instance: the driver is
SIGKILLed while an exec body runs on a worker, or the control store dies under it; on a
cluster the run did not start (`--ray-address`), only the run's own processes go. The exec
body backgrounds a grandchild that would write `finished` when done: the file never appears
once the run is gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest
from tests.run.cluster._procs import Proc, command, running, tree, wait_gone

pytestmark = pytest.mark.ray

ORPHANED: Final = """\
nika: orphaned
permits:
  exec: ["sh"]
tasks:
  wait:
    exec:
      command: ["sh", "-c", "(sleep 6; touch finished) & echo started > started; wait"]
"""
"""The backgrounded subshell is the exec's grandchild: it survives a killed `sh`."""
FINISHES_BY: Final = 9.0
"""Seconds after the exec started by which `finished` would exist, were anything left."""


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _driver(tmp: Path, *extra: str, env: dict[str, str] | None = None
            ) -> subprocess.Popen[str]:
    (tmp / "orphaned.nika.yaml").write_text(ORPHANED)
    return subprocess.Popen(
        [sys.executable, "-m", "nika.cli", "run", "orphaned.nika.yaml", "--executor", "ray",
         "--report", "report.json", *extra],
        cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "PYTHONPATH": _path(),
             **(env or {})},
    )


def _path() -> str:
    """PYTHONPATH made absolute: the driver runs in the test's directory."""
    return os.pathsep.join(str(Path(entry).resolve())
                           for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                           if entry)


@pytest.fixture
def reap() -> Iterator[list[subprocess.Popen[str]]]:
    """Drivers to kill and reap whatever the test's outcome."""
    drivers: list[subprocess.Popen[str]] = []
    yield drivers
    for driver in drivers:
        driver.kill()
        driver.communicate(timeout=30)


def _started(tmp: Path, driver: subprocess.Popen[str]) -> None:
    if not _wait(lambda: (tmp / "started").exists() or driver.poll() is not None, 120):
        pytest.fail("the exec never started")
    assert driver.poll() is None, driver.communicate()[1][-3000:]


def _shown(procs: set[Proc]) -> list[str]:
    return sorted(f"{pid} {command(pid)}" for pid, _ in procs)


def test_a_sigkilled_driver_takes_its_local_instance_and_every_exec_with_it(
    tmp_path: Path, reap: list[subprocess.Popen[str]]
) -> None:
    driver = _driver(tmp_path)
    reap.append(driver)
    _started(tmp_path, driver)
    began = time.monotonic()
    started = tree(driver.pid)
    names = " ".join(command(pid) for pid, _ in started)
    assert "raylet" in names and "gcs_server" in names and "sleep 6" in names, names
    driver.send_signal(signal.SIGKILL)
    driver.communicate(timeout=30)
    left, seconds = wait_gone(started, 20)
    assert not left, _shown(left)
    print(f"\nSIGKILLed driver: its {len(started)} processes gone in {seconds:.2f} s")
    time.sleep(max(0.0, FINISHES_BY - (time.monotonic() - began)))
    assert not (tmp_path / "finished").exists(), "an exec's grandchild outlived the driver"
    assert not running(started)
