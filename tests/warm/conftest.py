"""A warm check server of this installation in a private runtime directory, per test module,
stopped (and reaped) when the module ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nika.warm import wire


class Served:
    """A running server: its process and socket."""

    def __init__(self, proc: subprocess.Popen[bytes], socket: Path, runtime: Path) -> None:
        self.proc, self.socket, self.runtime = proc, socket, runtime

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=30)


def start_server(runtime: Path, **env: str) -> Served:
    """Start `python -m nika.warm.server` with `XDG_RUNTIME_DIR=runtime`; returns once its
    socket is there (bounded)."""
    environ = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), **env}
    proc = subprocess.Popen([sys.executable, "-m", "nika.warm.server"], env=environ,
                            stdin=subprocess.DEVNULL)
    socket = Path(wire.socket_name(str(runtime / "nika")))
    deadline = time.monotonic() + 60
    while not socket.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait(timeout=30)
            raise AssertionError(f"the server did not start (exit {proc.returncode})")
        time.sleep(0.05)
    return Served(proc, socket, runtime)


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runtime directory this test's client and servers use."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    return run


@pytest.fixture
def served(runtime: Path) -> Iterator[Served]:
    server = start_server(runtime)
    try:
        yield server
    finally:
        server.stop()
