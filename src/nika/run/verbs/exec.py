"""`exec:` — run a process (02 §exec).

`command:` is argv passed to `execve` with no shell; `shell:` is one `/bin/sh -c` line, judged
by the blocklist (`NIKA-SEC-001`). The program is re-judged against `permits.exec` at dispatch,
the environment is composed (never inherited), and the child runs in its own process group so
a timeout or Ctrl+C kills everything it spawned; it also carries the run's watchdog marker, so
it dies with the engine even when the engine is SIGKILLed (`runtime/children.py`). On a Ray
worker it runs under the services' `exec_keeper`, so it dies with the worker. Non-zero
exit is `NIKA-EXEC-001` except under `capture: structured`, where the exit code is data; a
spawn failure is `NIKA-EXEC-002`; more than 32 MiB on stdout or stderr stops the command
(`NIKA-EXEC-003`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.check.blocklist import refuse_argv, refuse_blocked
from nika.errors import NikaError, task_error
from nika.journal.frames import VerbInvoked
from nika.run.services import RunServices
from nika.run.verbs.childenv import compose_env
from nika.syntax.model import ExecBody, Task
from nika.syntax.resolved import resolve_body

_EXCERPT: Final = 2000
_MIB: Final = 1 << 20
_CHUNK: Final = 1 << 16
_REAP_S: Final = 5.0
MAX_CAPTURE: Final = 32 * _MIB
"""The most a command may write to one stream (stdout or stderr) before it is stopped
(`NIKA-EXEC-003`): what is captured is held in memory and becomes the task's output."""


def _trim(text: str) -> str:
    # The trailing newline every line-oriented program prints is framing, not content.
    return text.removesuffix("\n").removesuffix("\r")


async def run_exec(
    task: Task, body: ExecBody, env: Mapping[str, Any], services: RunServices
) -> Any:
    """Spawn, wait, and shape the output per `capture:` / `decode:`."""
    spec = resolve_body(task, body, env, None)
    argv = list(spec.argv)
    if spec.shell is None:
        services.gate.exec_program(task.id, argv[0], shell=False)
        refuse_argv(task.id, argv)
    else:
        services.gate.exec_program(task.id, spec.shell, shell=True)
        refuse_blocked(task.id, spec.shell)
    cwd = services.base_dir if spec.cwd is None else services.base_dir / spec.cwd
    child_env = compose_env(services.environ, services.gate.child_env_names(task.id),
                            dict(spec.env))
    if services.children is not None:
        child_env.update(services.children.env())  # the run's watchdog marker
    stdin = spec.stdin.encode() if spec.stdin is not None else None
    services.bus.emit(VerbInvoked(task=task.id, verb="exec", program=argv[0],
                                  shell=spec.shell is not None))
    code, out, err = await _spawn(task, argv, cwd, child_env, stdin, body.capture,
                                  services.exec_keeper)
    return _shape(task, body, code, out, err)


