"""`nika:chart` — a deterministic chart artifact: rows to an SVG under the write permits
(stdlib §chart, NIKA-BUILTIN-CHART-001…008).

Rows come inline or as `{path: <json file>}` (a JSON array of flat objects, read through the
file builtins' guarded reader, capped at `Context.max_file_bytes`, and parsed row by row so a
file of more than `MAX_ROWS` rows is refused before the rest is built). Both paths — `out:`
and `data.path` — are judged by the permit gate before anything is read, rendered or written.
The `.vl.json` sibling rides `out:`'s grant (stdlib §chart: the sibling is part of the `out:`
artifact, and `nika check` infers one write effect for it): it is the entry beside the judged
`out:` file in the same directory, named from it, never a path resolved elsewhere.
The render (`nika.media.svg`) runs off the event loop and checks its stop event between
stages, so a task's `timeout:` cancels it promptly. The SVG is written atomically and not at
all when the bytes on disk are already the same (`wrote: false`).

The output record: `{path, sha256, data_sha256, width, height, bytes, wrote, warnings}` (plus
`vega_lite: {path, sha256, bytes, wrote}` with `compile_to: vega_lite`). `data_sha256` is the
sha256 of the rows' canonical JSON: every row, decimated or not.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.canonical import canonical_bytes
from nika.guarded_read import special_kind
from nika.stdlib.media import CHART
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import offload, read_bytes
from nika.tools.builtins._paths import FsPath, judged

IO: Final = codes.BUILTIN_CHART_008


class _Stopped(Exception):
    """The task was cancelled mid-render; the cancellation, not this, is the outcome."""


def _checkpoint(stop: threading.Event) -> Any:
    def check() -> None:
        if stop.is_set():
            raise _Stopped

    return check


def _no_constant(name: str) -> None:
    raise fail(codes.BUILTIN_CHART_003, f"the data file holds {name}, which is not a JSON "
               "number; a chart draws finite numbers — drop the row upstream", arg="data")


def parse_rows(raw: bytes, source: str, stop: threading.Event) -> list[Any]:
    """A JSON array of rows, decoded one row at a time: past `MAX_ROWS` rows it is refused
    (CHART-007) without building the rest."""
    from nika.media.svg import MAX_ROWS

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise fail(codes.BUILTIN_CHART_006, f"{source!r} is not UTF-8 (byte {err.start}); "
                   "the data file is a JSON array of rows", path=source) from None
    decoder = json.JSONDecoder(parse_constant=_no_constant)
    at, end = _skip(text, 0), len(text)
    if at >= end or text[at] != "[":
        raise fail(codes.BUILTIN_CHART_006, f"{source!r} does not hold a JSON array of rows "
                   "(it must start with `[`)", path=source)
    rows: list[Any] = []
    at = _skip(text, at + 1)
    try:
        while at < end and text[at] != "]":
            row, at = decoder.raw_decode(text, at)
            rows.append(row)
            if len(rows) > MAX_ROWS:
                raise fail(codes.BUILTIN_CHART_007, f"{source!r} holds more than {MAX_ROWS} "
                           "rows, the most a chart reads; aggregate upstream (jq group_by)",
                           path=source, limit=MAX_ROWS)
            if len(rows) % 65_536 == 0 and stop.is_set():
                raise _Stopped
            at = _skip(text, at)
            if at < end and text[at] == ",":
                at = _skip(text, at + 1)
            elif at < end and text[at] != "]":
                raise ValueError(f"expected `,` or `]` at character {at}")
    except ValueError as err:  # json.JSONDecodeError is one
        raise fail(codes.BUILTIN_CHART_006, f"{source!r} is not a JSON array of rows: {err}",
                   path=source) from None
    except RecursionError:  # a row nested past the decoder's depth: never a flat row
        raise fail(codes.BUILTIN_CHART_006, f"{source!r} nests a row deeper than JSON can be "
                   "read here; rows are flat objects", path=source) from None
    if at >= end or _skip(text, at + 1) != end:
        raise fail(codes.BUILTIN_CHART_006, f"{source!r} is not one JSON array of rows "
                   "(unclosed, or text after the closing `]`)", path=source)
    return rows


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


async def _rows(data: Any, ctx: Context) -> Any:
    if not isinstance(data, Mapping):
        return data
    source = data.get("path")
    if not isinstance(source, str) or set(data) != {"path"}:
        raise fail(codes.BUILTIN_CHART_004, "`data:` is the rows (a list) or "
                   "{path: <json file>}, nothing else", arg="data")
    path = judged(ctx, source, "fs.read", "data")
    raw = await read_bytes(path, source, ctx.max_file_bytes, io=IO, missing=(
        IO, "check the path, or produce the file in an upstream task"))
    return await offload(lambda stop: parse_rows(raw, source, stop))


def _target(ctx: Context, raw: str) -> FsPath:
    path = judged(ctx, raw, "fs.write", "out")
    if path.real.is_dir():
        raise fail(IO, f"`out: {raw!r}` is a directory; name the .svg file", path=raw)
    return path


def _prepare(path: FsPath, raw: str) -> None:
    kind = special_kind(path.real)
    if kind is not None:
        raise fail(IO, f"{raw!r} is {kind}, not a regular file; a chart writes regular "
                   "files only", path=raw, reason="not_regular")
    try:  # a write grant covering the path is the intent: the boundary creates the tree
        path.real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise fail(IO, f"cannot create the directory of {raw!r}: {err.strerror}",
                   path=raw) from None


def _written(path: FsPath, raw: str, data: bytes) -> dict[str, Any]:
    from nika.media.assets import write_asset

    _prepare(path, raw)
    try:
        done = write_asset(path.real, data)
    except OSError as err:
        raise fail(IO, f"cannot write {raw!r}: {err.strerror}", path=raw) from None
    return {"path": raw, "sha256": done.sha256, "bytes": done.bytes, "wrote": done.wrote}


def _work(args: Mapping[str, Any], rows: Any, out: tuple[FsPath, str],
          sibling: tuple[FsPath, str] | None, stop: threading.Event) -> dict[str, Any]:
    from nika.media import vega_lite
    from nika.media._chart_data import parse_spec
    from nika.media.svg import render

    check = _checkpoint(stop)
    shown = render(args.get("chart"), args.get("semantics"), rows, checkpoint=check)
    check()
    try:
        data_sha256 = _sha256(canonical_bytes(rows))
    except ValueError:  # a NaN or infinity in a field the chart does not draw
        raise fail(codes.BUILTIN_CHART_003, "a row holds a non-finite number (NaN or "
                   "infinity) in a field the chart does not draw; the data hash covers every "
                   "row — drop the field or the row upstream", arg="data") from None
    except RecursionError:
        raise fail(codes.BUILTIN_CHART_006, "a row nests a value deeper than the data hash "
                   "can read; rows are flat objects", arg="data") from None
    extra = None
    if sibling is not None:
        spec = parse_spec(args.get("chart"), args.get("semantics"))
        compiled = vega_lite.compile_spec(spec, rows, width=shown.width, height=shown.height)
        check()
        extra = _written(*sibling, vega_lite.to_bytes(compiled))
    svg = _written(*out, shown.svg)
    record = {**svg, "data_sha256": data_sha256, "width": shown.width,
              "height": shown.height, "warnings": list(shown.warnings)}
    if extra is not None:
        record["vega_lite"] = extra
    return record


def _sha256(data: bytes) -> str:
    from nika.media.assets import sha256_hex

    return sha256_hex(data)


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Render the chart and write it; the record describes what landed."""
    out_raw = str(args["out"])
    out = _target(ctx, out_raw)  # every path judged before any I/O
    sibling = None
    if args.get("compile_to") == "vega_lite":
        sib_raw = out_raw[: -len(".svg")] + ".vl.json"
        name = out.real.name[: -len(".svg")] + ".vl.json"
        sibling = (FsPath(out.real.with_name(name), out.rel[: -len(".svg")] + ".vl.json"),
                   sib_raw)
    rows = await _rows(args["data"], ctx)
    # a set stop event (the task cancelled) ends the work at its next checkpoint with
    # `_Stopped`, which `offload` drops: the cancellation is the outcome
    return await offload(lambda stop: _work(args, rows, (out, out_raw), sibling, stop))


BUILTIN = Builtin(
    CHART,
    description=(
        "Render rows (a list of flat objects, or {path: <json file>}) as a deterministic SVG "
        "chart at `out` (.svg): chart.type bar | line | area_band | scatter | heatmap with "
        "x, y, y_lo/y_hi, y2, color, title; `semantics` maps fields to usd, duration_ms, "
        "tokens, delta, percent, timestamp, count or category. `compile_to: vega_lite` also "
        "writes a .vl.json sibling. Returns path, sha256, data_sha256, width, height, bytes, "
        "wrote, warnings."
    ),
    run=run,
)
