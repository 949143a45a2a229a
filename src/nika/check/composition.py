"""Rung: parent→child composition (`invoke: { workflow: }` · spec 14).

Law 1 (static target · `NIKA-COMP-001`), law 7 (acyclic call graph · `NIKA-COMP-003`),
law 2 (typed call · `NIKA-COMP-004`) and laws 3/4 (every effect the child's body needs
must sit inside its own `permits:` ∩ the parent's — the boundary it runs under ·
`NIKA-COMP-002`). Children are read from disk relative to the declaring file's
directory — the one place `check` opens a workflow other than its input — and only when
they resolve to a regular file, never past the 1 MiB document cap. Under
`ctx.read_side_files` false (a `nika:compose` draft) no child is opened: law 1's static
target is judged, the laws that need the child's text are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from nika import codes
from nika.check.context import CheckContext, Finding
from nika.check.effects import infer_effects
from nika.check.judge import PermitJudge
from nika.errors import NikaError
from nika.syntax.loader import MAX_DOCUMENT_BYTES, load_document
from nika.syntax.model import InvokeBody, Task, Workflow, build_workflow
from nika.syntax.template import is_literal

if TYPE_CHECKING:
    from pathlib import Path

    from nika.check.context import StrPath
    from nika.syntax.types import TypeExpr

_PINNED: Final = re.compile(
    r"^registry:[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9_.-]*@[A-Za-z0-9][A-Za-z0-9._+-]*$"
)
_MAX_DEPTH: Final = 16


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge every `invoke: workflow:` task of the workflow."""
    me: Path | None = None  # the workflow's own file, resolved with the first child it opens
    for task in ctx.workflow.tasks.values():
        body = task.body
        if not isinstance(body, InvokeBody) or body.workflow is None:
            continue
        at = (*task.path, "invoke", "workflow")
        target = body.workflow
        problem = _static_problem(target)
        if problem is not None:
            yield ctx.error(codes.COMP_001, f"task `{task.id}` calls {target!r}: {problem}", at)
            continue
        if target.startswith("registry:"):
            continue  # a pinned registry child resolves through the lockfile, not the disk
        if not ctx.read_side_files:
            continue  # judged statically: the child is never opened
        file = _resolved(ctx.base_dir, target)
        if me is None and ctx.path is not None:
            me = _resolved(ctx.path, "")
        if file is None:
            yield ctx.error(
                codes.COMP_001,
                f"task `{task.id}` calls {target!r}, which is not a path this system can "
                "resolve; name the child workflow file",
                at,
            )
            continue
        if me is not None and file == me:
            yield ctx.error(
                codes.COMP_003,
                f"task `{task.id}` launches its own workflow {target!r}; a self-launch is "
                "a 1-cycle — "
                "iterate with `for_each` or split the work",
                at,
            )
            continue
        child, why = _load(file)
        if child is None:
            yield ctx.error(codes.COMP_001, f"task `{task.id}` calls {target!r}, which {why}", at)
            continue
        cycle = _cycle(child, me, [file])
        if cycle is not None:
            yield ctx.error(
                codes.COMP_003,
                f"task `{task.id}` closes a call cycle: {' → '.join(cycle)}; the static "
                "call graph must be acyclic",
                at,
            )
        yield from _typed_call(ctx, task, body, child)
        yield from _containment(ctx, task, target, child)


def read_child(base: Path, target: str) -> tuple[Path, Workflow] | None:
    """The local child workflow `target` names from `base` (its resolved file and model), or
    None when there is none to read: a registry or templated target, a file that is missing
    or does not build (the rung names why)."""
    if _static_problem(target) is not None or target.startswith("registry:"):
        return None
    file = _resolved(base, target)
    child = _load(file)[0] if file is not None else None
    return None if file is None or child is None else (file, child)


def _static_problem(target: str) -> str | None:
    if "${{" in target:
        return "a templated target cannot be resolved before the run; name the child file literally"
    if target.startswith("registry:"):
        if not _PINNED.match(target):
            return "a registry reference must be pinned as `registry:owner/name@version`"
        return None
    if not target.strip():
        return "an empty target; name the child workflow file"
    if "\x00" in target:
        return "a file name never holds a NUL character; name the child workflow file"
    return None


def _resolved(base: StrPath, target: str) -> Path | None:
    """`base / target` with symlinks resolved, or None when the OS cannot even name it."""
    from pathlib import Path  # loaded with the first side file the check opens

    try:
        return (Path(base) / target).resolve()
    except (OSError, ValueError, RuntimeError):  # too long, unencodable, a symlink loop
        return None


def _load(file: Path) -> tuple[Workflow | None, str]:
    from nika.guarded_read import Unreadable, read_capped

    source = read_capped(file, MAX_DOCUMENT_BYTES)
    if isinstance(source, Unreadable):
        if source.reason == "not_regular":
            return None, f"{source.why}; name the child workflow file"
        return None, source.why
    return build_child(str(file), source)


