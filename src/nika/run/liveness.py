"""The run's liveness ledger: how the scheduler knows a run can no longer progress.

A run progresses while some coroutine of it can move on its own: a task running its verb, a
retry sleeping out its backoff, an iteration waiting for a concurrency slot. The one way a
coroutine stops moving without a timer or I/O to wake it is a recovery await (05 §recover: it
parks until its source settles). The check refuses every static cycle of such awaits
(`NIKA-DAG-004` over `G_p ∪ E_r`); this ledger is the run-time backstop (the await-cycle
detector): it counts the live coroutines, and when the count reaches zero with tasks still
unsettled, nothing can ever settle them — the scheduler ends the run with `NIKA-DAG-010`
instead of waiting forever.

Counting is exact at every step the scheduler takes, never approximate: a wake-up is counted
when the settle that causes it happens (not when the woken coroutine next runs), and a
fan-out's last iteration hands its count back to the parent that awaits the group. A
coroutine waiting on a `for_each.max_parallel` slot counts as live (conservatively: a false
stall would kill a healthy run, a missed one is still refused statically by the check).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping


class Liveness:
    """Counts live coroutines and parks recovery awaits; `on_stall` fires when the count
    drops to zero while `unsettled()` is true."""

    __slots__ = ("_live", "_on_stall", "_parked", "_unsettled")

    def __init__(self, on_stall: Callable[[], None], unsettled: Callable[[], bool]) -> None:
        self._live = 0
        self._on_stall = on_stall
        self._unsettled = unsettled
        self._parked: dict[str, list[tuple[str, asyncio.Future[None]]]] = {}

    @property
    def parked(self) -> Mapping[str, tuple[str, ...]]:
        """Each parked waiter task and the sources it awaits (sorted, for messages)."""
        waits: dict[str, set[str]] = {}
        for source, waiters in self._parked.items():
            for waiter, _ in waiters:
                waits.setdefault(waiter, set()).add(source)
        return {w: tuple(sorted(s)) for w, s in sorted(waits.items())}

    def started(self, count: int = 1) -> None:
        """`count` coroutines began (a task admitted, a fan-out's extra iterations)."""
        self._live += count

    def ended(self, count: int = 1) -> None:
        """`count` coroutines finished; may find the run stalled."""
        self._live -= count
        self.check()

    def check(self) -> None:
        """Fire `on_stall` if nothing is live and something is still unsettled."""
        if self._live <= 0 and self._unsettled():
            self._on_stall()

    async def park(self, waiter: str, source: str) -> None:
        """Wait (as task `waiter`) until `settled(source)` is called."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (waiter, future)
        self._parked.setdefault(source, []).append(entry)
        self.ended()
        try:
            await future
        finally:
            if future.cancelled():  # woken by cancellation, not by the settle: count it here
                waiters = self._parked.get(source, [])
                if entry in waiters:
                    waiters.remove(entry)
                self._live += 1

    def settled(self, source: str) -> None:
        """`source` settled: every coroutine parked on it is live again from this instant."""
        for _, future in self._parked.pop(source, ()):
            if not future.done():
                future.set_result(None)
                self._live += 1
