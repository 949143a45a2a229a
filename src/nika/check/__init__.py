"""`nika check`: the static pre-flight, as one pure function.

load (YAML profile) → build the model (shape) → the ladder of rungs, in order.
Nothing executes and nothing touches the network; side files are read only where
the spec asks (child workflows, skill files), relative to the workflow's directory,
and not at all under `read_side_files=False`.

`check` returns the `Verdict`; `check_workflow` returns it with the model it judged
(`Checked`), so a run parses and builds its workflow once.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, ParamSpec

from nika import codes
from nika._gc import gc_paused
from nika.check.context import CheckContext, Finding, Hint, Section
from nika.check.verdict import ADVISORY_CODES, Verdict, refused, sort_findings
from nika.errors import NikaError

if TYPE_CHECKING:
    from pathlib import Path

    from nika.check.lint import Lint
    from nika.syntax.loader import Document
    from nika.syntax.model import Workflow

RUNGS: Final[tuple[str, ...]] = (
    "nika.check.models",
    "nika.check.builtins",
    "nika.check.blocklist",
    "nika.check.skills",
    "nika.check.composition",
    "nika.check.dag",
    "nika.check.variables",
    "nika.check.authority",
    "nika.check.secret_flow",
    "nika.check.certificate",
)
"""The ladder, in order. Adding a rung is one line here (a module with `run(ctx)`)."""

_P = ParamSpec("_P")

__all__ = ["CheckContext", "Checked", "RUNGS", "Verdict", "check", "check_workflow"]


@dataclass(frozen=True, slots=True)
class Checked:
    """A check's `Verdict` and the model it judged: what a run starts from, so the source is
    parsed and built once.

    `workflow` is None when the document did not load or build (its refusals are in the
    verdict); a workflow whose rungs refused it still carries its model (the linter read it).
    """

    verdict: Verdict
    workflow: Workflow | None = None
    document: Document | None = None
    """The loaded document (positions for every node), None when the source did not load."""

    @property
    def runnable(self) -> Workflow | None:
        """The model when the verdict is valid, else None: a refused workflow never runs."""
        return self.workflow if self.verdict.valid else None


def check_workflow(
    text: str | bytes,
    path: str | None = None,
    *,
    base_dir: Path | None = None,
    read_side_files: bool = True,
    lint: bool = False,
) -> Checked:
    """Check a workflow's source: its `Verdict` and the model it judged, in one `Checked`;
    never raises. `nika run` executes `Checked.runnable` — the very model the rungs judged —
    instead of building it again.

    `path` names the file (for locations and for resolving side files); `base_dir`
    overrides the directory side files resolve from (default: the file's directory,
    else the working directory). `read_side_files=False` keeps the check off the disk
    entirely — skills and `invoke: workflow:` children are judged by path and permits
    only — for untrusted drafts (`nika:compose`), which must not probe the host's files.
    `lint=True` also runs the preference rules (`nika.check.lint`) into `Verdict.lints`;
    they judge the shape of whatever model was built, whether or not the rungs refuse it.
    """
    try:
        with gc_paused():
            return _check(text, path, base_dir, read_side_files, lint)
    except Exception as exc:  # the never-raise contract: a crash is a finding, and a bug
        errors = [_internal(exc, "the check pipeline")]
        return Checked(refused(errors, lints=() if lint else None))


def _verdict_only(checked: Callable[_P, Checked]) -> Callable[_P, Verdict]:
    """`checked` giving back the verdict alone, with `checked`'s own signature (declared once;
    `inspect.signature` follows `__wrapped__`)."""

    @functools.wraps(checked)
    def verdict(*args: _P.args, **kwargs: _P.kwargs) -> Verdict:
        return checked(*args, **kwargs).verdict

    verdict.__name__ = verdict.__qualname__ = "check"
    verdict.__doc__ = ("Check a workflow's source and return its `Verdict`; never raises. The "
                       "arguments are `check_workflow`'s (which also keeps the model).")
    return verdict


check = _verdict_only(check_workflow)


def _check(
    text: str | bytes,
    path: str | None,
    base_dir: Path | None,
    read_side_files: bool,
    lint: bool,
) -> Checked:
    from nika.syntax.loader import load_document
    from nika.syntax.model import build_workflow

    try:
        doc = load_document(text, path=path)
    except NikaError as exc:
        return Checked(refused([exc], lints=() if lint else None))
    workflow, shape_errors = build_workflow(doc)
    if workflow is None or shape_errors:
        # Rungs read a well-formed model; judging a broken one only multiplies noise.
        return Checked(refused(shape_errors, lints=() if lint else None), document=doc)
    file = path if path not in (None, "-") else None
    home = (os.path.dirname(file) or ".") if file is not None else os.getcwd()
    ctx = CheckContext(
        document=doc,
        workflow=workflow,
        path=file,
        base_dir=base_dir or home,
        read_side_files=read_side_files,
    )
    verdict = _climb(ctx)
    return Checked(_with_lints(verdict, ctx) if lint else verdict, workflow, doc)


def _with_lints(verdict: Verdict, ctx: CheckContext) -> Verdict:
    from nika.check.lint import lint

    lints: tuple[Lint, ...] = ()
    try:
        lints = lint(ctx)
    except Exception as exc:  # a linter bug must not hide the rungs' verdict
        errors = sort_findings([*verdict.errors, _internal(exc, "the linter")])
        return dataclasses.replace(verdict, errors=errors, lints=lints)
    return dataclasses.replace(verdict, lints=lints)


def _climb(ctx: CheckContext) -> Verdict:
    errors: list[NikaError] = []
    hints: list[NikaError] = []
    sections: dict[str, Any] = {}
    for name in RUNGS:
        try:
            findings = list(_rung(name).run(ctx))
        except Exception as exc:  # one broken rung must not hide the others' findings
            errors.append(_internal(exc, f"rung {name}"))
            continue
        _collect(findings, errors, hints, sections)
    return Verdict(errors=sort_findings(errors), hints=sort_findings(hints), sections=sections)


def _rung(name: str) -> Any:
    return importlib.import_module(name)


def _collect(
    findings: Iterable[Finding],
    errors: list[NikaError],
    hints: list[NikaError],
    sections: dict[str, Any],
) -> None:
    for f in findings:
        if isinstance(f, Section):
            old = sections.get(f.name)
            sections[f.name] = (
                {**old, **f.value}
                if isinstance(old, dict) and isinstance(f.value, dict)
                else f.value
            )
        elif isinstance(f, Hint):
            hints.append(f.error)
        elif f.code in ADVISORY_CODES:
            hints.append(f)
        else:
            errors.append(f)


def _internal(exc: Exception, where: str) -> NikaError:
    return NikaError(
        codes.IMPL_001,
        f"internal error in {where}: {type(exc).__name__}: {exc}; this is an engine bug, "
        "please report it "
        "with the workflow that triggered it",
    )
