"""Every process a run starts dies with the run — even when the engine itself is SIGKILLed.

On a clean exit, a timeout or a handled signal the owners reap their own children (`exec`
kills its process group, the MCP client stops its servers). What no handler can cover is the
engine's own abrupt death (SIGKILL, the OOM killer), and a grandchild that outlives its
parent (`sh -c "server &"`). For those, the run keeps a watchdog: a tiny separate process,
started just before the first child, that holds the read end of a pipe whose only writer is
the engine. When the engine goes — closing the pipe on its way out, or dying with it open —
the watchdog wakes, finds every process carrying this run's marker in its environment
(`NIKA_RUN_GUARD=<token>`: every child gets it, and grandchildren inherit it), sends SIGTERM,
then SIGKILL to what is left after a short grace, and exits.

A marker rather than a list of process groups: a child is findable from the instant it
exists, with no registration message that a dying engine might not get to send, and a
grandchild that started its own session is still found. Linux only (it reads `/proc`);
elsewhere the watchdog is not started and the owners' own reaping is the guarantee.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Final

MARKER: Final = "NIKA_RUN_GUARD"
"""The environment variable every child of a run carries (its value is the run's token)."""

GRACE: Final = 1.0
"""Seconds between the watchdog's SIGTERM and its SIGKILL."""

_WATCHDOG: Final = r"""
import os, signal, sys, time
marker = (sys.argv[1] + "=" + sys.argv[2]).encode()
grace = float(sys.argv[3])
me = os.getpid()
while sys.stdin.buffer.read(4096):
    pass  # only the engine writes here, and only to say nothing: EOF is the message

def marked():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/" + name + "/environ", "rb") as handle:
                if marker in handle.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found

for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
    deadline = time.monotonic() + wait
    pids = marked()
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    while pids and time.monotonic() < deadline:
        time.sleep(0.02)
        pids = marked()
    if not pids:
        break
"""


class PipeHeld:
    """A helper process that acts when the pipe it reads reaches end of file — this process
    closing it (`close`) or dying, SIGKILL included: the run's watchdog, and the Ray
    executor's reaper. Its own session, so a terminal's Ctrl-C is for the engine, not for it."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._pipe: IO[bytes] | None = None

    @property
    def started(self) -> bool:
        return self._proc is not None

    def spawn(self, script: str, *args: str) -> None:
        """Start `script` under an isolated interpreter, its stdin the pipe this process holds."""
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", script, *args],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )
        self._pipe = self._proc.stdin

    def close(self, timeout: float) -> None:
        """End this side of the pipe and wait for the helper to finish, at most `timeout` s
        (then kill it)."""
        if self._proc is None:
            return
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


class ChildGuard:
    """One run's watchdog. `env()` is what every child must carry; `close()` ends the run's
    side of the pipe and waits (bounded) for the watchdog to have cleaned up."""

    def __init__(self, *, grace: float = GRACE) -> None:
        self._token = secrets.token_hex(16)
        self._grace = grace
        self._watchdog = PipeHeld()

    @property
    def available(self) -> bool:
        """Can this platform run the watchdog (is there a `/proc` to search)?"""
        return Path("/proc/self/environ").exists()

    def env(self) -> Mapping[str, str]:
        """The marker to merge into a child's environment; starts the watchdog on first use,
        so it is alive before the first child exists."""
        if not self._watchdog.started and self.available:
            self._watchdog.spawn(_WATCHDOG, MARKER, self._token, str(self._grace))
        return {MARKER: self._token}

    def close(self, timeout: float = 5.0) -> None:
        """The run is over: let the watchdog sweep what is left (it always finds the marker of
        a straggler, e.g. a background grandchild) and wait for it, at most `timeout` s."""
        self._watchdog.close(timeout)
