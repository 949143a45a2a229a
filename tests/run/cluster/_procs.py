"""Process trees read from /proc (Linux, as CI is): what a run started, and whether any of it
is still running. A process is named by (pid, start time), so a recycled pid never counts."""

from __future__ import annotations

import os
import time
from pathlib import Path

Proc = tuple[int, str]
"""(pid, start time in clock ticks since boot)."""


def stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of `pid`; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # `pid (comm) state ppid …`: comm may hold spaces, so split after its `)`.
    fields = text.rpartition(")")[2].split()
    return fields[0], int(fields[1]), fields[19]


def table() -> dict[int, tuple[str, int, str]]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := stat(int(entry))) is not None:
            out[int(entry)] = found
    return out


def tree(root: int) -> set[Proc]:
    """`root` and every live descendant of it, as they are now."""
    procs = table()
    kept = {root}
    grown = True
    while grown:
        before = len(kept)
        kept |= {pid for pid, (_, parent, _) in procs.items() if parent in kept}
        grown = len(kept) > before
    return {(pid, procs[pid][2]) for pid in kept if pid in procs}


def running(procs: set[Proc]) -> set[Proc]:
    """Those of `procs` still running (a zombie has ended; init in a container may never
    reap it)."""
    out = set()
    for pid, start in procs:
        found = stat(pid)
        if found is not None and found[2] == start and found[0] not in "ZX":
            out.add((pid, start))
    return out


def wait_gone(procs: set[Proc], within_s: float) -> tuple[set[Proc], float]:
    """Poll until none of `procs` runs or `within_s` passes: (what still runs, seconds)."""
    began = time.monotonic()
    left = running(procs)
    while left and time.monotonic() - began < within_s:
        time.sleep(0.05)
        left = running(procs)
    return left, time.monotonic() - began


def command(pid: int, limit: int | None = 200) -> str:
    try:
        text = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return "?"
    return text.decode(errors="replace").strip()[:limit]


def where(directory: Path) -> set[Proc]:
    """Every live process working in `directory` (an exec body's, its keeper's), and all their
    descendants."""
    found: set[Proc] = set()
    for pid in table():
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == str(directory):
            found |= tree(pid)
    return found


def mentioning(text: str, *, descendants: bool = True) -> set[Proc]:
    """Every live process whose command line mentions `text` (and all their descendants)."""
    found: set[Proc] = set()
    for pid, (_, _, start) in table().items():
        if pid != os.getpid() and text in command(pid, limit=None):
            found |= tree(pid) if descendants else {(pid, start)}
    return found
