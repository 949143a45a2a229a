"""`nika:json_diff` — the RFC 6902 JSON Patch turning `before` into `after` (JSON_DIFF-001).

Deterministic: object keys are visited in sorted order (removals, then changes, then
additions); arrays are compared index by index, surplus items removed from the end first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.data import JSON_DIFF
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._json import is_json, json_equal


def _token(key: str | int) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def diff(before: Any, after: Any, path: str = "") -> list[dict[str, Any]]:
    """The patch operations that turn `before` into `after` (empty when JSON-equal)."""
    if json_equal(before, after):
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops = [
            {"op": "remove", "path": f"{path}/{_token(k)}"}
            for k in sorted(before.keys() - after.keys())
        ]
        for k in sorted(before.keys() & after.keys()):
            ops += diff(before[k], after[k], f"{path}/{_token(k)}")
        ops += [
            {"op": "add", "path": f"{path}/{_token(k)}", "value": after[k]}
            for k in sorted(after.keys() - before.keys())
        ]
        return ops
    if isinstance(before, list) and isinstance(after, list):
        common = min(len(before), len(after))
        ops = []
        for i in range(common):
            ops += diff(before[i], after[i], f"{path}/{i}")
        ops += [
            {"op": "remove", "path": f"{path}/{i}"} for i in range(len(before) - 1, common - 1, -1)
        ]
        ops += [
            {"op": "add", "path": f"{path}/{i}", "value": after[i]}
            for i in range(common, len(after))
        ]
        return ops
    return [{"op": "replace", "path": path, "value": after}]


async def run(args: Mapping[str, Any], ctx: Context) -> list[dict[str, Any]]:
    """The RFC 6902 patch from `before` to `after`."""
    for arg in ("before", "after"):
        if not is_json(args[arg]):
            raise fail(
                codes.BUILTIN_JSON_DIFF_001,
                f"`{arg}:` is not JSON data ({type(args[arg]).__name__} "
                "inside); pass objects, arrays, strings, finite numbers, booleans, null",
            )
    return diff(args["before"], args["after"])


BUILTIN = Builtin(
    JSON_DIFF,
    description=(
        "Diff two JSON values. Returns the RFC 6902 JSON Patch (a list of add/remove/replace "
        "operations) that turns `before` into `after`."
    ),
    run=run,
)
