"""The views of `nika run`, as the CLI assembles them: live progress on stderr (or, with
`--json`, the event stream on stdout) and the `--report` file. The run layer reports through
this object (`nika.run.launch.RunViews`) and never imports a view."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from nika.errors import NikaError
from nika.journal.bus import EventSink, SinkFailure
from nika.journal.records import RunResult
from nika.masking import Masker
from nika.view._turns import TurnLines
from nika.view.progress import ProgressSink
from nika.view.report import EventLog, build_report, refused_report, to_json
from nika.view.stream import NdjsonSink


class Console:
    """`json`: events as NDJSON on `out` instead of progress lines; `report`: where the run
    report goes (None: no report); `turns`: one stderr line per agent turn as well
    (`--progress`)."""

    def __init__(self, *, out: TextIO, json: bool = False, report: Path | None = None,
                 turns: bool = False) -> None:
        self._log = EventLog()
        self._live: EventSink = NdjsonSink(out) if json else ProgressSink()
        self._turns = (TurnLines(),) if turns else ()
        self._report = report

    def sinks(self) -> Sequence[EventSink]:
        """The report's event log, the turn lines, then the live view: a task's last turn is
        said before the task's own line."""
        return (self._log, *self._turns, self._live)

    def refused(self, errors: Sequence[NikaError]) -> None:
        self._write(refused_report(errors, Masker()))

    def finished(self, result: RunResult, mask: Masker, failures: Sequence[SinkFailure]) -> None:
        self._write(build_report(result, self._log.entries, mask, failures))

    def _write(self, report: dict[str, object]) -> None:
        if self._report is not None:
            self._report.write_text(to_json(report) + "\n", encoding="utf-8")
