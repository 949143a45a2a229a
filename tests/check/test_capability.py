"""Rung `nika.check.capability`: valid Nika this engine does not run is a labelled warning at
check and one refusal, before any task, at run (issue 14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nika.check import check
from nika.check.render import render_human
from nika.cli import main

UNSERVED_CALL = (
    'nika: c\npermits: { tools: ["nika:tts_generate"], fs: { write: ["out/**"] } }\n'
    "tasks:\n  say:\n    invoke: { tool: nika:tts_generate, args: { provider: elevenlabs, "
    "text: t, output_dir: out } }\n"
)


@pytest.mark.parametrize(
    ("call", "warned"),
    [
        ("{ tool: nika:chart, args: { data: [{ k: a, v: 1 }], out: out/c.svg, "
         "chart: { type: bar, x: k, y: v } } }", False),
        ("{ tool: nika:image_fx, args: { input: a.png, out: out/b.png, ops: [grayscale: {}] } }",
         False),
        ("{ tool: nika:tts_generate, args: { provider: openai, text: t, output_dir: out } }",
         False),
        ("{ tool: nika:tts_generate, args: { model: tts-1, text: t, output_dir: out } }", False),
        ("{ tool: nika:tts_generate, args: { provider: elevenlabs, text: t, output_dir: out } }",
         False),
        ("{ tool: nika:tts_generate, args: { provider: local, text: t, output_dir: out } }", False),
        ("{ tool: nika:tts_generate, args: { provider: mock, text: t, output_dir: out } }", False),
        ("{ tool: nika:read, args: { path: out/x } }", False),
    ],
)
def test_an_unserved_call_keeps_the_verdict_valid_and_warns(call: str, warned: bool) -> None:
    tool = call.split("tool: ")[1].split(",")[0]
    verdict = check(
        f'nika: c\npermits: {{ tools: ["{tool}"], fs: {{ read: ["**"], write: ["out/**"] }} }}\n'
        f"tasks:\n  t:\n    invoke: {call}\n"
    )
    assert verdict.valid, verdict.errors
    assert [h.code for h in verdict.hints if h.code == "NIKA-IMPL-002"] == (
        ["NIKA-IMPL-002"] if warned else []
    )


def test_the_human_verdict_labels_it_and_the_json_carries_it_under_hints() -> None:
    verdict = check(UNSERVED_CALL)
    human = render_human(verdict, "c.nika.yaml")
    assert human.startswith("ok c.nika.yaml")
    assert "warning (engine capability) c.nika.yaml:5:" in human and "NIKA-IMPL-002" in human
    wire = json.loads(verdict.to_json())
    assert wire["valid"] is True and wire["errors"] == []
    assert [h["code"] for h in wire["hints"]] == ["NIKA-IMPL-002"]


def test_run_refuses_it_before_any_task_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "c.nika.yaml"
    flow.write_text(UNSERVED_CALL)
    report = tmp_path / "report.json"
    assert main(["run", str(flow), "--report", str(report)]) == 1
    err = capsys.readouterr().err
    assert "NIKA-IMPL-002" in err and "nika:tts_generate" in err
    data = json.loads(report.read_text())
    assert [r["code"] for r in data["refused"]] == ["NIKA-IMPL-002"] and data["tasks"] == {}
    assert not (tmp_path / ".nika").exists()  # no event, no journal: nothing started
