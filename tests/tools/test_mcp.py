"""McpExecutor against REAL MCP servers: mcp-server-time and mcp-server-git (PyPI),
@modelcontextprotocol/server-filesystem and server-memory (npm, `make mcp-servers`), and the
misbehaving `_fault_server.py` over stdio and streamable HTTP.

Server start-up dominates the cost, so one module-scoped executor serves every test that
leaves its servers healthy; tests that kill, time out or refuse a server bring their own.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from tests.tools._mcp_helpers import START, TOKEN, fault_entry, make_registry, text_of

from nika.agent.seams import ToolExecutor, ToolResult
from nika.masking import MASK
from nika.tools.mcp import McpExecutor
from nika.tools.mcp_registry import McpRegistry

pytestmark = pytest.mark.asyncio(loop_scope="module")

VENV_BIN = Path(sys.executable).parent
NPM_BIN = Path(__file__).resolve().parents[2] / ".nika" / "npm" / "node_modules" / ".bin"
NAME = re.compile(r"^mcp:[a-z][a-z0-9-]*/[A-Za-z0-9_-]+$")


# -- helpers ---------------------------------------------------------------------------------


def npm_server(name: str) -> str:
    """An npm-installed server's path; a clear failure (never a skip) when it is absent."""
    path = NPM_BIN / name
    assert path.exists(), f"{path} is missing: run `make mcp-servers` (`make test` does)"
    return str(path)


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
    by_name = {str(d.name): d for d in shared.definitions()}
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
    assert text_of(result) == MASK
    assert TOKEN not in repr(result)
