"""No process a `--executor ray` run starts outlives its driver, whatever way the driver ends.

Through the real CLI (`nika run --executor ray`) and a real Ray instance: the driver is
SIGKILLed while an exec body runs on a worker, or the control store dies under it; on a
cluster the run did not start (`--ray-address`), only the run's own processes go. The exec
body backgrounds a grandchild that would write `finished` when done: the file never appears
once the run is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest
from tests.run.cluster._procs import (
    Proc,
    command,
    mentioning,
    running,
    stat,
    tree,
    wait_gone,
    where,
)

from nika.run.cluster.reaper import Reaper

ORPHANED: Final = """\
nika: orphaned
permits:
  exec: ["sh"]
tasks:
  wait:
    exec:
      command:
        - sh
        - -c
        - "setsid sh -c 'echo started >> started; sleep SECONDS; touch finished' & wait"
"""
"""The exec's grandchild starts a session of its own (neither the exec's process group nor
Ray's ending of the worker's children reaches it), and says so once it runs."""
FINISHES_BY: Final = 11.0
"""Seconds after the exec started by which `finished` would exist, were anything left."""


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _driver(tmp: Path, *extra: str, env: dict[str, str] | None = None,
            seconds: int = 8) -> subprocess.Popen[str]:
    (tmp / "orphaned.nika.yaml").write_text(ORPHANED.replace("SECONDS", str(seconds)))
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


def _sigkill(tmp: Path, driver: subprocess.Popen[str]) -> float:
    """SIGKILL the driver; the wall-clock time it happened."""
    # A machine too slow would let the command finish before the test ends anything.
    assert not (tmp / "finished").exists(), "the command finished before the driver was killed"
    killed = time.time()
    driver.send_signal(signal.SIGKILL)
    driver.communicate(timeout=30)
    return killed


def _never_finished(tmp: Path, killed: float) -> None:
    finished = tmp / "finished"
    assert not finished.exists(), (
        f"an exec's grandchild outlived the driver: `finished` written "
        f"{finished.stat().st_mtime - killed:+.2f} s after the kill, `started` "
        f"{(tmp / 'started').stat().st_mtime - killed:+.2f} s, "
        f"{(tmp / 'started').read_text().count('started')} time(s)")


def _shown(procs: set[Proc]) -> list[str]:
    return sorted(f"{pid} {command(pid)}" for pid, _ in procs)


@pytest.mark.ray
def test_a_sigkilled_driver_takes_its_local_instance_and_every_exec_with_it(
    tmp_path: Path, reap: list[subprocess.Popen[str]]
) -> None:
    driver = _driver(tmp_path)
    reap.append(driver)
    _started(tmp_path, driver)
    began = time.monotonic()
    started = tree(driver.pid)
    names = " ".join(command(pid) for pid, _ in started)
    assert "raylet" in names and "gcs_server" in names and "touch finished" in names, names
    killed = _sigkill(tmp_path, driver)
    left, seconds = wait_gone(started, 20)
    assert not left, _shown(left)
    assert not where(tmp_path), _shown(where(tmp_path))
    print(f"\nSIGKILLed driver: its {len(started)} processes gone in {seconds:.2f} s")
    time.sleep(max(0.0, FINISHES_BY - (time.monotonic() - began)))
    _never_finished(tmp_path, killed)
    assert not running(started)


@pytest.mark.ray
def test_a_run_that_ends_cleanly_leaves_nothing_of_its_local_instance(
    tmp_path: Path, reap: list[subprocess.Popen[str]]
) -> None:
    driver = _driver(tmp_path, seconds=1)
    reap.append(driver)
    _started(tmp_path, driver)
    started = tree(driver.pid)
    _, err = driver.communicate(timeout=120)
    assert driver.returncode == 0, err[-3000:]
    assert (tmp_path / "finished").exists()
    left, _ = wait_gone(started, 20)
    assert not left, _shown(left)


@pytest.mark.ray
def test_the_control_store_dying_ends_the_run_coded_and_leaves_nothing(
    tmp_path: Path, reap: list[subprocess.Popen[str]]
) -> None:
    # The command outlasts the run's end: `finished` may only appear if something survived.
    driver = _driver(tmp_path, env={"NIKA_RAY_LOST_AFTER": "3"}, seconds=40)
    reap.append(driver)
    _started(tmp_path, driver)
    began = time.monotonic()
    started = tree(driver.pid)
    [gcs] = [pid for pid, _ in started if "gcs_server" in command(pid)]
    os.kill(gcs, signal.SIGKILL)
    _, err = driver.communicate(timeout=120)
    ended = time.monotonic() - began
    assert driver.returncode == 1, err[-3000:]
    assert "NIKA-CLUSTER-002" in err, err[-3000:]
    left, _ = wait_gone(started, 20)
    assert not left, _shown(left)
    assert not where(tmp_path), _shown(where(tmp_path))
    print(f"\ncontrol store killed: the run ended coded in {ended:.1f} s, nothing left")


OTHER_JOB: Final = """
import os, subprocess, sys, time
import ray

