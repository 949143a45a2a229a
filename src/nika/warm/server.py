"""The warm check server: one resident process per user and installation answering the
`nika check` requests of `nika.warm.client` with the very CLI code a plain `nika check` runs.

Each request runs `nika.cli.main(argv)` in the client's working directory, with the
client's terminal width and output encodings, stdout and stderr captured as bytes; the check
reads files afresh every time and keeps no state between requests but pure caches.

A request never wedges it. Each connection is read on its own thread under one deadline for
the whole request (`REQUEST_DEADLINE_S`, not per `recv`: a client trickling a byte every few
seconds is cut off), so a slow client never delays another; the checks themselves take
turns (the working directory and the standard streams are the process's), each bounded: the
CLI reads every file through the guard (a FIFO or device is refused, never opened to block)
and its input is capped. At most `MAX_CLIENTS` connections are served at once; one more is
declined (its client checks in-process).

It never outlives its welcome silently. It exits, and says why in `check-<id>.log` beside
its socket, when:
- no request came for `NIKA_CHECK_SERVER_IDLE` seconds (600 by default);
- its socket file was removed or replaced (looked at every `TICK_S` seconds, busy or
  not): `rm` the socket to stop it;
- a request came from another nika version or protocol, or the installed source changed
  since it started: it answers `STALE` and the client starts a fresh server;
- it got SIGTERM, SIGINT or SIGHUP.
Run it with `python -m nika.warm.server` (the client does, detached, when none listens).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import signal
import socket
import sys
import threading
import time
from typing import TextIO

from nika import __version__
from nika.warm import wire

IDLE_S = 600.0
"""How long a server waits for a request before it exits."""
TICK_S = 2.0
"""How often an idle server looks at its socket file."""
REQUEST_DEADLINE_S = 10.0
"""How long a connected client has to send its whole request (and to take the answer);
`NIKA_CHECK_SERVER_DEADLINE` overrides it."""
MAX_CLIENTS = 16
"""Connections served at once; one more is declined."""
LOCK_WAIT_S = 3.0
"""How long a starting server waits for a stale one to let go of the lock."""
LOG_CAP = 1 << 16
"""A log longer than this is started afresh."""

TINY = "nika: warm\ntasks:\n  t:\n    infer: { prompt: hi }\n"


class _Stop(BaseException):
    """A signal asks the server to stop (a BaseException: no `except Exception` in the
    check may swallow it)."""


def main() -> int:
    """Serve until idle, stale, displaced or signalled; returns the exit code."""
    idle = _seconds("NIKA_CHECK_SERVER_IDLE", IDLE_S)
    deadline = _seconds("NIKA_CHECK_SERVER_DEADLINE", REQUEST_DEADLINE_S)
    directory = wire.runtime_dir(create=True)
    if directory is None:
        return 1
    path = wire.socket_name(directory)
    stem = path.removesuffix(".sock")
    with open(f"{stem}.lock", "a") as lock:
        if not _locked(lock):
            return 0  # another server of this installation serves
        return Server(path, f"{stem}.log", idle, deadline).serve()


def _seconds(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _locked(lock: TextIO) -> bool:
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def fingerprint(root: str) -> tuple[int, int]:
    """The source under `root` as (files, newest mtime in ns): an edit, an added or a
    removed file changes it (bytecode caches aside)."""
    count, newest, stack = 0, 0, [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                    continue
                count += 1
                newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
    return count, newest


class Server:
    """One listening socket and its lifetime (see the module docstring)."""

    def __init__(self, path: str, log: str, idle: float,
                 deadline: float = REQUEST_DEADLINE_S) -> None:
        self.path, self.log_path, self.idle, self.deadline = path, log, idle, deadline
        self.key = fingerprint(wire.package_dir())
        self.inode = 0
        self.turn = threading.Lock()  # one check at a time: cwd and streams are global
        self.slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self.busy = 0  # connections being served (under `state`)
        self.last = time.monotonic()  # when the last one ended (under `state`)
        self.stale = threading.Event()
        self.state = threading.Lock()

    def serve(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, _stop)
        os.chdir("/")  # hold no directory of the user's between requests
        _warm()
        listener = self._listen()
        self.log(f"started: nika {__version__}, pid {os.getpid()}, idle exit after "
                 f"{self.idle:g} s, socket {self.path}")
        why = "?"
        try:
            why = self._loop(listener)
        except _Stop as stop:
            why = f"signal {stop}"
        finally:
            listener.close()
            if self._ours():
                os.unlink(self.path)
            self.log(f"stopped: {why}")
        return 0

    def _listen(self) -> socket.socket:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # a dead server's: the lock says none lives
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)  # the socket is born 0600: no window where others may connect
        try:
            listener.bind(self.path)
        finally:
            os.umask(mask)
        os.chmod(self.path, 0o600)
        listener.listen(16)
        self.inode = os.stat(self.path).st_ino
        return listener

    def _loop(self, listener: socket.socket) -> str:
        looked = self.last = time.monotonic()  # idle from the first moment it listens
        while True:
            now = time.monotonic()
            if self.stale.is_set():
                return "stale: a request from another nika version, or the source changed"
            with self.state:
                left = self.idle - (now - self.last) if self.busy == 0 else self.idle
            if left <= 0:
                return f"idle for {self.idle:g} s"
            if now - looked >= TICK_S:  # busy or not: a stream of clients never hides it
                looked = now
                if not self._ours():
                    return "its socket was removed or replaced"
            listener.settimeout(min(TICK_S, left))
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            if not self.slots.acquire(blocking=False):
                with conn:  # every slot taken: this client checks in-process
                    _send(conn, [wire.DECLINED, b"", b"", b""], time.monotonic() + 1.0)
                continue
            with self.state:
                self.busy += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                if self.answer(conn) == wire.STALE:
                    self.stale.set()
        finally:
            with self.state:
                self.busy -= 1
                self.last = time.monotonic()
            self.slots.release()

    def answer(self, conn: socket.socket) -> bytes | None:
        """Read one request, answer it; returns the status sent (None: nothing was)."""
        deadline = time.monotonic() + self.deadline
        try:
            fields = wire.decode(_read(conn, deadline))
        except OSError:  # the deadline passed, the request was too large, the client left
            return None
        if fields is None or len(fields) < 9 or fields[8] != b"check":
            # the header, then argv from "check": a check server runs no other command
            return _send(conn, [wire.DECLINED, b"", b"", b""], deadline)
        if fields[:2] != [wire.PROTOCOL, __version__.encode()] \
                or fingerprint(wire.package_dir()) != self.key:
            return _send(conn, [wire.STALE, b"", b"", b""], deadline)
        try:
            with self.turn:
                code, out, err = run(fields[2:])
        except Exception:  # the client checks in-process, where the same fault shows
            return _send(conn, [wire.DECLINED, b"", b"", b""], deadline)
        # the answer gets its own window: a queue of checks ahead must not eat it
        return _send(conn, [wire.OK, str(code).encode(), out, err],
                     time.monotonic() + self.deadline)

    def _ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def log(self, line: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            mode = "w" if os.path.getsize(self.log_path) > LOG_CAP else "a"
        except OSError:
            mode = "a"
        try:
            with open(self.log_path, mode, encoding="utf-8") as log:
                log.write(f"{stamp} {line}\n")
        except OSError:
            pass


def _stop(signum: int, _frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def _warm() -> None:
    """Load everything a check touches, by checking a tiny workflow once."""
    import nika.check.render  # noqa: F401
    import nika.cli  # noqa: F401
    from nika.check import check

    check(TINY, lint=True)


def _read(conn: socket.socket, deadline: float) -> bytes:
    """The whole request, by `deadline` (one bound for all of it, however it trickles)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive within its deadline")
        conn.settimeout(left)
        chunk = conn.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > wire.MAX_MESSAGE:
            raise OSError("request too large")
        chunks.append(chunk)


