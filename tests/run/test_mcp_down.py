"""A stdio MCP server that dies at start-up is a coded error on every task that needs it —
never an agent with an empty universe that ends "success"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.run._harness import journal_verdict

from nika.cli import main

DEAD_SERVER = """\
import sys
sys.stderr.write("loading config\\nfatal: cannot open database /nope/db.sqlite\\n")
sys.exit(3)
"""


def _project(tmp_path: Path, tasks: str, tools: str) -> Path:
    (tmp_path / "dead_server.py").write_text(DEAD_SERVER)
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {
        "broken": {"command": sys.executable, "args": ["dead_server.py"]}}}))
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text(f"nika: down\nmodel: mock/echo\npermits: {{ tools: {tools} }}\n"
                    f"tasks:\n{tasks}")
    return flow


def _failed(tmp_path: Path, flow: Path) -> dict[str, dict[str, object]]:
    assert main(["run", str(flow), "--mcp-config", "mcp.json", "--report", "r.json"]) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["workflow_state"] == "failure"
    verdict = journal_verdict(tmp_path)
    assert (verdict.status, verdict.terminal) == ("clean", "workflow_failed")
    return {name: task["error"] for name, task in report["tasks"].items()}


@pytest.mark.parametrize("whitelist", ['["mcp:broken/*"]', '["mcp:*/lookup"]'])
def test_an_agent_whose_only_server_is_dead_fails_naming_it_with_its_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    whitelist: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = f'  ask:\n    agent: {{ prompt: "look it up", tools: {whitelist} }}\n'
    flow = _project(tmp_path, agent, '["mcp:*"]')
    error = _failed(tmp_path, flow)["ask"]
    assert error["code"] == "NIKA-MCP-001"
    assert "'broken' is unavailable" in str(error["detail"])
    details = error["details"]
    assert isinstance(details, dict)
    assert details["server"] == "broken" and details["servers_down"] == ["broken"]
    assert "fatal: cannot open database /nope/db.sqlite" in details["stderr_tail"]


def test_an_invoke_of_a_dead_servers_tool_fails_with_the_servers_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    flow = _project(tmp_path, '  call:\n    invoke: { tool: "mcp:broken/lookup", args: {} }\n',
                    '["mcp:broken/*"]')
    error = _failed(tmp_path, flow)["call"]
    assert error["code"] == "NIKA-MCP-001"  # not a misleading "configure the server" refusal
    assert "invokes mcp:broken/lookup" in str(error["detail"])
    details = error["details"]
    assert isinstance(details, dict) and "fatal: cannot open database" in details["stderr_tail"]