@lru_cache(maxsize=16)
def build_child(file: str, source: bytes) -> tuple[Workflow | None, str]:
    """The child workflow these bytes build (or None and why) — once per process: the
    parent's check and the composition-closure walker behind the semantic and definition
    hashes (`journal.identity.Closure`) share one reading (a model is frozen: safe to share)."""
    try:
        wf, errors = build_workflow(load_document(source, path=file))
    except NikaError as exc:
        return None, f"is not a well-formed workflow ({exc.code}: {exc.detail})"
    if wf is None or errors:
        first = errors[0] if errors else None
        return None, "is not a well-formed workflow" + (
            f" ({first.code}: {first.detail})" if first else ""
        )
    return wf, ""


def _cycle(child: Workflow, root: Path | None, trail: list[Path]) -> list[str] | None:
    """A call path from `child` back to `root` (or into the trail), breadth-bounded by depth."""
    if len(trail) > _MAX_DEPTH:
        return None
    base = trail[-1].parent
    for task in child.tasks.values():
        body = task.body
        if (
            not isinstance(body, InvokeBody)
            or body.workflow is None
            or _static_problem(body.workflow)
        ):
            continue
        if body.workflow.startswith("registry:"):
            continue
        nxt = _resolved(base, body.workflow)
        if nxt is None:
            continue  # the child's own check names it
        if nxt == root or nxt in trail:
            return [p.name for p in [*trail, nxt]]
        grandchild, _ = _load(nxt)
        if grandchild is not None:
            found = _cycle(grandchild, root, [*trail, nxt])
            if found is not None:
                return found
    return None


def _typed_call(
    ctx: CheckContext, task: Task, body: InvokeBody, child: Workflow
) -> Iterator[NikaError]:
    # The type language loads with the first child workflow a check opens.
    from nika.syntax.typefit import conforms
    from nika.syntax.types import render

    at = (*task.path, "invoke")
    target = body.workflow
    for name, decl in child.inputs.items():
        if decl.required and not decl.has_default and name not in body.args:
            yield ctx.error(
                codes.COMP_004,
                f"task `{task.id}` calls {target!r} without its required input `{name}`; "
                f"add `args: {{ {name}: … }}`",
                at,
            )
    for name, value in body.args.items():
        target_input = child.inputs.get(name)
        if target_input is None:
            known = ", ".join(sorted(child.inputs)) or "none"
            yield ctx.error(
                codes.COMP_004,
                f"task `{task.id}` passes `{name}`, which {target!r} does not declare "
                f"(its inputs: {known})",
                (*at, "args", name),
            )
        elif is_literal(value) and not conforms(value, target_input.type):
            yield ctx.error(
                codes.COMP_004,
                f"task `{task.id}` passes `{name}: {value!r}`, which does not fit the "
                f"child's `{render(target_input.type)}`",
                (*at, "args", name),
            )
    if task.returns is not None:
        problem = _returns_problem(child, task.returns)
        if problem is not None:
            yield ctx.error(
                codes.COMP_004,
                f"task `{task.id}` declares `returns: {render(task.returns)}`, but {problem}",
                (*task.path, "returns"),
            )


def _returns_problem(child: Workflow, want: TypeExpr) -> str | None:
    from nika.syntax.subtype import is_subtype
    from nika.syntax.types import MapOf, ObjectOf, render

    outs = child.outputs
    if isinstance(want, MapOf):
        for name, decl in outs.items():
            if decl.type is not None and not is_subtype(decl.type, want.value):
                return f"the child's output `{name}` is `{render(decl.type)}`"
        return None
    if not isinstance(want, ObjectOf):
        return "a child workflow returns its `outputs:` object"
    for f in want.fields:
        out = outs.get(f.name)
        if out is None:
            if not f.optional:
                return f"the child declares no output `{f.name}`"
            continue
        if out.type is not None and not is_subtype(out.type, f.type):
            return f"the child's output `{f.name}` is `{render(out.type)}`, not `{render(f.type)}`"
    extra = sorted(set(outs) - {f.name for f in want.fields})
    if extra and not want.additional:
        return f"the child also returns {', '.join(extra)} (add them or `additional: true`)"
    return None


def _containment(
    ctx: CheckContext, task: Task, target: str, child: Workflow
) -> Iterator[NikaError]:
    """Laws 3/4: the child runs under its own `permits:` ∩ this workflow's — every effect
    its body needs must fit both (a child never gains authority its parent lacks)."""
    levels = (
        (PermitJudge.from_workflow(child), "the child's own `permits:`"),
        (PermitJudge.from_workflow(ctx.workflow), "this workflow's `permits:`"),
    )
    at = (*task.path, "invoke", "workflow")
    seen: set[tuple[str, str]] = set()
    for effect in infer_effects(child):
        whose = next((who for judge, who in levels if not judge.admits(effect)), None)
        if whose is None or (effect.label, whose) in seen:
            continue
        seen.add((effect.label, whose))
        yield ctx.error(
            codes.COMP_002,
            f"task `{task.id}` calls {target!r}, whose task `{effect.task}` needs "
            f"{effect.label}, outside {whose}; a child runs under its own permits ∩ its "
            "caller's and never gains authority its parent lacks — grant it in both, or "
            "narrow the child",
            at,
            effect=effect.kind,
            target=effect.target,
        )
