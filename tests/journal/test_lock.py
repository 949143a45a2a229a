"""`nika lock` and `nika run --locked` (spec 15 §the single lock), against a real MCP server
started over stdio from the project's `.nika/mcp.json`."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.journal._reference import proof_core

from nika.cli import main
from nika.journal.lock import LOCK_FILE
from nika.journal.receipt import LOCK_UNRECORDED, digest_of

SERVER = Path(__file__).with_name("_lock_server.py")

FLOW = """\
nika: locked
model: mock/echo
permits:
  tools: ["mcp:pins/*", "nika:log"]
tasks:
  think:
    infer: { prompt: "one infer" }
  call:
    invoke: { tool: "mcp:pins/echo", args: { text: "pinned" } }
  note:
    invoke: { tool: "nika:log", args: { message: "done" } }
"""

AGENT = FLOW + """\
  roam:
    agent: { prompt: "go", tools: ["mcp:pins/*"], max_turns: 1 }
"""


def _registry(project: Path, variant: str) -> None:
    entry = {"command": sys.executable, "args": [str(SERVER)], "env": {"LOCK_VARIANT": variant}}
    (project / ".nika").mkdir(exist_ok=True)
    (project / ".nika" / "mcp.json").write_text(json.dumps({"mcpServers": {"pins": entry}}))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _registry(tmp_path, "base")
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    return tmp_path


def _lock(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["lock", "flow.nika.yaml"]) == 0
    assert capsys.readouterr().out.startswith("locked 1 provider(s) and ")
    text = Path(LOCK_FILE).read_text(encoding="utf-8")
    assert text.startswith("# nika.lock")
    doc: dict[str, Any] = json.loads(text.split("\n", 1)[1])
    return doc


def _journals(project: Path) -> list[Path]:
    return sorted((project / ".nika" / "traces").glob("*.ndjson"))


def _refused_before_any_task(project: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["run", "flow.nika.yaml", "--locked"]) == 1
    err = capsys.readouterr().err
    assert "NIKA-LOCK-001" in err
    assert _journals(project) == []  # nothing started: no journal was even opened
    return err


def test_lock_then_run_locked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _lock(capsys)
    assert doc["lock_format"] == 1 and doc["registry"] == {}
    assert doc["providers"]["mock/echo"]["provider"] == "mock"
    assert doc["providers"]["mock/echo"]["model"] == "echo"
    assert set(doc["tools"]) == {"mcp:pins/echo", "nika:log"}
    assert all(re.fullmatch(r"blake3:artifact:1:[0-9a-f]{64}", e["digest"])
               for section in ("providers", "tools") for e in doc[section].values())
    # The reference's pin-by-default judge accepts it for what the run resolves.
    proof_core().validate_lock(doc, {"mock/echo", "mcp:pins/echo", "nika:log"})
    assert main(["run", "flow.nika.yaml", "--locked"]) == 0
    assert "warning" not in capsys.readouterr().err
    [journal] = _journals(project)
    prologue = {p["key"]: p["value"]
                for p in json.loads(journal.read_bytes().split(b"\n")[0])["fields"]}
    assert prologue["lock_digest"] == doc["digest"]
    out = project / "receipt.json"
    assert main(["trace", "receipt", "build", str(journal), "--workflow", "flow.nika.yaml",
                 "--output", str(out)]) == 0
    assert json.loads(out.read_text())["lock_digest"] == doc["digest"]
    verify = ["trace", "receipt", "verify", str(out), "--journal", str(journal),
              "--workflow", "flow.nika.yaml"]
    capsys.readouterr()
    assert main(verify) == 0
    assert "  lock_digest: holds" in capsys.readouterr().out
    # a receipt that hides the lock its run booted with is caught, its digest recomputed
    forged = json.loads(out.read_text())
    forged["lock_digest"] = LOCK_UNRECORDED
    forged["digest"] = digest_of(forged)
    out.write_text(json.dumps(forged))
    assert main(verify) == 2
    shown = capsys.readouterr().out
    assert shown.startswith("FORGED") and "  lock_digest: BROKEN" in shown


def test_a_hand_edited_digest_is_refused(project: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    doc = _lock(capsys)
    header = Path(LOCK_FILE).read_text(encoding="utf-8").split("\n", 1)[0]
    doc["tools"]["nika:log"]["digest"] = "blake3:artifact:1:" + "0" * 64
    Path(LOCK_FILE).write_text(header + "\n" + json.dumps(doc, indent=2), encoding="utf-8")
    err = _refused_before_any_task(project, capsys)
    assert "edited by hand" in err


def test_an_unpinned_mcp_tool_is_refused(project: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (project / "flow.nika.yaml").write_text(AGENT, encoding="utf-8")
    _lock(capsys)
    _registry(project, "extra")  # the server now lists a tool the lock never saw
    err = _refused_before_any_task(project, capsys)
    assert "tools.mcp:pins/extra (unpinned)" in err


def test_a_drifted_tool_schema_is_refused(project: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _lock(capsys)
    _registry(project, "drift")
    err = _refused_before_any_task(project, capsys)
    assert "tools.mcp:pins/echo (drifted)" in err


def test_locked_without_a_lock_is_refused(project: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused_before_any_task(project, capsys)
    assert "nika lock" in err


def test_a_lock_without_the_flag_warns_once_and_runs(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _lock(capsys)
    _registry(project, "drift")
    (project / "flow.nika.yaml").write_text(FLOW.replace("mock/echo", "mock/mock-deterministic"),
                                            encoding="utf-8")
    assert main(["run", "flow.nika.yaml"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "providers.mock/mock-deterministic (unpinned)" in warnings[0]
    assert "tools.mcp:pins/echo (drifted)" in warnings[0]
    [journal] = _journals(project)
    assert doc["digest"] in journal.read_text(encoding="utf-8").split("\n", 1)[0]


def test_no_lock_records_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "flow.nika.yaml"]) == 0
    assert "warning" not in capsys.readouterr().err
    [journal] = _journals(project)
    assert "lock_digest" not in journal.read_text(encoding="utf-8").split("\n", 1)[0]


@pytest.mark.parametrize(("change", "why"), [
    (lambda d: d.update(lock_format=2), "lock_format"),
    (lambda d: d["tools"]["nika:log"].pop("digest"), "pinned by a digest"),
    (lambda d: d.update(policy={}), "fields no lock has"),
])
def test_a_lock_that_is_no_lock_is_refused(project: Path, capsys: pytest.CaptureFixture[str],
                                           change: Any, why: str) -> None:
    doc = _lock(capsys)
    change(doc)
    Path(LOCK_FILE).write_text(json.dumps(doc), encoding="utf-8")
    assert why in _refused_before_any_task(project, capsys)


def test_lock_refuses_a_server_it_cannot_list(project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".nika" / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    assert main(["lock", "flow.nika.yaml"]) == 1
    err = capsys.readouterr().err
    assert "NIKA-LOCK-001" in err and "'pins'" in err
    assert not Path(LOCK_FILE).exists()


def test_nika_lock_refuses_a_fifo_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`nika lock` reads its workflow through the one guarded reader: a FIFO never blocks it."""
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "flow.nika.yaml"
    os.mkfifo(fifo)
    assert main(["lock", str(fifo)]) == 2
    assert "NIKA-CLI-002" in capsys.readouterr().err
    assert not (tmp_path / LOCK_FILE).exists()
