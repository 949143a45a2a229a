"""Rung: the authority judge — required ⊆ permitted (01 §permits · 10-authority).

The body's effects are inferred (`nika.check.effects`) and judged by the one judge
(`nika.check.judge.PermitJudge`):

- an absent `permits:` block is zero authority: any needed effect is `NIKA-AUTH-006`,
  whose detail carries the inferred block ready to paste;
- under a present block every effect outside it is `NIKA-SEC-004` (task · effect ·
  the line to add); a literal target below the SSRF floor is `NIKA-SEC-005` either way;
- the bounds themselves: literals only (`NIKA-AUTH-007`), exact hosts (`NIKA-AUTH-010`),
  no floor-blocked host (`NIKA-SEC-005`), no dangerous env name (`NIKA-AUTH-009`);
- an `agent:` whitelist entry is intersected with `permits.tools`: a literal entry the
  block does not admit is an escape, a glob entry narrows at run time;
- the permit taint and the data-as-code sink (`_taint`), the order and consent laws
  (`_laws`), the lethal trifecta (`_trifecta`), and the declared-but-unused hints
  (`NIKA-DRIFT-001`).

The verdict gains `effects: {boundary_declared, needed, escapes, deferred}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika._term import printable
from nika.check import _laws, _taint, _trifecta
from nika.check.context import CheckContext, Finding, Section
from nika.check.effects import (
    Effect,
    dynamic_effects,
    infer_effects,
    needed_permits,
    needs_grant,
)
from nika.check.judge import (
    DANGEROUS_ENV_VARS,
    PermitJudge,
    canonical_host,
    floor_blocked,
)
from nika.errors import NikaError
from nika.syntax.model import KeyPath, Workflow

if TYPE_CHECKING:
    from nika.syntax.declarations import Permits

_ENV_NAME: Final = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")
_WILD: Final = frozenset("*?[")


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge the workflow's effects against its declared boundary."""
    workflow = ctx.workflow
    effects = infer_effects(workflow)
    judge = PermitJudge.from_workflow(workflow)
    escapes: list[NikaError] = []
    if workflow.permits is not None:
        yield from _bounds(ctx, workflow.permits)
    escapes.extend(_floor(ctx, effects, judge))
    if workflow.permits is None:
        if any(_needs_authority(e) for e in effects):
            escapes.append(_absent(ctx, workflow, effects))
    else:
        escapes.extend(_escapes(ctx, effects, judge))
        from nika.check._drift import drift  # declared-but-unused: only a present block

        yield from drift(ctx, workflow.permits, effects)
    taint = list(_taint.run(ctx, judge))
    yield from escapes
    yield from taint
    yield from _laws.run(ctx)
    yield from _trifecta.run(ctx)
    section = {
        "boundary_declared": workflow.permits is not None,
        "needed": needed_permits(effects),
        "escapes": sum(e.code in (codes.AUTH_006, codes.SEC_004) for e in escapes)
        + sum(e.code in (codes.AUTH_008, codes.SEC_004) for e in taint),
        "deferred": [
            {"task": e.task, "effect": e.kind, "value": e.target} for e in dynamic_effects(effects)
        ],
    }
    yield Section("effects", section)
    # 10 §certificate: the authority projection rides the resource certificate too.
    yield Section("certificate", {"effects": section})


def infer_permits(workflow: Workflow) -> tuple[dict[str, Any], str]:
    """The needed boundary of `workflow` as a mapping and as YAML ready to paste.

    Dynamic targets ride as comments: their category opens with no entry (the run
    re-gates the resolved value) and the author names the bound they must stay under.
    """
    effects = infer_effects(workflow)
    block = needed_permits(effects)
    lines = ["permits: {}"] if not block else ["permits:", *_yaml(block, 1)]
    for e in dynamic_effects(effects):
        lines.append(
            f"# dynamic: task `{printable(str(e.task))}` {e.kind} {printable(e.target)} is "
            "resolved at run time; add the bound it must stay under"
        )
    return block, "\n".join(lines) + "\n"


def _yaml(block: dict[str, Any], depth: int) -> Iterator[str]:
    import json  # a scalar is written as JSON, which YAML reads back unchanged

    pad = "  " * depth
    for key, value in block.items():
        if isinstance(value, dict):
            yield f"{pad}{key}:"
            yield from _yaml(value, depth + 1)
        else:
            yield f"{pad}{key}: {json.dumps(value)}"


def _needs_authority(effect: Effect) -> bool:
    return effect.kind != "tool" or needs_grant(effect.target)


