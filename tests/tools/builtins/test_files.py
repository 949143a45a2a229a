"""The file builtins never block the run: non-regular files and files over the cap are refused
before a byte is read, writes never open a FIFO, and a cancelled worker really stops."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nika.tools.builtins import BuiltinExecutor
from nika.tools.builtins._files import offload

GIB = 1 << 30


def _error(result: Any) -> tuple[str, dict[str, Any]]:
    error = result.error
    assert error is not None, result
    return error.code, dict(error.details)


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)  # a hole: no disk, no read — until someone reads it whole


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("nika:read", {"path": "pipe"}, "NIKA-BUILTIN-READ-002"),
        ("nika:edit", {"path": "pipe", "find": "a", "replace": "b"}, "NIKA-BUILTIN-EDIT-002"),
        ("nika:write", {"path": "pipe", "content": "x"}, "NIKA-BUILTIN-WRITE-001"),
    ],
)
async def test_a_fifo_is_refused_without_blocking(
    make: Callable[..., BuiltinExecutor], base: Path, tool: str, args: dict[str, Any],
    code: str,
) -> None:
    os.mkfifo(base / "pipe")  # no writer: a blocking open or read would never return
    result = await asyncio.wait_for(make().call(tool, args), timeout=30)
    found, details = _error(result)
    assert (found, details["reason"]) == (code, "not_regular")
    assert "named pipe" in result.content


async def test_a_device_is_never_read(make: Callable[..., BuiltinExecutor]) -> None:
    result = await make(judge=None).call("nika:read", {"path": "/dev/zero"})
    code, details = _error(result)
    assert (code, details["reason"]) == ("NIKA-BUILTIN-READ-002", "not_regular")


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("nika:read", {"path": "huge.log"}, "NIKA-BUILTIN-READ-002"),
        ("nika:read", {"path": "huge.log", "binary": True}, "NIKA-BUILTIN-READ-002"),
        ("nika:edit", {"path": "huge.log", "find": "a", "replace": "b"}, "NIKA-BUILTIN-EDIT-002"),
    ],
)
async def test_a_file_over_the_cap_is_refused_before_it_is_read(
    make: Callable[..., BuiltinExecutor], base: Path, tool: str, args: dict[str, Any],
    code: str,
) -> None:
    _sparse(base / "huge.log", GIB)
    result = await make().call(tool, args)
    found, details = _error(result)
    assert (found, details["reason"], details["cap_bytes"]) == (code, "too_large", 32 << 20)
    assert "32 MiB cap" in result.content


async def test_grep_skips_what_it_must_not_read_and_still_finds_the_rest(
    make: Callable[..., BuiltinExecutor], base: Path
) -> None:
    _sparse(base / "huge.log", GIB)
    os.mkfifo(base / "pipe")
    (base / "notes.txt").write_text("one TODO here\n")
    result = await asyncio.wait_for(make().call("nika:grep", {"pattern": "TODO"}), 30)
    assert result.structured == [{"path": "notes.txt", "line": 1, "match": "one TODO here"}]


async def test_content_over_the_cap_is_refused_by_write_and_hash(
    make: Callable[..., BuiltinExecutor], base: Path
) -> None:
    big = "x" * 2000
    capped = make(max_file_bytes=1000)
    write = await capped.call("nika:write", {"path": "out.txt", "content": big})
    hashed = await capped.call("nika:hash", {"content": big})
    converted = await capped.call("nika:convert", {"input": big, "from": "csv", "to": "json"})
    assert _error(write)[0] == "NIKA-BUILTIN-WRITE-001" and not (base / "out.txt").exists()
    assert _error(hashed) == ("NIKA-BUILTIN-HASH-002", {"reason": "too_large",
                                                         "cap_bytes": 1000})
    assert _error(converted)[0] == "NIKA-BUILTIN-CONVERT-001"
    assert (await make().call("nika:hash", {"content": big})).is_error is False


async def test_a_cancelled_worker_stops_and_the_cancellation_goes_through() -> None:
    stopped = threading.Event()

    def spin(stop: threading.Event) -> None:
        while not stop.wait(0.01):
            pass  # a long walk or read, checking its stop event between chunks
        stopped.set()

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2):
            await offload(spin)
    assert stopped.is_set()  # the worker saw the stop: the timeout really cancelled it


async def test_the_event_loop_keeps_running_while_a_worker_works() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    def busy(stop: threading.Event) -> str:
        stop.wait(0.3)  # blocks its own thread only
        return "done"

    tick = asyncio.create_task(ticker())
    assert await offload(busy) == "done"
    tick.cancel()
    assert ticks > 5
