"""An exec body on a Ray worker dies with the worker — its setsid descendants included.

On a cluster the run did not start (`--ray-address`) the run owns its job, never the
cluster: when the driver dies Ray ends the job's workers, but not the processes an exec body
started in a session of its own (`setsid server &`), which would then run on after the engine
is gone. So on a worker every exec body runs under a keeper, three processes deep:

    keeper   the worker's child, leader of the exec's process group A (`exec` kills A on a
             timeout or cancel, as locally); dies with the worker (parent-death signal
             SIGKILL), and relays the guard's exit status as its own
    guard    the keeper's child, alone in process group B; a child subreaper, so every
             descendant of the body that loses its parent — setsid or not — becomes the
             guard's; when the keeper dies (parent-death signal SIGTERM), or the body exits,
             it SIGKILLs every descendant it has and exits
    body     the guard's child, back in group A, parent-death signal SIGKILL; execs the
             command (a failure to start it is written to the status descriptor the engine
             passed, as an errno: the engine's `NIKA-EXEC-002`, as locally)

A `prctl` the kernel refuses (a parent-death signal, the subreaper) is a start that failed the
same way: its errno goes to the status descriptor, the command never runs.

Whatever kills the worker's direct children (Ray does, on a worker's exit) reaches the keeper,
and the guard, a grandchild, is left to sweep. Only the run's own exec descendants are ever
signalled: the guard kills nothing but its own descendants. An exec's background grandchild
ends with the exec here (locally it ends with the run). Linux only; elsewhere the body runs
directly, as locally.
"""

from __future__ import annotations

import os
import sys
from typing import Final

_KEEPER: Final = r"""
import ctypes, os, signal, sys, time
worker, status, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[4:]
libc = ctypes.CDLL(None, use_errno=True)
PDEATHSIG, SUBREAPER = 1, 36

def exit_as(wait_status):
    code = os.waitstatus_to_exitcode(wait_status)
    if code < 0:  # died by a signal: die by the same one, so the engine sees what it saw
        if -code != signal.SIGKILL:
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)

def descendants(me):
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/" + name + "/stat") as handle:
                    fields = handle.read().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[0] not in "ZX":
                parents[int(name)] = int(fields[1])
    found, grown = {me}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in found} - found
        found |= more
        grown = bool(more)
    return found - {me}

def sweep():
    me = os.getpid()
    for _ in range(200):
        pids = descendants(me)
        # Freeze, then kill: a shell whose child died first would run its next command in
        # the instant before its own signal; a stopped process runs and forks nothing.
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        if not pids:
            return
        time.sleep(0.005)  # let the killed exit and be reparented before the next scan

def arm(option, value):
    # A guarantee the kernel refuses is not silently dropped: the command is not started,
    # and the engine reads the errno as NIKA-EXEC-002.
    if libc.prctl(option, value, 0, 0, 0) != 0:
        os.write(status, str(ctypes.get_errno() or 1).encode())
        os._exit(127)

def die_with_parent(sig, parent):
    arm(PDEATHSIG, sig)
    if os.getppid() != parent:  # the parent went before the signal was armed
        os._exit(1)

os.set_inheritable(status, False)  # the body's exec closes it; a started command never sees it
die_with_parent(signal.SIGKILL, worker)
keeper, group = os.getpid(), os.getpgid(0)
guard = os.fork()
if guard:
    while True:
        pid, wait_status = os.waitpid(guard, 0)
        if pid == guard:
            exit_as(wait_status)

def on_term(signum, frame):
    sweep()
    os._exit(128 + signum)

signal.signal(signal.SIGTERM, on_term)
os.setpgid(0, 0)
arm(SUBREAPER, 1)
die_with_parent(signal.SIGTERM, keeper)
guard = os.getpid()
body = os.fork()
if body == 0:
    # What the command gets is what a direct exec gives it: Python ignores SIGPIPE and
    # SIGXFSZ, and an ignored signal stays ignored across exec (subprocess restores them).
    for sig in (signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.setpgid(0, group)
    except OSError:
        os._exit(1)  # the keeper, the group's leader, is gone: the exec is being ended
    die_with_parent(signal.SIGKILL, guard)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(status, str(exc.errno or 0).encode())
    os._exit(127)
while True:
    pid, wait_status = os.waitpid(-1, 0)  # adopted orphans are reaped here too
    if pid == body:
        break
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sweep()
exit_as(wait_status)
"""


def available() -> bool:
    """Can exec bodies run under a keeper here (Linux: prctl and `/proc`)?"""
    return sys.platform == "linux" and os.path.exists("/proc/self/stat")


def keeper_argv() -> tuple[str, ...]:
    """The argv prefix that runs an exec body under a keeper tied to this process; the
    engine appends the status descriptor, `--`, then the command's argv."""
    return (sys.executable, "-I", "-S", "-c", _KEEPER, str(os.getpid()))
