"""A child process environment is composed, never inherited (01 §permits env · NEP-0005).

runner floor ∪ the declared `permits.env` passthrough ∪ the task's `env:` map, minus the
dangerous-name floor (the judge's `DANGEROUS_ENV_VARS`, stripped last, so no layer can
smuggle one in).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from nika.check.judge import DANGEROUS_ENV_VARS

RUNNER_FLOOR: Final = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME")
"""The normative maximum of undeclared names a child may see."""


def compose_env(
    engine_env: Mapping[str, str], passthrough: Iterable[str], task_env: Mapping[str, str]
) -> dict[str, str]:
    """The exact environment a child is spawned with."""
    out = {name: engine_env[name] for name in RUNNER_FLOOR if name in engine_env}
    # A declared name absent from the engine passes nothing (no empty-string synthesis).
    out.update({name: engine_env[name] for name in passthrough if name in engine_env})
    out.update(task_env)
    for name in DANGEROUS_ENV_VARS.intersection(out):
        del out[name]
    return out