def _absent(ctx: CheckContext, workflow: Workflow, effects: Sequence[Effect]) -> NikaError:
    block, text = infer_permits(workflow)
    needed = sorted({f"task `{e.task}`: {e.label}" for e in effects if _needs_authority(e)})
    first = next(e for e in effects if _needs_authority(e))
    return NikaError(
        codes.AUTH_006,
        "no permits: block is declared, so this workflow has zero authority, yet its body "
        f"needs {'; '.join(needed)}. Declare the boundary (inferred, ready to paste):\n" + text,
        details={"inferred_permits": block, "needed": needed},
        location=ctx.locate(first.site),
    )


def _escapes(
    ctx: CheckContext, effects: Sequence[Effect], judge: PermitJudge
) -> Iterator[NikaError]:
    for effect in effects:
        if effect.kind == "net" and not effect.dynamic and floor_blocked(effect.target):
            continue  # the floor's verdict (`_floor`) speaks for it
        if effect.kind == "tool" and _WILD & set(effect.target):
            continue  # an agent glob narrows to permits.tools at run time
        refusal = judge.judge(effect)
        if refusal is not None:
            yield _at(ctx, refusal, effect.site)


def _floor(ctx: CheckContext, effects: Sequence[Effect], judge: PermitJudge) -> Iterator[NikaError]:
    for effect in effects:
        if effect.kind == "net" and not effect.dynamic and floor_blocked(effect.target):
            refusal = judge.judge(effect)
            if refusal is not None and refusal.code == codes.SEC_005:
                yield _at(ctx, refusal, effect.site)


def _at(ctx: CheckContext, err: NikaError, site: KeyPath) -> NikaError:
    return NikaError(err.code, err.detail, details=err.details, location=ctx.locate(site))


def _bounds(ctx: CheckContext, permits: Permits) -> Iterator[NikaError]:
    raw = permits.raw
    base = permits.path
    fs: Mapping[str, Any] = raw["fs"] if isinstance(raw.get("fs"), Mapping) else {}
    net: Mapping[str, Any] = raw["net"] if isinstance(raw.get("net"), Mapping) else {}
    lists: list[tuple[KeyPath, Any]] = [
        (("fs", "read"), fs.get("read")),
        (("fs", "write"), fs.get("write")),
        (("net", "http"), net.get("http")),
        (("exec",), raw.get("exec")),
        (("tools",), raw.get("tools")),
        (("env",), raw.get("env")),
    ]
    for rel, entries in lists:
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            at = (*base, *rel, i)
            name = ".".join(str(k) for k in rel) + f"[{i}]"
            if isinstance(entry, str) and "${{" in entry:
                yield ctx.error(
                    codes.AUTH_007,
                    f"permits bound {name} is {entry!r}: a bound must be a literal — an "
                    "interpolated bound makes the boundary self-serve; write the exact "
                    "value it must allow",
                    at,
                    bound=name,
                )
            elif isinstance(entry, str) and rel == ("net", "http"):
                yield from _host_bound(ctx, entry, name, at)
            elif isinstance(entry, str) and rel == ("env",):
                yield from _env_bound(ctx, entry, name, at)


def _host_bound(ctx: CheckContext, entry: str, name: str, at: KeyPath) -> Iterator[NikaError]:
    if "*" in entry and entry != "*":
        yield ctx.error(
            codes.AUTH_010,
            f"permits {name} is {entry!r}: hosts are exact names — a wildcard delegates the "
            "permit to whoever runs the zone; list each host you call (e.g. "
            f"{entry.replace('*.', 'api.')!r}), or write the bare '*' as the explicit escape",
            at,
            bound=name,
        )
        return
    from nika.netfloor import is_loopback_literal

    host = canonical_host(entry)
    if floor_blocked(host) and not is_loopback_literal(host):
        yield ctx.error(
            codes.SEC_005,
            f"permits {name} is {entry!r}, below the SSRF floor (private · link-local · "
            "metadata · *.localhost): a dead grant no run can use; remove it (only an exact "
            "loopback literal — localhost, 127.0.0.1, ::1 — is declassifiable)",
            at,
            bound=name,
        )


def _env_bound(ctx: CheckContext, entry: str, name: str, at: KeyPath) -> Iterator[NikaError]:
    if entry in DANGEROUS_ENV_VARS:
        yield ctx.error(
            codes.AUTH_009,
            f"permits {name} is {entry!r}, on the dangerous-name floor (linker injection · "
            "shell startup · interpreter and tool hooks): it is never passed to a child; "
            "remove the entry, or set what the child needs in the task's own env: map",
            at,
            bound=name,
        )
    elif not _ENV_NAME.match(entry):
        yield ctx.error(
            codes.AUTH_007,
            f"permits {name} is {entry!r}: an env bound is an exact POSIX name "
            "([A-Za-z_][A-Za-z0-9_]*, no globs); write the variable's exact name",
            at,
            bound=name,
        )
