"""Hands the loop's events to the observer: stamps `seq` and `turn`, and contains its failures."""

from __future__ import annotations

import logging
from typing import Any

from nika.agent.observe import AgentEvent
from nika.agent.seams import AgentObserver

logger = logging.getLogger("nika.agent")


class Emitter:
    """Numbers events 0, 1, 2 … per run. An observer that raises is logged and otherwise
    ignored: watching a run never changes its outcome."""

    __slots__ = ("_observer", "_seq")

    def __init__(self, observer: AgentObserver | None) -> None:
        self._observer = observer
        self._seq = 0

    @property
    def active(self) -> bool:
        """Is anyone listening? (Lets the loop skip building costly event fields.)"""
        return self._observer is not None

    def __call__(self, event_type: type[AgentEvent], turn: int, **fields: Any) -> None:
        observer = self._observer
        if observer is None:
            return
        event = event_type(seq=self._seq, turn=turn, **fields)
        self._seq += 1
        try:
            observer.on_event(event)
        except Exception:
            logger.warning(
                "agent observer %s failed on %s (seq %d); the run goes on",
                type(observer).__name__,
                event.kind,
                event.seq,
                exc_info=True,
            )
