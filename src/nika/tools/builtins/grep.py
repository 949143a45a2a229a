"""`nika:grep` — recursive regex search, results sorted by (path, line).

The pattern is held by its declaration to the portable RE2 class the stdlib names (GREP-001:
no backreferences and no lookaround — they compile here but not in other engines). Symlinks
are not followed and non-UTF-8 files are skipped, so a search never leaves the judged tree or
returns binary junk.

The search runs off the event loop and stops when the task is cancelled. Caps: a file over
32 MiB (`Context.max_file_bytes`) or not a regular file is not searched (like a binary one);
a search reads at most 256 MiB in all and returns at most 10,000 matches (past either:
`NIKA-BUILTIN-GREP-003`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.guarded_read import Unreadable, read_capped
from nika.stdlib.files import GREP
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import MIB, offload
from nika.tools.builtins._paths import FsPath, judged
from nika.tools.builtins.glob import walk_files

MAX_SCANNED: Final = 256 * MIB
"""Bytes one search may read, over all its files."""
MAX_HITS: Final = 10_000
"""Matching lines one search may return."""


async def run(args: Mapping[str, Any], ctx: Context) -> list[dict[str, Any]]:
    """Every matching line as `{path, line, match}`."""
    # a portable regex: its declaration judged it (GREP-001)
    regex = re.compile(args["pattern"], re.IGNORECASE if args.get("case_insensitive") else 0)
    root = judged(ctx, args.get("path", "."), "fs.read")
    if not root.real.exists():
        raise fail(
            codes.BUILTIN_GREP_002,
            f"`path: {args.get('path', '.')}` does not exist; "
            "point nika:grep at an existing file or directory",
            path=root.rel,
        )
    base = ctx.base_dir.resolve()
    cap = ctx.max_file_bytes
    return await offload(lambda stop: _search(regex, root, base, cap, stop))


def _search(
    regex: re.Pattern[str], root: FsPath, base: Path, cap: int, stop: threading.Event
) -> list[dict[str, Any]]:
    """The search proper, in a worker thread (it ends early once `stop` is set)."""
    hits: list[dict[str, Any]] = []
    budget = MAX_SCANNED
    for rel in sorted(walk_files(root, stop, code=codes.BUILTIN_GREP_003)):
        if stop.is_set():
            break
        data = read_capped(base / rel, cap, stop=stop)
        if isinstance(data, Unreadable):
            continue  # not a regular file, or over the per-file cap: like binary, not searched
        budget -= len(data)
        if budget < 0:
            raise fail(
                codes.BUILTIN_GREP_003,
                f"the search read more than {MAX_SCANNED // MIB} MiB; point "
                "`path:` at a narrower directory",
                path=root.rel,
                reason="too_large",
                cap_bytes=MAX_SCANNED,
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # binary: not text to search
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                if len(hits) == MAX_HITS:
                    raise fail(
                        codes.BUILTIN_GREP_003,
                        f"the pattern matches more than {MAX_HITS} lines; "
                        "make it more specific or narrow `path:`",
                        path=root.rel,
                        reason="too_large",
                        cap_matches=MAX_HITS,
                    )
                hits.append({"path": rel, "line": number, "match": line})
    return hits


BUILTIN = Builtin(
    GREP,
    description=(
        "Search files recursively for a regex (RE2-compatible: no backreferences or "
        "lookaround). `path` defaults to the workflow directory. Returns [{path, line, match}] "
        "sorted by path then line number."
    ),
    run=run,
)
