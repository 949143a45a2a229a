"""File I/O for the builtins: off the event loop, regular files only, capped, cancellable.

A builtin never blocks the run. Disk work runs in a worker thread (`offload`) that watches a
stop event: when the task times out or is cancelled, the event is set, the work ends at its
next chunk or file, and the cancellation goes on — `timeout:` really cancels. Reads go through
the check's guarded reader (`guarded_read.read_capped`): a FIFO, device, socket or
directory is refused before it is opened (and a swap after the `stat` cannot block: the open
is non-blocking), and a file larger than the cap is refused before a byte is read.

The caps (`Context.max_file_bytes`, default 32 MiB) are documented in docs/runs.md's "Operating
nika run" section; each builtin refuses past them with its own IO code and
`details.reason` (`not_regular`, `too_large`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

from nika.errors import NikaError
from nika.guarded_read import Unreadable, read_capped, special_kind
from nika.media.assets import atomic_write
from nika.tools.builtins._base import fail
from nika.tools.builtins._paths import FsPath

T = TypeVar("T")

MIB: Final = 1 << 20
_DRAIN: Final = 5.0
"""Seconds a cancelled worker gets to notice its stop event before it is abandoned."""


async def offload(work: Callable[[threading.Event], T], *, drain: float = _DRAIN) -> T:
    """Run `work(stop)` in a worker thread; on cancellation set `stop`, give the worker up to
    `drain` seconds to wind down (0 for a call that cannot watch `stop`, such as a terminal
    read), then let the cancellation through.

    The thread is a daemon of its own (not the loop's executor): a worker stuck in a syscall
    or a pathological regex is abandoned, and can never hold the process at exit.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    stop = threading.Event()

    def settle(value: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def main() -> None:
        try:
            value, error = work(stop), None
        except BaseException as exc:  # handed to the awaiting task, which re-raises it
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody awaits this
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=main, name="nika-offload", daemon=True).start()
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait({future}, timeout=drain)
        if future.done() and not future.cancelled():
            future.exception()  # retrieved: the cancellation is the outcome now
        else:
            future.cancel()  # abandoned: a late result is dropped
        raise


async def read_bytes(
    path: FsPath, raw: str, cap: int, *, missing: tuple[str, str], io: str
) -> bytes:
    """The bytes of the regular file at `path`, read off the loop. A missing file is
    `missing` (its code, and the fix to suggest); any other refusal is `io`. Messages name
    the path as written (`raw`)."""
    data = await offload(lambda stop: read_capped(path.real, cap, stop=stop))
    if not isinstance(data, Unreadable):
        return data
    if data.reason == "missing" and not path.real.exists():
        code, fix = missing
        raise fail(code, f"file {raw!r} does not exist (looked at {path.rel}); {fix}", path=raw)
    raise refusal(io, raw, data, cap)


def refusal(code: str, raw: str, why: Unreadable, cap: int) -> NikaError:
    """The coded refusal of an unreadable file (`details.reason` says which kind)."""
    if why.reason == "too_large":
        detail = (f"{raw!r} is larger than the {cap // MIB} MiB cap of the file builtins; "
                  "split it, or process it with `exec:` (a stream tool such as grep or jq)")
    elif why.reason == "not_regular":
        detail = f"{raw!r} {why.why}; the file builtins read regular files only"
    else:
        detail = f"cannot read {raw!r}: it {why.why}"
    return fail(code, detail, path=raw, reason=why.reason, cap_bytes=cap)


async def write_bytes(target: Path, data: bytes, raw: str, cap: int, *, code: str) -> None:
    """Write `data` to `target` atomically (a sibling temp file, then a rename: a reader never
    sees half a file), off the loop. Refused as `code`, naming `raw`: more than `cap` bytes,
    or an existing target that is not a regular file (a rename would replace the FIFO or
    device itself)."""
    if len(data) > cap:
        raise fail(code, f"the content for {raw!r} is {len(data)} bytes, over the "
                   f"{cap // MIB} MiB cap of the file builtins; split it across files",
                   path=raw, reason="too_large", cap_bytes=cap)
    kind = special_kind(target)
    if kind is not None:
        raise fail(code, f"{raw!r} is {kind}, not a regular file; the file builtins write "
                   "regular files only", path=raw, reason="not_regular")
    try:
        await offload(lambda stop: atomic_write(target, data))
    except OSError as err:
        raise fail(code, f"cannot write {raw!r}: {err.strerror}", path=raw) from None
