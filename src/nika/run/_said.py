"""What `nika run` says on stderr when a workflow is refused or a run fails: the full reason,
never cut (a person reads it; `--json` gets the verdict object instead); and where the run's
journal is, said once on every way out (`JournalLine`)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from nika._term import json_printable, printable
from nika.check import Verdict
from nika.check.render import render_human, render_terminal
from nika.journal.records import RunResult
from nika.journal.writer import JournalSink


def shown(path: Path) -> str:
    """`path` relative to the working directory when under it (what a person types)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class JournalLine:
    """`journal PATH · head HEX` on stderr, said at most once and only once the journal
    exists, whichever way the run ends: settled, forced out by a second signal (before
    `os._exit`, which flushes nothing), or crashed after the run — the record is what a
    person goes to next, above all when something went wrong."""

    def __init__(self, err: TextIO, journal: JournalSink) -> None:
        self._err = err
        self._journal = journal
        self._said = False

    @property
    def path(self) -> Path | None:
        """The journal's file, once it exists."""
        return self._journal.path

    def say(self) -> None:
        path = self._journal.path
        if self._said or path is None:
            return
        self._said = True
        torn = " · INCOMPLETE: a write failed" if self._journal.failed else ""
        self._err.write(f"journal {shown(path)} · head {self._journal.head}{torn}\n")
        self._err.flush()


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
