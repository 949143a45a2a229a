"""Every `nika run` argument is judged before the first task: a bad one is exit 2 with a coded
message, and nothing runs (no side effect, no journal)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nika.cli import main

SIDE_EFFECT = """\
nika: effect
permits: { exec: ["touch"] }
inputs:
  who: { type: string, default: "x" }
tasks:
  mark:
    exec: { command: ["touch", "ran.marker"] }
"""


def _flow(tmp_path: Path, text: str = SIDE_EFFECT) -> Path:
    path = tmp_path / "flow.nika.yaml"
    path.write_text(text)
    return path


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["run", *argv]) == 2
    assert not (tmp_path / "ran.marker").exists()  # the task never ran
    assert not (tmp_path / ".nika" / "traces").exists()  # no run started, no journal
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("report", "says"),
    [
        ("missing-dir/r.json", "its directory 'missing-dir' does not exist"),
        ("sub", "is a directory"),
        ("flow.nika.yaml", "is the workflow file itself"),
    ],
)
def test_an_unusable_report_target_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    report: str, says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    flow = _flow(tmp_path)
    err = _refused(tmp_path, capsys, str(flow), "--report", report)
    assert "NIKA-CLI-001" in err and says in err and "Traceback" not in err
    assert flow.read_text() == SIDE_EFFECT  # nothing the user had is lost


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (["--var", "nobody=1"], "NIKA-INPUT-002", "names no declared input (declared: who)"),
        (["--var", "novalue"], "NIKA-INPUT-002", "is not `key=value`"),
        (["--model", "nowhere/m1"], "NIKA-PROVIDER-001", "unknown provider 'nowhere'"),
        (["--model", "slashless"], "NIKA-PROVIDER-001", "<provider>/<name>"),
        (["--mcp-config", "absent.json"], "NIKA-MCP-001", "absent.json does not exist"),
        (["--mcp-config", "broken.json"], "NIKA-MCP-001",
         "broken.json is not valid JSON: Expecting ',' delimiter (line 1"),
    ],
)
def test_each_bad_argument_is_exit_2_with_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], code: str, says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.json").write_text('{"mcpServers": {"a": 1 "b": 2}}')
    err = _refused(tmp_path, capsys, str(_flow(tmp_path)), *argv)
    assert f"{code}: " in err and says in err


def test_a_registry_named_by_the_environment_is_judged_like_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "env.json").write_text('{"servers": {}}')
    monkeypatch.setenv("NIKA_MCP_CONFIG", "env.json")
    err = _refused(tmp_path, capsys, str(_flow(tmp_path)))
    assert "NIKA-MCP-001" in err and "env.json" in err and '{"mcpServers"' in err


def test_a_malformed_default_registry_is_refused_when_a_task_needs_mcp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NIKA_MCP_CONFIG", raising=False)
    (tmp_path / ".nika").mkdir()
    (tmp_path / ".nika" / "mcp.json").write_text("{")
    needs_mcp = SIDE_EFFECT.replace('permits: { exec: ["touch"] }',
                                    'permits: { exec: ["touch"], tools: ["mcp:time/*"] }')
    flow = _flow(tmp_path, needs_mcp + '  ask:\n    invoke: { tool: "mcp:time/now" }\n')
    assert main(["run", str(flow)]) == 2
    err = capsys.readouterr().err
    assert "NIKA-MCP-001" in err and "mcp.json is not valid JSON" in err
    assert not (tmp_path / "ran.marker").exists()


def test_good_arguments_run_and_write_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "ok.json").write_text('{"mcpServers": {}}')
    code = main(["run", str(_flow(tmp_path)), "--report", "out/r.json", "--var", "who=y",
                 "--model", "mock/echo", "--mcp-config", "ok.json"])
    assert code == 0 and (tmp_path / "ran.marker").exists()
    assert json.loads((tmp_path / "out" / "r.json").read_text())["workflow_state"] == "success"


KEYED = """\
nika: keyed
permits: { exec: ["touch"] }
tasks:
  mark:
    exec: { command: ["touch", "ran.marker"] }
  a:
    infer: { prompt: "x", model: openai/gpt-4o }
  b:
    agent: { prompt: "y", model: anthropic/claude-sonnet-4, tools: ["nika:done"] }
  c:
    infer: { prompt: "z", model: openai/gpt-4o-mini }
  d:
    infer: { prompt: "w" }
"""


def _run_keyed(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    _flow(tmp_path, KEYED)
    return subprocess.run(
        [sys.executable, "-m", "nika.cli", "run", "flow.nika.yaml", "--model", "mock/echo",
         "--report", "r.json"], cwd=tmp_path, env={**clean, **env}, capture_output=True,
        text=True, timeout=120, check=False)


def test_every_provider_without_its_key_is_named_once_before_any_task(tmp_path: Path) -> None:
    # issue 35: a missing key fails the run before a task starts (and spends), listing every
    # provider it would call; `nika check` stays silent about the environment.
    done = _run_keyed(tmp_path)
    assert done.returncode == 1
    assert not (tmp_path / "ran.marker").exists() and not (tmp_path / ".nika").exists()
    [refusal] = json.loads((tmp_path / "r.json").read_text())["refused"]
    assert refusal["code"] == "NIKA-PROVIDER-002"
    assert refusal["details"] == {"providers": {"anthropic": ["b"], "openai": ["a", "c"]}}
    assert "ANTHROPIC_API_KEY" in refusal["detail"] and "OPENAI_API_KEY" in refusal["detail"]
    assert done.stderr.count("NIKA-PROVIDER-002") == 1
    checked = subprocess.run([sys.executable, "-m", "nika.cli", "check", "--json",
                              "flow.nika.yaml"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60, check=False)
    assert json.loads(checked.stdout)["valid"] is True
    assert "PROVIDER-002" not in checked.stdout


def test_a_key_or_a_keyless_endpoint_lets_the_run_start(tmp_path: Path) -> None:
    done = _run_keyed(tmp_path, ANTHROPIC_API_KEY="sk-test",
                      NIKA_ANTHROPIC_BASE_URL="http://127.0.0.1:9",
                      NIKA_OPENAI_BASE_URL="http://127.0.0.1:9")
    assert (tmp_path / "ran.marker").exists(), done.stderr
    assert "refused" not in json.loads((tmp_path / "r.json").read_text())
