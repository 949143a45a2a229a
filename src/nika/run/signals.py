"""How `nika run` ends on a signal: the way an operator's stop is meant to work.

SIGINT (Ctrl-C), SIGTERM (systemd, docker, Kubernetes, CI) and SIGHUP (a closed terminal) are
one request: stop cleanly. The first one cancels the run — running tasks are cancelled, every
child process group is killed and reaped, MCP servers are stopped, the report and the
journal's terminal frame (`workflow_cancelled`) are written — and the process exits with the
shell's convention, 128 + the signal number: 130 · 143 · 129. A second signal, while that
teardown is still running, forces the exit at once: the run's last frame is written if the
runner had not written one, and the engine exits; its children still die, through the
watchdog (`children.py`).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Final

HANDLED: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def exit_code(signum: int) -> int:
    """The shell's exit status for a process ended by `signum` (SIGTERM → 143)."""
    return 128 + signum


class Stop:
    """Routes the handled signals to the run: `attach(cancel)` the runner once it exists (a
    signal that came before is applied then); `on_force(signum)` runs on the second signal
    and must not return."""

    def __init__(self, on_force: Callable[[int], None]) -> None:
        self.received: int | None = None
        self.settled = False
        """Set once the run wrote its terminal frame (a forced exit must not add another)."""
        self._cancel: Callable[[], None] | None = None
        self._on_force = on_force
        self._installed: list[int] = []

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        # A signal the launcher set to be ignored stays ignored (`nohup nika run …`).
        self._installed = [s for s in HANDLED if signal.getsignal(s) is not signal.SIG_IGN]
        for signum in self._installed:
            loop.add_signal_handler(signum, self._handle, signum)

    def remove(self, loop: asyncio.AbstractEventLoop) -> None:
        for signum in self._installed:
            loop.remove_signal_handler(signum)

    def attach(self, cancel: Callable[[], None]) -> None:
        self._cancel = cancel
        if self.received is not None:
            cancel()

    def _handle(self, signum: int) -> None:
        if self.received is not None:
            self._on_force(signum)
            return
        self.received = signum
        if self._cancel is not None:
            self._cancel()
