"""McpExecutor when servers misbehave: crashes, hangs, refusals to start, HTTP servers that
vanish. Each test brings its own executor (they break their servers on purpose) and checks that
no server process outlives it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from tests.tools._mcp_helpers import (
    START,
    TOKEN,
    alive,
    fault_entry,
    free_port,
    http_fault_server,
    live_children,
    make_registry,
    text_of,
)

from nika.agent.seams import ToolResult
from nika.tools.mcp import McpExecutor

TIME_SERVER = {"command": str(Path(sys.executable).parent / "mcp-server-time")}


def failure_of(result: ToolResult) -> tuple[str, str, bool]:
    """(code, detail, transient) of an error result; the content is the error's wire JSON."""
    assert result.is_error and result.error is not None, result
    wire = json.loads(result.content)
    assert (wire["code"], wire["detail"]) == (result.error.code, result.error.detail)
    return result.error.code, result.error.detail, wire["transient"]


async def test_a_crash_mid_call_loses_one_server_not_the_others(tmp_path: Path) -> None:
    before = live_children()
    registry = make_registry({"fault": fault_entry(), "time": TIME_SERVER}, tmp_path)
    async with McpExecutor(registry, start_timeout=START) as executor:
        await executor.load_definitions()
        assert len(live_children() - before) == 2
        pid = int(text_of(await executor.call("mcp:fault/pid", {})))
        code, detail, _ = failure_of(await executor.call("mcp:fault/crash", {}))
        assert code == "NIKA-MCP-001"
        assert "'fault' closed the connection" in detail
        assert "unavailable for the rest of this run" in detail
        again = await executor.call("mcp:fault/echo", {"text": "still there?"})
        assert failure_of(again)[:2] == (code, detail)
        assert set(executor.failures) == {"fault"}
        assert {d.name.split("/")[0] for d in executor.definitions()} == {"mcp:time"}
        now = await executor.call("mcp:time/get_current_time", {"timezone": "UTC"})
        assert json.loads(text_of(now))["timezone"] == "UTC"
    assert not alive(pid)
    assert live_children() <= before


async def test_a_call_past_call_timeout_is_transient_and_the_server_survives(
    tmp_path: Path,
) -> None:
    registry = make_registry({"fault": fault_entry()}, tmp_path)
    async with McpExecutor(registry, call_timeout=1.0, start_timeout=START) as executor:
        started = time.monotonic()
        code, detail, transient = failure_of(await executor.call("mcp:fault/slow", {"seconds": 60}))
        assert time.monotonic() - started < 30
        assert (code, transient) == ("NIKA-MCP-002", True)
        assert "did not answer within 1s" in detail and "call_timeout" in detail
        assert text_of(await executor.call("mcp:fault/echo", {"text": "ok"})) == "ok"
        assert executor.failures == {}


async def test_servers_that_cannot_start_are_reported_and_others_load(tmp_path: Path) -> None:
    before = live_children()
    registry = make_registry(
        {
            "missing": {"command": "/nonexistent/bin/mcp-thing", "env": {"API_KEY": TOKEN}},
            "badcwd": {"command": sys.executable, "cwd": "no-such-dir"},
            "fault": fault_entry(),
        },
        tmp_path,
    )
    async with McpExecutor(registry, start_timeout=START) as executor:
        loaded = await executor.load_definitions()
        assert {d.name.split("/")[0] for d in loaded} == {"mcp:fault"}
        assert set(executor.failures) == {"missing", "badcwd"}
        missing = executor.failures["missing"]
        assert missing.code == "NIKA-MCP-001"
        assert "/nonexistent/bin/mcp-thing" in missing.detail and "PATH" in missing.detail
        assert str(tmp_path / "mcp.json") in missing.detail
        assert "no-such-dir" in executor.failures["badcwd"].detail
        code, detail, _ = failure_of(await executor.call("mcp:missing/anything", {}))
        assert (code, detail) == ("NIKA-MCP-001", missing.detail)
        for error in executor.failures.values():
            assert TOKEN not in json.dumps(error.to_dict())
    assert live_children() <= before


async def test_a_server_that_never_answers_misses_start_timeout(tmp_path: Path) -> None:
    before = live_children()
    mute = {"command": sys.executable, "args": ["-c", "import time; time.sleep(120)"]}
    registry = make_registry({"mute": mute}, tmp_path)
    async with McpExecutor(registry, start_timeout=1.5) as executor:
        code, detail, transient = failure_of(await executor.call("mcp:mute/x", {}))
        assert (code, transient) == ("NIKA-MCP-001", True)
        assert "did not finish starting within 1.5s" in detail
    assert live_children() <= before


async def test_servers_start_lazily_and_only_when_reachable(tmp_path: Path) -> None:
    before = live_children()
    registry = make_registry({"fault": fault_entry(), "time": TIME_SERVER}, tmp_path)
    async with McpExecutor(registry, servers={"time"}, start_timeout=START) as executor:
        assert executor.definitions() == ()
        assert live_children() == before
        result = await executor.call("mcp:time/get_current_time", {"timezone": "UTC"})
        assert not result.is_error
        assert len(live_children() - before) == 1
        assert {d.name for d in executor.definitions()} == {
            "mcp:time/get_current_time",
            "mcp:time/convert_time",
        }
        code, detail, _ = failure_of(await executor.call("mcp:fault/echo", {"text": "x"}))
        assert code == "NIKA-MCP-001" and "not available to this run" in detail
        assert len(live_children() - before) == 1
    assert live_children() <= before


async def test_the_executor_is_used_inside_async_with(tmp_path: Path) -> None:
    executor = McpExecutor(make_registry({}, tmp_path))
    with pytest.raises(RuntimeError, match="async with"):
        await executor.call("mcp:time/get_current_time", {})
    async with executor:
        pass
    with pytest.raises(RuntimeError, match="entered once"):
        await executor.__aenter__()


async def test_streamable_http_server_round_trip_then_death(tmp_path: Path) -> None:
    with http_fault_server() as url:
        entry = {"url": f"{url}?key={TOKEN}", "headers": {"Authorization": f"Bearer {TOKEN}"}}
        registry = make_registry({"remote": entry}, tmp_path)
        async with McpExecutor(registry, start_timeout=START) as executor:
            names = {d.name for d in await executor.load_definitions()}
            assert len(names) == 10 and "mcp:remote/compose" in names
            assert not any(n.startswith("nika:") for n in names)
            assert text_of(await executor.call("mcp:remote/echo", {"text": "over http"})) == (
                "over http"
            )
            weather = await executor.call("mcp:remote/weather", {"city": "Lima"})
            assert weather.structured == {"city": "Lima", "celsius": 21}
            code, detail, _ = failure_of(await executor.call("mcp:remote/crash", {}))
            assert code == "NIKA-MCP-001" and "'remote'" in detail
            assert TOKEN not in detail
            again = await executor.call("mcp:remote/echo", {"text": "x"})
            assert failure_of(again)[0] == "NIKA-MCP-001"
            assert executor.definitions() == ()


async def test_an_unreachable_http_server_is_a_prescriptive_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp?token={TOKEN}"
    registry = make_registry({"remote": {"url": url, "headers": {"X-Key": TOKEN}}}, tmp_path)
    async with McpExecutor(registry, start_timeout=START) as executor:
        code, detail, transient = failure_of(await executor.call("mcp:remote/echo", {}))
    assert (code, transient) == ("NIKA-MCP-001", True)
    assert "cannot connect to MCP server 'remote'" in detail
    assert "fix its 'url'" in detail
    assert TOKEN not in detail
