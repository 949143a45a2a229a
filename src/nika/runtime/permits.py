"""The runtime face of the permit judge: every exec/tool effect re-judged at dispatch.

The judge is the check's own `PermitJudge` (01 §permits: check ≡ run), fed the RESOLVED
value. Each decision, granted or refused, is a `permit_checked` frame (17 §the permit
witness · NEP-0007). Builtins judge their own fs/net effects through the same judge.
"""

from __future__ import annotations

from nika.check.effects import SHELL, Effect
from nika.check.judge import DANGEROUS_ENV_VARS, PermitJudge
from nika.runtime.bus import EventBus
from nika.syntax.model import Workflow


class PermitGate:
    """Implements `EffectGate` over one workflow's `PermitJudge`."""

    def __init__(self, workflow: Workflow, bus: EventBus) -> None:
        self.judge = PermitJudge.from_workflow(workflow)
        self._bus = bus

    def exec_program(self, task: str, program: str, *, shell: bool) -> None:
        """Judge the program of an argv command, or the opaque shell line."""
        self._decide(Effect("exec", SHELL if shell else program, task), "permits.exec")

    def tool(self, task: str, name: str) -> None:
        """Judge one tool dispatch (pure-compute builtins need no grant)."""
        self._decide(Effect("tool", name, task), "permits.tools")

    def child_env_names(self) -> tuple[str, ...]:
        """The declared `permits.env` passthrough, minus the dangerous-name floor."""
        names = self.judge.env or frozenset()
        return tuple(sorted(n for n in names if n not in DANGEROUS_ENV_VARS))

    def _decide(self, effect: Effect, gate: str) -> None:
        refusal = self.judge.judge(effect)
        self._bus.emit(
            "permit_checked", effect.task, gate=gate, effect=effect.kind, target=effect.target,
            decision="allow" if refusal is None else "deny",
            why="inside the declared boundary" if refusal is None else refusal.detail,
        )
        if refusal is not None:
            raise refusal
