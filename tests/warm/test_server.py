"""The server's lifetime: private socket, idle exit, stale replacement, signals, its log."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

from nika import __version__
from nika.warm import server as warm_server
from nika.warm import wire

from .conftest import Served, start_server


def _exchange(path: Path, fields: list[bytes], timeout: float = 60) -> list[bytes] | None:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(path))
        conn.sendall(wire.encode(fields))
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
        return wire.decode(b"".join(chunks))


def _request(cwd: str, *argv: str, version: str = __version__) -> list[bytes]:
    return [wire.PROTOCOL, version.encode(), cwd.encode(), b"80", b"utf-8\0strict",
            b"utf-8\0backslashreplace", b"", b"", *(a.encode() for a in argv)]


def test_the_socket_is_private(served: Served) -> None:
    assert stat.S_IMODE(served.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(served.socket.parent.stat().st_mode) == 0o700


def test_a_request_from_another_version_gets_stale_and_the_server_leaves(
    served: Served, tmp_path: Path
) -> None:
    answer = _exchange(served.socket, _request(str(tmp_path), "check", "x", version="0.0.0"))
    assert answer == [wire.STALE, b"", b"", b""]
    assert served.proc.wait(timeout=60) == 0
    assert not served.socket.exists()
    assert "stopped: stale" in served.socket.with_suffix(".log").read_text()


def test_a_request_it_cannot_serve_is_declined_and_it_serves_on(
    served: Served, tmp_path: Path
) -> None:
    assert _exchange(served.socket, [b"junk"]) == [wire.DECLINED, b"", b"", b""]
    (tmp_path / "r.yaml").write_text("nika: r\ntasks:\n  a:\n    infer: { prompt: hi }\n")
    ran = _exchange(served.socket, _request(str(tmp_path), "run", "r.yaml"))
    assert ran == [wire.DECLINED, b"", b"", b""]  # a check server runs no other command
    gone = str(tmp_path / "gone")
    declined = _exchange(served.socket, _request(gone, "check", "x"))
    assert declined is not None and declined[0] == wire.DECLINED
    (tmp_path / "t.yaml").write_text("nika: t\ntasks:\n  a:\n    infer: { prompt: hi }\n")
    answer = _exchange(served.socket, _request(str(tmp_path), "check", "--json", "t.yaml"))
    assert answer is not None and answer[:2] == [wire.OK, b"0"]
    assert answer[2].startswith(b'{"') and served.proc.poll() is None


def test_an_idle_server_exits_and_says_why(runtime: Path) -> None:
    served = start_server(runtime, NIKA_CHECK_SERVER_IDLE="0.3")
    assert served.proc.wait(timeout=60) == 0
    assert not served.socket.exists()
    assert "stopped: idle for 0.3 s" in served.socket.with_suffix(".log").read_text()


def test_sigterm_stops_it_cleanly(served: Served) -> None:
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(timeout=60) == 0
    assert not served.socket.exists()
    assert "stopped: signal SIGTERM" in served.socket.with_suffix(".log").read_text()


def test_a_second_server_of_the_installation_steps_aside(served: Served) -> None:
    second = start_server(served.runtime)  # the socket is already there: returns at once
    assert second.proc.wait(timeout=60) == 0
    assert served.proc.poll() is None and served.socket.exists()


def test_the_fingerprint_sees_edits_additions_and_removals(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "a.py"
    module.write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    before = warm_server.fingerprint(str(tmp_path))
    (tmp_path / "__pycache__" / "a.pyc").write_bytes(b"")
    assert warm_server.fingerprint(str(tmp_path)) == before  # bytecode caches aside
    later = time.time_ns() + 10**9
    os.utime(module, ns=(later, later))
    edited = warm_server.fingerprint(str(tmp_path))
    assert edited != before
    (tmp_path / "pkg" / "b.py").write_text("")
    assert warm_server.fingerprint(str(tmp_path)) != edited


def _trickle(path: Path, every: float, count: int) -> tuple[float, bool]:
    """Send one byte of a request every `every` seconds, `count` times at most; returns the
    seconds until the server cut the connection and whether it did."""
    import socket

    started = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(str(path))
        message = wire.encode(_request("/", "check", "x"))
        for byte in message[:count]:
            try:
                conn.sendall(bytes([byte]))
                conn.settimeout(every)
                if conn.recv(1) == b"":  # the server closed its end
                    return time.monotonic() - started, True
            except TimeoutError:
                continue
            except OSError:  # reset: cut off
                return time.monotonic() - started, True
    return time.monotonic() - started, False


def test_a_trickling_client_is_cut_off_by_one_deadline_for_the_whole_request(
    runtime: Path,
) -> None:
    # the timeout was per recv (10 s): a byte every 5 s held the server forever
    served = start_server(runtime, NIKA_CHECK_SERVER_DEADLINE="1.5")
    try:
        spent, cut = _trickle(served.socket, every=0.3, count=30)
        assert cut and 1.2 < spent < 5.0, spent
    finally:
        served.stop()


def test_a_stuck_client_never_delays_another(served: Served, tmp_path: Path) -> None:
    import socket

    (tmp_path / "t.yaml").write_text("nika: t\ntasks:\n  a:\n    infer: { prompt: hi }\n")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stuck:
        stuck.connect(str(served.socket))  # connected, sends nothing, never closes
        stuck.sendall(b"\0\0")
        started = time.monotonic()
        answer = _exchange(served.socket, _request(str(tmp_path), "check", "t.yaml"),
                           timeout=5)
        assert answer is not None and answer[:2] == [wire.OK, b"0"]
        assert time.monotonic() - started < 5  # not after the stuck one's 10 s


def test_a_fifo_is_refused_at_once_and_the_server_serves_on(
    served: Served, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")  # no writer ever: opened to read, it blocked forever
    answer = _exchange(served.socket, _request(str(tmp_path), "check", "pipe.yaml"), timeout=10)
    assert answer is not None and answer[:2] == [wire.OK, b"2"]
    assert b"NIKA-CLI-002" in answer[3] and b"a named pipe (FIFO)" in answer[3]
    (tmp_path / "t.yaml").write_text("nika: t\ntasks:\n  a:\n    infer: { prompt: hi }\n")
    again = _exchange(served.socket, _request(str(tmp_path), "check", "t.yaml"), timeout=10)
    assert again is not None and again[:2] == [wire.OK, b"0"]


def test_removing_the_socket_stops_a_server_a_client_keeps_busy(runtime: Path) -> None:
    import threading

    served = start_server(runtime)
    busy = threading.Thread(target=_trickle, args=(served.socket, 0.5, 40), daemon=True)
    busy.start()
    time.sleep(0.5)
    served.socket.unlink()
    started = time.monotonic()
    try:
        assert served.proc.wait(timeout=15) == 0
    finally:
        served.stop()
    assert time.monotonic() - started < 10
    assert "its socket was removed" in served.socket.with_suffix(".log").read_text()
    busy.join(timeout=30)