ray.init(address=sys.argv[1], log_to_driver=False)

@ray.remote(num_cpus=1)
def hold(path):
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    with open(path, "a") as handle:  # a second attempt would add its own line
        handle.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(300)

ref = hold.remote(sys.argv[2])
time.sleep(300)
"""
"""Another job on the same cluster: its task's worker and the task's own setsid child must
survive (and the task never be re-run: Ray retries a task whose worker died)."""


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def external() -> Iterator[tuple[str, Path]]:
    """A cluster the run does not own (`ray start --head`, its own directory and ports),
    ended by this fixture — only its own processes, never another Ray on the machine."""
    # Short: Ray's socket paths live under it (a unix socket path is at most 107 bytes).
    home = Path(tempfile.mkdtemp(prefix="nika-ray-", dir="/tmp"))
    port = _port()
    ports = {flag: _port() for flag in ("dashboard-agent-listen-port", "dashboard-agent-grpc-port",
                                        "metrics-export-port", "runtime-env-agent-port")}
    try:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("ray")), "start", "--head", f"--port={port}",
             f"--temp-dir={home}", "--num-cpus=2", "--include-dashboard=false",
             "--disable-usage-stats", f"--object-store-memory={80 * 1024 * 1024}",
             *(f"--{flag}={value}" for flag, value in ports.items())],
            env={**os.environ, **_CLUSTER_ENV}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        yield f"127.0.0.1:{port}", home
    finally:
        cluster = mentioning(str(home))
        for pid, _ in running(cluster):
            os.kill(pid, signal.SIGTERM)
        left, _ = wait_gone(cluster, 10)
        for pid, _ in left:
            os.kill(pid, signal.SIGKILL)
        wait_gone(cluster, 10)
        shutil.rmtree(home, ignore_errors=True)


_CLUSTER_ENV: Final = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled"}


@pytest.mark.ray
def test_on_a_cluster_it_does_not_own_a_killed_driver_takes_only_its_own_execs(
    tmp_path: Path, reap: list[subprocess.Popen[str]], external: tuple[str, Path]
) -> None:
    address, home = external
    held = tmp_path / "other" / "held.pid"
    held.parent.mkdir()
    other = subprocess.Popen([sys.executable, "-c", OTHER_JOB, address, str(held)],
                             cwd=held.parent, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, **_CLUSTER_ENV})
    reap.append(other)
    kept: set[Proc] = set()
    try:
        assert _wait(lambda: held.exists() and held.read_text().strip() != "", 120), \
            other.communicate(timeout=30)[1][-3000:]
        kept = {proc for pid in held.read_text().split() for proc in tree(int(pid))}
        # The cluster's own processes (its workers come and go as Ray pleases).
        cluster = mentioning(str(home), descendants=False)
        assert any("raylet" in command(pid) for pid, _ in cluster)
        driver = _driver(tmp_path, "--ray-address", address, env=_CLUSTER_ENV)
        reap.append(driver)
        _started(tmp_path, driver)
        began = time.monotonic()
        execs = where(tmp_path) - tree(driver.pid)
        assert any(command(pid) == "sh -c echo started >> started; sleep 8; touch finished"
                   for pid, _ in execs), _shown(execs)
        killed = _sigkill(tmp_path, driver)
        left, seconds = wait_gone(execs, 20)
        assert not left, _shown(left)
        assert not where(tmp_path), _shown(where(tmp_path))
        print(f"\nexternal cluster: the run's {len(execs)} exec processes gone in "
              f"{seconds:.2f} s")
        time.sleep(max(0.0, FINISHES_BY - (time.monotonic() - began)))
        _never_finished(tmp_path, killed)
        assert (tmp_path / "started").read_text() == "started\n", "the exec ran twice"
        assert running(cluster) == cluster, "the cluster itself was touched"
        assert running(kept) == kept and other.poll() is None, "another job was touched"
        assert len(held.read_text().splitlines()) == 1, "another job's task was re-run"
    finally:
        other.kill()
        other.communicate(timeout=30)
        if held.exists():  # the other job's setsid child is that job's to end, and this test's
            kept |= {proc for pid in held.read_text().split() for proc in tree(int(pid))}
        for pid, _ in running(kept):
            os.kill(pid, signal.SIGKILL)


# -- the reaper alone, on a stand-in instance (no Ray) ---------------------------------------

INSTANCE: Final = """
import os, subprocess, sys, time
from nika.run.cluster.reaper import Reaper
session, out = sys.argv[1], sys.argv[2]
# A "raylet" whose child later starts a session of its own and loses its parent (re-parented
# to init, as Ray's agents are when the raylet dies), and an unrelated "agent" holding a file
# in the session directory.
raylet = subprocess.Popen(["sh", "-c", "setsid sleep 60 & echo $! > " + out + "; sleep 60"])
agent = subprocess.Popen(["sh", "-c", "exec sleep 60 < " + session + "/log"])
reaper = Reaper(session, [raylet.pid])
reaper.start()
while not os.path.exists(out) or not open(out).read().strip():
    time.sleep(0.02)
