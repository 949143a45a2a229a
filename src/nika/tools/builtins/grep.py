"""`nika:grep` — recursive regex search, results sorted by (path, line) (GREP-001).

The pattern is held to the portable RE2 class the stdlib names: no backreferences and no
lookaround (they compile here but not in other engines). Symlinks are not followed and
non-UTF-8 files are skipped, so a search never leaves the judged tree or returns binary junk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from nika.tools.builtins._base import Builtin, Context, fail, obj
from nika.tools.builtins._paths import judged
from nika.tools.builtins.glob import walk_files

GREP_001 = "NIKA-BUILTIN-GREP-001"
GREP_002 = "NIKA-BUILTIN-GREP-002"  # engine addition: the search root is missing
_NON_PORTABLE: Final = re.compile(r"\\[1-9]|\(\?P=|\(\?<?[=!]|\\g<")


def compile_portable(pattern: str, case_insensitive: bool) -> re.Pattern[str]:
    """Compile `pattern`, refusing syntax outside the RE2-compatible subset."""
    bad = _NON_PORTABLE.search(pattern)
    if bad:
        raise fail(
            GREP_001,
            f"`pattern: {pattern!r}` uses {bad.group()!r} (a backreference or "
            "lookaround), outside the portable RE2 subset; rewrite it without",
            pattern=pattern,
        )
    try:
        return re.compile(pattern, re.IGNORECASE if case_insensitive else 0)
    except re.error as err:
        raise fail(
            GREP_001,
            f"`pattern: {pattern!r}` is not a valid regex ({err}); fix it",
            pattern=pattern,
        ) from None


async def run(args: Mapping[str, Any], ctx: Context) -> list[dict[str, Any]]:
    """Every matching line as `{path, line, match}`."""
    regex = compile_portable(args["pattern"], args.get("case_insensitive", False))
    root = judged(ctx, args.get("path", "."), "fs.read")
    if not root.real.exists():
        raise fail(
            GREP_002,
            f"`path: {args.get('path', '.')}` does not exist; "
            "point nika:grep at an existing file or directory",
            path=root.rel,
        )
    hits: list[dict[str, Any]] = []
    base = ctx.base_dir.resolve()
    for rel in sorted(walk_files(root)):
        try:
            text = (base / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # unreadable or binary: not text to search
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                hits.append({"path": rel, "line": number, "match": line})
    return hits


BUILTIN = Builtin(
    name="nika:grep",
    description=(
        "Search files recursively for a regex (RE2-compatible: no backreferences or "
        "lookaround). `path` defaults to the workflow directory. Returns [{path, line, match}] "
        "sorted by path then line number."
    ),
    schema=obj(
        {
            "pattern": {"type": "string", "minLength": 1},
            "path": {"type": "string", "minLength": 1, "default": "."},
            "case_insensitive": {"type": "boolean", "default": False},
        },
        ("pattern",),
    ),
    run=run,
)
