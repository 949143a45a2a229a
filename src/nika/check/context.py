"""What every check rung reads, and what a rung may hand back.

The rung convention: a rung is a module exposing

    def run(ctx: CheckContext) -> Iterable[Finding]

where a `Finding` is a `NikaError` (a refusal), a `Hint` (advisory, never fails
validity) or a `Section` (a named verdict section such as `"plan"`). Rungs are pure:
they read the model and, where the spec requires it and `ctx.read_side_files` allows,
side files under `ctx.base_dir`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from nika.check._suggest import Suggestions
from nika.check.graph import Graph, derive
from nika.errors import Location, NikaError
from nika.syntax.model import KeyPath, Workflow

if TYPE_CHECKING:
    from nika.syntax.loader import Document

StrPath = str | os.PathLike[str]
"""A file system path as the caller names it: a string or a `Path`. The check keeps it as
given, so `pathlib` loads only with the first side file a rung reads."""


@dataclass(frozen=True, slots=True)
class Hint:
    """An advisory finding (e.g. `NIKA-DRIFT-001`): reported, never a refusal."""

    error: NikaError


@dataclass(frozen=True, slots=True)
class Section:
    """A named part of the verdict a rung contributes (`"plan"`, `"effects"`, …).

    `value` must be JSON-ready (dicts, lists, strings, numbers, booleans, None).
    Two sections with one name are merged key-wise when both are dicts.
    """

    name: str
    value: Any


Finding = NikaError | Hint | Section


@dataclass(frozen=True, slots=True)
class CheckContext:
    """The loaded document, its built model and where it came from.

    `path` names the workflow file (None for a string or stdin), `base_dir` the directory
    side files resolve from. `read_side_files` false forbids every rung to touch the disk:
    side files (skills, child workflows) are then judged statically, by path and permits
    alone.
    """

    document: Document
    workflow: Workflow
    path: StrPath | None
    base_dir: StrPath
    read_side_files: bool = True
    _graph: list[Graph] = field(default_factory=list, init=False, repr=False, compare=False)
    suggestions: Suggestions = field(
        default_factory=Suggestions, init=False, repr=False, compare=False
    )
    """`did you mean …?` and name listings, bounded per check (`_suggest`)."""

    def graph(self) -> Graph:
        """The derived graphs of the workflow, built once per check and shared by the rungs
        that read them (DAG, laws, secret flow, certificate)."""
        if not self._graph:
            self._graph.append(derive(self.workflow))
        return self._graph[0]

    def locate(self, key_path: KeyPath) -> Location | None:
        """The source position of a key path into the document, when known."""
        return self.document.locate(key_path)

    def error(self, code: str, detail: str, at: KeyPath, **details: Any) -> NikaError:
        """A `NikaError` located at `at` — the one-liner rungs use to report."""
        return NikaError(code, detail, details=details or None, location=self.locate(at))


class Rung(Protocol):
    """A check rung module, as seen by the ladder."""

    def run(self, ctx: CheckContext) -> Iterable[Finding]: ...
