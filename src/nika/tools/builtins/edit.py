"""`nika:edit` — literal in-place find/replace inside the write boundary (EDIT-001..002).

Reads and rewrites like `nika:read` / `nika:write`: a regular UTF-8 file of at most 32 MiB,
off the event loop; anything else is EDIT-002.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.files import EDIT
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import read_bytes, write_bytes
from nika.tools.builtins._paths import judged


async def run(args: Mapping[str, Any], ctx: Context) -> str:
    """Replace every (or the first `count`) literal occurrence of `find`; returns the path.

    Two effects, both judged first: the file is read (`fs.read`), then rewritten (`fs.write`).
    """
    raw, find, replace = args["path"], args["find"], args["replace"]
    path = judged(ctx, raw, "fs.read")
    judged(ctx, raw, "fs.write")
    data = await read_bytes(path, raw, ctx.max_file_bytes, io=codes.BUILTIN_EDIT_002, missing=(
        codes.BUILTIN_EDIT_002, "nika:edit changes an existing file (create it with nika:write)"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise fail(
            codes.BUILTIN_EDIT_002, f"cannot read {raw!r}: it is not UTF-8 text", path=raw
        ) from None
    found = text.count(find)
    if found == 0:
        raise fail(
            codes.BUILTIN_EDIT_001,
            f"`find: {find!r}` matches nothing in {raw!r}; an edit that edits "
            "nothing is an authoring bug — locate the text with nika:grep",
            path=raw,
        )
    count = args.get("count")  # never 0: its declaration refuses an edit that edits nothing
    edited = text.replace(find, replace, -1 if count is None else count)
    await write_bytes(
        path.real, edited.encode("utf-8"), raw, ctx.max_file_bytes, code=codes.BUILTIN_EDIT_002
    )
    return str(raw)  # the modified path as written, like nika:write


BUILTIN = Builtin(
    EDIT,
    description=(
        "Find/replace in a file: `find` is a literal string (not a regex); every occurrence "
        "is replaced unless `count` caps it to the first N. Returns the edited path."
    ),
    run=run,
)
