"""McpExecutor against REAL MCP servers: mcp-server-time and mcp-server-git (PyPI),
@modelcontextprotocol/server-filesystem and server-memory (npm, `make mcp-servers`), and the
misbehaving `_fault_server.py` over stdio and streamable HTTP.

Server start-up dominates the cost, so one module-scoped executor serves every test that
leaves its servers healthy; tests that kill, time out or refuse a server bring their own.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from nika.agent.seams import ToolExecutor, ToolResult
from nika.tools.mcp import McpExecutor
from nika.tools.mcp_registry import McpRegistry, parse_registry

pytestmark = pytest.mark.asyncio(loop_scope="module")

VENV_BIN = Path(sys.executable).parent
NPM_BIN = Path(__file__).resolve().parents[2] / ".nika" / "npm" / "node_modules" / ".bin"
FAULT_SERVER = Path(__file__).with_name("_fault_server.py")
TOKEN = "s3cret-token-0123456789"
START = 90.0  # generous: the suite shares two cores with everything else
NAME = re.compile(r"^mcp:[a-z][a-z0-9-]*/[A-Za-z0-9_-]+$")


# -- helpers ---------------------------------------------------------------------------------


def npm_server(name: str) -> str:
    """An npm-installed server's path; a clear failure (never a skip) when it is absent."""
    path = NPM_BIN / name
    assert path.exists(), f"{path} is missing: run `make mcp-servers` (`make test` does)"
    return str(path)


