"""The `nika` console entry: a thin client of the warm check server, else the CLI.

Asked for the server (`nika check --server …`, or `NIKA_CHECK_SERVER=1`), it sends argv,
the working directory, the terminal width, the output encodings and, for `-`, stdin to the
per-user server, and prints the bytes and returns the exit code it answers. On any problem
— no socket, a refused or unsafe one, a stale server, a timeout, a malformed answer — it
runs the check in-process, and where no server was listening it starts one for the next
call. Every wait is bounded by `NIKA_CHECK_SERVER_TIMEOUT` seconds (30 by default).

Until it knows it must run the CLI it imports nothing the interpreter has not already
loaded but `_socket`, `time` and its two neighbours: that is the warm path's whole cost.
"""

from __future__ import annotations

import os
import sys

from nika import __version__
from nika._term import terminal_columns
from nika.warm import wire

TIMEOUT_S = 30.0
"""The default bound on connecting to the server and waiting for its answer."""


def main() -> int:
    """Run `nika` with `sys.argv`; returns the process exit code."""
    argv = sys.argv[1:]
    if argv[:1] == ["check"]:
        # A check process is short and bounded (its input is capped, and the check itself
        # runs with the collector paused): the cyclic collector stays off from the start,
        # sparing the collections the imports' many allocations would trigger (~6 ms).
        import gc

        gc.disable()
        if "--server" in argv or os.environ.get(wire.SWITCH, "0") != "0":
            return warm_check(argv)
    from nika.cli import main as cli

    return cli(argv)


def warm_check(argv: list[str]) -> int:
    """`nika check` through the server, or in-process when it cannot answer."""
    stdin = None
    if "-" in argv[1:] and sys.stdin is not None:
        # as the CLI reads it: one byte past the document cap at most, within the deadline
        from nika.guarded_read import STDIN, Unreadable, read_stdin, refusal

        got = read_stdin(wire.MAX_STDIN)
        if isinstance(got, Unreadable):
            error = refusal("the workflow", STDIN, got)
            sys.stderr.write(f"nika check: {error.code}: {error.detail}\n")
            return 2
        stdin = got
    answer, start = ask(argv, stdin)
    if answer is not None:
        code, out, err = answer
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
        return code
    code = in_process(argv, stdin)
    if start:
        spawn()
    return code


def ask(argv: list[str], stdin: bytes | None) -> tuple[tuple[int, bytes, bytes] | None, bool]:
    """The server's answer (exit code, stdout, stderr), or None with whether to start a
    server (none was listening, or the one listening was stale)."""
    import _socket
    import time

    directory = wire.runtime_dir(create=False)
    if directory is None:
        return None, True
    path = wire.socket_name(directory)
    try:
        timeout = float(os.environ.get("NIKA_CHECK_SERVER_TIMEOUT", TIMEOUT_S))
    except ValueError:
        timeout = TIMEOUT_S
    deadline = time.monotonic() + timeout
    request = wire.encode(_request(argv, stdin))
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        try:
            conn.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return None, True
        conn.sendall(request)
        conn.shutdown(_socket.SHUT_WR)
        chunks: list[bytes] = []
        size = 0
        while True:
            conn.settimeout(max(deadline - time.monotonic(), 0.001))
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > wire.MAX_MESSAGE:
                return None, False
            chunks.append(chunk)
    except OSError:  # timeouts included: the check runs here instead
        return None, False
    finally:
        conn.close()
    return _answer(wire.decode(b"".join(chunks)))


def _request(argv: list[str], stdin: bytes | None) -> list[bytes]:
    streams = (sys.stdout, sys.stderr)
    codecs = [f"{s.encoding}\0{s.errors}".encode() for s in streams]
    return [
        wire.PROTOCOL, __version__.encode(), os.getcwdb(), str(terminal_columns()).encode(),
        *codecs, b"" if stdin is None else b"1", stdin or b"", *map(os.fsencode, argv),
    ]


def _answer(fields: list[bytes] | None) -> tuple[tuple[int, bytes, bytes] | None, bool]:
    if fields is None or len(fields) != 4:
        return None, False
    status, code, out, err = fields
    if status == wire.OK and code.isdigit():
        return (int(code), out, err), False
    return None, status == wire.STALE


def in_process(argv: list[str], stdin: bytes | None) -> int:
    """The plain check, in this process (stdin, if the client read it, served again)."""
    from nika.cli import main as cli

    if stdin is not None:
        import io

        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding=sys.stdin.encoding)
    return cli(argv)


def spawn() -> None:
    """Start this installation's server, detached in its own session: it outlives this
    command, serves the next ones, and exits on its own when idle (`nika.warm.server`). The
    intermediate child is reaped here; the server itself is the init process's to reap."""
    try:
        pid = os.fork()
    except OSError:
        return  # no server: every check stays in-process, as without the switch
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                # nothing the caller let it inherit: a pipe held open by a server that idles
                # for minutes would keep `nika check … | wc -c` waiting for its end
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                os.execv(sys.executable, [sys.executable, "-m", "nika.warm.server"])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
