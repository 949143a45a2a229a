"""The journal's fsync, off the event loop: one thread per journal, coalescing boundaries.

An `fdatasync` costs milliseconds on a real disk (see `bench/run_bench.py`), so it never runs
on the event loop. `request()` marks the file dirty and returns at once; the syncer thread
syncs, and boundaries that arrive while a sync is in flight are covered by the next one (an
fsync covers every byte written before it began). `close()` stops the thread and runs a
last, synchronous sync: when the run ends, everything it journaled is on disk. Every wait is
bounded.
"""

from __future__ import annotations

import os
import threading
from typing import Final

JOIN_TIMEOUT: Final = 30.0
"""How long `close` waits for an in-flight sync (a hung disk must not hang the run)."""


def fdatasync(fd: int) -> None:
    """The data (not the access times) of `fd` to stable storage."""
    getattr(os, "fdatasync", os.fsync)(fd)


class BackgroundSync:
    """Syncs `fd` after each `request`, on its own daemon thread; `failed` holds the first
    error (the journal reports it after the run — the infallible rider)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._wake = threading.Condition()
        self._dirty = False
        self._stopped = False
        self.failed: OSError | None = None
        self._thread = threading.Thread(target=self._loop, name="nika-journal-sync",
                                        daemon=True)
        self._thread.start()

    def request(self) -> None:
        """A task boundary was written: sync it soon."""
        with self._wake:
            self._dirty = True
            self._wake.notify()

    def close(self) -> None:
        """Stop the thread, then sync once more, synchronously."""
        with self._wake:
            self._stopped = True
            self._wake.notify()
        self._thread.join(JOIN_TIMEOUT)
        try:
            fdatasync(self._fd)
        except OSError as exc:
            self.failed = self.failed or exc

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._dirty and not self._stopped:
                    self._wake.wait()
                if self._stopped:
                    return
                self._dirty = False
            try:
                fdatasync(self._fd)
            except OSError as exc:
                self.failed = self.failed or exc
                return
