"""`nika mcp` through the official `mcp` client, which spawns it over stdio; and the raw
wire, driven by hand with hostile lines. No part of the server is mocked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent
from tests.check.test_projection import SHAPE

from nika.serve._mcp_wire import MAX_LINE
from nika.serve._oracle import example_names, example_text

SRC: Final = Path(__file__).resolve().parents[2] / "src"
ENV: Final = {**os.environ, "PYTHONPATH": str(SRC)}
TIMEOUT: Final = 60.0


def spawn(cwd: Path, *flags: str) -> Client:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "nika.cli", "mcp", *flags],
                                   cwd=str(cwd), env={"PYTHONPATH": str(SRC)})
    return Client(params, read_timeout_seconds=TIMEOUT)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "shape.nika.yaml").write_text(SHAPE, encoding="utf-8")
    (tmp_path / "bad.nika.yaml").write_text(
        "nika: bad\ntasks:\n  a:\n    after: { ghost: success }\n"
        "    infer: { model: mock/echo, prompt: hi }\n", encoding="utf-8")
    return tmp_path


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(name, arguments)
    [content] = result.content
    assert isinstance(content, TextContent)
    return bool(result.is_error), content.text


def cli(workdir: Path, *argv: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=workdir, env=ENV,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    return done.returncode, done.stdout


async def test_the_five_tools_are_listed_read_only_and_described(workdir: Path) -> None:
    async with spawn(workdir) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"nika_check", "nika_inspect", "nika_explain", "nika_schema",
                              "nika_examples"}
        for tool in tools.values():
            assert tool.annotations is not None and tool.annotations.read_only_hint
            assert tool.description is not None and len(tool.description) > 80


async def test_check_and_inspect_answer_the_cli_bytes(workdir: Path) -> None:
    async with spawn(workdir) as client:
        for name in ("shape.nika.yaml", "bad.nika.yaml"):
            error, text = await call(client, "nika_check", {"path": name})
            assert not error
            assert (text, json.loads(text)["valid"]) == (cli(workdir, "check", "--json", "--lint",
                                                              name)[1], name == "shape.nika.yaml")
        error, text = await call(client, "nika_inspect", {"path": "shape.nika.yaml"})
        assert not error and text == cli(workdir, "inspect", "shape.nika.yaml")[1]
        error, draft = await call(client, "nika_inspect", {"source": SHAPE})
        assert not error and draft == text

        error, text = await call(client, "nika_inspect", {"path": "bad.nika.yaml"})
        assert error and text.startswith("NIKA-SERVE-001") and "NIKA-DAG-002" in text
        assert "reason: findings" in text


async def test_explain_schema_and_examples(workdir: Path) -> None:
    async with spawn(workdir) as client:
        error, text = await call(client, "nika_explain", {"code": "dag-002"})
        explained = json.loads(text)
        assert not error and explained["code"] == "NIKA-DAG-002"
        assert explained["category"] == "validation_error" and explained["fix"]
        error, text = await call(client, "nika_explain", {"code": "NIKA-DAG-02"})
        assert error and "did you mean NIKA-DAG-002" in text

        error, text = await call(client, "nika_schema", {})
        schema = json.loads(text)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert not error and text == cli(workdir, "schema")[1]

        error, text = await call(client, "nika_examples", {})
        assert not error and text.split() == example_names() and len(example_names()) >= 3
        for name in example_names():
            error, body = await call(client, "nika_examples", {"name": name})
            assert not error and body == example_text(name)
            (workdir / name).write_text(body, encoding="utf-8")
            error, verdict = await call(client, "nika_check", {"path": name})
            assert json.loads(verdict)["valid"], (name, verdict)


async def test_hostile_requests_are_refusals_and_the_server_stays_up(workdir: Path) -> None:
    async with spawn(workdir) as client:
        outside = workdir.parent / "outside.nika.yaml"
        outside.write_text(SHAPE, encoding="utf-8")
        for path in ("../outside.nika.yaml", str(outside), "/etc/passwd"):
            error, text = await call(client, "nika_inspect", {"path": path})
            assert error and text.startswith("NIKA-SERVE-002"), text
        os.symlink(outside, workdir / "link.nika.yaml")
        error, text = await call(client, "nika_check", {"path": "link.nika.yaml"})
        assert error and text.startswith("NIKA-SERVE-002")

        for name, args in (("nika_run", {}), ("nika_check", {"path": "a", "source": "b"}),
                           ("nika_schema", {"extra": 1}), ("nika_check", {"path": "absent.yaml"}),
                           ("nika_examples", {"name": "nope"})):
            error, text = await call(client, name, args)
            assert error and text.startswith("NIKA-SERVE-001"), (name, text)
        error, text = await call(client, "nika_check", {"source": "x" * (2 << 20)})
        assert error and text.startswith("NIKA-SERVE-003")
        error, _ = await call(client, "nika_explain", {"code": "NIKA-DAG-002"})
        assert not error  # still serving


async def test_running_is_offered_only_with_the_flag(workdir: Path) -> None:
    (workdir / "hello.nika.yaml").write_text(example_text("hello"), encoding="utf-8")
    (workdir / "bad.nika.yaml").write_text(
        "nika: sneaky\npermits: {}\ntasks:\n  a:\n    exec: { command: [\"touch\", \"x\"] }\n",
        encoding="utf-8")
    async with spawn(workdir) as client:
        assert "nika_run" not in {t.name for t in (await client.list_tools()).tools}
        error, text = await call(client, "nika_run", {"path": "hello.nika.yaml"})
        assert error and text.startswith("NIKA-SERVE-001")
    async with spawn(workdir, "--allow-run") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        run_tool = tools["nika_run"]
        assert run_tool.annotations is not None and not run_tool.annotations.read_only_hint
        error, text = await call(client, "nika_run", {"path": "hello.nika.yaml"})
        ran = json.loads(text)
        assert not error and ran["exit_code"] == 0 and "greeting" in ran["outputs"]
        error, text = await call(client, "nika_run", {"path": "bad.nika.yaml"})
        refused = json.loads(text)
        assert refused["exit_code"] == 1 and "NIKA-SEC-004" in refused["log_tail"]
        assert not (workdir / "x").exists()  # refused by its own (empty) permits, never ran
        error, text = await call(client, "nika_run", {"path": "../hello.nika.yaml"})
        assert error and text.startswith("NIKA-SERVE-002")


def _rpc(ident: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                       "params": params}).encode() + b"\n"


INIT: Final = _rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "raw", "version": "0"}})


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_the_wire_answers_garbage_bounds_a_huge_line_and_exits_on_eof(workdir: Path) -> None:
    server = subprocess.Popen([sys.executable, "-m", "nika.cli", "mcp"], cwd=workdir, env=ENV,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(INIT)
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        before = _peak_kib(server.pid)
        huge = b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":"'
        server.stdin.write(huge + b"a" * (8 * MAX_LINE) + b'"}}\n')
        server.stdin.write(b"not json\n")
        server.stdin.write(b'{"jsonrpc":"2.0","id":"\xff\xfe"}\n')
        server.stdin.write(b'{"id": 7, "hello": true}\n')
        server.stdin.write(_rpc(8, "tools/list", {}))
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(5)]
        assert [r.get("id") for r in replies] == [None, None, None, 7, 8]
        assert "NIKA-SERVE-003" in replies[0]["error"]["message"]
        assert [r["error"]["code"] for r in replies[1:4]] == [-32700, -32700, -32600]
        assert len(replies[4]["result"]["tools"]) == 5
        # The 32 MiB line was drained in chunks, never held: the peak grew by far less.
        assert _peak_kib(server.pid) - before < 3 * MAX_LINE // 1024
        server.stdin.close()
        assert server.wait(timeout=TIMEOUT) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=TIMEOUT)
        server.stdout.close()
        if not server.stdin.closed:
            server.stdin.close()


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in argv:
                found.append(int(entry.name))
    return found


def test_closing_stdin_mid_run_leaves_no_child_behind(workdir: Path) -> None:
    import time

    marker = "41.25"
    (workdir / "slow.nika.yaml").write_text(
        f'nika: slow\npermits:\n  exec: ["sleep"]\ntasks:\n  nap:\n'
        f'    exec: {{ command: ["sleep", "{marker}"] }}\n', encoding="utf-8")
    server = subprocess.Popen([sys.executable, "-m", "nika.cli", "mcp", "--allow-run"],
                              cwd=workdir, env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(INIT)
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        server.stdin.write(_rpc(2, "tools/call", {"name": "nika_run",
                                                  "arguments": {"path": "slow.nika.yaml"}}))
        server.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        while not _running(marker):
            assert time.monotonic() < deadline, "the run never started its subprocess"
            time.sleep(0.1)
        server.stdin.close()
        assert server.wait(timeout=TIMEOUT) == 0
        deadline = time.monotonic() + 15
        while _running(marker):
            assert time.monotonic() < deadline, f"left behind: {_running(marker)}"
            time.sleep(0.1)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=TIMEOUT)
        server.stdout.close()
        if not server.stdin.closed:
            server.stdin.close()
