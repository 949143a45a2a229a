"""`nika:decide` — the decision kernel (spec 11, `nika.decide`) as a pure builtin.

`bundle:` is the Decision Bundle inline (a map) or the path of its JSON file: a path is read
like any declared `fs.read` (judged by the permits first; regular files only, capped, off the
loop), an inline bundle touches no file system. `evidence:` is the EvidenceSnapshot. The
value is the full Decision Receipt (`decision_receipt_format: 1`); a `returns:` on the task
types it by that shape (`outcome`, `determination_provenance`, `dimensions`, …).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.decide import evaluate
from nika.decide.bundle import load
from nika.stdlib.media import DECIDE
from nika.tools.builtins._base import Builtin, Context
from nika.tools.builtins._files import read_bytes
from nika.tools.builtins._paths import judged


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The receipt of `evidence` under `bundle` (NIKA-DECIDE-001 / -002 when refused)."""
    bundle = args["bundle"]
    if isinstance(bundle, str):
        bundle = await _read(ctx, bundle)
    return evaluate(bundle, args["evidence"])


async def _read(ctx: Context, raw: str) -> Any:
    path = judged(ctx, raw, "fs.read", arg="bundle")
    data = await read_bytes(path, raw, ctx.max_file_bytes, io=codes.DECIDE_001, missing=(
        codes.DECIDE_001, "write the bundle's JSON file there, or pass the bundle inline"))
    return load(data, raw)


BUILTIN = Builtin(
    DECIDE,
    description=(
        "Apply a Decision Bundle (inline, or the path of its JSON file) to an evidence snapshot "
        "{t, evidence: [{key, value, source, integrity, digest}]} and return the Decision "
        "Receipt: outcome (recommend · defer · human_required), per-dimension contributions "
        "and intervals, conflicts, determination provenance. Deterministic; the model never "
        "decides."
    ),
    run=run,
)
