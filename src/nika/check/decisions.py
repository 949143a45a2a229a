"""A `nika:decide` call judged before the run, where the file states its bundle (spec 11).

The bundle is literal when the call writes it inline (a map with no `${{ }}` island), names a
`const:` holding one (`bundle: ${{ const.rubric }}`), or names a JSON side file the check can
read (a literal path, or a const holding one; read through the guarded side-file reader). A
literal bundle that breaks its own laws is `NIKA-DECIDE-001` here, naming the law, with the
words the run would refuse it with; when the evidence snapshot is literal too, the whole
evaluation is static, so a snapshot the schema refuses is `NIKA-DECIDE-002` here as well. A
bundle file the check cannot read (absent, not regular, too large) is the run's to judge.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.check.context import CheckContext
from nika.check.effects import const_value
from nika.errors import NikaError
from nika.stdlib._schema import templated
from nika.syntax.model import Task

MAX_BUNDLE_BYTES: Final = 32 * 1024 * 1024
"""The largest bundle file the check reads (the file builtins' cap)."""

_UNKNOWN: Final = object()


def findings(ctx: CheckContext, task: Task, args: Mapping[str, Any]) -> Iterator[NikaError]:
    """The refusal of a literal bundle (and of a literal snapshot under it), if any."""
    from nika.decide import evaluate, validate  # the kernel loads with the first decide call

    try:
        bundle = _literal(ctx, args.get("bundle"), read=True)
        if bundle is _UNKNOWN:
            return
        evidence = _literal(ctx, args.get("evidence"), read=False)
        if evidence is _UNKNOWN:
            validate(bundle)
        else:
            evaluate(bundle, evidence)
    except NikaError as err:
        arg = "bundle" if err.code == codes.DECIDE_001 else "evidence"
        yield ctx.error(err.code, f"task `{task.id}` · `nika:decide`: {err.detail}",
                        (*task.path, "invoke", "args", arg), **err.details)


def _literal(ctx: CheckContext, value: Any, *, read: bool) -> Any:
    """The value as the file states it; `_UNKNOWN` when only the run knows it."""
    const = const_value(value, {n: c.value for n, c in ctx.workflow.const.items()})
    if const is not None:
        value = const
    if isinstance(value, str) and read and not templated(value):
        return _side_file(ctx, value)
    if templated(value):
        return _UNKNOWN
    return value


def _side_file(ctx: CheckContext, raw: str) -> Any:
    from nika.decide.bundle import load
    from nika.guarded_read import Unreadable, read_capped

    if not ctx.read_side_files or not raw or "\x00" in raw:
        return _UNKNOWN
    data = read_capped(Path(ctx.base_dir) / raw, MAX_BUNDLE_BYTES)
    if isinstance(data, Unreadable):
        return _UNKNOWN
    return load(data, raw)  # not JSON: NIKA-DECIDE-001, as the run reads it
