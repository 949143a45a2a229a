"""`nika lsp`'s bounded reader, driven over raw pipes with what a broken or hostile client
sends: a 10 MB document, a body that is not UTF-8, a `Content-Length` far past any bound,
unknown methods, a request after `shutdown`. Each gets an error or a diagnostic, the server
keeps serving, its memory stays bounded, and it exits when stdin closes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, Final

from nika.serve._lsp_wire import MAX_BODY

SRC: Final = Path(__file__).resolve().parents[2] / "src"
TIMEOUT: Final = 60


def frame(payload: dict[str, Any] | bytes) -> bytes:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def request(ident: int, method: str, params: Any = None) -> bytes:
    return frame({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})


def notify(method: str, params: Any) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


def read_message(out: IO[bytes]) -> dict[str, Any]:
    length = None
    while True:
        line = out.readline()
        assert line, "the server closed its output"
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    assert length is not None
    message: dict[str, Any] = json.loads(out.read(length))
    return message


def until(out: IO[bytes], wanted: Any) -> dict[str, Any]:
    """The next message matching `wanted` (a response id, or a notification's method)."""
    for _ in range(50):
        message = read_message(out)
        if message.get("id") == wanted or message.get("method") == wanted:
            return message
    raise AssertionError(f"no {wanted!r}")


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_hostile_input_is_refused_and_the_server_keeps_serving(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "nika.cli", "lsp"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None and stdout is not None
    try:
        stdin.write(request(1, "initialize", {"capabilities": {}, "processId": None,
                                               "rootUri": None}))
        stdin.flush()
        assert "capabilities" in until(stdout, 1)["result"]
        stdin.write(notify("initialized", {}))

        # a 10 MB document: past the check's 1 MiB cap, so a diagnostic says so
        uri = (tmp_path / "big.nika.yaml").as_uri()
        big = "nika: big\n" + "# " + "x" * (10 * 1024 * 1024) + "\n"
        stdin.write(notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": big}}))
        stdin.flush()
        published = until(stdout, "textDocument/publishDiagnostics")["params"]
        assert [d["code"] for d in published["diagnostics"]] == ["NIKA-YAML-010"]

        before = peak_kib(server.pid)
        stdin.write(b"Content-Length: 99999999999999\r\n\r\n" + b"z" * (3 * MAX_BODY))
        stdin.write(frame(b'{"jsonrpc":"2.0","id":"\xff\xfe","method":"x"}'))
        stdin.write(frame(b"[1, 2"))
        stdin.write(request(5, "nika/noSuchMethod", {}))
        stdin.write(request(6, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}))
        stdin.flush()
        huge = read_message(stdout)
        assert huge["id"] is None and "NIKA-SERVE-003" in huge["error"]["message"]
        assert read_message(stdout)["error"]["code"] == -32700  # not UTF-8
        assert read_message(stdout)["error"]["code"] == -32700  # not JSON
        assert until(stdout, 5)["error"]["code"] == -32601  # method not found
        assert until(stdout, 6)["result"] is None  # still serving
        # the 72 MiB claim was skipped in chunks, never held
        assert peak_kib(server.pid) - before < MAX_BODY // 1024

        stdin.write(request(7, "shutdown"))
        stdin.flush()
        assert until(stdout, 7)["result"] is None
        stdin.write(request(8, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}))
        stdin.flush()
        assert until(stdout, 8)["error"]["code"] == -32600  # mid-shutdown: refused, answered
        stdin.close()
        assert server.wait(timeout=TIMEOUT) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=TIMEOUT)
        stdout.close()
        if not stdin.closed:
            stdin.close()


def test_the_server_exits_when_stdin_closes_before_initialize(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "nika.cli", "lsp"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(SRC)}, input=b"",
                          capture_output=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0 and done.stdout == b""
