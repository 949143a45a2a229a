"""Reading a run journal: the chain walk behind `nika trace verify` and `--resume`, and the
frame reader behind `nika trace show`.

The walk (17 §the chain) re-hashes every line: the first line must chain to the genesis tag,
every later one to the previous line's exact bytes. It reaches one of five verdicts — the
first three mean « the chain walks » and exit 0, the last two exit 2:

- `clean` — every link holds, a lifecycle-terminal frame was reached, and every required
  frame is present;
- `finding` — the chain holds but a NEP-0007 requirement is unmet: the run exercised effects
  (an `exec`, a tool that needs a grant) with zero `permit_checked` frames. An old journal or
  a non-conformant engine lands here honestly — never forged, never a crash. A run that
  served results from a `--resume` journal that did not verify (its boot manifest says
  `resume_unverified`) lands here too: its chain is its own, its ancestry only claimed;
- `incomplete` — the chain holds but no lifecycle-terminal frame is ever reached: the run was
  killed or crashed between writes (17 §the end of the run: the READER names it, a dying
  process cannot). A last line cut short mid-write — a torn tail, from a crash or a power
  cut — is named as such and is never forgery;
- `forged` — the first line whose link fails (an edit breaks the NEXT line's link; an
  insertion, deletion or reorder the line where the sequence changes), or a line that is not
  a JSON object at all;
- `refused` — a decode bound fired before the walk could judge (15 §the verifier is a
  fortress: a line over 1 MiB, a file over 256 MiB — `Oversized`): no verdict at all.

The chain cannot bind the LAST line (nothing follows it): pinning the HEAD printed at run end
(`head=`) closes that gap — a journal whose last line does not hash to it is forged there.
The reader is untrusted-input code: bounds are checked before parsing, nothing is repaired,
unknown members, field keys and kinds are tolerated (the additive law).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from nika.check.effects import needs_grant
from nika.journal.decoded import (
    Read,
    ReadTaskStarted,
    ReadToolCompleted,
    ReadToolInvoked,
    ReadVerbInvoked,
    decode,
)
from nika.journal.frames import WORKFLOW_END_KINDS
from nika.journal.writer import GENESIS_CHAIN, line_hash

MAX_LINE: Final = 1 << 20
"""15 §decode bounds: one journal line beyond 1 MiB is refused before the JSON parser."""
MAX_FILE: Final = 256 << 20
"""15 §decode bounds: a journal beyond 256 MiB is not a run this engine produced."""
TERMINAL_KINDS: Final = frozenset({*WORKFLOW_END_KINDS.values(), "run_sealed"})
"""17 §the end of the run: the lifecycle-terminal kinds."""
WALKS: Final = frozenset({"clean", "finding", "incomplete"})
"""The verdicts that mean « the chain walks » (exit 0)."""
_LOOP_SERVED: Final = frozenset({"nika:done", "nika:compose"})
_EFFECT_KINDS: Final = frozenset({"task_started", "verb_invoked", "tool_invoked"})
UNVERIFIED_CLAIMS: Final = ("resume_unverified", "resume_chainless")
"""Boot-manifest claims that the run served results from a journal that did not verify
(`resume_chainless`: what engines before the walk-every-journal rule wrote): such a journal
is a FINDING, never CLEAN — a resume cannot launder a forged ancestry."""

TraceStatus = Literal["clean", "finding", "incomplete", "forged", "refused"]
Visit = Callable[["Frame"], None]
"""Called with each chain-verified frame, in order."""


@dataclass(frozen=True, slots=True)
class TraceVerdict:
    """The walk's result. `line` is 1-based (the forged, refused or torn line); `frames`
    counts the lines whose links held; `head` is the last verified line's hash; `torn` marks
    a last line cut short mid-write; `findings` name the unmet requirements."""

    status: TraceStatus
    frames: int
    head: str | None
    line: int | None = None
    reason: str = ""
    torn: bool = False
    findings: tuple[str, ...] = ()
    terminal: str | None = None

    @property
    def walks(self) -> bool:
        """Did the chain walk (clean · finding · incomplete)?"""
        return self.status in WALKS

    def render(self) -> str:
        """The verdict line `nika trace verify` prints first."""
        torn = (f" · torn tail: line {self.line} is cut short mid-write (a crash, not "
                "tampering)") if self.torn else ""
        if self.status == "clean":
            return (f"CLEAN · {self.frames} frames · chain intact · ended {self.terminal} · "
                    f"head {self.head}{torn}")
        if self.status == "finding":
            return f"FINDING · {self.frames} frames · chain intact · {self.findings[0]}{torn}"
        if self.status == "incomplete":
            return (f"INCOMPLETE · {self.frames} frames · chain intact · no lifecycle-terminal "
                    f"frame: the run's end is unknown (killed or crashed between writes){torn}")
        if self.status == "forged":
            return f"FORGED at line {self.line} · {self.reason}"
        return f"REFUSED · {self.reason}"


_DECODE: Final = json.JSONDecoder().decode


def parse_frame(line: bytes) -> dict[str, Any] | None:
    """One journal line as a JSON object, or None."""
    try:
        frame = _DECODE(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return frame if isinstance(frame, dict) else None


def frame_fields(frame: Mapping[str, Any]) -> dict[str, Any]:
    """A frame's `fields` pairs as a mapping (the first value of each string key wins;
    malformed pairs are skipped — the additive law: report « unrecorded », never guess)."""
    out: dict[str, Any] = {}
    pairs = frame.get("fields")
    for pair in pairs if isinstance(pairs, list) else ():
        if isinstance(pair, dict) and isinstance(pair.get("key"), str):
            out.setdefault(pair["key"], pair.get("value"))
    return out


class _Witness:
    """Tracks NEP-0007: did the run exercise effects, and did it witness any decision?"""

    def __init__(self) -> None:
        self.effect: str | None = None
        self.decisions = 0
        self.ancestry: str | None = None

    def see(self, kind: str, frame: Mapping[str, Any]) -> None:
        if kind == "workflow_started" and self.ancestry is None:
            fields = frame_fields(frame)
            claim = next((fields[k] for k in UNVERIFIED_CLAIMS if k in fields), None)
            if claim is not None:
                self.ancestry = (f"the run served results from a --resume journal that did not "
                                 f"verify (resume_unverified: {str(claim)[:40]}): its "
                                 "ancestry is claimed, not proven")
            return
        if kind == "permit_checked":
            self.decisions += 1
            return
        if self.effect is not None or kind not in _EFFECT_KINDS:
            return  # a terminal frame (a served task's included) proves no new effect
        record = decode(kind, frame_fields(frame))
        verb = note = program = tool = None
        if isinstance(record, ReadTaskStarted):
            verb, note = record.verb, record.note
        elif isinstance(record, ReadVerbInvoked):
            verb, program, tool = record.verb, record.program, record.tool
        elif isinstance(record, ReadToolInvoked):
            tool = record.tool if record.tool is not None else record.name
        elif isinstance(record, ReadToolCompleted):
            tool = record.name
        if verb == "exec" or (note is not None and note.startswith("exec")):
            self.effect = f"exec {program}" if program is not None else str(note)
        if tool is not None and tool not in _LOOP_SERVED and needs_grant(tool):
            self.effect = f"tool {tool}"

    def findings(self) -> tuple[str, ...]:
        found: tuple[str, ...] = () if self.ancestry is None else (self.ancestry,)
        if self.effect is None or self.decisions:
            return found
        return (*found, f"the permit witness is absent: the run exercised effects "
                f"({self.effect}) with zero permit_checked frames (NEP-0007 · an older "
                "journal, or an engine that does not witness its decisions)")


def verify(data: bytes, *, head: str | None = None, visit: Visit | None = None) -> TraceVerdict:
    """Walk the chain of a whole journal's bytes; `head` pins the expected last line hash;
    `visit` sees every chain-verified frame."""
    if len(data) > MAX_FILE:
        return TraceVerdict("refused", 0, None, reason=(
            f"Oversized: the journal is {len(data)} bytes, beyond the verifier's file bound "
            f"({MAX_FILE} bytes) — refused before any parse"))
    lines = data.split(b"\n")
    tail = lines.pop()
    ragged = tail != b""  # a complete journal ends with a newline
    if ragged:
        lines.append(tail)
    expected, terminal = GENESIS_CHAIN, None
    witness = _Witness()
    torn_at: int | None = None
    for n, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            return TraceVerdict("refused", n - 1, _head(n, expected), n, (
                f"Oversized: line {n} is {len(line)} bytes — beyond the verifier's line bound "
                f"({MAX_LINE} bytes), refused before any parse"))
        frame = parse_frame(line)
        if frame is None:
            if ragged and n == len(lines):
                torn_at = n  # a half-written last line: a crash mid-write, not an edit
                break
            return TraceVerdict("forged", n - 1, _head(n, expected), n, "not a JSON frame")
        if frame.get("chain") != expected:
            bound = "the genesis tag" if n == 1 else f"line {n - 1}'s exact bytes"
            return TraceVerdict("forged", n - 1, _head(n, expected), n,
                           f"its chain does not match {bound} · lines 1-{n - 1} chain intact"
                           if n > 1 else f"its chain does not match {bound}")
        expected = line_hash(line)
        kind = _kind(frame)
        if kind in TERMINAL_KINDS and terminal is None:
            terminal = kind
        witness.see(kind, frame)
        if visit is not None:
            visit(_frame(n, kind, frame))
    count = len(lines) - (1 if torn_at else 0)
    tip = expected if count else None
    if head is not None and tip != head:
        return _head_mismatch(lines[:count], head, count, tip)
    torn = torn_at is not None
    if terminal is None:
        return TraceVerdict("incomplete", count, tip, torn_at, torn=torn)
    findings = witness.findings()
    if findings:
        return TraceVerdict("finding", count, tip, torn_at, torn=torn, findings=findings,
                       terminal=terminal)
    return TraceVerdict("clean", count, tip, torn_at, torn=torn, terminal=terminal)


def _head(n: int, expected: str) -> str | None:
    return expected if n > 1 else None


def _head_mismatch(lines: list[bytes], head: str, count: int, tip: str | None) -> TraceVerdict:
    for n, line in enumerate(lines, 1):
        if line_hash(line) == head:  # the pinned head exists: everything after it is extra
            return TraceVerdict("forged", n, head, n + 1,
                           f"line {n} is the pinned head; the lines after it were added")
    return TraceVerdict("forged", count - 1 if count else 0, tip, max(count, 1),
                   "the last line does not hash to the pinned head (edited, or the lines "
                   "after it removed)")


def read_journal(path: Path, *, what: str = "the journal") -> bytes:
    """A journal's bytes, at most one byte past `MAX_FILE` (so `verify` refuses it without
    reading more), read through the guard: raises `NikaError` (`NIKA-CLI-002`) when it cannot
    be read or is not a regular file (a FIFO, device or directory is never opened to block)."""
    from nika.guarded_read import Unreadable, read_capped, refusal

    data = read_capped(path, MAX_FILE, head=True)
    if isinstance(data, Unreadable):
        raise refusal(what, str(path), data)
    return data


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

    def read(self) -> Read:
        """The frame as its typed record (`decoded.decode`)."""
        return decode(self.kind, self.fields)


def _kind(raw: Mapping[str, Any]) -> str:
    kind = raw.get("kind")
    return kind if isinstance(kind, str) else ""  # a hostile kind names nothing


def _frame(line: int, kind: str, raw: Mapping[str, Any]) -> Frame:
    stamp = raw.get("timestamp")
    return Frame(line, kind,
                 stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else None,
                 frame_fields(raw))


def read_frames(data: bytes) -> Iterator[Frame]:
    """Every line that parses as a frame, in order; lines past the bounds or not JSON are
    skipped (`verify` is what judges them)."""
    for n, line in enumerate(data[:MAX_FILE].split(b"\n"), 1):
        if not line or len(line) > MAX_LINE:
            continue
        raw = parse_frame(line)
        if raw is not None:
            yield _frame(n, _kind(raw), raw)


_OPENS_OBJECT: Final = re.compile(rb"\s*\{")

HEAD_PREFIX_MIN: Final = 12
"""The shortest head a display command takes (`trace verify|show --head`): the README and the
run's last line print heads whole, people paste the first 12 hex digits. `--resume --head`
takes all 64 (a pin against the writer it guards from must be the whole hash)."""


def expand_head(data: bytes, prefix: str) -> str:
    """The full line hash of the journal line whose hash begins with `prefix` (the last such
    line: a pinned head is the last line a run wrote); `prefix` itself when none does, so the
    walk reports the mismatch. `prefix` is lower-case hex of `HEAD_PREFIX_MIN`-64 digits."""
    if len(prefix) == 64:
        return prefix
    found = prefix
    for line in data[:MAX_FILE].split(b"\n"):
        if line and (full := line_hash(line)).startswith(prefix):
            found = full
    return found


def is_journal(data: bytes) -> bool:
    """Whether `data` reads as a journal at all: it opens a JSON object. A journal whose frames
    were edited still does (the walk calls it forged); a workflow file or an empty one does
    not."""
    return _OPENS_OBJECT.match(data) is not None  # a match, not a stripped copy of the file
