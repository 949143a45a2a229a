"""`nika:convert` — json · yaml · toml · csv, any direction but identity (CONVERT-001..002).

`input` is text for a text format; for json/yaml/toml it may also be the structured value
itself (what an upstream task already produced). Output: `to: json` yields the VALUE (so it
binds downstream as data); yaml/toml/csv yield text. CSV is rows of objects (header line from
the keys in first-seen order) or rows of arrays; cells are strings on the way in. Text input is
capped at 32 MiB (`CONVERT-001`); parsing and rendering run off the event loop.
"""

from __future__ import annotations

import csv
import io
import json
import tomllib
from collections.abc import Mapping
from datetime import date, time
from typing import Any, Final

import tomli_w
import yaml

from nika import codes
from nika.stdlib.data import CONVERT
from nika.syntax.template import render_json
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import MIB, offload
from nika.tools.builtins._json import is_json

_FORMULA_LEAD: Final = ("=", "+", "-", "@", "\t", "\r")


def _parse(text: str, fmt: str, has_header: bool) -> Any:
    if fmt == "json":
        return json.loads(text)
    if fmt == "yaml":
        return yaml.safe_load(text)
    if fmt == "toml":
        return tomllib.loads(text)
    rows = list(csv.reader(io.StringIO(text)))
    if not has_header:
        return rows
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    return [dict(zip(header, row + [""] * (len(header) - len(row)), strict=False)) for row in body]


def _plain(value: Any) -> Any:
    """YAML and TOML timestamps become ISO 8601 strings: JSON has no date type."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, date | time):
        return value.isoformat()
    return value


def load(value: Any, fmt: str, has_header: bool) -> Any:
    """The data `value` holds in format `fmt` (CONVERT-002 when it does not parse)."""
    if not isinstance(value, str):
        if fmt == "csv":
            raise fail(
                codes.BUILTIN_CONVERT_002,
                "`from: csv` expects CSV text in `input:`, got "
                f"{type(value).__name__}; pass the text (e.g. a nika:read output)",
            )
        return value
    try:
        return _plain(_parse(value, fmt, has_header))
    except (ValueError, yaml.YAMLError, csv.Error) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise fail(
            codes.BUILTIN_CONVERT_002,
            f"`input:` does not parse as {fmt}: {first}; check `from:`",
            format=fmt,
        ) from None


def _cell(value: Any, guard: bool) -> str:
    if value is None:
        text = ""
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, int | float):
        text = json.dumps(value)
    else:
        text = render_json(value)
    if guard and text.lstrip(" ").startswith(_FORMULA_LEAD):
        return "'" + text  # CWE-1236: a spreadsheet renders a '-prefixed cell as literal text
    return text


def to_csv(data: Any, guard: bool) -> str:
    """Rows of objects (header from first-seen keys) or rows of arrays, `\\n`-terminated."""
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise fail(
            codes.BUILTIN_CONVERT_002,
            f"csv holds rows; the input is a {type(data).__name__} — pass "
            "an array of objects or of arrays",
        )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if all(isinstance(row, dict) for row in data) and data:
        header: dict[str, None] = {}
        for row in data:
            header.update(dict.fromkeys(row))
        writer.writerow([_cell(k, guard) for k in header])
        for row in data:
            writer.writerow([_cell(row.get(k), guard) for k in header])
    elif all(isinstance(row, list) for row in data):
        for row in data:
            writer.writerow([_cell(v, guard) for v in row])
    else:
        raise fail(
            codes.BUILTIN_CONVERT_002,
            "csv rows must all be objects or all be arrays; reshape the input with nika:jq",
        )
    return out.getvalue()


def dump(data: Any, fmt: str, guard: bool) -> Any:
    """`data` rendered in `fmt` (the value itself for json)."""
    if not is_json(data):
        raise fail(
            codes.BUILTIN_CONVERT_002,
            "the input holds values JSON cannot carry (bytes, NaN, "
            "non-string keys); reshape it with nika:jq first",
        )
    if fmt == "json":
        return data
    if fmt == "yaml":
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if fmt == "toml":
        if not isinstance(data, dict):
            raise fail(
                codes.BUILTIN_CONVERT_002,
                f"a TOML document is a table; the input is a "
                f"{type(data).__name__} — wrap it in an object",
            )
        try:
            return tomli_w.dumps(_without_nulls(data))
        except TypeError as err:
            raise fail(
                codes.BUILTIN_CONVERT_002, f"the input cannot be written as TOML: {err}"
            ) from None
    return to_csv(data, guard)


def _without_nulls(value: Any) -> Any:
    """TOML has no null: absent is its spelling of null."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value if v is not None]
    return value


async def run(args: Mapping[str, Any], ctx: Context) -> Any:
    """Parse `input` as `from`, render it as `to`."""
    src, dst = args["from"], args["to"]  # two formats: its declaration refuses an identity
    text = args["input"]
    if isinstance(text, str) and len(text) > ctx.max_file_bytes:
        raise fail(codes.BUILTIN_CONVERT_001, f"`input:` is {len(text)} characters, over the "
                   f"{ctx.max_file_bytes // MIB} MiB cap; convert it in parts or with `exec:`",
                   reason="too_large", cap_bytes=ctx.max_file_bytes)
    has_header, guard = args.get("has_header", True), args.get("formula_guard", False)
    # Parsing and rendering are CPU work that grows with the input: off the event loop.
    return await offload(lambda stop: dump(load(text, src, has_header), dst, guard))


BUILTIN = Builtin(
    CONVERT,
    description=(
        "Convert data between json, yaml, toml and csv (`from` → `to`, different formats). "
        "to: json returns the value; the others return text. CSV options: `has_header` "
        "(default true), `formula_guard` (prefix formula-like cells with ')."
    ),
    run=run,
)
