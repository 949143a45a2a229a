"""`nika run --max-cost-usd` (spec 13 · cause `budget`): at the crossing, in-flight work
completes and is counted, every unstarted task settles `cancelled(budget)` with NIKA-RUN-1704,
and the prologue records the budget — against a priced model on a loopback server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.providers._servers import Reply, chat_completion, scripted_server

from nika.cli import main

FLOW = """\
nika: budgeted
model: openai/gpt-4.1
tasks:
  first:
    infer: { prompt: "one" }
  side:
    infer: { prompt: "two" }
  later:
    after: { first: success }
    infer: { prompt: "three" }
  last:
    after: { later: terminal }
    infer: { prompt: "four" }
"""
# 1,000 input + 2,000 output tokens of openai/gpt-4.1 at $2 / $8 per million: $0.018 a call.
PRICED = Reply(json=chat_completion(content="ok", usage=(1000, 2000)))


def _frames(journal: Path) -> list[dict[str, Any]]:
    out = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        frame = json.loads(line)
        out.append({"kind": frame["kind"],
                    **{f["key"]: f["value"] for f in frame.get("fields", [])}})
    return out


@pytest.fixture
def ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[int, Path, str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    with scripted_server() as server:
        server.script(PRICED, PRICED, PRICED, PRICED)
        monkeypatch.setenv("NIKA_OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("NIKA_OPENAI_API_KEY", "sk-test")
        code = main(["run", "flow.nika.yaml", "--max-cost-usd", "0.01"])
        calls = len(server.requests)
    assert calls == 2  # `first` and `side` started before the crossing; nothing after it
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    return code, journal, capsys.readouterr().err


def test_unstarted_tasks_are_cancelled_by_the_budget(ran: tuple[int, Path, str]) -> None:
    code, journal, _ = ran
    assert code == 1
    ended = {f["task"]: f for f in _frames(journal) if "status" in f and "task" in f}
    for task in ("first", "side"):  # in flight at the crossing: completed and counted
        assert ended[task]["status"] == "success"
        assert ended[task]["cost_usd"] == pytest.approx(0.018)
    for task in ("later", "last"):
        assert ended[task]["status"] == "cancelled"
        assert "NIKA-RUN-1704" in json.dumps(ended[task])
        assert json.loads(ended[task]["outcome"])["cause"] == "budget"
    [end] = [f for f in _frames(journal) if f["kind"] == "workflow_cancelled"]
    assert end["state"] == "cancelled" and end["total_cost_usd"] == pytest.approx(0.036)
    assert "NIKA-RUN-1704" in json.dumps(end)


def test_the_prologue_records_the_budget_and_the_journal_verifies(
        ran: tuple[int, Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    _, journal, _ = ran
    prologue = _frames(journal)[0]
    assert json.loads(prologue["budget"]) == {"max_cost_usd": 0.01}  # a JSON number
    assert main(["trace", "verify", str(journal)]) == 0
    assert "forged" not in capsys.readouterr().out.lower()


def test_a_budget_that_is_no_amount_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    for bad in ("0", "-1", "nan", "ten"):
        assert main(["run", "flow.nika.yaml", "--max-cost-usd", bad]) == 2
        assert "--max-cost-usd" in capsys.readouterr().err
    assert not (tmp_path / ".nika").exists()
