"""A local Ray instance the run started dies whole with the driver — SIGKILL included.

`ray.init()` on a machine with no cluster starts one for the run: a control store
(`gcs_server`), a raylet, Ray's agents (dashboard, runtime-env), a log monitor, and the
raylet's workers, whose exec bodies are their children. Ray's own teardown needs the driver
alive to run it: a SIGKILLed driver leaves the agents (re-parented to init), the workers'
grandchildren, and with them the commands, which then finish after the engine is gone.

So the driver starts a reaper: a tiny separate process (its own session, so a terminal's
Ctrl-C is for the engine), holding the read end of a pipe whose only writer is the driver.
While the pipe is open it follows the instance's process tree — every descendant of the
processes Ray started, remembered with its start time, so one re-parented to init when its
parent died is still known. When the pipe reaches EOF (the driver closed it after
`ray.shutdown()`, or died with it open) the reaper stops, then SIGKILLs, every process it
knows plus any process holding a file in the instance's session directory (Ray's logs and
sockets live there), and exits once none is left.

Only for an instance the run started itself: on a cluster reached by `--ray-address` the
run owns its job, not the cluster (see `keeper`). Linux only (it reads `/proc`); elsewhere
no reaper is started and Ray's own teardown is the guarantee.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

from nika.run.children import PipeHeld

SWEEP_FOR: Final = 5.0
"""Seconds the reaper keeps sweeping (a process that keeps forking is met again)."""
FOLLOW_EVERY: Final = 0.25
"""Seconds between two readings of the instance's process tree while the driver lives."""

_REAPER: Final = r"""
import os, select, signal, sys, time
session, budget, every = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
me, driver = os.getpid(), os.getppid()
known = {}

def started(pid):
    # (parent pid, start time) of a live process; None once gone (a zombie is gone).
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return None
    return None if fields[0] in "ZX" else (int(fields[1]), fields[19])

def table():
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (me, driver):
            entry = started(int(name))
            if entry is not None:
                found[int(name)] = entry
    return found

def in_session(pid):
    base = "/proc/%d/fd" % pid
    try:
        links = os.listdir(base)
    except OSError:
        return False
    for fd in links:
        try:
            target = os.readlink(base + "/" + fd)
        except OSError:
            continue
        if target == session or target.startswith(session + "/"):
            return True
    return False

def follow(sweep):
    procs = table()
    for pid in [p for p, start in known.items() if procs.get(p, (0, None))[1] != start]:
        del known[pid]  # gone, or its pid now names another process
    grown = True
    while grown:
        grown = False
        for pid, (parent, start) in procs.items():
            if pid not in known and parent in known:
                known[pid] = start
                grown = True
    if sweep:
        for pid, (_, start) in procs.items():
            if pid not in known and in_session(pid):
                known[pid] = start

for pid in map(int, sys.argv[4:]):
    entry = started(pid)
    if entry is not None:
        known[pid] = entry[1]
while True:
    ready = select.select([0], [], [], every)[0]
    if ready and not os.read(0, 4096):
        break  # only the driver writes here, and only to say nothing: EOF is the message
    follow(False)

# Freeze, then kill: a shell whose child died first would run its next command (`sleep 8;
# touch done`) in the instant before its own signal; a stopped process runs nothing, and
# forks nothing that could escape this sweep.
deadline = time.monotonic() + budget
follow(True)
while known and time.monotonic() < deadline:
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in known:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    time.sleep(0.02)
    follow(True)
"""


class Reaper:
    """The reaper of one local Ray instance: `start` it once Ray is up; `close` after
    `ray.shutdown()` lets it sweep what Ray's teardown left and waits for it (bounded)."""

    def __init__(self, session_dir: str, pids: Iterable[int]) -> None:
        self._args = [session_dir, str(SWEEP_FOR), str(FOLLOW_EVERY),
                      *map(str, sorted(set(pids)))]
        self._reaper = PipeHeld()

    @staticmethod
    def available() -> bool:
        """Can this platform run the reaper (is there a `/proc` to read)?"""
        return Path("/proc/self/stat").exists()

    def start(self) -> None:
        """Spawn the reaper; it follows the instance from now on."""
        if not self._reaper.started and self.available():
            self._reaper.spawn(_REAPER, *self._args)

    def close(self, timeout: float = 10.0) -> None:
        """The instance is done: the reaper ends what is left of it; wait at most `timeout` s."""
        self._reaper.close(timeout)


def local_instance() -> Reaper | None:
    """The reaper for the Ray instance this process's `ray.init()` just started (None if
    Ray holds no node here)."""
    import ray

    node = ray._private.worker._global_node  # noqa: SLF001  (Ray has no public handle)
    if node is None:
        return None
    pids = [info.process.pid for infos in node.all_processes.values() for info in infos
            if info.process is not None]
    return Reaper(node.get_session_dir_path(), pids)
