"""A child workflow's frames in its parent's run (`invoke: { workflow: … }` · 14).

A child runs in-process on its own bus (its own sequence, its own permit gate); `ChildFrames`
is that bus's one sink, and re-emits every child frame on the parent's bus, so the parent's
journal, report and `--json` stream record what the child did. The parent bus masks again
before its sinks see anything (masking is idempotent: a masked value holds no secret).

Spec 17 defines no nesting of runs inside one journal (its `correlation` member correlates
whole runs, and a child here is part of the parent's run, not a run with a journal of its
own), so a nested frame keeps its 17-trace kind and says where it came from in additive
fields (17 §the additive law: no `trace_format` bump):

- `task` is qualified by the invoking unit: `call/fetch` (or `call[2]/fetch` for iteration 2
  of a `for_each`). Task ids match `^[a-z][a-z0-9_]*$`, so a qualified id never collides
  with a parent task, and every sink keyed by task id stays exact;
- `parent` is the invoking task's (qualified) id and `depth` the nesting level (1: a child of
  the root workflow); a grandchild's frame arrives already nested and gains one level.

The child's lifecycle frames (`workflow_started` and its terminal frame) are folded, not
forwarded: in the parent's journal they would pose as the parent's own prologue and end
(a verifier would take a child's `workflow_completed` as the parent's terminal frame, and a
cut-short parent journal would pass as complete). The invoking task's `verb_invoked`
(`workflow: <target>`) opens the child, its terminal task frame closes it with the outcome.
A task-less child frame of any other kind belongs to the invoking task itself.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from nika.journal.bus import EventBus, RunEvent
from nika.journal.frames import UnitAttempt, WorkflowEnded, WorkflowStarted

MAX_DEPTH: Final = 8
"""How deep `invoke: workflow:` children may nest before `NIKA-SEC-003`."""


class ChildFrames:
    """An `EventSink` for a child workflow's bus: nests each frame under `unit` on `parent`."""

    def __init__(self, parent: EventBus, unit: UnitAttempt) -> None:
        self._parent = parent
        self._unit = unit

    def emit(self, event: RunEvent) -> None:
        frame = event.frame
        if isinstance(frame, WorkflowStarted | WorkflowEnded):
            return  # the child's lifecycle is folded (module doc)
        if frame.task is None:
            self._parent.emit(dataclasses.replace(frame, task=self._unit.task))
            return
        prefix = self._unit.path
        parent, depth = (
            (f"{prefix}/{frame.parent}", frame.depth + 1)  # forwarded from a grandchild
            if frame.parent is not None and frame.depth is not None
            else (self._unit.task, 1))
        self._parent.emit(dataclasses.replace(frame, task=f"{prefix}/{frame.task}",
                                              parent=parent, depth=depth))

    def close(self) -> None:
        """Nothing to release: every frame was handed to the parent's bus as it came."""
