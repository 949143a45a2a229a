"""The run-time half of resume (ADR-099): each task's identity, and the journal records a
resumed run may serve instead of running the task.

A `Replay` belongs to one run. It hashes every task it is asked about (the definition hash
once per task, the resolved-input hash per admission and per `for_each` iteration) and, when
the run resumes a journal, answers `lookup`: the `task_completed` (or per-iteration
`checkpoint_written`) record whose two hashes both match, unless `--from` forced the task.
Where the task body ran — this process, a pool of workers — plays no part: a record is the
journal's, keyed by the task's identity alone.

`replayed` is what a later resume needs of a terminal or checkpoint frame: the
output (and `extract:` bindings) as JSON text, or `replayable: false` with the reason when
the value cannot come back byte-faithful from the journal — bytes, non-JSON values, a value
the secret masker altered (rehydrating `***` would corrupt the run), or one too large for a
journal line. Such a value is still shown to a reader: masked, and captured
(`content.captured`: its head, size and digest when it is long).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from nika.canonical import canonical_json
from nika.journal.content import captured, escaped_size
from nika.journal.frames import Replayed
from nika.journal.identity import (
    Closure,
    InputHasher,
    definition_hash,
    iteration_hash,
)
from nika.journal.semantic import semantic_hash
from nika.syntax.model import Task, Workflow

MAX_REPLAY_TEXT: Final = 256 << 10
"""An output (with its bindings) whose JSON text, escaped on the line, is larger than this is
journaled captured (head, size, digest), not replayed: one journal line must stay far below
the verifier's 1 MiB line bound."""


@dataclass(frozen=True, slots=True)
class Record:
    """One replayable settlement found in a journal."""

    task: str
    def_hash: str
    input_hash: str
    output: Any
    bindings: Mapping[str, Any]
    line: int
    uuid: str | None
    attempts: int = 1
    duration_ms: int = 0
    iteration: int | None = None


@dataclass(slots=True)
class ResumePlan:
    """What a resumed run may serve: task records, iteration records, forced tasks, and the
    claims its boot manifest must carry (`manifest`). `children` holds, per invoking unit
    (`call`, `call[2]`), the plan of the child workflow it ran — its records named as the
    child names its tasks (the journal's `call/fetch` is the child's `fetch`)."""

    journal: str
    head: str | None
    records: dict[str, Record] = field(default_factory=dict)
    iterations: dict[tuple[str, int], Record] = field(default_factory=dict)
    forced: frozenset[str] = frozenset()
    manifest: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    children: dict[str, ResumePlan] = field(default_factory=dict)

    def file(self, name: str, record: Record, *, iteration: bool) -> None:
        """Keep `record` under `name` — a qualified name goes to the child plan of its
        first segment — as a task record, or as an iteration record when `iteration`."""
        unit, sep, rest = name.partition("/")
        if sep:
            child = self.children.get(unit)
            if child is None:
                child = self.children[unit] = ResumePlan(self.journal, self.head)
            child.file(rest, record, iteration=iteration)
        elif iteration and record.iteration is not None:
            self.iterations[(name, record.iteration)] = record
        elif not iteration:
            self.records[name] = record

    def within(self, unit: str, task: str) -> ResumePlan | None:
        """The plan of the child workflow invoked by `unit` (`task` or `task[i]`); None when
        there is none or `task` is forced (its child then runs live, whole)."""
        return None if task in self.forced else self.children.get(unit)


def _faithful(value: Any, depth: int = 0) -> bool:
    """Does `value` survive a JSON round trip unchanged?"""
    if depth > 64:
        return False
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_faithful(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _faithful(v, depth + 1) for k, v in value.items())
    return False


def replayed(output: Any, bindings: Mapping[str, Any],
             mask: Callable[[Any], Any]) -> Replayed:
    """What a frame carries of a settled value for a later resume (see the module doc)."""
    bound = dict(bindings)
    why = None
    if not (_faithful(output) and _faithful(bound)):
        why = "the value is not plain JSON (bytes or another type a journal cannot carry)"
    elif mask(output) != output or mask(bound) != bound:
        why = "the value carries a secret (the journal holds it masked)"
    if why is not None:
        return Replayed(output=captured(canonical_json(_describe(mask(output)))),
                        replayable=False, replay_why=why)
    text = canonical_json(output)
    bound_text = canonical_json(bound) if bound else None
    # What the line spends: each text as a JSON string, its quotes and backslashes escaped.
    spent = (len(text) if len(text) > MAX_REPLAY_TEXT else escaped_size(text)) + \
        (escaped_size(bound_text) if bound_text is not None else 0)
    if spent > MAX_REPLAY_TEXT:
        data = text.encode("utf-8")
        return Replayed(output=captured(text), output_bytes=len(data),
                        output_sha256=hashlib.sha256(data).hexdigest(), replayable=False,
                        replay_why=f"the output and its bindings exceed {MAX_REPLAY_TEXT} "
                        "bytes of escaped JSON")
    return Replayed(output=text, bindings=bound_text)


def _describe(value: Any) -> Any:
    """A lossy, always-serializable picture of a value that cannot be replayed."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, bytes | bytearray):
        return {"bytes": len(value)}
    if isinstance(value, Mapping):
        return {str(k): _describe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_describe(v) for v in value]
    return str(value)


class Replay:
    """One run's task identities and, when resuming, its plan's lookups."""

    def __init__(self, workflow: Workflow, workflow_dir: Path, default_model: str | None,
                 plan: ResumePlan | None = None, closure: Closure | None = None) -> None:
        self._workflow = workflow
        self.closure = closure or Closure()
        """The run's one closure walker (a child workflow's `Replay` shares its caller's)."""
        self._dir = workflow_dir
        self._model = default_model
        self._hasher = InputHasher(workflow)
        self._defs: dict[str, str] = {}
        self.plan = plan

    def definition(self, task: Task) -> str:
        """The task-definition hash (computed once per task)."""
        found = self._defs.get(task.id)
        if found is None:
            model = (task.model or self._model) if task.verb in ("infer", "agent") else None
            found = self._defs[task.id] = definition_hash(
                task, model=model, files=self.closure.files(task, self._dir, self._model))
        return found

    def inputs(self, task: Task, env: Mapping[str, Any]) -> str:
        """The resolved-input hash of `task` against `env`."""
        return self._hasher.input_hash(task, env)

    @staticmethod
    def iteration(task_input_hash: str, index: int, item: Any) -> str:
        """The input hash of iteration `index` (over `item`) of a task with that hash."""
        return iteration_hash(task_input_hash, index, item)

    def semantic(self) -> str:
        """The workflow's semantic hash (`journal.semantic`), over the run's one closure
        walker, so it reads the same child bytes as every definition hash."""
        return semantic_hash(self._workflow, self._dir, closure=self.closure)

    def lookup(self, task: str, def_hash: str, input_hash: str) -> Record | None:
        """The record to serve for `task`, if the plan holds one matching both hashes."""
        plan = self.plan
        if plan is None or task in plan.forced:
            return None
        record = plan.records.get(task)
        return record if _matches(record, def_hash, input_hash) else None

    def lookup_iteration(self, task: str, index: int, def_hash: str,
                         input_hash: str) -> Record | None:
        """The record to serve for iteration `index` of `task`, likewise."""
        plan = self.plan
        if plan is None or task in plan.forced:
            return None
        record = plan.iterations.get((task, index))
        return record if _matches(record, def_hash, input_hash) else None


def _matches(record: Record | None, def_hash: str, input_hash: str) -> bool:
    return record is not None and record.def_hash == def_hash \
        and record.input_hash == input_hash
