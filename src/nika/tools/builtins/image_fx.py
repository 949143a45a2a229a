"""`nika:image_fx` — deterministic image effects on a PNG (stdlib §image_fx,
IMAGE_FX-001..006).

Both paths are judged by the permit gate before any I/O (`input:` as a read, `out:` as a
write). The input is read capped (`Context.max_file_bytes`), its PNG header judged — format,
then the 16384-per-side and 2^26-pixel budget — before anything inflates, and the pipeline
(`nika.media.image_fx`) runs in a worker thread with a cancellation checkpoint between ops
and inside the long ones, so a task's `timeout:` really stops it. The artifact is written
atomically; identical bytes already at `out:` are left alone (`skipped_existing: true`).
Artifact bytes never ride the output: it describes the file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.guarded_read import special_kind
from nika.media import png
from nika.media.assets import Written, sha256_hex, write_asset
from nika.media.image_fx import FxError, Render, render
from nika.stdlib._fx_ops import normalized
from nika.stdlib.media import IMAGE_FX
from nika.tools.builtins._base import Builtin, Context, fail
from nika.tools.builtins._files import offload, read_bytes
from nika.tools.builtins._paths import judged

_PNG_CODES: Final = {
    "format": codes.BUILTIN_IMAGE_FX_003,
    "corrupt": codes.BUILTIN_IMAGE_FX_004,
    "budget": codes.BUILTIN_IMAGE_FX_005,
}
_FX_CODES: Final = {"args": codes.BUILTIN_IMAGE_FX_001, "budget": codes.BUILTIN_IMAGE_FX_005}


class _Stopped(Exception):
    """The task was cancelled (its timeout, or the run stopping): the worker winds down."""


def _checkpoint(stop: threading.Event) -> Callable[[], None]:
    def check() -> None:
        if stop.is_set():
            raise _Stopped

    return check


def _rendered(source: bytes, ops: list[dict[str, dict[str, Any]]], seed: int, raw: str,
              stop: threading.Event) -> Render:
    try:
        return render(source, ops, seed, _checkpoint(stop))
    except png.PngError as err:
        raise fail(_PNG_CODES[err.kind], f"input {raw!r}: {err.detail}", path=raw,
                   reason=err.kind) from None
    except FxError as err:
        raise fail(_FX_CODES[err.kind], err.detail, reason=err.kind) from None


def _save(target: Path, data: bytes, raw: str) -> Written:
    kind = special_kind(target)
    if kind is not None or target.is_dir():
        what = kind or "a directory"
        raise fail(codes.BUILTIN_IMAGE_FX_006, f"`out: {raw!r}` is {what}, not a regular "
                   "file; name a file path", path=raw)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return write_asset(target, data)
    except OSError as err:
        raise fail(codes.BUILTIN_IMAGE_FX_006, f"cannot write {raw!r}: {err.strerror}",
                   path=raw) from None


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Render `ops` over `input` into `out`; returns the artifact's record."""
    raw_in, raw_out = str(args["input"]), str(args["out"])
    source_path = judged(ctx, raw_in, "fs.read", "input")
    out_path = judged(ctx, raw_out, "fs.write", "out")
    source = await read_bytes(
        source_path, raw_in, ctx.max_file_bytes,
        missing=(codes.BUILTIN_IMAGE_FX_002, "check the path, or produce it upstream"),
        io=codes.BUILTIN_IMAGE_FX_002,
    )
    try:
        png.read_header(source)  # format and budget, before a worker or a byte inflates
    except png.PngError as err:
        raise fail(_PNG_CODES[err.kind], f"input {raw_in!r}: {err.detail}", path=raw_in,
                   reason=err.kind) from None
    ops = normalized(args["ops"])
    seed = int(args.get("seed", 0))
    result = await offload(lambda stop: _rendered(source, ops, seed, raw_in, stop))
    written = await offload(lambda stop: _save(out_path.real, result.data, raw_out))
    return {
        "input": raw_in,
        "input_sha256": sha256_hex(source),
        "path": raw_out,
        "sha256": written.sha256,
        "size_bytes": written.bytes,
        "width": result.width,
        "height": result.height,
        "format": result.format,
        "ops_applied": ops,
        "seed": seed,
        "skipped_existing": not written.wrote,
    }


BUILTIN = Builtin(
    IMAGE_FX,
    description=(
        "Apply an ordered pipeline of deterministic pixel ops to a PNG (`input:`) and save the "
        "artifact to `out:` (.png; .txt/.ans for a final ascii op with emit text/ansi). Ops: "
        "resize, crop, levels, grayscale, palette_map, dither, duotone, pixelate, halftone, "
        "grain, vignette, chromatic_aberration, scanlines, glitch, ascii. `seed` drives grain "
        "and glitch. Returns the artifact's path, sha256, size and dimensions."
    ),
    run=run,
)
