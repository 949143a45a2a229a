"""What `nika run` says on stderr when a workflow is refused or a run fails: the full reason,
never cut (a person reads it; `--json` gets the verdict object instead)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from nika._term import json_printable, printable
from nika.check import Verdict
from nika.check.render import render_human, render_terminal
from nika.journal.records import RunResult


def print_refusal(err: TextIO, out: TextIO, json: bool, file: Path, verdict: Verdict,
                  source: bytes) -> None:
    """A refused workflow: on a terminal the line, the caret and the fix; else one line a
    finding; with `--json` the verdict object on stdout."""
    if json:
        out.write(json_printable(verdict.to_json()) + "\n")
        return
    if err.isatty():
        err.write(render_terminal(verdict, str(file), source))
    else:
        err.write(render_human(verdict, str(file)))
    err.write("nika run: the workflow was refused by the check; nothing ran\n")


def print_failure(err: TextIO, result: RunResult) -> None:
    """Why the run failed, in full and whatever the output mode: each failed task's code and
    detail, then the workflow's own error (an output contract, a run that could not go on)."""
    for task, record in result.records.items():
        if record.status == "failure" and record.error is not None:
            err.write(f"nika run: task {task!r} failed: {record.error.code}: "
                      f"{printable(record.error.detail)}\n")
    if result.error is not None:
        err.write(f"nika run: {result.error.code}: {printable(result.error.detail)}\n")
    if result.output_error is not None:
        name = result.output_error.details.get("output")
        err.write(f"nika run: output {printable(str(name))!r} failed its contract, so no "
                  "outputs were printed\n")
