"""The run journal (spec 17, normative): one hash-chained NDJSON file per run.

Each line is one frame in canonical JSON (sorted keys, no spaces, UTF-8):

    {"chain": <sha256 hex>, "correlation": <str|null>, "fields": [{"key", "value"}, …],
     "id": {"uuid": <UUIDv7>}, "kind": <17-trace kind>, "run": <run uuid>, "timestamp": <ns>}

`chain` is the sha256 hex of the previous line's exact bytes (without its `\\n`); the first
line chains to `sha256(GENESIS)` — the tag the spec's reference journals chain to, so a
journal this engine writes and one a conformant engine wrote verify under the same walk. The
last line's hash is the journal's HEAD. Three laws shape the sink: lazy open (no frame, no
file), append-only (never rewritten), infallible rider (an I/O failure is raised once for the
bus to record — it never reaches the run's verdict — and the sink goes quiet).

Durability policy: every frame is written and flushed to the OS as it is emitted, so a killed
process (SIGKILL, OOM) loses no complete line. Frames that close a unit of work — a task's
terminal or cache-hit frame, a `for_each` iteration's checkpoint, a workflow terminal or
pause (`DURABLE_KINDS`) — also request an fdatasync, which a syncer thread runs off the event
loop (`_sync.BackgroundSync`: an fsync costs milliseconds, boundaries arriving during one are
covered by the next); the directory entry is fsynced when the file is created, and `close`
syncs once more, synchronously. After a power cut every task settled before the last
completed sync is on disk, and what follows is at worst a torn last line, which the verify
walk reads as a torn tail, never as forgery.

Each line's fields are the frame's task, then the frame's pairs (`wire.wire`, the one
serializer). Values arrive already masked by the bus; the boot manifest (`manifest()`) is
merged into the `workflow_started` prologue ahead of its pairs and masked here, because it
never crosses the bus.
"""

from __future__ import annotations

import hashlib
import os
import platform
import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

from nika import __version__
from nika.canonical import canonical_bytes, canonical_json, plain
from nika.journal._sync import BackgroundSync
from nika.journal.bus import RunEvent
from nika.journal.frames import TASK_END_KINDS, WORKFLOW_END_KINDS
from nika.journal.wire import wire
from nika.prices import table_pin
from nika.syntax.model import Workflow

GENESIS: Final = b"nika-trace-v1"
"""The tag whose sha256 is the first line's `chain` (the tag of the spec's corpus journals)."""

GENESIS_CHAIN: Final = hashlib.sha256(GENESIS).hexdigest()
TRACE_FORMAT: Final = 2
TRACE_DIR: Final = Path(".nika") / "traces"
"""Where journals go, relative to the project directory (the engine's working directory)."""
ENGINE_PREFIX: Final = "nika-py/"
"""What this engine's `engine_version` begins with (a reader tells its own journals apart)."""
ENGINE_VERSION: Final = f"{ENGINE_PREFIX}{__version__}"
"""What `engine_version` records: this engine and its version (17 §the fold law judges a
resume across a difference in it)."""
SPEC_PIN: Final = "332f523"
"""The nika-spec commit this engine implements and its conformance was proven at (17 · the
boot manifest's `spec_pin`; the spec repository's README names the same commit)."""
DURABLE_KINDS: Final = frozenset({
    *TASK_END_KINDS.values(), *WORKFLOW_END_KINDS.values(), "task_cache_hit",
    "checkpoint_written", "run_sealed",
})
"""Frames after which the journal is fsynced: the task boundaries and the run's end."""

Rng = Callable[[int], int]
"""`bits -> int`: a source of random bits (`secrets.randbits`, or a seeded one in tests)."""


def line_hash(line: bytes) -> str:
    """The hash the NEXT line's `chain` must carry: sha256 hex of `line` (no terminator)."""
    return hashlib.sha256(line).hexdigest()


def encode(frame: Mapping[str, Any]) -> bytes:
    """A frame's canonical bytes (no trailing newline)."""
    return canonical_bytes(frame)


