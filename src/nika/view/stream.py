"""`nika run --json`: every run event as one canonical JSON line on a text stream."""

from __future__ import annotations

from typing import TextIO

from nika._term import json_printable
from nika.canonical import loose_json
from nika.journal.bus import RunEvent


class NdjsonSink:
    """Writes one line per event and flushes it (a reader tails the stream live). Events are
    already masked by the bus."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def emit(self, event: RunEvent) -> None:
        line = loose_json(event.to_dict())
        self._stream.write(json_printable(line) + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._stream.flush()
