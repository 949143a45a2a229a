"""Reading a file (or standard input) without trusting what the name points at.

A path is untrusted input: a side file a workflow names (a skill, a child workflow; under
`nika:compose`, model input), and just as much every file the command line names (the
workflow, a `--resume` journal, a trace, a receipt, a registry). Read naively, `/dev/zero`
never ends, a FIFO blocks until a writer shows up, and a huge file lands in memory whole. So
a file is read only when, symlinks resolved, it is a regular file, and never past `cap + 1`
bytes (enough to tell "over the cap" from "at it"). The type is judged twice: by `stat`
before the open (a device is never opened at all) and by `fstat` on the opened descriptor (a
swap between the two is caught, and a non-blocking open means even that swap cannot hang).
A file whose size already exceeds the cap is refused before a byte is read.

Standard input (`-`) is the one stream read as it comes: bounded by the same cap and by a
deadline, so a pipe that never closes (or `nika check - < /dev/zero`) ends with a refusal.

The runtime's file builtins read through the same guard from a worker thread; their `stop`
event ends the read between chunks when the task is cancelled or times out. Only `os` and
`stat` are loaded here: every `nika check` reads its file through this module.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from nika import codes
from nika.errors import NikaError

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

STDIN: Final = "-"
"""The name that means standard input."""
STDIN_DEADLINE_S: Final = 60.0
"""How long standard input may take to reach its end (`NIKA_STDIN_TIMEOUT` overrides)."""


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Why a file was not read.

    `reason` is `"missing"` (cannot be resolved or opened), `"not_regular"` (a directory,
    device, FIFO or socket — `why` names which), `"too_large"` (past the cap; `size` is the
    file's when known), `"cancelled"` (its `stop` was set mid-read) or `"stalled"` (standard
    input did not end within its deadline).
    """

    reason: str
    why: str
    size: int | None = None


def read_capped(
    file: str | os.PathLike[str],
    cap: int,
    *,
    stop: threading.Event | None = None,
    head: bool = False,
) -> bytes | Unreadable:
    """The bytes of the regular file at `file` (symlinks resolved), or why there are none.

    A set `stop` abandons the read between chunks (`"cancelled"`). With `head`, a file past
    the cap is not refused: its first `cap + 1` bytes come back, for a caller that judges
    the size itself (a journal's verifier reports an oversized journal in its verdict)."""
    name = os.fspath(file)
    try:
        real = os.path.realpath(name, strict=True)
        before = os.stat(real)
    except OSError as exc:  # ELOOP included: a symlink loop
        return Unreadable("missing", f"does not resolve ({_reason(exc)})")
    kind = _non_regular(before.st_mode)
    if kind is not None:
        return _not_regular(name, real, kind)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        return Unreadable("missing", f"cannot be opened ({_reason(exc)})")
    try:
        opened = os.fstat(fd)
        kind = _non_regular(opened.st_mode)
        if kind is not None:
            return _not_regular(name, real, kind)
        data = b"" if opened.st_size > cap and not head else _read_at_most(fd, cap + 1, stop)
    except OSError as exc:
        return Unreadable("missing", f"cannot be read ({_reason(exc)})")
    finally:
        os.close(fd)
    if stop is not None and stop.is_set():
        return Unreadable("cancelled", "was not read to the end: the read was cancelled")
    if not head and (opened.st_size > cap or len(data) > cap):
        return Unreadable(
            "too_large",
            f"is larger than the {cap}-byte cap; keep side files small and split the content",
            opened.st_size if opened.st_size > cap else None,
        )
    return data


def read_input(name: str, cap: int) -> bytes | Unreadable:
    """A file named on the command line, guarded as `read_capped`, or — for `-` — standard
    input, at most `cap` bytes within its deadline."""
    if name != STDIN:
        return read_capped(name, cap)
    data = read_stdin(cap + 1)
    if isinstance(data, bytes) and len(data) > cap:
        return Unreadable("too_large", f"is larger than the {cap}-byte cap")
    return data


def read_stdin(limit: int) -> bytes | Unreadable:
    """Standard input up to its end or its first `limit` bytes, within its deadline
    (`NIKA_STDIN_TIMEOUT` seconds, else `STDIN_DEADLINE_S`); an in-memory stdin (the warm
    server's request, a test's) is read at once."""
    try:
        deadline = float(os.environ.get("NIKA_STDIN_TIMEOUT", STDIN_DEADLINE_S))
    except ValueError:
        deadline = STDIN_DEADLINE_S
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return b""  # no standard input at all (pythonw, a closed descriptor): empty
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # in memory: nothing to wait for
        return bytes(stream.read(limit))
    return read_stream(fd, limit, deadline)


def read_stream(fd: int, limit: int, deadline_s: float) -> bytes | Unreadable:
    """What the open descriptor `fd` holds up to its end or its first `limit` bytes, whichever
    comes first (the caller judges the size), or `"stalled"` when neither comes within
    `deadline_s`."""
    import selectors  # only a read of standard input waits on a stream

    end = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(fd, selectors.EVENT_READ)
            waits = True
        except (OSError, ValueError):  # a regular file or a device epoll refuses: never blocks
            waits = False
        while True:
            left = end - time.monotonic()
            if left <= 0 or (waits and not selector.select(left)):
                return Unreadable("stalled", f"did not reach its end within {deadline_s:g} s")
            try:
                chunk = os.read(fd, min(_CHUNK, limit - size))
            except BlockingIOError:
                continue
            except OSError as exc:
                return Unreadable("missing", f"cannot be read ({_reason(exc)})")
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size >= limit:
                return b"".join(chunks)


def refusal(what: str, name: str, why: Unreadable, *, other: str = "") -> NikaError:
    """The command line's refusal of a file it was given (`NIKA-CLI-002`, the FILE class):
    `what` names its role ("the workflow", "the --resume journal"); `other` is another way
    to give it, offered for a file that is not a regular one."""
    shown = "on standard input" if name == STDIN else repr(name)
    fixes = {
        "missing": "check the path",
        "not_regular": f"pass the path of a regular file{other}",
        "too_large": "pass the file it should be; a file this large is never read whole",
        "stalled": "close the pipe when the input is complete, or pass a file",
    }
    fix = fixes.get(why.reason, "pass a regular file")
    return NikaError(
        codes.CLI_002,
        f"cannot read {what} {shown}: it {why.why}; {fix}",
        details={"file": name, "reason": why.reason},
    )


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


def special_kind(path: str | os.PathLike[str]) -> str | None:
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


def _not_regular(file: str, real: str, kind: str) -> Unreadable:
    via = f" (it resolves to {real!r})" if os.path.abspath(file) != real else ""
    return Unreadable("not_regular", f"is {kind}{via}, not a regular file, and is never read")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc) or type(exc).__name__
