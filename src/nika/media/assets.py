"""Writing an asset: atomically, and not at all when the bytes on disk are already the same.

A renderer whose output is byte-identical for identical inputs (nika:chart, nika:image_fx) is
re-run on resume and in loops; rewriting an equal file would bump its mtime and wake every
watcher, so a target whose sha256 equals the new content's is left alone (`wrote: false` in the
builtin's record). Sync on purpose: callers run it off the event loop.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Written:
    """What `write_asset` did: the content's digest and size, and whether it touched the disk."""

    sha256: str
    bytes: int
    wrote: bool


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path, limit: int) -> str | None:
    """The sha256 of a regular file of at most `limit` bytes; None when it is absent, not a
    regular file, or larger (a different size cannot hold equal content anyway)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def write_asset(target: Path, data: bytes) -> Written:
    """Write `data` to `target` through a sibling temp file and a rename (a reader never sees half
    an asset, a crash never leaves one), unless `target` already holds exactly these bytes.
    Raises OSError as the file system does; the temp file never survives a failure."""
    digest = sha256_hex(data)
    if file_sha256(target, len(data)) == digest:
        return Written(digest, len(data), wrote=False)
    atomic_write(target, data)
    return Written(digest, len(data), wrote=True)


def atomic_write(target: Path, data: bytes) -> None:
    """Write `data` to `target` through a sibling temp file and a rename, always (the file
    builtins' writes, too). Raises OSError as the file system does; no temp file survives."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
