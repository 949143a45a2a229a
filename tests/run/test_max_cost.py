"""`nika run --max-cost-usd` (spec 13 · cause `budget`): at the crossing, in-flight work
completes and is counted, every unstarted task settles `cancelled(budget)` with NIKA-RUN-1704,
and the prologue records the budget — against a priced model on a loopback server. Past the
cap an agent finishes its current turn and stops; unstarted `for_each` iterations and retries
are cancelled the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.providers._servers import Reply, chat_completion, scripted_server

from nika.cli import main
from nika.providers._wire import wire_name

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
    for bad in ("0", "-1", "nan", "ten", "1e5000", "1e100000000", "1000000001",
                "0.30000000000000001", "1e-100000000"):
        assert main(["run", "flow.nika.yaml", "--max-cost-usd", bad]) == 2
        assert "--max-cost-usd" in capsys.readouterr().err
    assert not (tmp_path / ".nika").exists()


def _budgeted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flow: str,
              *replies: Reply) -> tuple[int, list[dict[str, Any]], int]:
    """Run `flow` under a $0.01 cap against the priced loopback model: the exit status, the
    journal's frames, and how many model calls reached the server."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(flow, encoding="utf-8")
    with scripted_server() as server:
        server.script(*replies)
        monkeypatch.setenv("NIKA_OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("NIKA_OPENAI_API_KEY", "sk-test")
        code = main(["run", "flow.nika.yaml", "--max-cost-usd", "0.01"])
        calls = len(server.requests)
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    assert main(["trace", "verify", str(journal)]) == 0  # the record of a budget stop holds
    return code, _frames(journal), calls


def _ended(frames: list[dict[str, Any]], task: str) -> dict[str, Any]:
    [end] = [f for f in frames if f.get("task") == task and "status" in f]
    return end


def _budget_cancelled(end: dict[str, Any]) -> None:
    assert end["status"] == "cancelled"
    assert json.loads(end["outcome"])["cause"] == "budget"
    assert end["error"]["code"] == "NIKA-RUN-1704"


AGENT = """\
nika: budgeted-agent
model: openai/gpt-4.1
tasks:
  research:
    agent: { prompt: "dig", tools: ["nika:emit"], max_turns: 5 }
  report:
    after: { research: terminal }
    infer: { prompt: "sum up" }
"""


def test_an_agent_in_flight_finishes_its_turn_then_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    turn = Reply(json=chat_completion(
        tool_calls=[("c1", wire_name("nika:emit"), '{"note": "x"}')],
        finish_reason="tool_calls", usage=(1000, 2000)))
    code, frames, calls = _budgeted(tmp_path, monkeypatch, AGENT, turn, turn, turn, PRICED)
    assert code == 1
    assert calls == 1  # turn 1 crossed the cap ($0.018): no turn 2, no `report`
    end = _ended(frames, "research")
    _budget_cancelled(end)
    assert end["turns"] == 1 and end["agent_outcome"] == "cancelled"
    assert "stopped after 1 turn(s)" in end["error"]["detail"]
    tools = [f for f in frames if f["kind"] == "tool_invoked" and f.get("task") == "research"]
    assert len(tools) == 1  # the turn that crossed completed: its tool call was served
    _budget_cancelled(_ended(frames, "report"))
    assert "budget" in capsys.readouterr().out  # `trace verify` shows the boot manifest's cap


FAN = """\
nika: budgeted-fan
model: openai/gpt-4.1
tasks:
  each:
    for_each: { items: [1, 2, 3, 4], max_parallel: 1 }
    infer: { prompt: "item ${{ item }}" }
"""


def test_unstarted_for_each_iterations_are_cancelled_by_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, frames, calls = _budgeted(tmp_path, monkeypatch, FAN, *[PRICED] * 4)
    assert code == 1 and calls == 1
    end = _ended(frames, "each")
    _budget_cancelled(end)
    assert end["error"]["details"]["cancelled_iterations"] == [1, 2, 3]
    checkpoints = [f["iteration"] for f in frames if f["kind"] == "checkpoint_written"]
    assert checkpoints == [0]  # the iteration that ran is kept for a resume
    [run_end] = [f for f in frames if f["kind"] == "workflow_cancelled"]
    assert run_end["total_cost_usd"] == pytest.approx(0.018)


RETRY = """\
nika: budgeted-retry
model: openai/gpt-4.1
tasks:
  shaped:
    retry: { max_attempts: 3, backoff_ms: 1, on_codes: [NIKA-INFER-002] }
    infer:
      prompt: "a number"
      schema: { type: object, required: [n], properties: { n: { type: integer } } }
"""


def test_a_retry_not_yet_started_is_cancelled_by_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unfit = Reply(json=chat_completion(content="not json", usage=(1000, 2000)))
    code, frames, calls = _budgeted(tmp_path, monkeypatch, RETRY, *[unfit] * 9)
    assert code == 1
    assert calls == 3  # attempt 1: the call and its two schema repairs; no attempt 2
    end = _ended(frames, "shaped")
    _budget_cancelled(end)
    assert end["attempts"] == 1
    assert [f["kind"] for f in frames].count("task_retrying") == 1


CHILD = """\
nika: budgeted-child
model: openai/gpt-4.1
tasks:
  first:
    infer: { prompt: "one" }
  second:
    after: { first: success }
    infer: { prompt: "two" }
outputs:
  said: ${{ tasks.second.output }}
"""
PARENT = """\
nika: budgeted-parent
tasks:
  call:
    invoke: { workflow: ./child.nika.yaml }
"""


def test_a_child_workflows_unstarted_tasks_are_cancelled_and_so_is_its_caller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "child.nika.yaml").write_text(CHILD, encoding="utf-8")
    code, frames, calls = _budgeted(tmp_path, monkeypatch, PARENT, PRICED, PRICED)
    assert code == 1 and calls == 1  # the child's `first` crossed the cap; `second` never ran
    _budget_cancelled(_ended(frames, "call/second"))
    end = _ended(frames, "call")  # the caller does not pass a stopped child off as a success
    _budget_cancelled(end)
    assert "child workflow" in end["error"]["detail"]


ONE = """\
nika: budgeted-one
model: openai/gpt-4.1
tasks:
  only:
    infer: { prompt: "one" }
outputs:
  said: ${{ tasks.only.output }}
"""


def test_a_run_whose_last_call_crosses_the_cap_still_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, frames, calls = _budgeted(tmp_path, monkeypatch, ONE, PRICED)
    assert calls == 1
    assert code == 0  # no work was kept from starting: the crossing cancels nothing
    assert _ended(frames, "only")["status"] == "success"
    [end] = [f for f in frames if f["kind"].startswith("workflow_") and "state" in f]
    assert end["state"] == "success" and "NIKA-RUN-1704" not in json.dumps(end)
    assert "ok" in capsys.readouterr().out  # the outputs are printed


CHAIN = """\
nika: budgeted-chain
model: openai/gpt-4.1
tasks:
  first:
    infer: { prompt: "one" }
  second:
    after: { first: success }
    infer: { prompt: "two" }
"""


def test_a_chain_whose_first_call_crosses_the_cap_cancels_the_second(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, frames, calls = _budgeted(tmp_path, monkeypatch, CHAIN, PRICED, PRICED)
    assert code == 1 and calls == 1
    assert _ended(frames, "first")["status"] == "success"
    _budget_cancelled(_ended(frames, "second"))
    [end] = [f for f in frames if f["kind"] == "workflow_cancelled"]
    assert "NIKA-RUN-1704" in json.dumps(end)
