"""Reading a side file (a skill, a child workflow) without trusting what the path names.

A path in a workflow is author input — and, under `nika:compose`, model input. Read
naively, `/dev/zero` never ends, a FIFO blocks until a writer shows up, and a huge file
lands in memory whole. So a side file is read only when, symlinks resolved, it is a
regular file, and never past `cap + 1` bytes (enough to tell "over the cap" from "at it").
The type is judged twice: by `stat` before the open (a device is never opened at all) and
by `fstat` on the opened descriptor (a swap between the two is caught, and a non-blocking
open means even that swap cannot hang the check). A file whose size already exceeds the cap is
refused before a byte is read.

The runtime's file builtins read through the same guard from a worker thread; their `stop`
event ends the read between chunks when the task is cancelled or times out.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import threading

_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)
_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_CHUNK: Final = 1 << 16


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Why a side file was not read.

    `reason` is `"missing"` (cannot be resolved or opened), `"not_regular"` (a directory,
    device, FIFO or socket — `why` names which), `"too_large"` (past the cap) or
    `"cancelled"` (its `stop` was set mid-read).
    """

    reason: str
    why: str


def read_capped(
    file: Path, cap: int, *, stop: threading.Event | None = None
) -> bytes | Unreadable:
    """The bytes of the regular file at `file` (symlinks resolved), or why there are none.

    A set `stop` abandons the read between chunks (`"cancelled"`)."""
    try:
        real = file.resolve(strict=True)
        before = real.stat()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        return Unreadable("missing", f"does not resolve ({_reason(exc)})")
    kind = _non_regular(before.st_mode)
    if kind is not None:
        return _not_regular(file, real, kind)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        return Unreadable("missing", f"cannot be opened ({_reason(exc)})")
    try:
        opened = os.fstat(fd)
        kind = _non_regular(opened.st_mode)
        if kind is not None:
            return _not_regular(file, real, kind)
        data = b"" if opened.st_size > cap else _read_at_most(fd, cap + 1, stop)
    except OSError as exc:
        return Unreadable("missing", f"cannot be read ({_reason(exc)})")
    finally:
        os.close(fd)
    if stop is not None and stop.is_set():
        return Unreadable("cancelled", "was not read to the end: the read was cancelled")
    if opened.st_size > cap or len(data) > cap:
        return Unreadable(
            "too_large",
            f"is larger than the {cap}-byte cap; keep side files small and split the content",
        )
    return data


def _read_at_most(fd: int, limit: int, stop: threading.Event | None) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0 and not (stop is not None and stop.is_set()):
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def special_kind(path: Path) -> str | None:
    """What `path` is when it exists and is not a regular file (`"a named pipe (FIFO)"`, …);
    None when it is a regular file or does not exist."""
    try:
        return _non_regular(os.stat(path).st_mode)
    except OSError:
        return None


def _non_regular(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def _not_regular(file: Path, real: Path, kind: str) -> Unreadable:
    via = f" (it resolves to {str(real)!r})" if real != file else ""
    return Unreadable("not_regular", f"is {kind}{via}, not a regular file, and is never read")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc) or type(exc).__name__
