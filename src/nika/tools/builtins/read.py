"""`nika:read` — read one file inside the read boundary (READ-001..003).

Regular files only, at most `Context.max_file_bytes` (32 MiB), read off the event loop: a FIFO,
device or directory, or a larger file, is `NIKA-BUILTIN-READ-002` before anything is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.files import READ
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import read_bytes
from nika.tools.builtins._paths import judged


async def run(args: Mapping[str, Any], ctx: Context) -> str | bytes:
    """The file's text (default) or, with `binary: true`, its opaque bytes."""
    raw = args["path"]
    encoding = args.get("encoding", "utf-8")  # a known one: its declaration judged it
    path = judged(ctx, raw, "fs.read")
    data = await read_bytes(path, raw, ctx.max_file_bytes, io=codes.BUILTIN_READ_002, missing=(
        codes.BUILTIN_READ_001, "check the path, or scope a first-run recovery to this code"))
    if args.get("binary", False):
        return data
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        raise fail(
            codes.BUILTIN_READ_003,
            f"{raw!r} is not valid {encoding} (byte {err.start}); read it with `binary: true`",
            path=raw,
        ) from None


BUILTIN = Builtin(
    READ,
    description=(
        "Read a file under the workflow directory. Returns its text (utf-8 unless `encoding` "
        "says otherwise), or opaque bytes with `binary: true`."
    ),
    run=run,
)
