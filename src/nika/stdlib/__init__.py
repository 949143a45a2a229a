"""The stdlib builtins as the language declares them: one `Declaration` per builtin.

A declaration is the one statement of a builtin's argument contract — the JSON Schema of its
args, the rules a schema cannot state as named predicates, and the codes a violation
carries. `nika check` judges literal args by it (`check/builtins.py`); the executor judges
resolved args by it before the builtin runs (`tools/builtins`), and hands its schema to a
model as the tool's parameters; the loop's intrinsics (`nika:done`, `nika:compose`) do the
same. So a call the run would refuse for its args is refused by the check first, with the
same code and words.

This package sits just above `syntax` (it reads durations, globs, jq and JSON Schema from
there) and below `check`; importing it loads no validator library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from nika.stdlib import core, data, date, files, media, net
from nika.stdlib._declare import CONTRACT, Declaration, Problem, Refusal, Rule
from nika.stdlib.core import LOOP_ONLY

__all__ = [
    "CONTRACT", "DECLARATIONS", "LOOP_ONLY", "NAMES", "Declaration", "Problem", "Refusal", "Rule",
]

DECLARATIONS: Final[Mapping[str, Declaration]] = {
    d.name: d
    for d in sorted(
        (*core.DECLARATIONS, *files.DECLARATIONS, *data.DECLARATIONS, *date.DECLARATIONS,
         *net.DECLARATIONS, *media.DECLARATIONS),
        key=lambda d: d.name,
    )
}
"""Every builtin of the closed v0.1 set (stdlib/builtins-v0.1.md), sorted by name."""

NAMES: Final = frozenset(DECLARATIONS)
"""The closed `nika:` namespace: a name outside it is `NIKA-INVOKE-001`."""
