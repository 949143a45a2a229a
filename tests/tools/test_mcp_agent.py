"""The agent loop driving real MCP tools: `run_agent` with a scripted model whose tool calls
reach mcp-server-time through `McpExecutor`, error results included."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nika.agent import AgentSpec, ToolResultMessage, run_agent
from nika.agent.fakes import ScriptedProvider, answer, call, calling
from nika.tools.mcp import McpExecutor
from nika.tools.mcp_registry import parse_registry

TIME_SERVER = {"command": str(Path(sys.executable).parent / "mcp-server-time")}


async def test_an_agent_calls_mcp_tools_and_recovers_from_a_tool_error(tmp_path: Path) -> None:
    text = json.dumps({"mcpServers": {"time": TIME_SERVER}})
    registry = parse_registry(text, path=tmp_path / "mcp.json", project_dir=tmp_path, environ={})
    provider = ScriptedProvider(
        [
            calling(call("mcp:time/get_current_time", {"timezone": "Nowhere/Atlantis"})),
            calling(call("mcp:time/get_current_time", {"timezone": "Europe/Paris"})),
            answer("It is daytime in Paris."),
        ]
    )
    spec = AgentSpec(
        prompt="What time is it in Paris?", model="mock/scripted", tools=["mcp:time/*"]
    )
    async with McpExecutor(registry, start_timeout=90) as executor:
        await executor.load_definitions({"time"})
        result = await run_agent(spec, provider=provider, tools=executor)

    assert result.text == "It is daytime in Paris."
    offered = set(provider.offered[0])
    assert {"mcp:time/get_current_time", "mcp:time/convert_time"} <= offered
    failed, succeeded = [m for m in result.transcript if isinstance(m, ToolResultMessage)]
    assert failed.is_error and "Nowhere/Atlantis" in failed.content
    assert not succeeded.is_error
    assert json.loads(succeeded.content)["timezone"] == "Europe/Paris"