def _send(conn: socket.socket, fields: list[bytes], deadline: float) -> bytes:
    """Send `fields` by `deadline` (sendall's timeout bounds the whole send)."""
    with contextlib.suppress(OSError):  # the client gave up: it checks in-process
        conn.settimeout(max(deadline - time.monotonic(), 0.001))
        conn.sendall(wire.encode(fields))
    return fields[0]


def run(fields: list[bytes]) -> tuple[int, bytes, bytes]:
    """One request's check: (exit code, stdout bytes, stderr bytes) as `nika check` in the
    client's own process would give them."""
    from nika.cli import main as cli

    cwd, columns, out_codec, err_codec, has_stdin, stdin, *argv = fields
    out, err = _text(out_codec), _text(err_codec)
    saved = sys.stdin, sys.stdout, sys.stderr, os.environ.get("COLUMNS")
    os.chdir(cwd)
    try:
        os.environ["COLUMNS"] = columns.decode()
        sys.stdout, sys.stderr = out, err
        if has_stdin:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
        code = cli([os.fsdecode(a) for a in argv])
    finally:
        sys.stdin, sys.stdout, sys.stderr, columns_was = saved
        if columns_was is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns_was
        os.chdir("/")
    return code, _bytes(out), _bytes(err)


def _text(codec: bytes) -> io.TextIOWrapper:
    """A captured stream as the client's own: its encoding and error handler."""
    encoding, _, errors = codec.decode().partition("\0")
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors=errors, newline="\n",
                            write_through=True)


def _bytes(stream: io.TextIOWrapper) -> bytes:
    buffer = stream.detach()  # flushed, and left open (closing the wrapper would close it)
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue()


if __name__ == "__main__":
    sys.exit(main())