class Uuid7:
    """UUIDv7 (RFC 9562) from a frame's timestamp and random bits.

    Time-ordered even within one millisecond: a later id in the same millisecond is the
    previous one's 74 random bits plus one (RFC 9562 §6.2, method 2), never a fresh draw.
    """

    __slots__ = ("_last", "_rng")

    def __init__(self, rng: Rng = secrets.randbits) -> None:
        self._rng = rng
        self._last = (-1, 0)

    def stamp(self, timestamp_ns: int) -> str:
        """The next id for a frame stamped `timestamp_ns`."""
        ms = max(timestamp_ns // 1_000_000, self._last[0])  # a clock step back keeps order
        rand = self._last[1] + 1 if ms == self._last[0] else self._rng(74)
        if rand >> 74:  # the counter overflowed: borrow the next millisecond
            ms, rand = ms + 1, self._rng(74)
        self._last = (ms, rand)
        value = (
            (ms & (1 << 48) - 1) << 80
            | 0x7 << 76
            | (rand >> 62) << 64
            | 0b10 << 62
            | rand & (1 << 62) - 1
        )
        text = f"{value:032x}"
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _posture(workflow: Workflow) -> str:
    if workflow.permits is None:
        return "no boundary declared · effecting tools are refused (NIKA-AUTH-006)"
    if not workflow.permits.raw:
        return "declared zero · default-deny"
    return "declared boundary · default-deny"


def manifest(source: bytes, workflow: Workflow, *, semantic: str | None = None,
             extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The boot manifest of `trace_format: 2` (17 §the prologue), in the spec's order, with
    only the facts this engine can honestly state: `seed` is absent, never faked (frame ids
    draw on the OS, whatever `run:` seeds). `semantic` is the workflow's semantic hash;
    `extra` are the launch's claims (the budget, the lock digest, the resume's — ADR-099).
    The inputs' origins ride the `workflow_started` frame's own `inputs` pair."""
    out: dict[str, Any] = {"workflow": workflow.name, "permits": _posture(workflow)}
    if workflow.permits is not None:
        out["permits_json"] = canonical_json(plain(workflow.permits.raw))
    out |= {
        "workflow_sha256": hashlib.sha256(source).hexdigest(),
        "workflow_sha256_lf": hashlib.sha256(
            source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        ).hexdigest(),
    }
    if semantic is not None:
        out["semantic_hash"] = semantic
    out |= {
        "sandbox": "noop",  # no OS confinement: the permit gate is the only wall, said loudly
        "trace_format": TRACE_FORMAT,
        "engine_version": ENGINE_VERSION,
        "platform": f"{sys.platform}/{platform.machine() or 'unknown'}",
        "spec_pin": SPEC_PIN,
        "stamper_kind": "system",  # frame ids draw on the OS's random bits
        "clock": "system",  # frames are stamped from the wall clock
        "pricing": canonical_json(table_pin().to_dict()),
    }
    out.update(extra or {})
    return out


def _sync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # a platform without directory handles: the file's own fsyncs remain
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the entry is still written
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class FrameRef:
    """Where one event landed in the journal: its 1-based line number and its line hash
    (the next line's `chain`) — what OpenTelemetry spans carry to join the two."""

    seq: int
    hash: str


class JournalSink:
    """An `EventSink` writing the run's journal under `directory` (created on first frame).

    `path` is set once the file exists; `head` is the last line's hash; `frame(seq)` is the
    `FrameRef` of the line just written for bus event `seq` (sinks attached after this one
    read it while handling the same event).
    """

    def __init__(
        self,
        directory: Path,
        *,
        manifest: Mapping[str, Any] | None = None,
        mask: Callable[[Any], Any] = lambda value: value,
        rng: Rng = secrets.randbits,
        correlation: str | None = None,
        sync: bool = True,
    ) -> None:
        self._directory = directory
        self._sync = sync
        self._manifest = dict(manifest or {})
        self._mask = mask
        self._ids = Uuid7(rng)
        self._correlation = correlation
        self._run: str | None = None
        self._file: IO[bytes] | None = None
        self._syncer: BackgroundSync | None = None
        self._chain = GENESIS_CHAIN
        self._last: tuple[int, FrameRef] | None = None
        self._failed = False
        self.path: Path | None = None
        self.frames = 0

    @property
    def head(self) -> str | None:
        """The last written line's hash (None before the first frame)."""
        return self._last[1].hash if self._last else None

    @property
    def failed(self) -> bool:
        """Did journal I/O fail? (The bus holds the error; the file is then incomplete.)"""
        return self._failed

    def frame(self, seq: int) -> FrameRef | None:
        """The `FrameRef` of bus event `seq` if it is the frame just written, else None."""
        if self._last is not None and self._last[0] == seq:
            return self._last[1]
        return None

    def emit(self, event: RunEvent) -> None:
        if self._failed:
            return  # the first failure is recorded; a torn journal takes no more lines
        try:
            handle = self._file or self._open(event.timestamp)
            line = encode(self._frame(event))
            handle.write(line + b"\n")
            handle.flush()  # a killed process still leaves every complete line on disk
            if event.kind in DURABLE_KINDS and self._syncer is not None:
                self._syncer.request()  # a task boundary survives a power cut too
        except (OSError, ValueError):
            self._failed = True
            raise
        self._chain = line_hash(line)
        self.frames += 1
        self._last = (event.seq, FrameRef(self.frames, self._chain))

    def close(self) -> None:
        """Sync what the run wrote (synchronously, once), then close; a sync failure is
        raised for the bus to report after the run."""
        if self._file is None:
            return
        syncer, self._syncer = self._syncer, None
        if syncer is not None:
            syncer.close()
        self._file.close()
        if syncer is not None and syncer.failed is not None:
            self._failed = True
            raise syncer.failed

    def _open(self, timestamp_ns: int) -> IO[bytes]:
        self._run = self._ids.stamp(timestamp_ns)
        stamp = datetime.fromtimestamp(timestamp_ns / 1e9, UTC).strftime("%Y%m%dT%H%M%SZ")
        self._directory.mkdir(parents=True, exist_ok=True)
        path = self._directory / f"{stamp}-{self._run[-8:]}.ndjson"
        self._file = path.open("xb")  # exclusive: a journal is never appended to by two runs
        self.path = path
        if self._sync:
            _sync_directory(self._directory)  # the file's name survives a power cut
            self._syncer = BackgroundSync(self._file.fileno())
        return self._file

    def _frame(self, event: RunEvent) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if event.task is not None:
            fields["task"] = event.task
        if event.kind == "workflow_started":  # the manifest first, in the spec's order
            fields.update(self._mask(self._manifest))
        fields.update(wire(event.frame))
        return {
            "chain": self._chain,
            "id": {"uuid": self._ids.stamp(event.timestamp)},
            "timestamp": event.timestamp,
            "kind": event.kind,
            "fields": [{"key": k, "value": plain(v)} for k, v in fields.items()],
            "run": self._run,
            "correlation": self._correlation,
        }
