"""`nika:write` — write one file inside the write boundary (WRITE-001..002).

At most `Context.max_file_bytes` (32 MiB) of content, to a regular file (or a new one),
atomically and off the event loop; past the cap, or onto a FIFO or device, is WRITE-001.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.files import WRITE
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import write_bytes
from nika.tools.builtins._paths import judged


def payload(content: Any) -> bytes:
    """The bytes a `content:` value writes: bytes as-is, text as UTF-8, data as pretty JSON."""
    if isinstance(content, bytes | bytearray):
        return bytes(content)
    if isinstance(content, str):
        return content.encode("utf-8")
    return (json.dumps(content, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


async def run(args: Mapping[str, Any], ctx: Context) -> str:
    """Write `content` to `path`; returns the path exactly as written in `path:` (stdlib
    §nika:write « returns the path »: what the author named, for the next task to read)."""
    raw = args["path"]
    path = judged(ctx, raw, "fs.write")
    if path.real.is_dir():
        raise fail(
            codes.BUILTIN_WRITE_001, f"{raw!r} is a directory; write to a file path", path=raw
        )
    if path.real.exists() and not args.get("overwrite", True):
        raise fail(
            codes.BUILTIN_WRITE_002,
            f"{raw!r} already exists and `overwrite: false`; pick a new path "
            "or allow the overwrite",
            path=raw,
        )
    parent = path.real.parent
    if not parent.is_dir():
        # A declared write grant covering the path IS the intent (stdlib §nika:write, option C):
        # with a judge that allowed the write, the boundary creates the tree.
        if not (args.get("create_dirs", False) or ctx.judge is not None):
            raise fail(
                codes.BUILTIN_WRITE_001,
                f"the parent directory of {raw!r} does not exist; pass "
                "`create_dirs: true` to create it (or fix a typo'd path)",
                path=raw,
            )
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise fail(
                codes.BUILTIN_WRITE_001,
                f"cannot create the directory of {raw!r}: {err.strerror}",
                path=raw,
            ) from None
    await write_bytes(path.real, payload(args["content"]), raw, ctx.max_file_bytes,
                      code=codes.BUILTIN_WRITE_001)
    return str(raw)


BUILTIN = Builtin(
    WRITE,
    description=(
        "Write `content` (text, bytes, or JSON data — written as pretty JSON) to a file under "
        "the workflow directory. `overwrite` defaults true; `create_dirs` defaults false. "
        "Returns the written path."
    ),
    run=run,
)
