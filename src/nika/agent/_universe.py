"""The run's tool universe: what the whitelist grants, in whitelist order, intrinsics owned by
the loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nika.agent.intrinsic import Intrinsic
from nika.agent.seams import ToolDefinition, ToolExecutor
from nika.syntax.globs import Whitelist


@dataclass(frozen=True, slots=True)
class Universe:
    """The whitelisted definitions (ordered by the rule granting each, then by name — the order
    a model is offered them and the order `mock/echo` picks from) and who serves each name."""

    definitions: tuple[ToolDefinition, ...]
    intrinsics: dict[str, Intrinsic]
    sources: dict[str, str]

    @classmethod
    def build(
        cls,
        whitelist: Whitelist,
        executor: ToolExecutor | None,
        intrinsics: Sequence[Intrinsic],
    ) -> Universe:
        owned: dict[str, Intrinsic] = {i.definition.name: i for i in intrinsics}
        chosen: dict[str, ToolDefinition] = {}
        upstream = executor.definitions() if executor is not None else ()
        for definition in upstream:
            # Intrinsic names are loop-owned: an upstream definition can never shadow one.
            if definition.name in owned or definition.name in chosen:
                continue
            if whitelist.allows(definition.name):
                chosen[definition.name] = definition
        granted = {n: i for n, i in owned.items() if whitelist.allows(n)}
        for name, intrinsic in granted.items():
            chosen[name] = intrinsic.definition
        ordered = sorted(chosen.values(), key=lambda d: (whitelist.deciding(d.name), d.name))
        return cls(
            definitions=tuple(ordered),
            intrinsics=granted,
            sources={d.name: d.source for d in ordered},
        )
