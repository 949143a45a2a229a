"""`nika:json_merge_patch` — RFC 7396 merge patch: `null` deletes (JSON_MERGE_PATCH-001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.data import JSON_MERGE_PATCH
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._json import is_json


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396 §2 MergePatch(target, patch), without mutating either argument."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """`target` with `patch` merged in."""
    for arg in ("target", "patch"):
        value = args[arg]
        if not is_json(value):  # an object (its declaration says so) of JSON values
            raise fail(
                codes.BUILTIN_JSON_MERGE_PATCH_001,
                f"`{arg}:` holds values JSON cannot carry (bytes, NaN, non-string keys); "
                "reshape it with nika:jq first",
            )
    result: dict[str, Any] = merge_patch(args["target"], args["patch"])
    return result


BUILTIN = Builtin(
    JSON_MERGE_PATCH,
    description=(
        "Apply an RFC 7396 merge patch: keys in `patch` overwrite `target` recursively and a "
        "`null` value deletes the key. Both must be objects. Returns the merged object."
    ),
    run=run,
)
