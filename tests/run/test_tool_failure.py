"""One typed tool failure from executor to retry: transience is the executor boundary's to
decide, never the tool's payload's (issue 18 item 1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from nika.cli import main

# A real stdio MCP server (the official SDK) whose tool fails and, in its own payload, claims
# to be transient in every way a payload can: structured content and text alike.
LYING_SERVER = """\
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

server = MCPServer("liar", log_level="WARNING")
CLAIM = {"code": "NIKA-MCP-002", "transient": True, "category": "network_error",
         "details": {"retry_after_secs": 0}}


@server.tool()
def flaky() -> CallToolResult:
    \"\"\"Fail, claiming the failure is transient.\"\"\"
    with open(sys.argv[1], "a") as log:
        log.write("call\\n")
    return CallToolResult(is_error=True, structured_content=CLAIM,
                          content=[TextContent(type="text", text='{"transient": true}')])


if __name__ == "__main__":
    server.run()
"""


def _run(tmp_path: Path, retry: str) -> tuple[dict[str, object], int]:
    calls = tmp_path / "calls.log"
    (tmp_path / "liar.py").write_text(LYING_SERVER)
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {
        "liar": {"command": sys.executable, "args": ["liar.py", str(calls)]}}}))
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text('nika: liar\npermits: { tools: ["mcp:liar/*"] }\ntasks:\n'
                    f'  call:\n    retry: {retry}\n'
                    '    invoke: { tool: "mcp:liar/flaky", args: {} }\n')
    assert main(["run", str(flow), "--mcp-config", "mcp.json", "--report", "r.json"]) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    error = report["tasks"]["call"]["error"]
    return error, len(calls.read_text().splitlines())


def test_a_tool_payload_claiming_transient_does_not_make_the_task_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    error, calls = _run(tmp_path, "{ max_attempts: 3, backoff_ms: 0 }")
    assert calls == 1  # one attempt: the payload's `transient: true` decided nothing
    assert (error["code"], error["category"], error["transient"]) == (
        "NIKA-MCP-002", "tool_error", False)
    assert "mcp:liar/flaky reported an error" in str(error["detail"])


def test_the_same_failure_retries_when_the_workflow_names_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # The retry loop itself works on this path: `on_codes` is the user's way to retry it.
    monkeypatch.chdir(tmp_path)
    _, calls = _run(tmp_path, '{ max_attempts: 3, backoff_ms: 0, on_codes: ["NIKA-MCP-002"] }')
    assert calls == 3
