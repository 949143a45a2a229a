"""Filesystem paths as the permits judge sees them (01 §permits · NEP-0009).

A path argument is resolved against the workflow directory (`base_dir`) to its EFFECTIVE
identity: symlinks of the existing prefix resolved, the not-yet-existing tail kept lexically.
The judge rules on that identity, spelled the way permit globs are written — POSIX, no `./`:
a path under `base_dir` is base-relative (`data/x.csv`); one outside keeps the root its
argument was written under (`/etc/x` stays absolute, `../x` stays a `..` walk), so a `**`
grant never admits an escape and a planted symlink pointing out is judged where it lands.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from nika import codes
from nika.check.effects import Effect
from nika.stdlib._paths import FsKind, unusable, unusable_detail
from nika.tools.builtins._base import Context, fail


@dataclass(frozen=True, slots=True)
class FsPath:
    """A resolved path: `real` is absolute, `rel` its judged spelling (see the module doc)."""

    real: Path
    rel: str


def judge_effect(ctx: Context, effect: Effect) -> None:
    """Raise the judge's refusal (a `NikaError`, e.g. `NIKA-SEC-004`) if it refuses `effect`."""
    if ctx.judge is None:
        return
    refusal = ctx.judge.judge(effect)
    if refusal is not None:
        raise refusal


def resolve(ctx: Context, raw: str, arg: str = "path") -> FsPath:
    """Resolve `raw` to its effective identity and its judged spelling."""
    if unusable(raw):  # its declaration judged the args; this is a path derived from them
        raise fail(codes.INVOKE_002, unusable_detail(arg, raw), arg=arg)
    base = ctx.base_dir.resolve()
    candidate = Path(raw)
    real = (candidate if candidate.is_absolute() else base / candidate).resolve(strict=False)
    if real == base or base in real.parents:
        rel = real.relative_to(base).as_posix()
    elif candidate.is_absolute():
        rel = real.as_posix()
    else:
        rel = Path(os.path.relpath(real, base)).as_posix()
    return FsPath(real, rel)


def judged(ctx: Context, raw: str, kind: FsKind, arg: str = "path") -> FsPath:
    """Resolve `raw` and have the judge rule on the `kind` effect BEFORE anything touches it."""
    path = resolve(ctx, raw, arg)
    judge_effect(ctx, Effect(kind=kind, target=path.rel, task=ctx.task))
    return path
