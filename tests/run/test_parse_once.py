"""A run parses and builds its workflow once: the model the check judged is the one that runs.

Builds are counted through the interpreter's profiling hook (`sys.setprofile`), which sees
every entry into `build_workflow` and `load_document` without replacing either: a second
parse anywhere on the path (launch, a child, the receipt) changes the count.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from nika.cli import main
from nika.journal.receipt import workflow_identity
from nika.syntax import loader, model

_COUNTED = {model.build_workflow.__code__: "build", loader.load_document.__code__: "load"}


@contextmanager
def counting() -> Iterator[Counter[tuple[str, str]]]:
    """Counts `(what, file name)` for every build and load while the block runs."""
    seen: Counter[tuple[str, str]] = Counter()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        what = _COUNTED.get(frame.f_code) if event == "call" else None
        if what == "load":
            seen[what, Path(str(frame.f_locals.get("path"))).name] += 1
        elif what == "build":
            seen[what, Path(str(frame.f_locals["doc"].path)).name] += 1

    previous: Callable[..., Any] | None = sys.getprofile()
    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
        threading.setprofile(None)


def test_the_counter_sees_a_build(tmp_path: Path) -> None:
    doc = loader.load_document("nika: x\ntasks:\n  a:\n    exec: { shell: 'true' }\n",
                               path=str(tmp_path / "x.nika.yaml"))
    with counting() as seen:
        model.build_workflow(doc)
        model.build_workflow(doc)
    assert seen == {("build", "x.nika.yaml"): 2}


def test_a_run_builds_its_workflow_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text("nika: once\nmodel: mock/echo\ntasks:\n  hi:\n    infer: { prompt: hi }\n")
    with counting() as seen:
        assert main(["run", str(flow)]) == 0
    assert seen == {("load", "flow.nika.yaml"): 1, ("build", "flow.nika.yaml"): 1}


def test_an_invoked_child_is_built_once_when_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "child.nika.yaml").write_text(
        "nika: child\nmodel: mock/echo\ntasks:\n  go:\n    infer: { prompt: hi }\n")
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text("nika: parent\ntasks:\n  call:\n    invoke: { workflow: ./child.nika.yaml }\n")
    with counting() as seen:
        assert main(["run", str(flow)]) == 0
    # The parent's check reads the child statically (composition); the run checks the child
    # when it invokes it and runs that model — two readings of the child, never three.
    assert seen == {("load", "flow.nika.yaml"): 1, ("build", "flow.nika.yaml"): 1,
                    ("load", "child.nika.yaml"): 2, ("build", "child.nika.yaml"): 2}


def test_a_receipts_identity_builds_the_workflow_once(tmp_path: Path) -> None:
    flow = tmp_path / "flow.nika.yaml"
    flow.write_text("nika: once\nmodel: mock/echo\ntasks:\n  hi:\n    infer: { prompt: hi }\n")
    with counting() as seen:
        workflow_identity(flow)
    assert seen == {("load", "flow.nika.yaml"): 1, ("build", "flow.nika.yaml"): 1}
