"""The warm client prints exactly the bytes, and returns exactly the exit code, of the
in-process `nika check` — over every static conformance fixture and spec example, plain and
`--json` — and falls back to the in-process check on every problem, never hanging."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nika.cli import main as cli
from nika.warm import client, wire

from .conftest import Served, start_server

SHARED = Path(__file__).resolve().parents[3] / "shared"
STATIC = sorted(p.parent for p in (SHARED / "conformance" / "tests").rglob("input.yaml")
                if (p.parent / "expected.json").is_file())
EXAMPLES = sorted((SHARED / "nika-spec" / "examples").glob("*.yaml"))
CASES = [(d, "input.yaml") for d in STATIC] + [(e.parent, e.name) for e in EXAMPLES]
NIKA = Path(sys.executable).with_name("nika")
TINY = "nika: t\ntasks:\n  a:\n    infer: { prompt: hi }\n"
BROKEN = "nika: t\ntasks:\n  a:\n    infer: { prompt: ${{ nope }} }\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    run = tmp_path_factory.mktemp("warm") / "run"
    run.mkdir(mode=0o700)
    served = start_server(run)
    try:
        yield served
    finally:
        assert served.stop() == 0


def in_process(argv: list[str], capture: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, bytes]:
    code = cli(argv)
    out, err = capture.readouterr()
    return code, out, err


def test_every_fixture_and_example_is_answered_byte_for_byte(
    server: Served, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(server.runtime))
    assert len(STATIC) >= 150 and len(EXAMPLES) >= 40
    differ = []
    for directory, name in CASES:
        monkeypatch.chdir(directory)  # the harness's way: relative name, fixture directory
        for argv in (["check", name], ["check", "--json", name]):
            answer, _ = client.ask(argv, None)
            if answer != in_process(argv, capsysbinary):
                differ.append(f"{directory.name}: {' '.join(argv)}")
    assert differ == []
    assert server.proc.poll() is None  # one server answered them all


def test_stdin_and_usage_errors_are_answered_like_in_process(
    server: Served, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(server.runtime))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.nika.yaml").write_text(BROKEN)
    for argv, stdin in [(["check", "--json", "-"], BROKEN.encode()), (["check", "-"], b"\xff"),
                        (["check"], None), (["check", "missing.yaml"], None),
                        (["check", "--bogus", "t.nika.yaml"], None),
                        (["check", "--native-strict", "t.nika.yaml"], None),
                        (["check", "--infer-permits", "t.nika.yaml"], None)]:
        answer, _ = client.ask(argv, stdin)
        assert answer is not None, argv
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", _stdin(stdin))
        assert answer == in_process(argv, capsysbinary), argv


def _stdin(data: bytes) -> object:
    import io

    return io.TextIOWrapper(io.BytesIO(data))


def _cmd(
    args: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b""
) -> tuple[int, bytes, bytes]:
    done = subprocess.run([str(NIKA), *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_the_nika_command_with_the_switch_equals_the_plain_command(
    server: Served, tmp_path: Path
) -> None:
    (tmp_path / "ok.nika.yaml").write_text(TINY)
    (tmp_path / "bad.nika.yaml").write_text(BROKEN)
    plain = {**os.environ, "XDG_RUNTIME_DIR": str(server.runtime)}
    switched = {**plain, wire.SWITCH: "1"}
    for args, stdin in [(["check", "ok.nika.yaml"], b""),
                        (["check", "--json", "bad.nika.yaml"], b""),
                        (["check", "-"], BROKEN.encode())]:
        expected = _cmd(args, tmp_path, plain, stdin)
        assert _cmd(args, tmp_path, switched, stdin) == expected
        assert _cmd([*args, "--server"], tmp_path, plain, stdin) == expected
    assert expected[0] == 1 and b"NIKA-" in expected[1]


def test_without_a_server_it_checks_in_process_and_starts_one(
    runtime: Path, tmp_path: Path
) -> None:
    (tmp_path / "ok.nika.yaml").write_text(TINY)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    plain = _cmd(["check", "ok.nika.yaml"], tmp_path, env)
    assert _cmd(["check", "--server", "ok.nika.yaml"], tmp_path, env) == plain
    sock = Path(wire.socket_name(str(runtime / "nika")))
    log = sock.with_suffix(".log")
    _until(lambda: sock.exists())
    os.chdir(tmp_path)
    try:
        answer, _ = client.ask(["check", "ok.nika.yaml"], None)
    finally:
        os.chdir(Path(__file__).parent)
    assert answer is not None and answer[0] == 0
    sock.unlink()  # the documented way to stop it: it notices and exits
    _until(lambda: "stopped: its socket was removed" in log.read_text())


def _until(ready: object, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not ready():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.05)


def test_a_refused_socket_falls_back(runtime: Path) -> None:
    place = runtime / "nika"
    place.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(wire.socket_name(str(place)))
    dead.close()  # the file stays, nobody listens: a crashed server's socket
    assert client.ask(["check", "x.yaml"], None) == (None, True)


def test_a_silent_server_is_given_up_within_the_timeout(
    runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = runtime / "nika"
    place.mkdir(mode=0o700)
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(wire.socket_name(str(place)))
    mute.listen(1)  # accepts into the backlog, never answers
    monkeypatch.setenv("NIKA_CHECK_SERVER_TIMEOUT", "0.2")
    try:
        assert client.ask(["check", "x.yaml"], None) == (None, False)
    finally:
        mute.close()


def test_an_unsafe_runtime_directory_is_never_used(runtime: Path) -> None:
    place = runtime / "nika"
    place.mkdir(mode=0o755)
    assert wire.runtime_dir(create=True) is None
    assert client.ask(["check", "x.yaml"], None) == (None, True)


def test_a_malformed_answer_falls_back() -> None:
    assert client._answer(None) == (None, False)
    assert client._answer([wire.OK, b"x", b"", b""]) == (None, False)
    assert client._answer([wire.STALE, b"", b"", b""]) == (None, True)
    assert client._answer([wire.DECLINED, b"", b"", b""]) == (None, False)


@pytest.mark.parametrize("fields", [[], [b""], [b"a", b"bc" * 40], [b"\0" * 3, b""]])
def test_the_framing_round_trips(fields: list[bytes]) -> None:
    data = wire.encode(fields)
    assert wire.decode(data) == fields
    assert wire.decode(data + b"x") is None
    if data[4:]:
        assert wire.decode(data[:-1]) is None


def test_the_warm_path_loads_almost_nothing(server: Served, tmp_path: Path) -> None:
    (tmp_path / "ok.nika.yaml").write_text(TINY)
    probe = (
        "import sys\nbefore = set(sys.modules)\n"
        "from nika.warm import client\n"
        "answer, _ = client.ask(['check', 'ok.nika.yaml'], None)\n"
        "print(repr([answer is not None, sorted(set(sys.modules) - before)]))\n"
    )
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")},
           "XDG_RUNTIME_DIR": str(server.runtime)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    answered, loaded = ast.literal_eval(out)
    assert answered
    assert [m for m in loaded if not m.startswith("nika")] == ["__future__", "_socket"]
    assert sorted(m for m in loaded if m.startswith("nika")) == [
        "nika", "nika._term", "nika.warm", "nika.warm.client", "nika.warm.wire"]


def test_a_check_process_runs_without_the_cyclic_collector(tmp_path: Path) -> None:
    (tmp_path / "ok.nika.yaml").write_text(TINY)
    probe = ("import gc, sys\nfrom nika.warm import client\n"
             "for argv in (['check', 'ok.nika.yaml'], ['trace', '--help']):\n"
             "    gc.enable()\n    sys.argv = ['nika', *argv]\n    client.main()\n"
             "    print(gc.isenabled(), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, check=True, timeout=120)
    assert done.stderr.split() == ["False", "True"]  # `run` and `trace` keep it


# the `nika` console entry by module, so this checkout's client (and its spawn) is the one run
CLIENT = [sys.executable, "-c", "import sys; from nika.warm.client import main; sys.exit(main())"]


def test_a_spawned_server_holds_none_of_the_callers_descriptors(
    runtime: Path, tmp_path: Path
) -> None:
    # a server that kept an inherited pipe end open until its idle exit (minutes) kept
    # `nika check --server … | wc -c`-style readers waiting for an end that never came
    import select

    (tmp_path / "ok.nika.yaml").write_text(TINY)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    reader, writer = os.pipe()
    sock = Path(wire.socket_name(str(runtime / "nika")))
    try:
        done = subprocess.run([*CLIENT, "check", "--server", "ok.nika.yaml"], cwd=tmp_path,
                              env=env, pass_fds=(writer,), capture_output=True, timeout=60,
                              check=False)
        assert done.returncode == 0, done.stderr
        _until(lambda: sock.exists())  # the server it started is up (and would hold it)
        os.close(writer)
        writer = -1
        ready, _, _ = select.select([reader], [], [], 20)
        assert ready and os.read(reader, 1) == b""  # the end: no process holds the pipe
    finally:
        os.close(reader)
        if writer >= 0:
            os.close(writer)
        if sock.exists():
            sock.unlink()  # the documented way to stop it
            _until(lambda: "stopped: its socket was removed"
                   in sock.with_suffix(".log").read_text())


def test_stdin_through_the_server_is_bounded_like_in_process(
    runtime: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "NIKA_STDIN_TIMEOUT": "1"}
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([*CLIENT, "check", "--server", "-"], cwd=tmp_path, env=env,
                              stdin=zero, capture_output=True, timeout=60, check=False)
    assert done.returncode == 1 and b"NIKA-YAML-010" in done.stdout
    reader, writer = os.pipe()  # never closed while the client reads: the deadline ends it
    try:
        stalled = subprocess.run([*CLIENT, "check", "--server", "-"], cwd=tmp_path, env=env,
                                 stdin=reader, capture_output=True, timeout=60, check=False)
    finally:
        os.close(reader)
        os.close(writer)
    assert stalled.returncode == 2 and b"NIKA-CLI-002" in stalled.stderr
    sock = Path(wire.socket_name(str(runtime / "nika")))
    if sock.exists():
        sock.unlink()
        _until(lambda: "stopped: its socket was removed" in sock.with_suffix(".log").read_text())
