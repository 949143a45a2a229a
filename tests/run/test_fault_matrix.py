"""docs/fault-matrix.md is a claim about tests: every row names one that exists. And the two
fault classes with no better home, through the real CLI: a timeout and a provider outage."""

from __future__ import annotations

import ast
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.run._harness import journal_verdict
from tests.tools._mcp_helpers import alive

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "docs" / "fault-matrix.md"
CLASSES = ("signal", "timeout", "blocking I/O", "oversized input", "dead MCP server",
           "provider outage")
_TEST = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _rows() -> list[list[str]]:
    lines = [line for line in MATRIX.read_text().splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_row_names_a_test_that_exists() -> None:
    rows = _rows()
    assert rows and all(len(row) == 6 for row in rows)
    for row in rows:
        named = _TEST.fullmatch(row[-1])
        assert named is not None, f"row {row[:2]} names no test as tests/<file>.py::<test>"
        path, name = ROOT / named.group(1), named.group(2)
        assert path.is_file(), f"{named.group(1)} does not exist"
        assert name in _defined(path), f"{named.group(1)} defines no {name}"


def test_every_fault_class_of_the_issue_has_a_row() -> None:
    assert set(CLASSES) <= {row[0] for row in _rows()}


def _cli(tmp_path: Path, flow: str, env: dict[str, str] | None = None) -> dict[str, object]:
    (tmp_path / "flow.nika.yaml").write_text(flow)
    done = subprocess.run(
        [sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", "--report", "r.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )
    assert done.returncode == 1, done.stderr
    verdict = journal_verdict(tmp_path)
    assert (verdict.status, verdict.terminal) == ("clean", "workflow_failed")
    report: dict[str, object] = json.loads((tmp_path / "r.json").read_text())
    return report


def test_a_timeout_kills_the_command_and_fails_the_task(tmp_path: Path) -> None:
    report = _cli(tmp_path, """\
nika: slow
permits: { exec: true }
tasks:
  wait:
    timeout: "300ms"
    exec: { shell: "echo $$ > pid; exec sleep 300" }
""")
    task = report["tasks"]["wait"]  # type: ignore[index]
    assert task["error"]["code"] == "NIKA-TIMEOUT-001"
    assert not alive(int((tmp_path / "pid").read_text()))


def test_a_provider_outage_fails_the_task_with_a_transient_infer_001(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "NIKA_OLLAMA_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    report = _cli(tmp_path, """\
nika: down
model: ollama/qwen3
tasks:
  ask:
    infer: { prompt: "hello" }
""", env)
    error = report["tasks"]["ask"]["error"]  # type: ignore[index]
    assert (error["code"], error["transient"]) == ("NIKA-INFER-001", True)
    assert f"127.0.0.1:{port}" in error["detail"]
