"""`nika run --output json` (01 §what leaves a run, 08 §sub-workflow invocation, 14 §workaround):
stdout is exactly the typed `outputs:` object, and a parent workflow reads it back through
`exec:` + `capture: stdout` — the process floor of composition."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from nika.cli import main

SUB = """\
nika: count-words
model: mock/echo
permits:
  tools: ["nika:jq"]
inputs:
  text: { type: string }
tasks:
  split:
    invoke:
      tool: nika:jq
      args:
        input: ${{ inputs.text }}
        expression: "split(\\" \\") | length"
  echo:
    infer: { prompt: "${{ inputs.text }}" }
outputs:
  words:
    value: ${{ tasks.split.output }}
    type: integer
    description: how many words the text has
  said: ${{ tasks.echo.output }}
"""

PARENT = """\
nika: parent
permits:
  exec: ["nika"]
  tools: ["nika:assert"]
tasks:
  child:
    exec:
      command: ["nika", "run", "sub.nika.yaml", "--var", "text=one two three", "--output", "json"]
      capture: stdout
      decode: json
    extract:
      words: ".words"
  check:
    with:
      words: ${{ tasks.child.words }}
      said: ${{ tasks.child.output.said }}
    invoke:
      tool: nika:assert
      args:
        condition: ${{ with.words == 3 }}
        message: "the child's typed output crossed the process boundary"
outputs:
  child_words:
    value: ${{ tasks.child.words }}
    type: integer
  child_said: ${{ tasks.child.output.said }}
"""


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub.nika.yaml").write_text(SUB)
    (tmp_path / "parent.nika.yaml").write_text(PARENT)
    return tmp_path


def test_stdout_is_exactly_the_typed_outputs_object(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "sub.nika.yaml", "--var", "text=a b", "--output", "json"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.count("\n") == 1  # one line, one object, nothing else
    assert json.loads(captured.out) == {"words": 2, "said": "mock(echo) · a b"}
    assert "journal " in captured.err  # diagnostics stay on stderr


def test_no_declared_outputs_is_an_empty_object(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "bare.nika.yaml").write_text(
        "nika: bare\nmodel: mock/echo\ntasks:\n  a:\n    infer: { prompt: x }\n")
    assert main(["run", "bare.nika.yaml", "--output", "json"]) == 0
    assert capsys.readouterr().out == "{}\n"


def test_a_failed_run_prints_no_object_and_exits_non_zero(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "typed.nika.yaml").write_text(
        "nika: typed\nmodel: mock/echo\ntasks:\n  a:\n    infer: { prompt: x }\n"
        "outputs:\n  n:\n    value: ${{ tasks.a.output }}\n    type: integer\n")
    assert main(["run", "typed.nika.yaml", "--output", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # a broken contract is no contract: the exit code says so
    assert "failure" in captured.err


def test_a_refused_workflow_prints_nothing_on_stdout(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "bad.nika.yaml").write_text(
        "nika: bad\ntasks:\n  a:\n    after: { ghost: success }\n    infer: { prompt: x }\n")
    assert main(["run", "bad.nika.yaml", "--output", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "NIKA-DAG" in captured.err


def test_json_and_output_json_together_is_a_usage_error(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "sub.nika.yaml", "--json", "--output", "json"]) == 2
    assert "--output json" in capsys.readouterr().err


def test_a_parent_composes_a_child_through_exec_capture_stdout(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The child process is this venv's `nika` console script, found on PATH like a user's.
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "nika").exists()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    code = main(["run", "parent.nika.yaml", "--output", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out) == {
        "child_words": 3, "child_said": "mock(echo) · one two three"}
    # Two runs, two journals: the child's process wrote its own.
    assert len(list((here / ".nika" / "traces").glob("*.ndjson"))) == 2
