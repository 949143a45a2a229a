"""`nika:write` — write one file inside the write boundary (WRITE-001..002)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nika.tools.builtins._base import Builtin, Context, fail, obj
from nika.tools.builtins._paths import judged

WRITE_001 = "NIKA-BUILTIN-WRITE-001"
WRITE_002 = "NIKA-BUILTIN-WRITE-002"


def payload(content: Any) -> bytes:
    """The bytes a `content:` value writes: bytes as-is, text as UTF-8, data as pretty JSON."""
    if isinstance(content, bytes | bytearray):
        return bytes(content)
    if isinstance(content, str):
        return content.encode("utf-8")
    return (json.dumps(content, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _atomic_write(target: Path, data: bytes) -> None:
    """Write via a sibling temp file and rename, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(target: Path, data: bytes, raw: str, code: str) -> None:
    """Write `data` atomically to `target`; an OS error fails as `code`, naming the path `raw`."""
    try:
        _atomic_write(target, data)
    except OSError as err:
        raise fail(code, f"cannot write {raw!r}: {err.strerror}", path=raw) from None


async def run(args: Mapping[str, Any], ctx: Context) -> str:
    """Write `content` to `path`; returns the path exactly as written in `path:` (stdlib
    §nika:write « returns the path »: what the author named, for the next task to read)."""
    raw = args["path"]
    path = judged(ctx, raw, "fs.write")
    if path.real.is_dir():
        raise fail(WRITE_001, f"{raw!r} is a directory; write to a file path", path=raw)
    if path.real.exists() and not args.get("overwrite", True):
        raise fail(
            WRITE_002,
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
                WRITE_001,
                f"the parent directory of {raw!r} does not exist; pass "
                "`create_dirs: true` to create it (or fix a typo'd path)",
                path=raw,
            )
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise fail(
                WRITE_001, f"cannot create the directory of {raw!r}: {err.strerror}", path=raw
            ) from None
    save(path.real, payload(args["content"]), raw, WRITE_001)
    return str(raw)


BUILTIN = Builtin(
    name="nika:write",
    description=(
        "Write `content` (text, bytes, or JSON data — written as pretty JSON) to a file under "
        "the workflow directory. `overwrite` defaults true; `create_dirs` defaults false. "
        "Returns the written path."
    ),
    schema=obj(
        {
            "path": {"type": "string", "minLength": 1},
            "content": {"description": "Text, bytes, or any JSON value."},
            "create_dirs": {"type": "boolean", "default": False},
            "overwrite": {"type": "boolean", "default": True},
        },
        ("path", "content"),
    ),
    run=run,
)
