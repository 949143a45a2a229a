"""Where a verb attempt runs: the one seam between the scheduler and the machines.

The scheduler, the gate, the retry loop, `timeout:` and the concurrency bounds stay in the
driver; a `Placement` is handed one verb attempt (the task, its resolved environment, the
run's services) and returns its raw output or raises its `NikaError`, exactly like
`run_verb`. `LocalPlacement` runs it in this process (the default); the Ray executor
(`nika.run.cluster`) runs it on a cluster worker and streams its frames back here.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from nika.run.verbs import VerbAttempt, run_verb


class Placement(Protocol):
    """Runs one verb attempt somewhere; the contract of `run_verb` (raw output or a raised
    `NikaError`; cancellation really stops the attempt)."""

    async def run(self, attempt: VerbAttempt) -> Any: ...


class LocalPlacement:
    """In this process, on the run's event loop: the attempt is `run_verb` itself."""

    run = staticmethod(run_verb)


LOCAL: Final = LocalPlacement()
