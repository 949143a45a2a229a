"""Ray's failures, translated at one boundary through one table.

Who owns retries: nika. Every Ray task is submitted with `max_retries=0` and
`retry_exceptions=False`, so Ray never re-runs a verb attempt on its own. A worker or node
that dies mid-attempt surfaces here as `NIKA-CLUSTER-001` (transient), and the task's own
`retry:` policy decides — one budget (`max_attempts`, backoff, `on_codes`), one
`task_retrying` frame per retry in the journal, one success at most in the report. Were Ray
to retry too, an attempt could run twice under one `attempt` number, stream frames twice,
and spend a `retry:` budget the workflow never declared.
"""

from __future__ import annotations

from typing import Final

from nika import codes
from nika.errors import NikaError
from nika.journal.frames import UnitAttempt
from nika.packaged import DISTRIBUTION

_DIED: Final = (
    "WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "ObjectLostError",
    "OwnerDiedError", "ObjectReconstructionFailedError", "OutOfMemoryError",
    "ObjectFetchTimedOutError",
)
"""The attempt's process (or the node under it) went away: nothing came back, retry may help.
Subclasses of `ObjectLostError` are covered by their base."""

_LOST: Final = ("RaySystemError", "RpcError", "AuthenticationError")
"""The cluster itself stopped answering the driver."""

_SETUP: Final = ("RuntimeEnvSetupError", "TaskUnschedulableError")
"""The worker could not be made ready for this attempt: no retry helps."""


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _where(unit: UnitAttempt) -> str:
    return f"task {unit.task!r}" + (f" iteration {unit.iteration}"
                                    if unit.iteration is not None else "")


def _details(unit: UnitAttempt, **extra: object) -> dict[str, object]:
    details: dict[str, object] = {"task": unit.task, "attempt": unit.attempt, **extra}
    if unit.iteration is not None:
        details["iteration"] = unit.iteration
    return details


def died(unit: UnitAttempt, why: str, **details: object) -> NikaError:
    """`NIKA-CLUSTER-001` (transient): the worker or node running `unit` died under it."""
    return NikaError(
        codes.CLUSTER_001,
        f"{_where(unit)}: the Ray worker running attempt {unit.attempt} died before it "
        f"answered ({why}); nothing of that attempt is kept — declare `retry:` on the task "
        "to run it again on a live node",
        details=_details(unit, **details),
    )


def translate(exc: BaseException, unit: UnitAttempt) -> NikaError:
    """The coded error for a Ray failure while `unit` ran remotely."""
    names = _names(exc)
    where = _where(unit)
    summary = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
    details = _details(unit, ray_error=type(exc).__name__)
    if names & set(_DIED):
        return died(unit, summary, ray_error=type(exc).__name__)
    if names & set(_LOST):
        return lost(f"{where}: the Ray cluster stopped answering ({summary})", details)
    if "ModuleNotFoundError" in str(exc) or "No module named" in str(exc):
        return NikaError(
            codes.CLUSTER_003,
            f"{where}: a Ray worker cannot import nika ({summary}); install "
            f"`{DISTRIBUTION}[ray]` (the same version) on every node of the cluster",
            details=details,
        )
    if names & set(_SETUP):
        return NikaError(
            codes.CLUSTER_003,
            f"{where}: Ray could not prepare a worker for this attempt ({summary}); check the "
            "cluster's nodes offer what NIKA_RAY_RESOURCES asks for",
            details=details,
        )
    return NikaError(
        codes.IMPL_001,
        f"{where}: the Ray executor failed with {type(exc).__name__}: {summary}; this is an "
        "engine bug — please report it with the workflow",
        details=details,
    )


def lost(why: str, details: dict[str, object] | None = None) -> NikaError:
    """`NIKA-CLUSTER-002`: the driver has no cluster any more; the run ends."""
    return NikaError(
        codes.CLUSTER_002,
        f"{why}; the run ends here — check the head node is up and reachable from this "
        "machine, then rerun (or `nika run --resume` the journal)",
        details=details or {},
    )
