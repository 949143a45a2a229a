"""`nika:decide` through real `nika run`s (the CLI spawned as a user runs it): the five golden
receipts byte for byte, the spec's decide example and classify-and-route template under
`--model mock/echo`, the template's negative, the receipt in the task's journal frame, and
`returns:` typing the receipt by its shape."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.decide._spec import CASES, GOLDENS, golden, snapshot

FIXTURES = Path(__file__).parent / "fixtures"
SRC = Path(__file__).resolve().parents[2] / "src"


def nika(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def flow(snapshot_json: str, *, returns: str = "") -> str:
    return f"""nika: golden
permits:
  fs: {{ read: ["rubrics/*.json"] }}
const:
  snapshot: {snapshot_json}
tasks:
  decide:
    invoke:
      tool: nika:decide
      args:
        bundle: rubrics/pr-triage.bundle.json
        evidence: ${{{{ const.snapshot }}}}
{returns}outputs:
  receipt: ${{{{ tasks.decide.output }}}}
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "rubrics").mkdir()
    shutil.copy(GOLDENS / "pr-triage.bundle.json", tmp_path / "rubrics")
    return tmp_path


@pytest.mark.parametrize("case", CASES)
def test_golden_receipts_through_nika_run(case: str, work: Path) -> None:
    (work / "g.nika.yaml").write_text(flow(json.dumps(snapshot(case), ensure_ascii=False)))
    ran = nika("run", "g.nika.yaml", "--output", "json", cwd=work)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.rstrip("\n") == '{"receipt":' + golden(case) + "}"
    # the decision is visible in the journal: the task's terminal frame carries the receipt
    [journal] = (work / ".nika" / "traces").glob("*.ndjson")
    frames = [json.loads(line) for line in journal.read_text().splitlines()]
    [done] = [f for f in frames if f["kind"] == "task_completed"]
    fields = {f["key"]: f["value"] for f in done["fields"]}
    receipt = json.loads(fields["output"])
    want = json.loads(golden(case))
    assert receipt["outcome"] == want["outcome"]
    assert receipt["determination_provenance"] == want["determination_provenance"]


def test_a_path_bundle_needs_its_read_permit(work: Path) -> None:
    text = flow(json.dumps(snapshot("s1-dominant-risk"))).replace(
        'fs: { read: ["rubrics/*.json"] }', 'tools: ["nika:decide"]')
    (work / "g.nika.yaml").write_text(text)
    checked = nika("check", "g.nika.yaml", "--json", cwd=work)
    assert checked.returncode == 1
    assert [e["code"] for e in json.loads(checked.stdout)["errors"]] == ["NIKA-SEC-004"]
    inferred = nika("check", "g.nika.yaml", "--infer-permits", cwd=work)
    assert "rubrics/pr-triage.bundle.json" in inferred.stdout, inferred.stdout


def test_returns_types_the_receipt_by_its_shape(work: Path) -> None:
    fits = """    returns:
      object:
        outcome: { enum: [recommend, defer, human_required, opted_out, overridden] }
        determination_provenance: { array: string }
        decision_receipt_format: integer
      additional: true
"""
    (work / "g.nika.yaml").write_text(flow(json.dumps(snapshot("s3-straddle")), returns=fits))
    ran = nika("run", "g.nika.yaml", "--output", "json", cwd=work)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["receipt"]["outcome"] == "defer"
    # spec 11's `{decision, rationale}` example is not the receipt's shape
    spec_example = ("    returns:\n      object:\n        decision: string\n"
                    "        rationale: string\n")
    (work / "g.nika.yaml").write_text(flow(json.dumps(snapshot("s3-straddle")),
                                           returns=spec_example))
    ran = nika("run", "g.nika.yaml", "--report", "r.json", cwd=work)
    assert ran.returncode == 1
    report: dict[str, Any] = json.loads((work / "r.json").read_text())
    assert report["tasks"]["decide"]["status"] == "failure"


def test_the_spec_example_runs(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "14-decide-publish.nika.yaml", tmp_path)
    ran = nika("run", "14-decide-publish.nika.yaml", "--model", "mock/echo", "--output", "json",
               cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {"outcome": "human_required"}


def test_the_template_runs_and_its_golden_pin_holds(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "classify-and-route.nika.yaml", tmp_path)
    ran = nika("run", "classify-and-route.nika.yaml", "--model", "mock/echo", "--output",
               "json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    pin = json.loads((FIXTURES / "classify-and-route.nika.yaml.golden.json").read_text())
    assert json.loads(ran.stdout) == pin


def test_the_template_negative_is_refused_with_its_code(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "classify-and-route.negative.yaml", tmp_path)
    expected = "NIKA-BUILTIN-001"  # the file's own "Expected ·" line
    assert f"Expected · {expected}" in (tmp_path / "classify-and-route.negative.yaml").read_text()
    checked = nika("check", "classify-and-route.negative.yaml", "--json", cwd=tmp_path)
    assert checked.returncode == 1
    assert [e["code"] for e in json.loads(checked.stdout)["errors"]] == [expected]
    ran = nika("run", "classify-and-route.negative.yaml", "--report", "r.json", cwd=tmp_path)
    assert ran.returncode == 1
    refused = json.loads((tmp_path / "r.json").read_text())["refused"]
    assert [r["code"] for r in refused] == [expected]


def test_a_broken_literal_bundle_never_starts_a_task(work: Path) -> None:
    broken = json.loads((GOLDENS / "pr-triage.bundle.json").read_text())
    broken["transforms"]["checks_0_10"]["max"] = 10.5
    (work / "rubrics" / "pr-triage.bundle.json").write_text(json.dumps(broken))
    (work / "g.nika.yaml").write_text(flow(json.dumps(snapshot("s1-dominant-risk"))))
    checked = nika("check", "g.nika.yaml", "--json", cwd=work)
    [error] = json.loads(checked.stdout)["errors"]
    assert checked.returncode == 1 and error["code"] == "NIKA-DECIDE-001"
    assert error["details"]["law"] == "fixed-point"
    ran = nika("run", "g.nika.yaml", "--report", "r.json", cwd=work)
    report = json.loads((work / "r.json").read_text())
    assert ran.returncode == 1 and [r["code"] for r in report["refused"]] == ["NIKA-DECIDE-001"]
    assert report["tasks"] == {}
