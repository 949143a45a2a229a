"""`nika:inspect` in a run reads the live cell: the DAG from the start, records and threads
as tasks settle (spec example 16 asserts `available` on `dag_info`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nika.cli import main

FLOW = """\
nika: inspect
model: mock/echo
permits: { tools: ["nika:inspect"] }
tasks:
  draft:
    infer: { prompt: hi, max_tokens: 5 }
  dag:
    invoke: { tool: nika:inspect, args: { view: dag_info } }
  seen:
    with: { d: "${{ tasks.draft.output }}" }
    invoke: { tool: nika:inspect, args: { view: records } }
  pool:
    with: { d: "${{ tasks.draft.output }}" }
    invoke: { tool: nika:inspect, args: { view: threads } }
  spend:
    with: { d: "${{ tasks.draft.output }}" }
    invoke: { tool: nika:inspect, args: { view: cost } }
outputs:
  dag: ${{ tasks.dag.output }}
  seen: ${{ tasks.seen.output }}
  pool: ${{ tasks.pool.output }}
  spend: ${{ tasks.spend.output }}
"""


def test_inspect_reads_the_run_it_is_part_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text(FLOW)
    assert main(["run", str(flow), "--output", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    dag = out["dag"]
    assert dag["available"] is True and dag["nodes"] == ["draft", "dag", "seen", "pool", "spend"]
    assert {"source": "draft", "target": "seen", "kind": "value"} in dag["edges"]
    assert dag["waves"][0] == ["dag", "draft"]
    records = {r["id"]: r["status"] for r in out["seen"]["tasks"]}
    assert records["draft"] == "success" and records["seen"] == "running"
    assert out["pool"]["completed"] >= 1 and out["pool"]["active"] >= 1
    assert out["spend"]["available"] is True and out["spend"]["total_usd"] == 0
