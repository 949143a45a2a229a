"""`nika:jq` — THE data language: one jq expression over any JSON input (JQ-001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.errors import NikaError
from nika.stdlib.data import JQ
from nika.syntax.binding import apply_jq
from nika.tools.builtins._base import Builtin, Context, fail


async def run(args: Mapping[str, Any], ctx: Context) -> Any:
    """The expression's single output. Compile errors keep `NIKA-VAR-005` (the static code);
    a runtime failure or a 0/N-output stream is JQ-001."""
    expression = args["expression"]
    try:
        return apply_jq(expression, args.get("input"))
    except NikaError as err:
        if err.code == codes.VAR_005:
            raise
        raise fail(codes.BUILTIN_JQ_001, err.detail, expression=expression) from None


BUILTIN = Builtin(
    JQ,
    description=(
        "Run one jq `expression` over `input` (any JSON value; build an array to combine "
        "several). The expression must produce exactly one value (wrap streams in [...])."
    ),
    run=run,
)
