"""`nika:uuid` — a UUID string: v7 (time-ordered, RFC 9562, the default) or v4 (random)."""

from __future__ import annotations

import uuid as std_uuid
from collections.abc import Mapping
from typing import Any

from nika.stdlib.data import UUID
from nika.tools.builtins._base import Builtin, Context


def uuid7(unix_ms: int, rand: bytes) -> std_uuid.UUID:
    """RFC 9562 §5.7: 48-bit ms timestamp · version 7 · 12 random bits · variant · 62 bits."""
    value = (unix_ms & (2**48 - 1)) << 80
    value |= 0x7 << 76
    value |= (int.from_bytes(rand[:2], "big") & 0xFFF) << 64
    value |= 0b10 << 62
    value |= int.from_bytes(rand[2:10], "big") & (2**62 - 1)
    return std_uuid.UUID(int=value)


async def run(args: Mapping[str, Any], ctx: Context) -> str:
    """The canonical lower-case hyphenated form."""
    if args.get("version", "v7") == "v4":
        return str(std_uuid.UUID(bytes=ctx.random_bytes(16), version=4))
    unix_ms = int(ctx.now().timestamp() * 1000)
    return str(uuid7(unix_ms, ctx.random_bytes(10)))


BUILTIN = Builtin(
    UUID,
    description="Generate a UUID: `version` v7 (time-ordered, default) or v4 (random).",
    run=run,
)
