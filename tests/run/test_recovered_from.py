"""A task `on_error: recover` settled keeps its cause (13 §payload `recovered_from`): the
journal's terminal frame, its `outcome` record, the run report and `nika trace show` (text and
HTML) all name the original error — its code, the task and the attempt that failed, and the
iteration inside a fan-out — through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nika.cli import main

FLOW = """\
nika: recovering
secrets: { tok: { source: env, key: TOK, egress: [{ to: exec }] } }
permits: { exec: ["false", "test", "ls"] }
tasks:
  plain:
    exec: { command: ["false"] }
    retry: { max_attempts: 2, backoff_ms: 1, on_codes: [NIKA-EXEC-001] }
    on_error: { recover: "fallback" }
  many:
    for_each: { items: [1, 2, 3, 2] }
    exec: { command: ["test", "${{ item }}", "-ne", "2"] }
    on_error: { recover: "two" }
  leaky:
    exec: { command: ["ls", "/nonexistent/${{ secrets.tok }}"] }
    on_error: { recover: "masked" }
  fine:
    exec: { command: ["test", "1", "-eq", "1"] }
"""
SECRET = "hunter2-s3cr3t"


@pytest.fixture
def ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOK", SECRET)
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    assert main(["run", "flow.nika.yaml", "--report", "report.json"]) == 0
    capsys.readouterr()
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    return json.loads((tmp_path / "report.json").read_text()), journal


def _terminal(journal: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        frame = json.loads(line)
        if frame["kind"].startswith("task_") and frame["kind"] in (
                "task_completed", "task_failed", "task_skipped", "task_cancelled"):
            fields = {f["key"]: f["value"] for f in frame["fields"]}
            out[fields["task"]] = fields
    return out


def test_the_terminal_frame_and_outcome_name_the_original_error(
        ran: tuple[dict[str, Any], Path]) -> None:
    _, journal = ran
    frames = _terminal(journal)
    plain = frames["plain"]["recovered_from"]
    assert (plain["code"], plain["task_id"], plain["attempt"]) == ("NIKA-EXEC-001", "plain", 2)
    assert plain["category"] == "process_error" and plain["details"]["exit_code"] == 1
    outcome = json.loads(frames["plain"]["outcome"])
    assert outcome == {"cause": "recovered", "class": "success",
                       "payload": {"attempts": 2, "recovered_from": plain}}
    many = frames["many"]["recovered_from"]
    assert (many["code"], many["attempt"]) == ("NIKA-EXEC-001", 1)
    assert many["details"]["iteration"] == 1
    assert many["details"]["recovered_iterations"] == [1, 3]
    assert json.loads(frames["many"]["output"]) == ["", "two", "", "two"]
    assert "recovered_from" not in frames["fine"]
    assert json.loads(frames["fine"]["outcome"])["cause"] == "normal"


def test_the_report_keeps_recovered_from_and_secrets_stay_masked(
        ran: tuple[dict[str, Any], Path]) -> None:
    report, journal = ran
    tasks = report["tasks"]
    assert tasks["plain"]["status"] == "success" and tasks["plain"]["error"] is None
    assert tasks["plain"]["recovered_from"]["code"] == "NIKA-EXEC-001"
    assert tasks["plain"]["recovered_from"]["attempt"] == 2
    assert tasks["many"]["recovered_from"]["details"]["iteration"] == 1
    assert "recovered_from" not in tasks["fine"]
    leaky = tasks["leaky"]["recovered_from"]
    assert leaky["code"] == "NIKA-EXEC-001" and "/nonexistent/" in leaky["details"]["stderr"]
    assert SECRET not in json.dumps(report) and SECRET not in journal.read_text()


def test_trace_show_text_and_html_name_the_cause(
        ran: tuple[dict[str, Any], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, journal = ran
    assert main(["trace", "show", str(journal)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "recovered by on_error from NIKA-EXEC-001 · attempt 2" in text
    assert "recovered by on_error from NIKA-EXEC-001 · attempt 1 · item 1" in text
    page = tmp_path / "trace.html"
    assert main(["trace", "show", str(journal), "--html", str(page)]) == 0
    body = page.read_text(encoding="utf-8")
    assert "(recovered by on_error from NIKA-EXEC-001 · attempt 2)" in body
    assert "(recovered by on_error from NIKA-EXEC-001 · attempt 1 · item 1)" in body
    assert body.count("recovered by on_error") == 3  # plain, many, leaky; never `fine`