async def _spawn(
    task: Task, argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None,
    capture: str, keeper: tuple[str, ...] = (),
) -> tuple[int, bytes, bytes]:
    merged = capture == "combined"
    status = os.pipe() if keeper else None
    command = [*keeper, str(status[1]), "--", *argv] if status is not None else argv
    # Both ends of the keeper's status pipe close on every path, a refused start included.
    try:
        try:
            proc = await asyncio.create_subprocess_exec(
                *command,
                pass_fds=(status[1],) if status is not None else (),
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT if merged else asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise _unstarted(task, argv, cwd, exc.strerror or str(exc)) from None
        finally:
            if status is not None:  # the keeper holds its own copy now: EOF follows its exit
                os.close(status[1])
        result = await _watch(task, proc, stdin)
        failed = _unstarted_errno(status[0]) if status is not None else None
    finally:
        if status is not None:
            os.close(status[0])
    if failed is not None:
        raise _unstarted(task, argv, cwd, os.strerror(failed))
    return result


def _unstarted(task: Task, argv: list[str], cwd: Path, why: str) -> NikaError:
    return task_error(
        codes.EXEC_002, task.id,
        f"cannot start {argv[0]!r} ({why}); check the program is installed and on PATH, "
        "and that `cwd:` exists",
        program=argv[0], cwd=str(cwd),
    )


def _unstarted_errno(fd: int) -> int | None:
    """What a keeper's body wrote before its exit: the errno of a failed start, or None."""
    os.set_blocking(fd, False)
    try:
        text = os.read(fd, 64)
    except BlockingIOError:
        return None
    return int(text) if text.strip().isdigit() else None


async def _watch(task: Task, proc: asyncio.subprocess.Process,
                 stdin: bytes | None) -> tuple[int, bytes, bytes]:
    jobs: list[asyncio.Future[Any]] = [
        asyncio.ensure_future(_collect(proc.stdout, "stdout")),
        asyncio.ensure_future(_collect(proc.stderr, "stderr")),
        asyncio.ensure_future(_feed(proc, stdin)),
    ]
    try:
        await asyncio.wait(jobs, return_when=asyncio.FIRST_EXCEPTION)
        failed = next((j.exception() for j in jobs if j.done() and j.exception()), None)
        if failed is None:
            await proc.wait()
    except BaseException:
        # Timeout or cancellation: the whole process group goes, and is reaped.
        await _stop(proc, jobs)
        raise
    if isinstance(failed, _OverCap):
        await _stop(proc, jobs)
        raise task_error(
            codes.EXEC_003, task.id,
            f"the command wrote more than {MAX_CAPTURE // _MIB} MiB to "
            f"{failed.stream}, the capture cap; it was stopped. Write large output to a file "
            "(and read what you need), or filter it in the command (head, grep, jq)",
            stream=failed.stream, cap_bytes=MAX_CAPTURE,
        )
    if failed is not None:
        await _stop(proc, jobs)
        raise failed
    code = proc.returncode if proc.returncode is not None else -1
    return code, jobs[0].result(), jobs[1].result()


class _OverCap(Exception):
    def __init__(self, stream: str) -> None:
        self.stream = stream


async def _collect(stream: asyncio.StreamReader | None, name: str) -> bytes:
    """Everything `stream` carries, up to `MAX_CAPTURE` bytes (past it: `_OverCap`)."""
    if stream is None:
        return b""
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.read(_CHUNK):
        size += len(chunk)
        if size > MAX_CAPTURE:
            raise _OverCap(name)
        chunks.append(chunk)
    return b"".join(chunks)


async def _feed(proc: asyncio.subprocess.Process, data: bytes | None) -> None:
    """Write `stdin:` and close it; a child that exits without reading it is no error."""
    if proc.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        if data:
            proc.stdin.write(data)
            await proc.stdin.drain()
        proc.stdin.close()
        await proc.stdin.wait_closed()


async def _stop(proc: asyncio.subprocess.Process, jobs: Sequence[asyncio.Future[Any]]) -> None:
    """Kill the command's whole process group, reap it, and release its pipes — to the end,
    even if the caller is cancelled again meanwhile."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for job in jobs:
        job.cancel()
    await asyncio.shield(_reap(proc, jobs))


async def _reap(proc: asyncio.subprocess.Process, jobs: Sequence[asyncio.Future[Any]]) -> None:
    await asyncio.gather(*jobs, return_exceptions=True)
    # Not `proc.wait()`: it also waits for EOF on the pipes, which a reader that stopped
    # (or a grandchild still holding them) never delivers. Watch the exit, then close them.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _REAP_S
    while proc.returncode is None and loop.time() < deadline:
        await asyncio.sleep(0.01)
    transport = getattr(proc, "_transport", None)  # asyncio exposes no public close
    if transport is not None:
        transport.close()


def _shape(task: Task, body: ExecBody, code: int, raw_out: bytes, raw_err: bytes) -> Any:
    if body.decode == "bytes" and code == 0 and body.capture != "structured":
        return raw_err if body.capture == "stderr" else raw_out
    out, err = raw_out.decode("utf-8", "replace"), raw_err.decode("utf-8", "replace")
    if body.capture == "structured":
        return {"stdout": _trim(out), "stderr": _trim(err), "exit_code": code}
    if code != 0:
        raise task_error(
            codes.EXEC_001, task.id,
            f"the command exited with status {code}; read `details.stderr`, "
            "or use `capture: structured` to treat the exit code as data",
            exit_code=code, stderr=err[-_EXCERPT:], stdout=out[-_EXCERPT:],
        )
    text = _trim(err if body.capture == "stderr" else out)
    return _decode(task, body.decode or "text", text)


def _decode(task: Task, decode: str, text: str) -> Any:
    try:
        if decode == "json":
            return json.loads(text)
        if decode == "jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise task_error(
            codes.TYPE_101, task.id,
            f"`decode: {decode}` but the output does not parse ({exc}); "
            "fix the program's output or use `decode: text`",
            decode=decode,
        ) from None
    return text
