"""The stdlib builtins as the language declares them: one `Declaration` per builtin.

A declaration is the one statement of a builtin's argument contract — the JSON Schema of its
args, the rules a schema cannot state as named predicates, and the codes a violation
carries. `nika check` judges literal args by it (`check/builtins.py`); the executor judges
resolved args by it before the builtin runs (`tools/builtins`), and hands its schema to a
model as the tool's parameters; the loop's intrinsics (`nika:done`, `nika:compose`) do the
same. So a call the run would refuse for its args is refused by the check first, with the
same code and words.

A family module (`core`, `files`, …) loads when one of its builtins is first looked up in
`DECLARATIONS`: a check of a workflow that calls no builtin builds no declaration at all.

This package sits just above `syntax` (it reads durations, globs, jq and JSON Schema from
there) and below `check`; importing it loads no validator library.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from nika import codes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from nika.stdlib._declare import CONTRACT, Declaration, Problem, Refusal, Rule

__all__ = [
    "CONTRACT", "DECLARATIONS", "FAMILIES", "LOOP_ONLY", "NAMES", "Declaration", "Problem",
    "Refusal", "Rule",
]

FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "nika.stdlib.core": ("nika:assert", "nika:compose", "nika:done", "nika:emit",
                         "nika:inspect", "nika:log", "nika:prompt", "nika:wait"),
    "nika.stdlib.data": ("nika:convert", "nika:hash", "nika:jq", "nika:json_diff",
                         "nika:json_merge_patch", "nika:uuid", "nika:validate"),
    "nika.stdlib.date": ("nika:date",),
    "nika.stdlib.files": ("nika:edit", "nika:glob", "nika:grep", "nika:read", "nika:write"),
    "nika.stdlib.media": ("nika:chart", "nika:decide", "nika:image_fx", "nika:image_generate",
                          "nika:tts_generate"),
    "nika.stdlib.net": ("nika:fetch", "nika:notify"),
}
"""Which module declares which builtins (a test holds it to each module's `DECLARATIONS`)."""

_HOME: Final = {name: module for module, names in FAMILIES.items() for name in names}

NAMES: Final = frozenset(_HOME)
"""The closed `nika:` namespace of the v0.1 set (stdlib/builtins-v0.1.md): a name outside
it is `NIKA-INVOKE-001`."""

LOOP_ONLY: Final[Mapping[str, tuple[str, str]]] = {
    "nika:compose": (codes.BUILTIN_COMPOSE_001, "the agent's self-check intrinsic"),
    "nika:done": (codes.BUILTIN_DONE_001, "the loop-completion sentinel"),
}
"""The builtins served only inside an `agent:` loop: the code a standalone `invoke:` of one
carries at check and at run alike, and what the builtin is."""


class _Declarations(Mapping[str, "Declaration"]):
    """Every builtin's declaration by name, sorted; a family module loads on first lookup."""

    def __init__(self) -> None:
        self._loaded: dict[str, Declaration] = {}

    def __getitem__(self, name: str) -> Declaration:
        found = self._loaded.get(name)
        if found is None:
            family = importlib.import_module(_HOME[name])  # a KeyError: not a builtin
            self._loaded.update((d.name, d) for d in family.DECLARATIONS)
            found = self._loaded[name]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_HOME))

    def __len__(self) -> int:
        return len(_HOME)


DECLARATIONS: Final[Mapping[str, Declaration]] = _Declarations()
"""Every builtin of the closed v0.1 set (stdlib/builtins-v0.1.md), sorted by name."""


def __getattr__(name: str) -> object:
    """The declaration layer's names (`Declaration`, `Rule`, …), loaded on first use: a
    check that calls no builtin never loads the schema judge."""
    if name in ("CONTRACT", "Declaration", "Problem", "Refusal", "Rule"):
        from nika.stdlib import _declare

        value = getattr(_declare, name)
        globals()[name] = value  # later lookups skip this hook
        return value
    raise AttributeError(f"module 'nika.stdlib' has no attribute {name!r}")