time.sleep(0.6)  # the reaper has read the tree since the grandchild started
print("ready", flush=True)
if sys.argv[3] == "close" and sys.stdin.readline():
    raylet.kill()  # the grandchild is orphaned, as by a raylet dying before the sweep
    raylet.wait()
    reaper.close()
    print("closed", flush=True)
time.sleep(120)
"""


def _instance(tmp: Path, end: str, bystander: subprocess.Popen[bytes]
              ) -> tuple[subprocess.Popen[str], set[Proc], set[Proc]]:
    session = tmp / "session"
    session.mkdir()
    (session / "log").write_text("")
    driver = subprocess.Popen([sys.executable, "-c", INSTANCE, str(session), str(tmp / "pid"),
                               end], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": _path()})
    assert driver.stdout is not None and driver.stdout.readline() == "ready\n"
    found = stat(bystander.pid)
    assert found is not None
    instance = {proc for proc in tree(driver.pid) if proc[0] != driver.pid}
    return driver, instance, {(bystander.pid, found[2])}


@pytest.mark.parametrize("end", ["close", "sigkill"])
def test_the_reaper_ends_its_instance_whole_and_nothing_else(tmp_path: Path, end: str) -> None:
    bystanding = subprocess.Popen(["sleep", "60"])  # neither in the tree nor in the session
    driver, instance, bystander = _instance(tmp_path, end, bystanding)
    try:
        orphan = int((tmp_path / "pid").read_text())
        assert orphan in {pid for pid, _ in instance}
        if end == "close":
            assert driver.stdin is not None and driver.stdout is not None
            driver.stdin.write("go\n")
            driver.stdin.flush()
            assert driver.stdout.readline() == "closed\n"
        else:
            driver.kill()
            driver.wait(timeout=30)
        left, _ = wait_gone(instance, 10)
        assert not left, _shown(left)
        assert running(bystander) == bystander
    finally:
        driver.kill()
        driver.communicate(timeout=30)
        for pid, _ in running(instance):
            os.kill(pid, signal.SIGKILL)
        bystanding.kill()
        bystanding.wait(timeout=30)


def test_a_reaper_never_started_closes_as_a_no_op(tmp_path: Path) -> None:
    Reaper(str(tmp_path), [os.getpid()]).close()
    assert running(tree(os.getpid()))  # this process, untouched
