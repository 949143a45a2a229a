"""Reading a run journal: the chain walk behind `nika trace verify`, and the frame reader
behind `nika trace show`.

The walk (17 §the chain) re-hashes every line: the first line must chain to the genesis tag,
every later one to the previous line's exact bytes. The verdict is one of

- `OK` — every link holds and a lifecycle-terminal frame was reached;
- `FORGED at line N` — the first line whose link fails (an edit breaks the NEXT line's link,
  an insertion, deletion or reorder the line where the sequence changes), or a line that is
  not a JSON frame at all;
- `incomplete` — the chain holds but no terminal frame exists (a killed run: 17 §the end of
  the run). A last line cut short mid-write is part of that same story, not a forgery;
- `refused` — a line or file past the decode bounds of 15 §the verifier (`Oversized`).

The chain cannot bind the LAST line (nothing follows it): pinning the HEAD printed at run end
(`head=`) closes that gap — a journal whose last line does not hash to it is FORGED there.
The reader is untrusted-input code: bounds are checked before parsing, nothing is repaired,
unknown members, field keys and kinds are tolerated (the additive law).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from nika.runtime.journal import GENESIS_CHAIN, line_hash

MAX_LINE: Final = 1 << 20
"""15 §decode bounds: one journal line beyond 1 MiB is refused before the JSON parser."""
MAX_FILE: Final = 256 << 20
"""15 §decode bounds: a journal beyond 256 MiB is not a run this engine produced."""
TERMINAL_KINDS: Final = frozenset(
    {"workflow_completed", "workflow_failed", "workflow_cancelled", "workflow_paused",
     "run_sealed"}
)
"""17 §the end of the run: the lifecycle-terminal kinds."""

Status = Literal["ok", "forged", "incomplete", "refused"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The walk's result. `line` is 1-based (the forged or refused line); `frames` counts the
    lines whose links held; `head` is the last verified line's hash."""

    status: Status
    frames: int
    head: str | None
    line: int | None = None
    reason: str = ""

    def render(self) -> str:
        """The one-line verdict `nika trace verify` prints."""
        if self.status == "ok":
            return f"OK · {self.frames} frames · head {self.head}"
        if self.status == "forged":
            return f"FORGED at line {self.line}: {self.reason}"
        if self.status == "refused":
            return f"refused · {self.reason}"
        return f"incomplete · {self.frames} frames chain-verified · {self.reason}"


def _frame(line: bytes) -> dict[str, Any] | None:
    try:
        frame = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return frame if isinstance(frame, dict) else None


def verify(data: bytes, *, head: str | None = None) -> Verdict:
    """Walk the chain of a whole journal's bytes; `head` pins the expected last line hash."""
    if len(data) > MAX_FILE:
        return Verdict("refused", 0, None, reason=f"Oversized: the file exceeds {MAX_FILE} bytes")
    lines = data.split(b"\n")
    tail = lines.pop()
    torn = tail != b""  # a complete journal ends with a newline
    if torn:
        lines.append(tail)
    expected, terminal = GENESIS_CHAIN, False
    for n, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            return Verdict("refused", n - 1, _head(n, expected), n,
                           f"Oversized: line {n} exceeds {MAX_LINE} bytes")
        frame = _frame(line)
        if frame is None:
            if torn and n == len(lines) and not terminal:
                return Verdict("incomplete", n - 1, _head(n, expected), reason=(
                    "no terminal workflow frame, and the last line is cut short mid-write: "
                    "the run's end is unknown"))
            return Verdict("forged", n - 1, _head(n, expected), n, "not a JSON frame")
        if frame.get("chain") != expected:
            bound = "the genesis tag" if n == 1 else f"line {n - 1}"
            return Verdict("forged", n - 1, _head(n, expected), n,
                           f"its chain does not match {bound}")
        expected = line_hash(line)
        terminal = terminal or frame.get("kind") in TERMINAL_KINDS
    count = len(lines)
    tip = expected if count else None
    if head is not None and tip != head:
        return _head_mismatch(lines, head, count, tip)
    if not terminal:
        return Verdict("incomplete", count, tip, reason=(
            "no terminal workflow frame: the run's end is unknown"))
    return Verdict("ok", count, tip)


def _head(n: int, expected: str) -> str | None:
    return expected if n > 1 else None


def _head_mismatch(lines: list[bytes], head: str, count: int, tip: str | None) -> Verdict:
    for n, line in enumerate(lines, 1):
        if line_hash(line) == head:  # the pinned head exists: everything after it is extra
            return Verdict("forged", n, head, n + 1,
                           f"line {n} is the pinned head; the lines after it were added")
    return Verdict("forged", count - 1 if count else 0, tip, max(count, 1),
                   "the last line does not hash to the pinned head (edited, or the lines "
                   "after it removed)")


def verify_file(path: Path, *, head: str | None = None) -> Verdict:
    """`verify` over a file, refusing one past `MAX_FILE` before reading it (raises OSError
    when the file cannot be read)."""
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE + 1)
    return verify(data, head=head)


@dataclass(frozen=True, slots=True)
class Frame:
    """One parsed journal line, as `nika trace show` reads it. `fields` keeps the first
    value of each string key; malformed pairs are skipped (reported « unrecorded »)."""

    line: int
    kind: str
    timestamp: int | None
    fields: Mapping[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str | None:
        task = self.fields.get("task")
        return task if isinstance(task, str) else None


def read_frames(data: bytes) -> Iterator[Frame]:
    """Every line that parses as a frame, in order; lines past the bounds or not JSON are
    skipped (`verify` is what judges them)."""
    for n, line in enumerate(data[:MAX_FILE].split(b"\n"), 1):
        if not line or len(line) > MAX_LINE:
            continue
        raw = _frame(line)
        if raw is None:
            continue
        fields: dict[str, Any] = {}
        pairs = raw.get("fields")
        for pair in pairs if isinstance(pairs, list) else ():
            if isinstance(pair, dict) and isinstance(pair.get("key"), str):
                fields.setdefault(pair["key"], pair.get("value"))
        stamp = raw.get("timestamp")
        yield Frame(n, str(raw.get("kind", "")),
                    stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else None,
                    fields)
