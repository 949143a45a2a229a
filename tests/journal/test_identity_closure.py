"""A task's definition hash covers its whole composition closure (issue 28 item 2): an edit
to a grandchild workflow, or to a skill a grandchild reads, re-runs the invoking task."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nika.check.composition import build_child
from nika.guarded_read import read_capped
from nika.journal.identity import Closure
from nika.syntax.loader import load_document
from nika.syntax.model import TaskId, Workflow, build_workflow

NIKA = [sys.executable, "-m", "nika.cli"]

PARENT = """\
nika: parent
permits:
  exec: ["sh"]
tasks:
  call:
    invoke: { workflow: "child.nika.yaml" }
  after:
    with: { v: "${{ tasks.call.output.said }}" }
    exec: { command: ["sh", "-c", "echo parent saw ${{ with.v }}"] }
outputs:
  said: ${{ tasks.after.output }}
"""

CHILD = """\
nika: child
permits:
  exec: ["sh"]
tasks:
  deeper:
    invoke: { workflow: "sub/grand.nika.yaml" }
outputs:
  said: ${{ tasks.deeper.output.said }}
"""

GRAND = """\
nika: grand
permits:
  exec: ["sh"]
tasks:
  word:
    exec: { command: ["sh", "-c", "echo ONE"] }
outputs:
  said: ${{ tasks.word.output }}
"""


def _tree(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "parent.nika.yaml").write_text(PARENT, encoding="utf-8")
    (root / "child.nika.yaml").write_text(CHILD, encoding="utf-8")
    (root / "sub" / "grand.nika.yaml").write_text(GRAND, encoding="utf-8")


def _run(root: Path, *args: str) -> tuple[Any, str]:
    done = subprocess.run([*NIKA, "run", "parent.nika.yaml", "--output", "json", *args],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _latest(root: Path) -> Path:
    return max((root / ".nika" / "traces").glob("*.ndjson"), key=lambda p: p.stat().st_mtime_ns)


def _hits(journal: Path) -> list[str]:
    out = []
    for line in journal.read_bytes().splitlines():
        frame = json.loads(line)
        if frame["kind"] == "task_cache_hit":
            out += [p["value"] for p in frame["fields"] if p["key"] == "task"]
    return sorted(out)


def test_an_edited_grandchild_reruns_the_invoking_task(tmp_path: Path) -> None:
    _tree(tmp_path)
    outputs, _ = _run(tmp_path)
    assert outputs == {"said": "parent saw ONE"}
    first = _latest(tmp_path)
    # nothing below changed: the invoking task is served whole
    outputs, _ = _run(tmp_path, "--resume", str(first))
    assert outputs == {"said": "parent saw ONE"} and _hits(_latest(tmp_path)) == [
        "after", "call"]
    (tmp_path / "sub" / "grand.nika.yaml").write_text(GRAND.replace("ONE", "TWO"),
                                                      encoding="utf-8")
    outputs, _ = _run(tmp_path, "--resume", str(first))
    assert outputs == {"said": "parent saw TWO"}  # the fresh answer, never the stale one
    assert _hits(_latest(tmp_path)) == []


def _workflow(path: Path) -> Workflow:
    workflow, errors = build_workflow(load_document(path.read_bytes()))
    assert workflow is not None and not errors
    return workflow


def test_the_closure_reaches_a_grandchild_s_skill_reads_a_diamond_once_and_ends_a_cycle(
        tmp_path: Path) -> None:
    skill = tmp_path / "sub" / "SKILL.md"
    _tree(tmp_path)
    thinking = GRAND.replace("outputs:", """\
  think:
    agent: { prompt: "p", skills: ["SKILL.md"], model: "mock/echo" }
outputs:""")
    (tmp_path / "sub" / "grand.nika.yaml").write_text(thinking, encoding="utf-8")
    skill.write_text("---\nname: s\ndescription: d\n---\nbody one\n", encoding="utf-8")
    parent = _workflow(tmp_path / "parent.nika.yaml")
    call = parent.tasks[TaskId("call")]
    walker = Closure()
    tree = walker.tree(call, tmp_path, "mock/echo")
    [child] = tree.values()
    [grand] = child.below.values()
    assert set(grand.below) == {"think/skill:SKILL.md"}
    assert grand.below["think/skill:SKILL.md"].reach.path == skill.resolve()
    before = walker.files(call, tmp_path, "mock/echo")
    assert before == Closure().files(call, tmp_path, "mock/echo")  # deterministic
    skill.write_text("---\nname: s\ndescription: d\n---\nbody two\n", encoding="utf-8")
    assert Closure().files(call, tmp_path, "mock/echo") != before  # a skill two levels down
    # the inherited default model is part of what the child's tasks mean
    assert Closure().files(call, tmp_path, "mock/other") != Closure().files(
        call, tmp_path, "mock/echo")
    # a cycle (which the check refuses) ends, named
    looped = GRAND.replace('exec: { command: ["sh", "-c", "echo ONE"] }',
                           'invoke: { workflow: "../child.nika.yaml" }')
    (tmp_path / "sub" / "grand.nika.yaml").write_text(looped, encoding="utf-8")
    [child] = Closure().tree(call, tmp_path, None).values()
    [grand] = child.below.values()
    assert grand.below["word/workflow:../child.nika.yaml"].digest == "cycle"


def test_a_diamond_is_read_and_parsed_once(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "leaf.nika.yaml").write_text(GRAND, encoding="utf-8")
    shared = CHILD.replace("sub/grand.nika.yaml", "leaf.nika.yaml")
    (tmp_path / "shared.nika.yaml").write_text(shared, encoding="utf-8")
    mid = CHILD.replace("sub/grand.nika.yaml", "shared.nika.yaml")
    (tmp_path / "a.nika.yaml").write_text(mid, encoding="utf-8")
    (tmp_path / "b.nika.yaml").write_text(mid, encoding="utf-8")
    top = tmp_path / "top.nika.yaml"
    top.write_text("""\
nika: top
tasks:
  a:
    invoke: { workflow: "a.nika.yaml" }
  b:
    invoke: { workflow: "b.nika.yaml" }
""", encoding="utf-8")
    workflow = _workflow(top)
    reads: list[Path] = []
    builds: list[str] = []

    def counted_read(path: Path, cap: int) -> Any:
        reads.append(path)
        return read_capped(path, cap)

    def counted_build(doc: Any) -> Any:
        builds.append(doc.root["nika"])
        return build_workflow(doc)

    monkeypatch.setattr("nika.journal.identity.read_capped", counted_read)
    # the walker builds a child through the check's reading (`composition.build_child`)
    monkeypatch.setattr("nika.check.composition.build_workflow", counted_build)
    build_child.cache_clear()
    walker = Closure()
    a = walker.files(workflow.tasks[TaskId("a")], tmp_path, None)
    b = walker.files(workflow.tasks[TaskId("b")], tmp_path, None)
    assert list(a.values()) == list(b.values())  # the same bytes below: the same digest
    assert reads.count((tmp_path / "shared.nika.yaml").resolve()) == 1
    assert reads.count((tmp_path / "leaf.nika.yaml").resolve()) == 1
    assert sorted(builds) == ["child", "child", "child"]  # a, b, shared; the leaf: never
