"""The files a task produced, as its terminal frame records them (`TaskEnded.assets`).

Detection is generic — no builtin is named: a string in the task's output that is the path of
a regular file under the run's directory is an asset when

- the output describes it: the same object carries a `sha256` equal to the file's (what the
  media builtins — `tts_generate`, `image_generate`, `chart`, … — say of what they landed,
  an idempotent re-run that wrote nothing included), or
- the task wrote it: no `sha256` beside it, and the file was modified after the task started.

A path whose object carries a `sha256` of other bytes is not one (an `image_fx` input named
beside its output).

Each asset is `{path, sha256, bytes}` plus what its header says: `width`/`height` for a PNG,
`duration_s` for a WAV (exact, `nika.media.audio`), nothing that would need a guess. The
walk is bounded (nodes visited, assets kept, bytes read per file) so a huge output or file
costs a bounded amount at settle; paths are relative to the run's directory, sorted.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from nika.journal.records import TaskRecord
from nika.media.audio import wav_header

MAX_ASSETS: Final = 16
"""At most this many assets are recorded per task (the first paths in sorted order)."""
MAX_ASSET_BYTES: Final = 64 * 1024 * 1024
"""A file past this size is not read, so not recorded; nor is one that would take the bytes
read for one task past it (the settle of a task stays bounded whatever it wrote)."""
_MTIME_SLACK_NS: Final = 20_000_000
_MAX_NODES: Final = 10_000
_MAX_PATH: Final = 4096
_PNG: Final = b"\x89PNG\r\n\x1a\n"

Asset = Mapping[str, Any]
"""`{path, sha256, bytes}` and, where a header says so, `width`/`height` or `duration_s`."""


def _candidates(output: Any) -> Iterator[tuple[str, str | None]]:
    """`(path-like string, the sha256 its object claims)` for the strings of `output`,
    breadth-first, at most `_MAX_NODES` nodes."""
    queue: list[Any] = [output]
    for seen, node in enumerate(queue):
        if seen >= _MAX_NODES:
            return
        if isinstance(node, Mapping):
            claimed = node.get("sha256")
            for value in node.values():
                if isinstance(value, str):
                    yield value, claimed if isinstance(claimed, str) else None
                elif isinstance(value, Mapping | list | tuple):
                    queue.append(value)
        elif isinstance(node, list | tuple):
            queue.extend(node)
        elif isinstance(node, str):
            yield node, None


def _pathlike(raw: str) -> bool:
    """Whether `raw` could be a path at all (no I/O): not empty, not a URL, one line."""
    return bool(raw) and len(raw) <= _MAX_PATH and "\0" not in raw and "\n" not in raw \
        and "://" not in raw


def _file(base: Path, raw: str) -> tuple[Path, str] | None:
    """The regular file `raw` names under `base` and its spelling relative to it."""
    if not _pathlike(raw):
        return None
    try:
        real = (base / raw).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if base not in real.parents or not real.is_file():
        return None
    return real, real.relative_to(base).as_posix()


def _header_facts(data: bytes) -> dict[str, Any]:
    if data.startswith(_PNG) and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return {"width": width, "height": height}
    header = wav_header(data)
    return {} if header is None else {"duration_s": header.duration_ms / 1000}


def collect(output: Any, base_dir: Path, *, since_ns: int | None) -> tuple[Asset, ...]:
    """The assets `output` names under `base_dir` (see the module doc), sorted by path."""
    base = base_dir.resolve()
    found: dict[str, Asset] = {}
    budget = MAX_ASSET_BYTES
    for raw, claimed in _candidates(output):
        located = _file(base, raw)
        if located is None or located[1] in found:
            continue
        real, rel = located
        try:
            stat = real.stat()
            if stat.st_size > budget:
                continue
            written = since_ns is not None and stat.st_mtime_ns >= since_ns
            if claimed is None and not written:
                continue
            with real.open("rb") as handle:  # bounded: the file may have grown since stat
                data = handle.read(budget + 1)
        except OSError:
            continue
        if len(data) > budget:
            continue
        budget -= len(data)
        digest = hashlib.sha256(data).hexdigest()
        if claimed is not None and claimed != digest:
            continue  # its object describes other bytes (an input beside its output, say)
        found[rel] = {"path": rel, "sha256": digest, "bytes": len(data), **_header_facts(data)}
    return tuple(found[p] for p in sorted(found)[:MAX_ASSETS])


def since(started_at_ns: int | None) -> int | None:
    """The modification-time floor for a task that started at `started_at_ns`: a little
    earlier, as file timestamps come from the kernel's coarse clock (a tick behind at most)."""
    return None if started_at_ns is None else started_at_ns - _MTIME_SLACK_NS


def may_name_files(record: TaskRecord) -> bool:
    """Whether `task_assets` could find anything for `record`, judged without I/O (a success
    whose output holds a path-like string): the runner goes to a thread only then."""
    return record.status == "success" and record.output is not None and any(
        _pathlike(raw) for raw, _ in _candidates(record.output))


def task_assets(record: TaskRecord, base_dir: Path) -> tuple[Asset, ...] | None:
    """What a settled task's terminal frame records: a success's assets (None: none)."""
    if record.status != "success" or record.output is None:
        return None
    return collect(record.output, base_dir, since_ns=since(record.started_at)) or None


def within(base_dir: Path, path: str) -> Path | None:
    """The file a recorded asset path names under `base_dir`, when it still is one (a view
    reads it; a path that now escapes through a symlink is not followed)."""
    located = _file(base_dir.resolve(), path)
    return None if located is None else located[0]

