"""The launch's part of the boot manifest (17 §the prologue): who supplied each input, and the
claims `nika run` adds to the writer's identity block.

Each bound input carries its ORIGIN (04, the closed vocabulary `frames.INPUT_ORIGINS`):

- `env` — `--var name=@env:VAR`, the declared environment spelling;
- `cli-operator` — any other `--var`, when a human launched the run: stdin is a terminal and
  `CI` is not set;
- `ci-context` — the same `--var` from a caller that is not a human (no terminal on stdin, or
  `CI` set to anything but empty, `0` or `false`);
- `file` — the workflow's declared `default:`.

An optional input nobody supplied and nothing defaults is bound to null by no channel at all:
it has no origin, so none is claimed. Origins are a record of provenance only — a task's
resume identity hashes the resolved VALUES (`replay.Replay.inputs`), so the same value given
another way resumes the same.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nika.canonical import canonical_json
from nika.journal.replay import ResumePlan
from nika.run.budget import SpendCap
from nika.run.values import ENV_PREFIX
from nika.syntax.declarations import InputDecl

_NOT_CI = ("", "0", "false")


@dataclass(frozen=True, slots=True)
class Bound:
    """The launch's inputs (values and origins) and its spend cap, for the root runner."""

    values: Mapping[str, Any]
    origins: Mapping[str, str]
    budget: SpendCap | None


def terminal() -> bool:
    """Whether a human is at the launch: stdin is a terminal."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # a closed stdin is no terminal
        return False


def caller(environ: Mapping[str, str], *, terminal: bool) -> str:
    """`cli-operator` when a human typed the command line, else `ci-context`."""
    in_ci = environ.get("CI", "").strip().lower() not in _NOT_CI
    return "cli-operator" if terminal and not in_ci else "ci-context"


def origins(decls: Mapping[str, InputDecl], supplied: Mapping[str, str],
            environ: Mapping[str, str], *, terminal: bool) -> dict[str, str]:
    """Each bound input's origin, in declaration order (the module doc's rules)."""
    typed = caller(environ, terminal=terminal)
    out: dict[str, str] = {}
    for name, decl in decls.items():
        if name in supplied:
            out[name] = "env" if supplied[name].startswith(ENV_PREFIX) else typed
        elif decl.has_default:
            out[name] = "file"
    return out


def claims(plan: ResumePlan | None, lock_digest: str | None,
           budget: SpendCap | None) -> dict[str, Any]:
    """What the launch adds to the manifest: the budget, the lock digest, the resume claims."""
    out: dict[str, Any] = {}
    if budget is not None:
        out["budget"] = canonical_json(budget.manifest())
    if lock_digest:
        out["lock_digest"] = lock_digest
    out.update(plan.manifest if plan is not None else {})
    return out
