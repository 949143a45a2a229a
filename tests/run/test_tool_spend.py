"""A builtin's real spend joins the run's cost ledger (stdlib §image_generate · invoke-cost
metering): xai bills its images in `cost_in_usd_ticks`, `nika:image_generate` reports them as
`cost_usd`, the run journals one `cost_incurred` frame naming the tool, the task and the run
carry the dollars, `--max-cost-usd` counts them, and `nika trace verify` replays them — through
the real CLI against a loopback server speaking xai's images wire. An agent's call of the same
builtin is metered by the one adapter (`run/events.py`)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.providers._servers import Reply, scripted_server

from nika.agent.observe import ToolCompleted
from nika.cli import main
from nika.journal.bus import EventBus, RunEvent
from nika.journal.frames import CostIncurred, TaskNotes, UnitAttempt
from nika.journal.ledger import CostLedger, tool_spend
from nika.media import png
from nika.run.events import AgentFrames

KEY = "xai-test-SECRET-key"
FLOW = """\
nika: priced-art
permits: { tools: ["nika:image_generate"], fs: { write: ["out/**"] } }
tasks:
  first:
    invoke: { tool: "nika:image_generate", args: { model: grok-imagine-image, prompt: a, output_dir: out } }
  later:
    after: { first: success }
    invoke: { tool: "nika:image_generate", args: { model: grok-imagine-image, prompt: b, output_dir: out } }
"""  # noqa: E501
PICTURE = base64.b64encode(png.encode(np.zeros((4, 4, 3), np.uint8))).decode()
# 700,000,000 ticks at 10^10 ticks a dollar: $0.07 billed by the provider itself.
BILLED = Reply(json={"created": 1, "data": [{"b64_json": PICTURE}],
                     "usage": {"cost_in_usd_ticks": 700_000_000}})


def _frames(journal: Path) -> list[dict[str, Any]]:
    out = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        frame = json.loads(line)
        out.append({"kind": frame["kind"],
                    **{f["key"]: f["value"] for f in frame.get("fields", [])}})
    return out


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[int, Path, int]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
    with scripted_server() as server:
        server.script(BILLED, BILLED)
        monkeypatch.setenv("NIKA_XAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("XAI_API_KEY", KEY)
        code = main(["run", "flow.nika.yaml", *extra])
        calls = len(server.requests)
    [journal] = (tmp_path / ".nika" / "traces").glob("*.ndjson")
    return code, journal, calls


def test_the_billed_spend_reaches_the_task_the_run_and_the_replay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, journal, calls = _run(tmp_path, monkeypatch)
    assert code == 0 and calls == 2
    frames = _frames(journal)
    spent = [f for f in frames if f["kind"] == "cost_incurred"]
    assert [(f["task"], f["model"], f["cost_usd"]) for f in spent] == [
        ("first", "nika:image_generate", 0.07), ("later", "nika:image_generate", 0.07)]
    ended = {f["task"]: f for f in frames if f["kind"] == "task_completed"}
    assert ended["first"]["cost_usd"] == pytest.approx(0.07)
    [end] = [f for f in frames if f["kind"] == "workflow_completed"]
    assert end["total_cost_usd"] == pytest.approx(0.14)
    assert KEY not in journal.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["trace", "verify", str(journal)]) == 0
    said = capsys.readouterr().out
    assert "$0.14 over 2 priced call(s)" in said and "agrees with the journaled total" in said
    assert main(["trace", "show", str(journal)]) == 0
    shown = capsys.readouterr().out
    assert shown.count("spend nika:image_generate · $0.07 (reported by the tool)") == 2
    assert "cost $0.07" in shown  # each task's end line counts its tool's bill
    assert "totals · 0 model calls · 0→0 tokens · cost $0.14 · " in shown


def test_the_budget_counts_a_tools_spend(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    code, journal, calls = _run(tmp_path, monkeypatch, "--max-cost-usd", "0.05")
    assert code == 1 and calls == 1  # `later` never started: the first bill crossed it
    ended = {f["task"]: f for f in _frames(journal) if "status" in f and "task" in f}
    assert ended["later"]["status"] == "cancelled" and "NIKA-RUN-1704" in json.dumps(
        ended["later"])


@pytest.mark.parametrize(("value", "spend"), [
    ({"cost_usd": 0.07}, "0.07"), ({"cost_usd": 0}, "0"), ({"cost_usd": None}, None),
    ({"cost_usd": True}, None), ({"cost_usd": -1.0}, None), ({"cost_usd": float("nan")}, None),
    ({"cost_usd": "0.07"}, None), ([{"cost_usd": 1}], None), ({}, None),
    ({"cost_usd": float("inf")}, None), ({"cost_usd": 1e300}, None),
    ({"cost_usd": 1e9}, "1000000000.0"), ({"cost_usd": 1e9 + 1}, None),
])
def test_only_a_real_number_is_spend(value: Any, spend: str | None) -> None:
    found = tool_spend(value)
    assert (str(found) if found is not None else None) == spend


def test_an_agents_builtin_call_is_metered_by_the_adapter() -> None:
    ledger = CostLedger()
    seen: list[RunEvent] = []

    class Keep:
        def emit(self, event: RunEvent) -> None:
            seen.append(event)

        def close(self) -> None:
            return None

    bus = EventBus(sinks=[ledger, Keep()])
    frames = AgentFrames(bus, UnitAttempt(task="draw"), TaskNotes())
    for name, result, failed in (
            ("nika:image_generate", json.dumps({"cost_usd": 0.25, "count": 1}), False),
            ("nika:image_generate", json.dumps({"cost_usd": 9.0}), True),
            ("mcp:art/render", json.dumps({"cost_usd": 9.0}), False)):
        frames.on_event(ToolCompleted(seq=1, turn=1, call_id="c", name=name, source="builtin",
                                      is_error=failed, duration_ms=1.0, result_bytes=10,
                                      result=result))
    spent = [e.frame for e in seen if isinstance(e.frame, CostIncurred)]
    assert [(f.task, f.model, f.cost_usd) for f in spent] == [
        ("draw", "nika:image_generate", 0.25)]
    assert ledger.run.usd_figure == 0.25 and ledger.task("draw") is not None