def fault_entry(**env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": env}


def make_registry(servers: dict[str, Any], project: Path) -> McpRegistry:
    text = json.dumps({"mcpServers": servers})
    return parse_registry(text, path=project / "mcp.json", project_dir=project, environ={})


def _state_and_ppid(pid: str) -> tuple[str, str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]  # fields after "(command)"
    return state, ppid


def live_children() -> set[int]:
    """Pids of this process's running children (a zombie counts as gone)."""
    me = str(os.getpid())
    found = set()
    for entry in Path("/proc").iterdir():
        info = _state_and_ppid(entry.name) if entry.name.isdigit() else None
        if info is not None and info[1] == me and info[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    info = _state_and_ppid(str(pid))
    return info is not None and info[0] != "Z"


@contextmanager
def http_fault_server() -> Iterator[str]:
    """The fault server over streamable HTTP on a free loopback port; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(FAULT_SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START
        while True:
            assert proc.poll() is None, "the HTTP fault server exited during start-up"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP fault server never listened"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def text_of(result: ToolResult) -> str:
    assert not result.is_error, result.content
    return result.content


def failure_of(result: ToolResult) -> tuple[str, str, str]:
    assert result.is_error and result.error is not None, result
    return result.error.code, result.error.category, result.error.detail


# -- the shared universe ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    repo = root / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("hello from the test repo\n")
    git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "README.md"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "-m", "first commit"], check=True)
    (repo / "untracked.txt").write_text("new\n")
    files = root / "files"
    files.mkdir()
    (files / "notes.txt").write_text("the quick brown fox\n")
    (root / "outside.txt").write_text("not yours\n")
    return root


@pytest.fixture(scope="module")
def registry(project: Path) -> McpRegistry:
    files = project / "files"
    return make_registry(
        {
            "time": {
                "command": str(VENV_BIN / "mcp-server-time"),
                "args": ["--local-timezone=UTC"],
            },
            "git": {"command": str(VENV_BIN / "mcp-server-git"), "args": ["--repository", "repo"]},
            "files": {"command": npm_server("mcp-server-filesystem"), "args": [str(files)]},
            "memory": {
                "command": npm_server("mcp-server-memory"),
                "env": {"MEMORY_FILE_PATH": str(project / "memory.jsonl")},
            },
            "fault": fault_entry(FAULT_TOKEN=TOKEN),
        },
        project,
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(registry: McpRegistry) -> AsyncIterator[McpExecutor]:
    async with McpExecutor(registry, start_timeout=START, max_result_bytes=4096) as executor:
        await executor.load_definitions()
        assert executor.failures == {}
        yield executor


async def test_the_universe_counts_every_real_tool(shared: McpExecutor) -> None:
    assert isinstance(shared, ToolExecutor)
    names = [d.name for d in shared.definitions()]
    per_server: dict[str, int] = {}
    for name in names:
        assert NAME.match(name), name
        server = name[len("mcp:") :].split("/")[0]
        per_server[server] = per_server.get(server, 0) + 1
    # fault offers 11 tools; `nika:compose` cannot be named as mcp:fault/<tool> and is dropped
    assert per_server == {"fault": 10, "files": 14, "git": 12, "memory": 9, "time": 2}
    assert len(names) == len(set(names)) == 47
    assert all(d.source == "mcp" for d in shared.definitions())


async def test_definitions_carry_description_and_input_schema(shared: McpExecutor) -> None:
    by_name = {d.name: d for d in shared.definitions()}
    get_time = by_name["mcp:time/get_current_time"]
    assert "timezone" in get_time.description.lower()
    assert get_time.parameters["type"] == "object"
    assert get_time.parameters["required"] == ["timezone"]


async def test_no_server_tool_surfaces_as_a_builtin(shared: McpExecutor) -> None:
    names = {d.name for d in shared.definitions()}
    assert "mcp:fault/compose" in names
    assert not any(n.startswith("nika:") or n.count(":") != 1 for n in names)
    assert text_of(await shared.call("mcp:fault/compose", {})) == "composed"
    for impostor in ("nika:compose", "mcp:fault/nika:compose"):
        code, category, detail = failure_of(await shared.call(impostor, {}))
        assert (code, category) == ("NIKA-INVOKE-001", "validation_error")
        assert "mcp:<server>/<tool>" in detail


async def test_time_current_time_in_a_timezone(shared: McpExecutor) -> None:
    result = await shared.call("mcp:time/get_current_time", {"timezone": "Asia/Tokyo"})
    assert json.loads(text_of(result))["timezone"] == "Asia/Tokyo"
    assert result.structured["datetime"].endswith("+09:00")


async def test_time_invalid_timezone_is_a_tool_error(shared: McpExecutor) -> None:
    result = await shared.call("mcp:time/get_current_time", {"timezone": "Mars/Olympus"})
    code, category, detail = failure_of(result)
    assert (code, category) == ("NIKA-MCP-002", "tool_error")
    assert detail.startswith("mcp:time/get_current_time reported an error")
    assert "Mars/Olympus" in result.content


async def test_git_status_and_log_on_a_temp_repo(shared: McpExecutor) -> None:
    status = text_of(await shared.call("mcp:git/git_status", {"repo_path": "repo"}))
    assert "untracked.txt" in status
    log = text_of(await shared.call("mcp:git/git_log", {"repo_path": "repo", "max_count": 5}))
    assert "first commit" in log


async def test_filesystem_reads_inside_its_root(shared: McpExecutor, project: Path) -> None:
    root = project / "files"
    listing = text_of(await shared.call("mcp:files/list_directory", {"path": str(root)}))
    assert "notes.txt" in listing
    read = await shared.call("mcp:files/read_text_file", {"path": str(root / "notes.txt")})
    assert text_of(read).strip() == "the quick brown fox"


async def test_filesystem_refuses_outside_its_root(shared: McpExecutor, project: Path) -> None:
    result = await shared.call("mcp:files/read_text_file", {"path": str(project / "outside.txt")})
    code, _, detail = failure_of(result)
    assert code == "NIKA-MCP-002"
    assert "not yours" not in result.content
    assert "outside" in detail.lower() or "denied" in detail.lower()


async def test_memory_graph_round_trip(shared: McpExecutor) -> None:
    entity = {"name": "Nika", "entityType": "engine", "observations": ["runs workflows"]}
    text_of(await shared.call("mcp:memory/create_entities", {"entities": [entity]}))
    found = text_of(await shared.call("mcp:memory/search_nodes", {"query": "workflows"}))
    assert "Nika" in found


async def test_content_kinds_render_deterministically(shared: McpExecutor) -> None:
    assert text_of(await shared.call("mcp:fault/picture", {})) == "[image: image/png, 66 bytes]"
    weather = await shared.call("mcp:fault/weather", {"city": "Oslo"})
    assert weather.structured == {"city": "Oslo", "celsius": 21}
    assert json.loads(text_of(weather)) == {"city": "Oslo", "celsius": 21}


async def test_tool_side_failures_feed_back_as_tool_errors(shared: McpExecutor) -> None:
    failed = await shared.call("mcp:fault/fail", {"message": "disk quota exceeded"})
    code, category, detail = failure_of(failed)
    assert (code, category) == ("NIKA-MCP-002", "tool_error")
    assert "disk quota exceeded" in detail and "disk quota exceeded" in failed.content
    bad_args = await shared.call("mcp:fault/echo", {})
    assert failure_of(bad_args)[0] == "NIKA-MCP-002"
    assert "text" in bad_args.content  # the server names the missing field


async def test_unknown_tool_and_unconfigured_server(shared: McpExecutor) -> None:
    code, _, detail = failure_of(await shared.call("mcp:fault/no_such_tool", {}))
    assert code == "NIKA-INVOKE-001"
    assert "mcp:fault/echo" in detail  # says what it offers instead
    code, _, detail = failure_of(await shared.call("mcp:postgres/query", {"sql": "select 1"}))
    assert code == "NIKA-MCP-001"
    assert "'postgres' is not configured" in detail and "mcp.json" in detail
    assert "postgres" in shared.failures


async def test_huge_result_is_truncated_with_a_marker(shared: McpExecutor) -> None:
    result = await shared.call("mcp:fault/huge", {"size": 100_000})
    head, marker = text_of(result).split("\n[nika: result truncated: ", 1)
    assert head == "x" * 4096
    assert marker.startswith("100000 bytes, showing the first 4096")
    assert result.structured is None  # over the cap too: not carried


async def test_secret_env_values_are_masked_in_results(shared: McpExecutor) -> None:
    result = await shared.call("mcp:fault/getenv", {"name": "FAULT_TOKEN"})
    assert text_of(result) == "***"
    assert TOKEN not in repr(result)
