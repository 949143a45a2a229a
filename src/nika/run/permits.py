"""The runtime face of the permit judge: every exec/tool effect re-judged at dispatch.

The judge is the check's own `PermitJudge` (01 §permits: check ≡ run), fed the RESOLVED
value. Each decision, granted or refused, is a `permit_checked` frame (17 §the permit
witness · NEP-0007): `plane` (the effect kind: `exec` · `tool` · `env`), `gate` (what was
judged: the program, the tool, the passed environment names), `decision` (`allow` · `deny`),
`why` (the law applied) and `bound` (the `permits:` entry consulted). Builtins judge their
own fs/net effects through the same judge.
"""

from __future__ import annotations

from nika.check.effects import SHELL, Effect
from nika.check.judge import DANGEROUS_ENV_VARS, NestedJudge, PermitJudge
from nika.journal.bus import EventBus
from nika.journal.frames import PermitChecked
from nika.syntax.model import Workflow


class PermitGate:
    """Implements `EffectGate` over one workflow's `PermitJudge` — for a child workflow,
    nested in its caller's gate (its own permits ∩ the caller's, spec 14 law 3)."""

    def __init__(self, workflow: Workflow, bus: EventBus, *,
                 caller: PermitGate | None = None) -> None:
        own = PermitJudge.from_workflow(workflow)
        self.judge: PermitJudge | NestedJudge = (
            own if caller is None else NestedJudge.under(own, caller.judge))
        self._bus = bus

    @classmethod
    def under_judges(cls, workflow: Workflow, bus: EventBus,
                     callers: tuple[PermitJudge, ...]) -> PermitGate:
        """The same nesting rebuilt from the callers' judges (a cluster worker receives them
        with the attempt: it has the child workflow, not the chain that invoked it)."""
        gate = cls(workflow, bus)
        if callers:
            own = gate.judge
            assert isinstance(own, PermitJudge)
            gate.judge = NestedJudge(own, callers)
        return gate

    def exec_program(self, task: str, program: str, *, shell: bool) -> None:
        """Judge the program of an argv command, or the opaque shell line."""
        self._decide(Effect("exec", SHELL if shell else program, task), "permits.exec")

    def tool(self, task: str, name: str) -> None:
        """Judge one tool dispatch (pure-compute builtins need no grant)."""
        self._decide(Effect("tool", name, task), "permits.tools")

    def child_env_names(self, task: str) -> tuple[str, ...]:
        """The declared `permits.env` passthrough, minus the dangerous-name floor — the
        environment composition a spawn is granted, witnessed (NEP-0005)."""
        names = self.judge.env or frozenset()
        passed = tuple(sorted(n for n in names if n not in DANGEROUS_ENV_VARS))
        self._bus.emit(PermitChecked(task=task, plane="env", gate=",".join(passed),
                                     decision="allow", bound="permits.env",
                                     why="composed floor ∪ declared passthrough (NEP-0005)"))
        return passed

    def _decide(self, effect: Effect, bound: str) -> None:
        refusal = self.judge.judge(effect)
        self._bus.emit(PermitChecked(
            task=effect.task, plane=effect.kind, gate=effect.target,
            decision="allow" if refusal is None else "deny", bound=bound,
            why=f"{bound} grants it" if refusal is None else refusal.detail,
        ))
        if refusal is not None:
            raise refusal
